"""猫有n条命 (`ninelives`) for people: events as sentences, choices as form labels, refusals as
sentences a player can read, and the public facts of a seat for the game's home page.

The machinery (games/presenters/__init__.py) calls:
    present(event, names) -> str | None   an engine event, or the confirmation of a step
                                          (then `kind` is the step's kind, `data` its params)
    label(choice, names) -> str | None    how the action form offers a `Choice`
    refusal(refusal) -> str | None        a `Refusal` as a sentence for the player
and, optionally,
    seat_facts(view, number) -> str       what everyone knows about one seat ("已丢：中立、杀手 · 存活")
    phase_label(name) -> str | None       a kind of phase ("夜", "白天", "生死投票")
    phase_name(name, number, round)       one phase ("第1夜", "第1天", "第1天的生死投票")
    ANNOUNCE_AT_ONCE                      public kinds a step announces at once (none here)
`names` maps a seat index to its player's display name. Sentences are English msgids
translated through the one catalogue (locale/zh_Hans/LC_MESSAGES/django.po);
short msgids (under 45 characters), which another rule set could translate differently,
carry the context "ninelives". Card and camp names come from the engine's card table
(games/engine/ninelives/cards.py): Chinese when the active language is Chinese, the
glossary's code names otherwise.
Returning None (an event kind not in EVENTS, e.g. a GM's own log entry) uses the generic
text; a malformed event of a known kind is an error, not a silent fallback.

What a sentence may say is decided by the event's visibility, which the engine sets, and the
sentences here only restate the event's own data:
1. a public `card_lost` names the seat, the camp of the lost card and the cause, never the
   card (§5.8); the card itself is only in the seat's own `own_card_lost`;
2. private results (hand, investigations, own losses, voided powers, the free agent's camp,
   the loss order) are written to the seat ("you", "your");
3. GM-only events (`loss_explained`, `action_resolved`, `count`, `chance`, ...) add the
   engine's `because` chain, which names every card and seat involved (for a reader of
   English; other readers get it apart, translated).
The engine's reasons (`because` chains, refusals, results, the rules a typed-in deal breaks)
are codes with typed arguments (games/engine/ninelives/reasons.py); `REASONS` at the end of
this module has the sentence of each code.

Seats are numbered from 1 in every sentence ("3号阿狗" in Chinese).
"""

from __future__ import annotations

from django.utils.text import capfirst
from django.utils.translation import get_language, gettext_noop, pgettext
from django.utils.translation import gettext as _

from messaging.words import words_block

from ..engine.ninelives import reasons
from ..engine.ninelives.cards import CAMP_NAMES_ZH, CARDS
from ..engine.ninelives.common import SILENT
from ..engine.reasons import CAMP, CARD, PHASE, SEAT, SEATS
from ..engine.reasons import CARDS as CARD_LIST
from .base import TallyRow, VoteTally, sentences
from .interface import Presenter
from .reasons import ReasonTexts

# --- small pieces --------------------------------------------------------------------------

def chinese() -> bool:
    """Whether the active language is Chinese (then cards and camps use the Chinese names)."""
    return (get_language() or "").lower().startswith("zh")


def card_name(code) -> str:
    """A card in the reader's language: 狙击手 in Chinese, SNIPER (the glossary) otherwise."""
    entry = CARDS.get(code) if isinstance(code, str) else None
    if entry is None:
        return str(code)
    return entry[2] if chinese() else code


def param_label(key: str, value) -> str | None:
    """A step's card, cards or camp for the console's pickers, in the reader's language."""
    if key == "card":
        return card_name(value)
    if key == "cards" and isinstance(value, list):
        return " → ".join(card_name(c) for c in value)
    if key == "camp":
        return camp_name(value)
    return None


def camp_name(camp) -> str:
    """A camp in the reader's language: 平民 / civilian, 自选立场者 / free agent."""
    if chinese():
        return CAMP_NAMES_ZH.get(camp, str(camp))
    return {"free_agent": "free agent"}.get(camp, str(camp))


def final_camp(view: dict, number: int) -> str:
    """The camp seat `number` played, from the GM's view after the end (the profile's
    archive; a free agent's chosen camp)."""
    private = view.get("private") or []
    return camp_name(private[number]["camp"]) if number < len(private) else ""


def card_camp(code) -> str:
    """The camp a card belongs to, in the reader's language."""
    entry = CARDS.get(code) if isinstance(code, str) else None
    return camp_name(entry[0]) if entry else ""


def listing(items) -> str:
    """Items joined the reader's way ("A、B" in Chinese, "A, B" in English)."""
    return pgettext("ninelives", ", ").join(items)


def cards_text(codes) -> str:
    return listing(card_name(c) for c in codes or []) or pgettext("ninelives", "none")


def order_text(codes) -> str:
    """A loss order, first lost first: "A → B → C"."""
    return " → ".join(card_name(c) for c in codes or [])


def who(names: dict[int, str], seat) -> str:
    """A seat as its number and its player's name: "3号阿狗" / "seat 3 阿狗"."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return str(seat)
    name = names.get(seat)
    if not name:
        return pgettext("ninelives", "seat %(n)d") % {"n": seat + 1}
    return pgettext("ninelives", "seat %(n)d %(name)s") % {"n": seat + 1, "name": name}


def name_of(names: dict[int, str], seat) -> str:
    """A seat in a vote ("投票给 2号阿狗") and in a tally's lists of voters: named as
    everywhere else in text (`who`)."""
    return who(names, seat)


def seats_text(seats, names: dict[int, str]) -> str:
    return listing(who(names, s) for s in seats or []) or pgettext("ninelives", "nobody")


def phase_text(phase: dict) -> str:
    """"第2夜" / "night 2", "第2天" / "day 2", "第2天的决选" / "the runoff of day 2"."""
    n = phase.get("number", 0)
    texts = {
        "night": pgettext("ninelives", "night %(n)d"),
        "day": pgettext("ninelives", "day %(n)d"),
        "runoff": pgettext("ninelives", "the runoff of day %(n)d"),
    }
    return texts.get(phase.get("name"), str(phase.get("name"))) % {"n": n}


def cause_text(cause) -> str:
    """Why a card was lost, as the public may know it (§5.8: the cause, never the card)."""
    texts = {
        "attack": pgettext("ninelives", "attacked at night"),
        "strike": pgettext("ninelives", "hit by %(card)s") % {"card": card_name("STRIKE")},
        "bomb": pgettext("ninelives", "hit by %(card)s") % {"card": card_name("BOMB")},
        "execution": pgettext("ninelives", "executed by the vote"),
        "saint": pgettext("ninelives", "voted to execute a %(card)s") % {
            "card": card_name("SAINT")},
        "failed_protection": pgettext("ninelives", "a protection failed two nights running"),
    }
    return texts.get(cause, str(cause))


def tally_parts(data: dict) -> tuple[dict, list]:
    """(tally, adjustments) of a vote result. The engine gives them flat ({"tally": {...},
    "adjustments": [...]}) or, for an execution announced after a night, nested one level
    deeper in "tally"; both read the same here."""
    tally = data.get("tally") or {}
    adjustments = data.get("adjustments") or []
    if isinstance(tally.get("tally"), dict):
        adjustments = tally.get("adjustments") or adjustments
        tally = tally["tally"]
    return tally, adjustments


def tally_text(data: dict, names: dict[int, str]) -> str:
    """"1号阿猫 3票、2号阿狗 1票（诅咒/庇佑：2号阿狗 +1）": the count, most votes first."""
    tally, adjustments = tally_parts(data)
    rows = sorted(((int(s), v) for s, v in tally.items()), key=lambda sv: (-sv[1], sv[0]))
    text = listing(pgettext("ninelives", "%(seat)s: %(votes)d") % {
        "seat": who(names, s), "votes": v} for s, v in rows) or pgettext(
        "ninelives", "no votes")
    if adjustments:
        text += " " + pgettext("ninelives", "(%(curse)s and %(bless)s included: %(list)s)") % {
            "curse": card_name("CURSE"), "bless": card_name("BLESS"),
            "list": listing(f"{who(names, a['target'])} {a['delta']:+d}" for a in adjustments)}
    return text


def quote(text, author: str) -> str:
    """A player's own words, by `author`, as a plain-text block that no Markdown in them
    can turn into a heading, rule, image or link (messaging/words.py)."""
    return words_block(text, author)


def with_chain(text: str, event: dict, names: dict[int, str]) -> str:
    """A GM-only sentence followed by the engine's chain of causes, for a reader of English.
    A reader of another language gets the sentence only: the timeline and the console list
    the chain apart, translated (presenters.explanation), so it is never shown twice."""
    reasons_ = event.get("because") or []
    if not reasons_ or not (get_language() or "").lower().startswith("en"):
        return text
    return text + "\n\n" + "\n".join(f"- {reason_text(b, names)}" for b in reasons_)


# --- public events -------------------------------------------------------------------------

def _phase_started(d, names, event):
    phase = d["phase"]
    n = phase["number"]
    if phase["name"] == "night":
        text = _("Night %(n)d begins: each living seat may use one card, or none.") % {"n": n}
        if n == 1:
            text += " " + _("Send your loss order before the night ends (a card of your camp "
                            "last); the free agent chooses its camp tonight.")
        return text
    if phase["name"] == "runoff":
        text = _("The runoff of day %(n)d: every living seat votes for one of %(seats)s.") % {
            "n": n, "seats": seats_text(d.get("candidates"), names)}
        if d.get("no_vote"):
            text += " " + pgettext("ninelives", "%(seats)s may not vote in it.") % {
                "seats": seats_text(d["no_vote"], names)}
        return text
    text = _("Day %(n)d begins: every living seat votes for one seat to execute.") % {"n": n}
    if d.get("no_vote"):
        text += " " + _("Saved last night, %(seats)s may talk but not vote today.") % {
            "seats": seats_text(d["no_vote"], names)}
    return text


def _phase_ended(d, names, event):
    phase = d["phase"]
    if phase["name"] == "night":
        return _("Night %(n)d is over; its card uses take effect now.") % {
            "n": phase["number"]}
    return pgettext("ninelives", "The vote of %(phase)s is closed.") % {"phase": phase_text(phase)}


def _vote_cast(d, names, event):
    if d.get("runoff"):
        return _("%(voter)s votes for %(target)s in the runoff.") % {
            "voter": who(names, d["seat"]), "target": who(names, d["target"])}
    return pgettext("ninelives", "%(voter)s votes for %(target)s.") % {
        "voter": who(names, d["seat"]), "target": who(names, d["target"])}


def _proxy_vote_published(d, names, event):
    return _("神的使者 casts the proxy vote of %(voter)s for %(target)s.") % {
        "voter": who(names, d["seat"]), "target": who(names, d["target"])}


def _vote_void(d, names, event):
    return _("%(seat)s was hit by %(card)s today: its vote does not count.") % {
        "seat": who(names, d["seat"]), "card": card_name("BOMB")}


def _runoff_started(d, names, event):
    return _("%(seats)s are tied with the most votes: a runoff among them follows, without "
             "%(curse)s or %(bless)s. The count: %(tally)s.") % {
        "seats": seats_text(d["candidates"], names), "tally": tally_text(d, names),
        "curse": card_name("CURSE"), "bless": card_name("BLESS")}


def _vote_closed(d, names, event):
    return _("The vote of day %(day)d executed a seat. A %(card)s may still spare it, so the "
             "seat and the camp of its lost card are announced when night %(next)d ends.") % {
        "day": d["day"], "next": d["day"] + 1, "card": card_name("PARDON")}


def _no_execution(d, names, event):
    return pgettext("ninelives", "Nobody is executed. The count: %(tally)s.") % {
        "tally": tally_text(d, names)}


def _execution(d, names, event):
    return _("%(seat)s is executed by the vote of day %(day)d (the count: %(tally)s) and loses "
             "a card.") % {"seat": who(names, d["seat"]), "day": d["day"],
                           "tally": tally_text(d, names)}


def _pardoned(d, names, event):
    return _("%(seat)s was executed by the vote of day %(day)d (the count: %(tally)s), but a "
             "%(card)s spared it: it loses no card.") % {
        "seat": who(names, d["seat"]), "day": d["day"], "tally": tally_text(d, names),
        "card": card_name("PARDON")}


def _saint_fired(d, names, event):
    return _("%(seat)s had used a %(card)s: every seat that voted to execute it loses a card: "
             "%(voters)s.") % {"seat": who(names, d["seat"]), "card": card_name("SAINT"),
                               "voters": seats_text(d["voters"], names)}


def _manifesto(d, names, event):
    if d.get("story"):
        head = _("An attack on %(seat)s was made tonight. The attacker's story, published "
                 "without its author:") % {"seat": who(names, d["target"])}
    else:
        head = _("An attack on %(seat)s was made tonight. Its manifesto, published without "
                 "its author:") % {"seat": who(names, d["target"])}
    return head + "\n\n" + quote(d.get("text"), pgettext("ninelives", "author not named"))


def _protected(d, names, event):
    return _("%(seat)s was attacked and saved: it lost no card, and may talk but not vote "
             "today.") % {"seat": who(names, d["seat"])}


def _attack_failed(d, names, event):
    return pgettext("ninelives", "%(seat)s was attacked and lost no card.") % {
        "seat": who(names, d["seat"])}


def _card_lost(d, names, event):
    # §5.8: the camp of the lost card and the cause, never the card itself.
    return _("%(seat)s lost a card of the %(camp)s camp (%(cause)s).") % {
        "seat": who(names, d["seat"]), "camp": camp_name(d["camp"]),
        "cause": cause_text(d.get("cause"))}


def _seat_died(d, names, event):
    if d.get("cause") == "foul_out":
        return _("%(seat)s is out of the game and counts as dead; it was of the %(camp)s "
                 "camp.") % {"seat": who(names, d["seat"]), "camp": camp_name(d["camp"])}
    return _("%(seat)s has no card left and is dead; it was of the %(camp)s camp.") % {
        "seat": who(names, d["seat"]), "camp": camp_name(d["camp"])}


def _foul_reason(reason) -> str:
    if reason == SILENT:
        return pgettext("ninelives", "it neither voted nor sent a proxy vote")
    return str(reason or "")


def _foul_out(d, names, event):
    return _("%(seat)s is out of the game for a foul: %(reason)s.") % {
        "seat": who(names, d["seat"]), "reason": _foul_reason(d.get("reason"))}


def _reorder_window(d, names, event):
    return _("%(total)d cards have been lost in all: every living seat may send a new loss "
             "order until the end of %(phase)s. The core card stays last; silence keeps the "
             "old order.") % {"total": d["total_lost"], "phase": phase_text(d["until"])}


def _result_text(result) -> str:
    texts = {
        "civilian": pgettext("ninelives", "the civilians win"),
        "killer": pgettext("ninelives", "the killer wins"),
        "wolf": pgettext("ninelives", "the wolf wins"),
        "draw": pgettext("ninelives", "a draw"),
        "aborted": pgettext("ninelives", "ended without a result"),
    }
    return texts.get(result, str(result))


def draw_text(o, names) -> str:
    """A draw said plainly (docs/rules/ninelives.md §6): why, then who shares the prize. A
    draw has no winners as such: §10.4 shares the prize among every seat of each camp that
    still had a living seat when the last phase began, fouled-out seats included (a foul-out
    counts as a death, I20), so when every seat fouled out at once, every seat shares."""
    reason = o.get("reason") or {}
    if reason.get("code") == "stalemate_draw":
        why = _("A draw: only %(seats)s are left, and neither can cost the other a card.") % {
            "seats": seats_text((reason.get("args") or {}).get("seats"), names)}
    else:
        why = _("A draw: no seat is left in the game (a seat that fouled out is out too).")
    share = _("In a draw every seat of each camp that still had a living seat when the last "
              "phase began shares the prize (§10.4): %(seats)s.") % {
        "seats": seats_text(o.get("winners") or [], names)}
    return sentences(why, share)


def outcome(o, names, view=None) -> str:
    """The result for the game's home page and the review: who won, and the winners (a
    draw: why, and who shares the prize, `draw_text`)."""
    if o.get("result") == "draw":
        return draw_text(o, names)
    text = _("%(result)s. Winners: %(winners)s.") % {
        "result": _result_text(o.get("result")),
        "winners": seats_text(o.get("winners") or [], names)}
    return text[:1].upper() + text[1:]  # "The civilians win. …" in English


def _game_over(d, names, event):
    """The result, the winners, then the whole reveal: every seat's camp and remaining hand,
    and the four tainted cards (§3.5.1: secret until the end)."""
    if d["result"] == "draw":
        parts = [sentences(_("The game is over."), draw_text(
            {"winners": d["winners"], "reason": (event.get("because") or [{}])[0]}, names))]
    else:
        parts = [_("The game is over: %(result)s. Winners: %(winners)s.") % {
            "result": _result_text(d["result"]), "winners": seats_text(d["winners"], names)}]
    reveal = d.get("reveal") or {}
    camps, hands = reveal.get("camps") or [], reveal.get("hands") or []
    rows = ["- " + _("%(seat)s: %(camp)s camp; cards left: %(cards)s") % {
        "seat": who(names, seat), "camp": camp_name(camp),
        "cards": cards_text(hands[seat] if seat < len(hands) else [])}
        for seat, camp in enumerate(camps)]
    if rows:
        parts.append("\n".join(rows))
    taints = reveal.get("taints") or {}
    if taints:
        parts.append(_("Secret taints: %(killer)s answered as the killer camp, %(wolf)s as the "
                       "wolf camp.") % {"killer": cards_text(taints.get("killer")),
                                        "wolf": cards_text(taints.get("wolf"))})
    return "\n\n".join(parts)


def _game_aborted(d, names, event):
    return _("The GM ended the game without a result: %(reason)s") % {
        "reason": d.get("reason") or ""}


# --- private events (written to the seat) ---------------------------------------------------

def _hand_dealt(d, names, event):
    text = _("Your camp: **%(camp)s**. Your hand: %(cards)s.") % {
        "camp": camp_name(d["camp"]), "cards": cards_text(d["cards"])}
    if d["camp"] == "free_agent":
        text += " " + _("You are the free agent: choose a camp tonight, among the camps your "
                        "cards allow; then send your loss order.")
    else:
        text += " " + _("Send your loss order tonight: every card once, the first to be lost "
                        "first, and a card of your camp last (your core card).")
    return text


def _use_text(card, target, names) -> str:
    """"使用 狙击手 → 3号阿狗" / "使用 防弹衣": a card use, as labels and confirmations show it."""
    if target is None:
        return pgettext("ninelives", "Use %(card)s") % {"card": card_name(card)}
    return pgettext("ninelives", "Use %(card)s → %(target)s") % {
        "card": card_name(card), "target": who(names, target)}


def _card_chosen(d, names, event):
    text = _("You chose: %(use)s. It takes effect when the phase ends and may be changed or "
             "withdrawn until then.") % {"use": _use_text(d["card"], d.get("target"), names)}
    if d.get("text") is not None:
        if d.get("story"):
            text += " " + pgettext("ninelives", "(with your own story)")
        else:
            text += " " + pgettext("ninelives", "(with a manifesto of %(n)d characters)") % {
                "n": len(d["text"])}
    return text


def _withdrawn(d, names, event):
    return pgettext("ninelives", "You withdrew this phase's card use.")


def _passed(d, names, event):
    return pgettext("ninelives", "You will use no card tonight.")


def _loss_order_set(d, names, event):
    cards = d["cards"]
    if d.get("by") == "random":
        return _("You sent no loss order during night 1, so one was drawn at random, with a "
                 "card of your camp last: %(order)s.") % {"order": order_text(cards)}
    return _("Your loss order: %(order)s. Your core card %(core)s is lost last.") % {
        "order": order_text(cards), "core": card_name(cards[-1])}


def _camp_chosen(d, names, event):
    if d.get("by") == "default":
        return _("You chose no camp during night 1, so you joined the %(camp)s camp (the GM's "
                 "default, or drawn at random).") % {"camp": camp_name(d["camp"])}
    return _("You joined the %(camp)s camp; the choice is final.") % {
        "camp": camp_name(d["camp"])}


def _proxy_vote_received(d, names, event):
    return _("神的使者 holds your proxy vote for %(target)s: it counts after all other votes, "
             "can be changed until the count, and is void if you vote in person.") % {
        "target": who(names, d["target"])}


def _proxy_void(d, names, event):
    return _("You voted in person, so your proxy vote is void.")


def _investigation(d, names, event):
    answer = "**%s**" % (pgettext("ninelives", "yes") if d["found"]
                         else pgettext("ninelives", "no"))
    return _("Your %(card)s asked whether %(target)s holds %(asked)s: the answer is "
             "%(answer)s.") % {"card": card_name(d["card"]), "target": who(names, d["target"]),
                               "asked": card_name(d["asked"]), "answer": answer}


def _power_voided(d, names, event):
    return _("Your %(card)s had no effect tonight: a %(jail)s or a %(bomb)s voided your "
             "powers.") % {"card": card_name(d["card"]), "jail": card_name("JAIL"),
                           "bomb": card_name("BOMB")}


def _attack_dropped(d, names, event):
    return _("The GM rejected the manifesto of your %(card)s on %(target)s and no new one came "
             "before the night ended, so the attack did not happen.") % {
        "card": card_name(d["card"]), "target": who(names, d["target"])}


def _manifesto_rejected(d, names, event):
    text = pgettext("ninelives", "The GM rejected your manifesto.")
    if d.get("reason"):
        text += " " + pgettext("ninelives", "Reason: %(reason)s") % {"reason": d["reason"]}
    return text + " " + _("Send the attack again with an acceptable text before the night "
                          "ends, or it will not happen.")


def _own_card_lost(d, names, event):
    return _("You lost your %(card)s (%(camp)s camp), the first card of your loss order: "
             "%(cause)s.") % {"card": card_name(d["card"]), "camp": camp_name(d["camp"]),
                              "cause": cause_text(d.get("cause"))}


def _saint_armed(d, names, event):
    return _("Your %(card)s is armed for day %(day)d: if you are executed that day, every seat "
             "that voted for you loses a card.") % {"card": card_name("SAINT"), "day": d["day"]}


def _saint_spent(d, names, event):
    return pgettext("ninelives", "Your %(card)s fired and is now a dead card.") % {
        "card": card_name("SAINT")}


def _bomb_spent(d, names, event):
    return _("Your %(card)s went off and is gone from your hand; nobody is told who used "
             "it.") % {"card": card_name("BOMB")}


# --- GM-only events (with the chain of causes) ----------------------------------------------

def _chance(d, names, event):
    purpose = d.get("purpose")
    if purpose == "deal":
        text = pgettext("ninelives", "The dealer drew a valid deal at random.")
    elif purpose == "loss_order":
        text = _("%(seat)s sent no loss order; one was drawn: %(order)s.") % {
            "seat": who(names, d["seat"]), "order": order_text(d["result"])}
    elif purpose == "free_agent_camp":
        text = _("The camp of the free agent %(seat)s was drawn: %(camp)s.") % {
            "seat": who(names, d["seat"]), "camp": camp_name(d["result"])}
    else:
        text = pgettext("ninelives", "A random draw: %(purpose)s.") % {"purpose": purpose}
    return with_chain(text, event, names)


RESOLVED = {
    "void": lambda: pgettext("ninelives", "void"),
    "blocked": lambda: pgettext("ninelives", "landed: the target's powers are void tonight"),
    "yes": lambda: pgettext("ninelives", "answered yes"),
    "no": lambda: pgettext("ninelives", "answered no"),
    "waiting": lambda: pgettext("ninelives", "counts at the day's vote"),
    "lost": lambda: pgettext("ninelives", "the target loses a card"),
    "stopped": lambda: pgettext("ninelives", "stopped, no loss"),
    "saved": lambda: pgettext("ninelives", "saved, no loss"),
    "pardoned": lambda: pgettext("ninelives", "the executed seat is spared"),
    "nothing": lambda: pgettext("ninelives", "nobody to pardon"),
}


def _action_resolved(d, names, event):
    result = RESOLVED.get(d.get("result"))
    return with_chain(pgettext("ninelives", "%(use)s of %(seat)s: %(result)s.") % {
        "use": _use_text(d["card"], d.get("target"), names), "seat": who(names, d["seat"]),
        "result": result() if result else d.get("result")}, event, names)


def _loss_explained(d, names, event):
    if d.get("card") is None:
        text = _("%(seat)s had no card left to lose (%(cause)s).") % {
            "seat": who(names, d["seat"]), "cause": cause_text(d.get("cause"))}
    else:
        text = _("%(seat)s loses %(card)s (%(camp)s camp): %(cause)s.") % {
            "seat": who(names, d["seat"]), "card": card_name(d["card"]),
            "camp": camp_name(d.get("camp") or CARDS[d["card"]][0]),
            "cause": cause_text(d.get("cause"))}
    return with_chain(text, event, names)


def _count(d, names, event):
    if d.get("runoff"):
        text = pgettext("ninelives", "The count of the runoff: %(tally)s.")
    else:
        text = pgettext("ninelives", "The count of the day vote: %(tally)s.")
    return with_chain(text % {"tally": tally_text(d, names)}, event, names)


def _execution_pending(d, names, event):
    return with_chain(_("%(seat)s is executed by the vote of day %(day)d; it is announced when "
                        "the next night ends, unless a %(card)s spares it.") % {
        "seat": who(names, d["seat"]), "day": d["day"], "card": card_name("PARDON")},
        event, names)


def _camp_default_set(d, names, event):
    return _("If %(seat)s chooses no camp by the end of night 1, it joins the %(camp)s camp.") % {
        "seat": who(names, d["seat"]), "camp": camp_name(d["camp"])}


def _foul_out_cards(d, names, event):
    return pgettext("ninelives", "%(seat)s still held: %(cards)s.") % {
        "seat": who(names, d["seat"]), "cards": cards_text(d["cards"])}


EVENTS = {
    # public
    "phase_started": _phase_started, "phase_ended": _phase_ended, "vote_cast": _vote_cast,
    "proxy_vote_published": _proxy_vote_published, "vote_void": _vote_void,
    "runoff_started": _runoff_started, "vote_closed": _vote_closed,
    "no_execution": _no_execution, "execution": _execution, "pardoned": _pardoned,
    "saint_fired": _saint_fired, "manifesto": _manifesto, "protected": _protected,
    "attack_failed": _attack_failed, "card_lost": _card_lost, "seat_died": _seat_died,
    "foul_out": _foul_out, "reorder_window": _reorder_window, "game_over": _game_over,
    "game_aborted": _game_aborted,
    # to one seat
    "hand_dealt": _hand_dealt, "card_chosen": _card_chosen, "withdrawn": _withdrawn,
    "passed": _passed, "loss_order_set": _loss_order_set, "camp_chosen": _camp_chosen,
    "proxy_vote_received": _proxy_vote_received, "proxy_void": _proxy_void,
    "investigation": _investigation, "power_voided": _power_voided,
    "attack_dropped": _attack_dropped, "manifesto_rejected": _manifesto_rejected,
    "own_card_lost": _own_card_lost, "saint_armed": _saint_armed, "saint_spent": _saint_spent,
    "bomb_spent": _bomb_spent,
    # GM only
    "chance": _chance, "action_resolved": _action_resolved, "loss_explained": _loss_explained,
    "count": _count, "execution_pending": _execution_pending,
    "camp_default_set": _camp_default_set, "foul_out_cards": _foul_out_cards,
}


# --- steps: the confirmation of what a player sent, and the form's labels ------------------

def _use_step(d, names, text_fields=()):
    if "card" not in d:  # the act form's one card-use option: card and target are picked
        return pgettext("ninelives", "Use a card on a seat: choose the card and its target "
                                     "below")
    text = _use_text(d["card"], d.get("target"), names)
    if "story" in d or "story" in text_fields:
        text += " " + pgettext("ninelives", "(with a story of your own)")
    elif "manifesto" in d or "manifesto" in text_fields:
        text += " " + _("(with a manifesto of at least 100 characters)")
    return text


def _withdraw_step(d, names, text_fields=()):
    return pgettext("ninelives", "Withdraw this phase's card use")


def _pass_step(d, names, text_fields=()):
    return pgettext("ninelives", "Use no card tonight")


def _loss_order_step(d, names, text_fields=()):
    cards = d["cards"]
    return _("Loss order: %(order)s (core card %(core)s last)") % {
        "order": order_text(cards), "core": card_name(cards[-1])}


def _choose_camp_step(d, names, text_fields=()):
    return pgettext("ninelives", "Join the %(camp)s camp (final)") % {"camp": camp_name(d["camp"])}


def _vote_step(d, names, text_fields=()):
    return pgettext("ninelives", "Vote for %(name)s") % {"name": name_of(names, d["target"])}


def _proxy_vote_step(d, names, text_fields=()):
    return pgettext("ninelives", "Proxy vote through 神的使者 for %(name)s") % {
        "name": name_of(names, d["target"])}


def _reject_step(d, names, text_fields=()):
    return pgettext("ninelives", "Reject the manifesto of %(seat)s") % {
        "seat": who(names, d["seat"])}


def _camp_for_step(d, names, text_fields=()):
    return _("Default camp of the free agent %(seat)s: %(camp)s") % {
        "seat": who(names, d["seat"]), "camp": camp_name(d["camp"])}


def _foul_step(d, names, text_fields=()):
    return pgettext("ninelives", "Put %(seat)s out of the game for a foul") % {
        "seat": who(names, d["seat"])}


def _abort_step(d, names, text_fields=()):
    return pgettext("ninelives", "End the game without a result")


STEPS = {
    "use_card": _use_step, "withdraw": _withdraw_step, "pass": _pass_step,
    "loss_order": _loss_order_step, "choose_camp": _choose_camp_step, "vote": _vote_step,
    "proxy_vote": _proxy_vote_step, "reject_manifesto": _reject_step,
    "choose_camp_for": _camp_for_step, "abort": _abort_step,
}
# A GM's `foul_out` step and the public `foul_out` event share a kind: the event wins in
# `present`; the form's label uses the step's wording.
LABELS = dict(STEPS, foul_out=_foul_step)

def present(event: dict, names: dict[int, str]) -> str | None:
    """One sentence (Markdown) for an engine event or a step's confirmation; None for a kind
    this presenter does not know (the timeline also shows the GM's own log entries)."""
    kind = event.get("kind")
    data = event.get("data") or {}
    if kind in EVENTS:
        return EVENTS[kind](data, names, event)
    if kind in STEPS:
        return STEPS[kind](data, names)
    return None


def label(choice, names: dict[int, str]) -> str | None:
    """How the action form offers `choice`: "使用 狙击手 → 3号阿狗（附杀人宣言…）",
    "丢牌顺序：A → B → … （底牌 E 最后丢）", "投票给 阿狗"."""
    writer = LABELS.get(choice.kind)
    if writer is None:
        return None
    return writer(choice.params, names, tuple(f.name for f in choice.text_fields))


# --- refusals ----------------------------------------------------------------------------

def refusal(refused) -> str | None:
    """A refusal in the reader's language: its code's sentence (REASONS), its params the
    code's arguments; None for a code the engine's table does not have."""
    return REASONS.render({"code": refused.code, "args": dict(refused.params or {})}, {})


# --- what the machinery asks besides sentences -----------------------------------------------

# Public events of a player's step that go to the announcement thread at once: none. The only
# one is `vote_cast`, which the vote thread shows; everything else is announced when the
# phase ends (§5.5: nothing a seat does takes effect before).
ANNOUNCE_AT_ONCE: frozenset[str] = frozenset()


def phase_name(name: str, number: int, round: int | None = None) -> str | None:
    """One phase as every page names it: "第1夜", "第1天", "第1天的生死投票" (the sentences
    of 神的使者 and the titles use the same words: `phase_text`)."""
    if name in ("night", "day", "runoff"):
        return capfirst(phase_text({"name": name, "number": number}))
    return phase_label(name)


def phase_label(name: str) -> str | None:
    """A kind of phase in the reader's language (the durations form)."""
    names = {
        "night": pgettext("ninelives", "Night"),
        "day": pgettext("ninelives", "Day"),
        "runoff": pgettext("ninelives", "Runoff vote"),
        "over": pgettext("ninelives", "Game over"),
    }
    return names.get(name)


# --- the game's home page -----------------------------------------------------------------

def seat_facts(view: dict | None, number: int) -> str:
    """What everyone knows about seat `number` (0-based), from any viewer's view:
    "已丢：中立、杀手 · 存活", "已丢：平民、平民 · 已死（平民阵营）", "出局（杀手阵营）".

    Reads only the view's public part and public log events (the same for every viewer).
    1. The camps of its lost cards, in order (§5.8).
    2. Alive, dead with its camp (§7.2), or out for a foul (§9.1).
    3. Today's public marks: may not vote, pardoned once; after the end, its camp.
    """
    if not view:
        return ""
    pub = view.get("public") or {}
    lost_by_seat, alive_by_seat = pub.get("lost") or [], pub.get("alive") or []
    if not 0 <= number < min(len(lost_by_seat), len(alive_by_seat)):
        return ""  # a view from before the deal has no seats yet
    lost, alive = lost_by_seat[number], alive_by_seat[number]
    parts = [pgettext("ninelives", "lost: %(camps)s") % {
        "camps": listing(camp_name(c) for c in lost)}
             if lost else pgettext("ninelives", "no card lost")]
    death = next((e["data"] for e in view.get("log") or []
                  if e.get("kind") == "seat_died" and e.get("visibility", {}).get("public")
                  and e.get("data", {}).get("seat") == number), None)
    if alive:
        parts.append(pgettext("ninelives", "alive"))
        if number in (pub.get("no_vote") or []):
            parts.append(pgettext("ninelives", "may not vote now"))
    elif death and death.get("cause") == "foul_out":
        parts.append(pgettext("ninelives", "out for a foul (%(camp)s camp)") % {
            "camp": camp_name(death["camp"])})
    elif death:
        parts.append(pgettext("ninelives", "dead (%(camp)s camp)") % {
            "camp": camp_name(death["camp"])})
    else:
        parts.append(pgettext("ninelives", "dead"))
    if number in (pub.get("pardoned") or []):
        parts.append(pgettext("ninelives", "pardoned once"))
    reveal = pub.get("reveal") or {}
    camps = reveal.get("camps") or []
    if alive and number < len(camps):
        parts.append(pgettext("ninelives", "%(camp)s camp") % {"camp": camp_name(camps[number])})
    return " · ".join(parts)


# --- the seat's "my hand" panel (templates/games/panels/ninelives.html) -------------------

# Events the panel lists as the seat's results: its private ones that are results rather
# than echoes of what it just sent (those are in the conversation), and the public ones that
# concern it (a save, a voided vote) or every seat (a reorder window), told to the seat in
# the second person (the panel repeats no public sentence word for word).
PRIVATE_RESULTS = ("hand_dealt", "camp_chosen", "loss_order_set", "investigation",
                   "power_voided", "attack_dropped", "manifesto_rejected", "own_card_lost",
                   "saint_armed", "saint_spent", "bomb_spent", "proxy_void")
PUBLIC_ABOUT_ME = ("protected", "attack_failed", "vote_void", "seat_died")
PUBLIC_FOR_ALL = ("reorder_window",)


def card_label(code: str) -> str:
    """A card as the hand shows it: "狙击手" in Chinese, "SNIPER" otherwise (the code stays in
    the panel's data-card attribute and in the link to its rule, never in the text)."""
    return card_name(code)


def _results(view: dict, seat: int, names: dict[int, str]) -> list[dict]:
    """The seat's results, newest first, each with the phase it happened in.

    1. Walk the view's log in order, remembering the phase the last `phase_started` opened.
    2. Keep the seat's own result events and the public events about it (see above).
    3. Each becomes {"phase", "kind", "text"}: `present`'s sentence (Markdown) for a private
       event, the second-person one of `_to_me` for a public event.
    4. Once the seat is dead (out included), notices for every living seat (a reorder
       window) are not its results any more.
    """
    out, phase, dead = [], {"name": "night", "number": 1}, False
    for event in view.get("log") or []:
        kind, data = event.get("kind"), event.get("data") or {}
        vis = event.get("visibility") or {}
        if kind == "phase_started":
            phase = data.get("phase") or phase
            continue
        if dead and kind in PUBLIC_FOR_ALL:
            continue  # a window for the living: a dead or fouled-out seat has no order to send
        if kind == "seat_died" and vis.get("public") and data.get("seat") == seat:
            dead = True
        mine = (not vis.get("public") and seat in (vis.get("seats") or [])
                and kind in PRIVATE_RESULTS)
        about_me = vis.get("public") and kind in PUBLIC_ABOUT_ME and data.get("seat") == seat
        if not (mine or about_me or (vis.get("public") and kind in PUBLIC_FOR_ALL)):
            continue
        text = _to_me(event) if vis.get("public") else present(event, names)
        if text:
            out.append({"phase": phase_text(phase), "kind": kind, "text": text})
    out.reverse()
    return out


def _to_me(event: dict) -> str | None:
    """A public event about the seat (or every seat), told to the seat in the second person,
    as its own result (the public sentence is in the announcements)."""
    kind, d = event["kind"], event.get("data") or {}
    if kind == "protected":
        return _("You were attacked and saved: you lost no card, and may talk but not "
                 "vote today.")
    if kind == "attack_failed":
        return pgettext("ninelives", "You were attacked and lost no card.")
    if kind == "vote_void":
        return _("A %(card)s hit you today: your vote does not count.") % {
            "card": card_name("BOMB")}
    if kind == "seat_died":
        if d.get("cause") == "foul_out":
            return pgettext("ninelives", "You are out of the game, and count as dead.")
        return pgettext("ninelives", "You have no card left: you are dead.")
    if kind == "reorder_window":
        return _("A reorder window opened: you may send a new loss order until the end "
                 "of %(phase)s.") % {"phase": phase_text(d["until"])}
    return None


def _pending_text(me: dict, names: dict[int, str]) -> str:
    """This phase's card use as the seat sent it (I3: it may change until the phase ends)."""
    action = me.get("action")
    if not action:
        return pgettext("ninelives", "No card chosen in this phase yet.")
    if action.get("pass"):
        return pgettext("ninelives", "No card tonight.")
    text = _use_text(action["card"], action.get("target"), names)
    if action.get("rejected"):
        text += " " + _("— the GM rejected its manifesto: send the attack again before the "
                        "night ends, or it will not happen.")
    return text


def panel(view: dict | None, names: dict[int, str]) -> dict:
    """Everything the seat's panel shows, from the seat's own view only.

    Precondition: `view` is the engine's view for one seat (it has "me"); otherwise the
    panel is empty. Returns plain data and translated texts for the template.
    """
    if not view or not isinstance(view.get("me"), dict):
        return {}
    me, pub = view["me"], view.get("public") or {}
    seat = me.get("seat")
    phase = pub.get("phase") or {}
    name, number = phase.get("name"), phase.get("number", 0)
    hand = me.get("hand") or []
    dead_cards = me.get("dead_cards") or []
    order = me.get("loss_order") or []
    alive = bool((pub.get("alive") or [])[seat]) if isinstance(seat, int) else False
    playing = alive and name in ("night", "day", "runoff")
    free_agent = me.get("dealt_camp") == "free_agent"
    options = [a["params"]["camp"] for a in view.get("legal_actions") or []
               if a.get("kind") == "choose_camp"]
    uses = me.get("uses") or {}
    banned = playing and {"night", "day"} <= set(uses.get(str(number - 1), []))
    day_card_used = name in ("day", "runoff") and "day" in uses.get(str(number), [])
    reorder = pub.get("reorder")
    proxy = me.get("proxy")
    return {
        "seat": seat,
        "alive": alive,
        "camp": me.get("camp"),
        "camp_name": camp_name(me.get("camp")),
        "free_agent": free_agent,
        "undecided": free_agent and me.get("camp") == "free_agent",
        "camp_options": [camp_name(c) for c in options],
        "hand": [{"code": c, "label": card_label(c), "camp": CARDS[c][0] if c in CARDS else "",
                  "camp_name": card_camp(c), "dead": c in dead_cards} for c in hand],
        "loss_order": [{"code": c, "label": card_label(c)} for c in order],
        "order_set": me.get("loss_order") is not None,
        "core": card_label(me["core_card"]) if me.get("core_card") else (
            card_label(order[-1]) if order else ""),
        "core_fixed": bool(me.get("core_card")),
        "dead_cards": [card_label(c) for c in dead_cards],
        "playing": playing,
        "pending": _pending_text(me, names) if playing else "",
        "proxy": (pgettext("ninelives", "Vote for %(name)s") % {"name": name_of(names, proxy)}
                  if proxy is not None else ""),
        "banned": banned,
        "day_card_used": day_card_used,
        "reorder": (_("Open until the end of %(phase)s: you may send a new loss order (your "
                      "core card stays last; silence keeps the old order).") % {
            "phase": phase_text(reorder["phase"])} if reorder and alive else ""),
        "results": _results(view, seat, names),
    }


# --- vote tallies ----------------------------------------------------
# 猫有n条命's vote tallies for people, from the engine's PUBLIC events only.
#
# `vote_tallies(events, names)` walks a game's public events in the engine's order and returns
# one `VoteTally` per day vote and per runoff (`key` = (phase name, day)):
#
# 1. `phase_started` of a day or a runoff opens a tally (a runoff's rows are its candidates;
#    the seats saved last night "may not vote", §8).
# 2. `vote_cast`: a vote in person, public and final (§8.1), in the order cast.
# 3. At the close (`phase_ended`): `proxy_vote_published`, counted after all others (§8.3);
#    `vote_void`, a BOMB used today voids its target's vote (§3.4.7); `foul_out` of a silent
#    seat (§9.1.5).
# 4. The result, with the engine's own final count (`tally`) and the CURSE/BLESS effects it
#    published (`adjustments`: only the target and the +1/-1, never who used the card):
#    `runoff_started` (a tie), `no_execution`, or an `execution` that no PARDON can undo.
# 5. `vote_closed`: a seat is executed but a PARDON may still spare it, so the engine keeps the
#    seat, the effects and the count secret until night N+1 ends (interpretation I9): the tally
#    is "pending" and shows only what is public (votes in person, proxies, voided votes).
# 6. The `execution` or `pardoned` of that day, when night N+1 ends, publishes the count: the
#    tally is completed then.
#
# The CURSE or BLESS itself is shown as the rules make it public: its effect on the target's
# count ("诅咒 +1"), never its user, and only once the engine publishes the count.

VOTES = ("day", "runoff")


def heading(name: str, number: int) -> str:
    """"第1天投票" / "第1天的生死投票" (a day has at most one runoff, §8.2): the phase's
    name (`phase_name`), with "vote" for the day's vote."""
    if name == "runoff":
        return phase_name(name, number)
    return pgettext("tally", "Day %(n)d vote") % {"n": number}


def effect_text(delta: int) -> str:
    """A published CURSE/BLESS effect on a count: "诅咒 +1" / "庇佑 −1"."""
    card = card_name("CURSE") if delta > 0 else card_name("BLESS")
    return f"{card} {delta:+d}".replace("-", "−")


class _Walk:
    """The state of the walk over the events (steps 1-6 of the module docstring)."""

    def __init__(self, names: dict[int, str]):
        self.names = names
        self.tallies: list[VoteTally] = []
        self.current: VoteTally | None = None
        self.rows: dict[int, TallyRow] = {}
        self.rows_of: dict[tuple, dict[int, TallyRow]] = {}
        self.pending: dict[int, VoteTally] = {}  # day -> its deciding vote, count unpublished

    def row(self, seat: int, rows: dict[int, TallyRow] | None = None) -> TallyRow:
        rows = self.rows if rows is None else rows
        if seat not in rows:
            rows[seat] = TallyRow(seat=seat, name=who(self.names, seat))
        return rows[seat]

    def open(self, event: dict) -> None:
        d = event["data"]
        phase = d["phase"]
        self.current = VoteTally(key=(phase["name"], phase["number"]),
                                 heading=heading(phase["name"], phase["number"]))
        self.rows = {}
        self.rows_of[self.current.key] = self.rows
        self.tallies.append(self.current)
        for seat in d.get("candidates") or []:
            self.row(seat)
        if d.get("no_vote"):
            self.current.notes.append(pgettext("tally", "%(seats)s may not vote.") % {
                "seats": seats_text(d["no_vote"], self.names)})
        self.current.result = pgettext(
            "tally", "The vote is open. Proxy votes are published at the count, and the "
                     "effects of %(curse)s and %(bless)s with the result.") % {
            "curse": card_name("CURSE"), "bless": card_name("BLESS")}

    def void(self, seat: int) -> None:
        voter = name_of(self.names, seat)
        for row in self.rows.values():
            for votes in (row.in_person, row.proxies):
                if voter in votes:
                    votes.remove(voter)
                    row.void.append(voter)
                    return

    def settle(self, tally: VoteTally, data: dict, seq, result: str) -> None:
        """The engine published the count (step 4 or 6): effects and final counts."""
        counts, adjustments = tally_parts(data)
        rows = self.rows_of[tally.key]
        for adj in adjustments:
            self.row(int(adj["target"]), rows).effects.append(effect_text(int(adj["delta"])))
        for seat in [int(s) for s in counts]:
            self.row(seat, rows)
        for seat, row in rows.items():
            row.count = int(counts.get(str(seat), 0))
        tally.status, tally.settled_seq, tally.result = "closed", seq, result

    def close(self, status: str, seq, result: str) -> None:
        assert self.current is not None
        self.current.status, self.current.settled_seq = status, seq
        self.current.result = result

    def feed(self, event: dict) -> None:  # noqa: C901 - one branch per event kind, in order
        kind, d, seq = event["kind"], event.get("data") or {}, event.get("seq")
        if kind == "phase_started":
            self.current = None
            if d["phase"]["name"] in VOTES:
                self.open(event)
            return
        if kind in ("execution", "pardoned") and d.get("day") in self.pending \
                and self.current is None:
            self.settle(self.pending.pop(d["day"]), d, seq, self.revealed(kind, d))
            return
        cur = self.current
        if cur is None:
            return
        if kind == "vote_cast":
            self.row(d["target"]).in_person.append(name_of(self.names, d["seat"]))
        elif kind == "proxy_vote_published":
            self.row(d["target"]).proxies.append(name_of(self.names, d["seat"]))
        elif kind == "vote_void":
            self.void(d["seat"])
        elif kind == "foul_out":
            cur.notes.append(pgettext("tally", "%(seat)s neither voted nor sent a proxy vote: "
                                               "out of the game.") % {
                "seat": who(self.names, d["seat"])})
            if d["seat"] in self.rows:  # voted for, or a runoff's candidate: its line says so
                self.rows[d["seat"]].out = True
        elif kind == "phase_ended":
            cur.status = "counting"
        elif kind == "runoff_started":
            self.settle(cur, d, seq, pgettext(
                "tally", "%(seats)s are tied with the most votes: a runoff among them "
                         "follows, without %(curse)s or %(bless)s.") % {
                "seats": seats_text(d["candidates"], self.names),
                "curse": card_name("CURSE"), "bless": card_name("BLESS")})
        elif kind == "no_execution":
            counts = tally_parts(d)[0].values()
            top = max(counts, default=0)
            tied = top > 0 and list(counts).count(top) > 1
            voted_out = any(r.out and r.provisional for r in self.rows.values())
            self.settle(cur, d, seq, sentences(pgettext("tally", "Nobody is executed."), (
                pgettext("tally", "The runoff tied again.") if tied
                else pgettext("tally", "Every seat that got votes is out of the game, so no "
                                       "vote counts.") if voted_out and not top
                else pgettext("tally", "No seat had a vote to count."))))
        elif kind == "execution":
            self.settle(cur, d, seq, pgettext(
                "tally", "%(seat)s has the most votes and is executed; no %(card)s can spare "
                         "it, so it loses a card now.") % {
                "seat": who(self.names, d["seat"]), "card": card_name("PARDON")})
        elif kind == "vote_closed":
            self.close("pending", seq, pgettext(
                "tally", "The vote is closed and a seat is executed. A %(card)s may still "
                         "spare it, so the seat, the effects of %(curse)s and %(bless)s and "
                         "the final count are announced when night %(next)d ends.") % {
                "card": card_name("PARDON"), "curse": card_name("CURSE"),
                "bless": card_name("BLESS"), "next": d["day"] + 1})
            self.pending[d["day"]] = cur

    def revealed(self, kind: str, d: dict) -> str:
        if kind == "pardoned":
            return pgettext("tally", "%(seat)s had the most votes and was executed, but a "
                                     "%(card)s spared it: it loses no card.") % {
                "seat": who(self.names, d["seat"]), "card": card_name("PARDON")}
        return pgettext("tally", "%(seat)s had the most votes and was executed; nobody "
                                 "pardoned it, so it loses a card.") % {
            "seat": who(self.names, d["seat"])}


def vote_tallies(events: list[dict], names: dict[int, str]) -> list[VoteTally]:
    """Every day vote and runoff found in `events` (public engine events, in order)."""
    walk = _Walk(names)
    for event in events:
        if event.get("visibility", {}).get("public", True):
            walk.feed(event)
    for tally in walk.tallies:
        tally.rows = sorted(walk.rows_of[tally.key].values(), key=lambda r: (
            -(r.count if r.count is not None else r.provisional), r.seat))
    return walk.tallies


def vote_heading(name: str, number: int) -> str | None:
    """"第1天投票" / "第1天 · 第1次生死投票": the heading of a vote thread and of its tally."""
    return heading(name, number) if name in VOTES else None


def end_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    """"第1夜结束", "第1天结束", "第1天的决选结束": the round is the phase's own number."""
    if name not in ("night", "day", "runoff"):
        return None
    return pgettext("title", "%(phase)s is over") % {"phase": phase_name(name, number)}


# --- the summary at the head of a phase's announcement --------------------

def phase_summary(name: str, number: int, events: list[dict], names: dict[int, str]) -> str | None:
    """"**第1夜小结**：5号花花 丢了1张牌；3号小白 遭到攻击但被保护；无人死亡。" from the
    public events that ended the phase (the sentences below it give every detail)."""
    if name not in ("night", "day", "runoff"):
        return None
    public = [e for e in events if e["visibility"]["public"]]
    lost: dict[int, int] = {}
    for e in public:
        if e["kind"] == "card_lost":
            lost[e["data"]["seat"]] = lost.get(e["data"]["seat"], 0) + 1
    saved = [e["data"]["seat"] for e in public if e["kind"] == "protected"]
    dead = [e["data"]["seat"] for e in public if e["kind"] == "seat_died"]
    parts = [pgettext("summary", "%(seat)s lost %(n)d card(s)") % {"seat": who(names, s), "n": n}
             for s, n in lost.items()]
    if saved:
        parts.append(pgettext("summary", "%(seats)s attacked and saved") % {
            "seats": seats_text(saved, names)})
    parts.append(pgettext("summary", "dead: %(seats)s") % {"seats": seats_text(dead, names)}
                 if dead else pgettext("summary", "nobody died"))
    if not lost and not saved:
        parts.insert(0, pgettext("summary", "no card lost"))
    return pgettext("summary", "**Summary of %(phase)s**: %(parts)s.") % {
        "phase": phase_text({"name": name, "number": number}),
        "parts": pgettext("summary", "; ").join(parts)}
# --- the post-game review ------------------------------------------------------------------

def review_facts(private: dict, number: int, names: dict[int, str]) -> list[tuple[str, str]]:
    """A seat's private part at the end, for the review table: camp (and a free agent's
    choice), hand, loss order, core card, dead cards, cards used, proxy vote."""
    rows = []
    camp, dealt = private.get("camp"), private.get("dealt_camp")
    camp_text = camp_name(camp)
    if dealt == "free_agent":
        camp_text = (_("free agent, chose %(camp)s") % {"camp": camp_name(camp)}
                     if camp and camp != "free_agent" else camp_name("free_agent"))
    rows.append((pgettext("ninelives", "Camp"), camp_text))
    rows.append((pgettext("ninelives", "Hand"), cards_text(private.get("hand"))))
    if private.get("loss_order"):
        rows.append((pgettext("ninelives", "Loss order"), order_text(private["loss_order"])))
    if private.get("core_card"):
        rows.append((pgettext("ninelives", "Core card"), card_name(private["core_card"])))
    if private.get("dead_cards"):
        rows.append((pgettext("ninelives", "Dead cards"), cards_text(private["dead_cards"])))
    # The engine keeps, per round, the phases in which the seat used a card (§3.5.3).
    uses = private.get("uses") or {}
    used = [phase_text({"name": name, "number": int(number)})
            for number, phases in sorted(uses.items(), key=lambda item: int(item[0]))
            for name in phases]
    if used:
        rows.append((pgettext("ninelives", "Cards used"), listing(used)))
    if private.get("proxy") is not None:
        rows.append((pgettext("ninelives", "Proxy vote"), who(names, private["proxy"])
                     if isinstance(private["proxy"], int) else str(private["proxy"])))
    return rows


def review_secret(secret: dict, names: dict[int, str]) -> list[tuple[str, str]]:
    """The GM's secrets for the review: the deal seat by seat and the taints (the seed and the
    draw count are in the events export)."""
    rows = []
    for number, entry in enumerate((secret.get("deal") or {}).get("seats") or []):
        rows.append((who(names, number), _("%(camp)s camp: %(cards)s") % {
            "camp": camp_name(entry.get("camp")), "cards": cards_text(entry.get("cards"))}))
    taints = secret.get("taints") or {}
    if taints:
        rows.append((pgettext("ninelives", "Secret taints"), _(
            "answered as the killer camp: %(killer)s; as the wolf camp: %(wolf)s") % {
            "killer": cards_text(taints.get("killer")), "wolf": cards_text(taints.get("wolf"))}))
    return rows


# --- the engine's reasons (`because` chains, refusals, results, broken deals) ---------------
# One msgid per code of the engine's table (games/engine/ninelives/reasons.py), each argument
# a named placeholder, rendered in the reader's words by the renderers below
# (games/presenters/reasons.py `ReasonTexts`).

def _use_text_of(value, names) -> str:
    """A USE argument, "2号阿狗对4号阿猫使用的狼人" / "WEREWOLF of seat 2 阿狗 on seat 4 阿猫"."""
    if value["target"] is None:
        return pgettext("ninelives", "%(card)s of %(seat)s") % {
            "card": card_name(value["card"]), "seat": who(names, value["seat"])}
    return pgettext("ninelives", "%(card)s of %(seat)s on %(target)s") % {
        "card": card_name(value["card"]), "seat": who(names, value["seat"]),
        "target": who(names, value["target"])}


RENDERERS = {
    SEAT: lambda value, names: who(names, value),
    SEATS: lambda value, names: seats_text(value, names),
    CARD: lambda value, names: card_name(value),
    CARD_LIST: lambda value, names: cards_text(value),
    CAMP: lambda value, names: camp_name(value),
    PHASE: lambda value, names: phase_text(value),
    reasons.USE: _use_text_of,
    reasons.ORDER: lambda value, names: order_text(value),
    reasons.CAMPS: lambda value, names: listing(camp_name(c) for c in value),
    reasons.NUMBERS: lambda value, names: listing(str(n) for n in value),
    reasons.DELTA: lambda value, names: f"{value:+d}",
}

CHAIN_TEXTS = {
    # losing cards, dying, fouls, reorder windows (common.py)
    "nothing_left_to_lose": gettext_noop("%(seat)s has no card left, so nothing more is lost."),
    "camp_announced": gettext_noop("Only the camp of a lost card is announced (%(ref)s): "
                                   "%(seat)s lost a %(camp)s card."),
    "first_of_loss_order": gettext_noop("It was the first card of your loss order (%(ref)s): "
                                        "%(card)s."),
    "loses_first_card": gettext_noop("%(seat)s loses the first card of its loss order: "
                                     "%(card)s (%(camp)s)."),
    "lost_last_card": gettext_noop("%(seat)s has lost its last card, so it is dead (%(ref)s)."),
    "no_card_left": gettext_noop("%(seat)s has no card left, so it is dead (%(ref)s)."),
    "still_held": gettext_noop("%(seat)s still held %(cards)s."),
    "out_of_game": gettext_noop("%(seat)s is out of the game (%(ref)s): %(reason)s"),
    "out_for_silence": gettext_noop("%(seat)s is out of the game (%(ref)s): it neither voted "
                                    "nor sent a proxy vote."),
    "bomb_gone": gettext_noop("Your %(card)s went off and is gone from your hand; nobody is "
                              "told (%(ref)s)."),
    "losses_reached": gettext_noop("%(n)s cards have been lost in all, reaching %(marks)s "
                                   "(%(ref)s)."),
    "reorder_open": gettext_noop("Every living seat may send a new loss order until the end of "
                                 "%(phase)s; the core card stays last (%(ref)s). Silence keeps "
                                 "the old order."),
    # the night (resolution.py)
    "free_agent_camp_drawn": gettext_noop("Camp of the free agent at %(seat)s drawn among "
                                          "%(camps)s."),
    "default_camp_applies": gettext_noop(
        "The free agent at %(seat)s did not choose a camp during night 1, so the GM's default "
        "choice applies (%(ref)s): it joins the %(camp)s camp."),
    "camp_drawn_at_random": gettext_noop(
        "The free agent at %(seat)s did not choose a camp during night 1, so the GM set no "
        "default, so it was drawn at random (%(ref)s): it joins the %(camp)s camp."),
    "loss_order_drawn": gettext_noop("%(seat)s sent no loss order in time; one was drawn "
                                     "(%(ref)s)."),
    "your_loss_order_drawn": gettext_noop(
        "You sent no loss order during night 1, so the GM drew one at random with a card of "
        "your camp last (%(ref)s): %(order)s."),
    "night_over": gettext_noop("%(phase)s is over; its actions take effect now (%(ref)s)."),
    "manifesto_not_resent": gettext_noop(
        "The GM rejected the manifesto of %(use)s and no new one came before the night ended, "
        "so the attack did not happen (%(ref)s)."),
    "voided_powers": gettext_noop("%(use)s voided every power of %(seat)s tonight (%(ref)s)."),
    "your_powers_voided": gettext_noop(
        "Your %(card)s had no effect during %(phase)s: a %(card2)s or a %(card3)s voided your "
        "powers (%(ref)s)."),
    "use_void": gettext_noop("%(use)s was void."),
    "jail_landed": gettext_noop("%(use)s landed: %(seat)s's powers are void tonight "
                                "(%(ref)s)."),
    "answered_yes": gettext_noop("You asked with %(card)s whether %(seat)s holds %(card2)s "
                                 "during %(phase)s (%(ref)s): the answer is yes."),
    "answered_no": gettext_noop("You asked with %(card)s whether %(seat)s holds %(card2)s "
                                "during %(phase)s (%(ref)s): the answer is no."),
    "holds_card": gettext_noop("%(use)s asked about %(card)s: it holds %(card2)s."),
    "holds_tainted": gettext_noop("%(use)s asked about %(card)s: it holds %(cards)s with the "
                                  "%(camp)s taint, which answers yes (%(ref)s)."),
    "holds_no_card": gettext_noop("%(use)s asked about %(card)s: it holds no %(card2)s."),
    "holds_no_tainted": gettext_noop("%(use)s asked about %(card)s: it holds no %(card2)s and "
                                     "no %(camp)s-tainted card."),
    "saint_armed": gettext_noop("Your %(card)s is armed for day %(n)s: if you are executed "
                                "that day, each seat that voted for you loses a card "
                                "(%(ref)s)."),
    "counts_at_vote": gettext_noop("%(use)s will count at day %(n)s's vote (%(ref)s)."),
    "stopped_by": gettext_noop("%(use)s stopped it (%(ref)s)."),
    "protected_by": gettext_noop("%(use)s protected %(seat)s (%(ref)s): it may talk but not "
                                 "vote on day %(n)s."),
    "counter_sniper": gettext_noop("%(card)s of %(seats)s made every %(card2)s attack fail "
                                   "tonight (%(ref)s)."),
    "attacked_with": gettext_noop("%(use)s attacked (%(ref)s)."),
    "target_loses": gettext_noop("→ %(seat)s loses a card."),
    "no_loss": gettext_noop("→ no loss."),
    "manifesto_published": gettext_noop(
        "An attack on %(seat)s was made during %(phase)s; the GM publishes its manifesto "
        "without naming the author (%(ref)s)."),
    "story_published": gettext_noop(
        "An attack on %(seat)s was made during %(phase)s; the GM publishes its story without "
        "naming the author (%(ref)s)."),
    "saved": gettext_noop("%(seat)s was attacked during %(phase)s and saved; it may talk but "
                          "not vote on day %(n)s (%(ref)s)."),
    "attacked_no_loss": gettext_noop("%(seat)s was attacked during %(phase)s and lost no "
                                     "card."),
    "failed_protection": gettext_noop("%(seat)s lost a card to a protection that failed two "
                                      "nights running (%(ref)s)."),
    "protected_twice": gettext_noop("%(use)s protected %(seat)s on nights %(n)s and %(n2)s, "
                                    "and no %(card)s attacked it on either night (%(ref)s)."),
    "nobody_to_pardon": gettext_noop("%(use)s found nobody to pardon."),
    "pardoned_at_night": gettext_noop("%(seat)s was executed on day %(n)s and pardoned during "
                                      "%(phase)s; it loses no card (%(ref)s)."),
    "spared": gettext_noop("%(use)s spared %(seat)s, executed on day %(n)s (%(ref)s)."),
    "executed_unpardoned": gettext_noop("%(seat)s was executed by the vote of day %(n)s and "
                                        "nobody pardoned it (%(ref)s)."),
    "executed_on_day": gettext_noop("%(seat)s was executed on day %(n)s (%(ref)s)."),
    "hit_by": gettext_noop("%(seat)s was hit by a %(card)s during %(phase)s (%(ref)s)."),
    "hit_by_bomb": gettext_noop("%(seat)s was hit by a %(card)s during %(phase)s; the bomber "
                                "is not named (%(ref)s)."),
    "attacked": gettext_noop("%(seat)s was attacked during %(phase)s (%(ref)s)."),
    "day_begins": gettext_noop("Day %(n)s begins: every living seat votes for one seat to "
                               "execute (%(ref)s)."),
    "saved_may_not_vote": gettext_noop("Saved last night, %(seats)s may talk but not vote "
                                       "(%(ref)s)."),
    # the deal and the seats' own steps (rules.py)
    "dealt": gettext_noop("The GM dealt %(seat)s its camp and %(n)s cards (%(ref)s)."),
    "deal_drawn": gettext_noop("The dealer drew a valid deal at random (%(ref)s)."),
    "game_opens": gettext_noop(
        "The game opens at night 1 (%(ref)s). Send your loss order before night 1 ends "
        "(%(ref2)s); the free agent chooses a camp tonight (%(ref3)s)."),
    "chose_card": gettext_noop(
        "%(seat)s chose to use %(card)s during %(phase)s; it takes effect when the phase ends "
        "(%(ref)s) and may be changed until then (%(ref2)s)."),
    "chose_card_on": gettext_noop(
        "%(seat)s chose to use %(card)s on %(target)s during %(phase)s; it takes effect when "
        "the phase ends (%(ref)s) and may be changed until then (%(ref2)s)."),
    "replaces_use_on": gettext_noop("It replaces the earlier choice: %(card)s on %(seat)s."),
    "replaces_use": gettext_noop("It replaces the earlier choice: %(card)s."),
    "replaces_pass": gettext_noop("It replaces the earlier choice: no card."),
    "withdrew": gettext_noop("%(seat)s withdrew its choice for %(phase)s (%(ref)s)."),
    "will_pass": gettext_noop("%(seat)s will use no card during %(phase)s."),
    "joined_camp": gettext_noop("The free agent at %(seat)s joined the %(camp)s camp "
                                "(%(ref)s); the choice is final."),
    "vote_is_final": gettext_noop("%(seat)s cast its vote of %(phase)s for %(target)s; it "
                                  "cannot be changed (%(ref)s)."),
    "runoff_vote_is_final": gettext_noop("%(seat)s cast its runoff vote of %(phase)s for "
                                         "%(target)s; it cannot be changed (%(ref)s)."),
    "proxy_void_by_vote": gettext_noop("%(seat)s voted in person, so its proxy vote is void "
                                       "(%(ref)s)."),
    "proxy_held": gettext_noop(
        "The messenger holds %(seat)s's proxy vote for %(target)s; it counts after all others, "
        "can change until then, and is void if %(seat2)s votes in person (%(ref)s)."),
    "proxy_runoff_held": gettext_noop(
        "The messenger holds %(seat)s's proxy runoff vote for %(target)s; it counts after all "
        "others, can change until then, and is void if %(seat2)s votes in person (%(ref)s)."),
    "loss_order_sent": gettext_noop("%(seat)s will lose its cards in this order, %(card)s (the "
                                    "core card) last (%(ref)s)."),
    # the GM's steps (rules.py)
    "gm_aborted": gettext_noop("The GM ended the game without a result (%(ref)s): "
                               "%(reason)s"),
    "manifesto_rejected_for": gettext_noop("The GM rejected your manifesto or story (%(ref)s): "
                                           "%(reason)s"),
    "manifesto_rejected": gettext_noop("The GM rejected your manifesto or story (%(ref)s)."),
    "send_attack_again": gettext_noop("Send the attack again with an acceptable manifesto "
                                      "before the night ends, or it will not happen."),
    "default_camp_set": gettext_noop("If %(seat)s does not choose by the end of night 1, it "
                                     "joins the %(camp)s camp (%(ref)s)."),
    "gm_fouled_out": gettext_noop("The GM put %(seat)s out of the game (%(ref)s): %(reason)s"),
    # the day's vote and the runoff (votes.py)
    "vote_over": gettext_noop("The vote of %(phase)s is closed (%(ref)s)."),
    "proxy_cast": gettext_noop("The messenger casts %(seat)s's proxy vote for %(target)s after "
                               "all others (%(ref)s)."),
    "silent": gettext_noop("%(seat)s neither voted nor sent a proxy vote in %(phase)s "
                           "(%(ref)s)."),
    "vote_void_bomb": gettext_noop("%(seat)s was hit by a %(card)s today, so its vote does not "
                                   "count (%(ref)s)."),
    "voted_for": gettext_noop("%(seat)s voted for %(target)s."),
    "count_effect": gettext_noop("%(use)s counts %(delta)s for %(target)s (%(ref)s)."),
    "nobody_voted": gettext_noop("Nobody voted."),
    "hit_target": gettext_noop("%(use)s hit %(target)s during %(phase)s (%(ref)s)."),
    "runoff_follows": gettext_noop(
        "%(seats)s tied with the most votes in %(phase)s: a runoff among them follows, without "
        "%(card)s or %(card2)s (%(ref)s)."),
    "runoff_tied_again": gettext_noop("Nobody is executed after %(phase)s: the runoff tied "
                                      "again (%(ref)s)."),
    "no_vote_counted": gettext_noop("Nobody is executed after %(phase)s: no seat had a vote to "
                                    "count (%(ref)s)."),
    "runoff_begins": gettext_noop("The runoff of day %(n)s: every living seat votes for one of "
                                  "%(seats)s (%(ref)s)."),
    "may_not_vote_today": gettext_noop("%(seats)s may not vote today."),
    "night_begins": gettext_noop("Night %(n)s begins: choose one card to use, or none "
                                 "(%(ref)s)."),
    "pardon_may_spare": gettext_noop("A %(card)s may spare the seat executed today "
                                     "(%(ref)s)."),
    "execution_waits": gettext_noop(
        "The vote of %(phase)s executed a seat. Since a %(card)s may still spare it, the seat "
        "and the camp of its lost card are announced when night %(n)s ends (%(ref)s)."),
    "most_votes": gettext_noop("%(seat)s had the most votes in %(phase)s and is executed "
                               "(%(ref)s)."),
    "executed_saint_fired": gettext_noop(
        "%(seat)s is executed by the vote of %(phase)s; it used a %(card)s that fired, which no "
        "%(card2)s can undo (%(ref)s), so its loss is announced at once (%(ref2)s)."),
    "executed_pardoned_before": gettext_noop(
        "%(seat)s is executed by the vote of %(phase)s; it was pardoned once already (%(ref)s), "
        "so its loss is announced at once (%(ref2)s)."),
    "saint_fired": gettext_noop("%(seat)s had used a %(card)s: each seat that voted to execute "
                                "it loses a card (%(ref)s): %(seats)s."),
    "saint_spent": gettext_noop("Your %(card)s fired and is now a dead card (%(ref)s)."),
    "voted_for_saint": gettext_noop("%(seat)s voted to execute the %(card)s %(target)s "
                                    "(%(ref)s)."),
    "saint_voter": gettext_noop("%(use)s fired; %(seat)s voted for it (%(ref)s)."),
}

RESULT_TEXTS = {
    "all_dead_draw": gettext_noop("Every seat is dead: a draw (%(ref)s); the camps alive at the "
                                  "start of the last phase share the prize."),
    "civilians_win": gettext_noop("Every killer and wolf seat is dead: the civilians win "
                                  "(%(ref)s)."),
    "last_seat_wins": gettext_noop("Only %(seat)s is left: the %(camp)s wins alone (%(ref)s)."),
    "stalemate_draw": gettext_noop("%(seats)s are left and neither can cost the other a card: "
                                   "a draw (%(ref)s)."),
}

REFUSAL_TEXTS = {
    # malformed requests (a hand-made form, a stale page)
    "bad_step": gettext_noop("That request is not a well-formed action."),
    "bad_actor": gettext_noop("Only a seat of this game or the GM may act."),
    "unknown_kind": gettext_noop("That is not an action of this game."),
    "bad_params": gettext_noop("That action has fields it does not take."),
    "game_over": gettext_noop("The game is over."),
    "dead": gettext_noop("Dead seats take no more actions."),
    # card uses
    "unknown_card": gettext_noop("There is no such card."),
    "not_in_hand": gettext_noop("You do not hold %(card)s."),
    "dead_card": gettext_noop("Your %(card)s has no power left."),
    "banned_round": gettext_noop("You used a card last night and another by day, so you may "
                                 "use no card this round."),
    "night_only": gettext_noop("%(card)s can only be used at night."),
    "not_in_runoff": gettext_noop("%(card)s cannot be used during a runoff."),
    "one_day_card": gettext_noop("You already used a card today."),
    "no_target": gettext_noop("%(card)s takes no target."),
    "bad_target": gettext_noop("Choose a living seat."),
    "not_self": gettext_noop("%(card)s must target another seat."),
    "jail_twice": gettext_noop("You cannot jail the same seat two nights running."),
    "nothing_to_pardon": gettext_noop("No execution is waiting for a pardon."),
    "no_text": gettext_noop("%(card)s takes no manifesto."),
    "bad_text": gettext_noop("That text is too long."),
    "two_texts": gettext_noop("Send either a manifesto or a story, not both."),
    "empty_story": gettext_noop("A story cannot be empty."),
    "manifesto_too_short": gettext_noop("An attack needs a manifesto of at least %(min)s "
                                        "characters (yours has %(got)s), or a story of your "
                                        "own."),
    "nothing_to_withdraw": gettext_noop("You have no card use to withdraw."),
    "wrong_phase": gettext_noop("That cannot be done in this phase."),
    "already_passed": gettext_noop("You already chose to use no card tonight."),
    # loss order and camp
    "order_closed": gettext_noop("The loss order can be set during night 1 and changed only in "
                                 "the two reorder windows."),
    "bad_order": gettext_noop("List every card you hold, each once, the first to be lost "
                              "first."),
    "core_camp": gettext_noop("The last card (your core card) must be of your own camp."),
    "core_fixed": gettext_noop("Your core card %(core)s stays last."),
    "camp_first": gettext_noop("Choose your camp before your loss order: the core card must be "
                               "of your camp."),
    "camp_closed": gettext_noop("The free agent chooses a camp during night 1 only."),
    "not_free_agent": gettext_noop("Only an undecided free agent chooses a camp."),
    "camp_not_held": gettext_noop("You may only join a camp whose cards you hold."),
    # votes
    "no_vote_now": gettext_noop("Votes are cast by day."),
    "may_not_vote": gettext_noop("You may talk but not vote today."),
    "vote_final": gettext_noop("Your vote is cast and cannot change."),
    "vote_among_tied": gettext_noop("Vote for one of the tied seats."),
    "proxy_unchanged": gettext_noop("Your proxy vote already goes to that seat."),
    # the GM's steps
    "bad_seat": gettext_noop("Name a living seat."),
    "no_manifesto": gettext_noop("That seat has no pending manifesto to reject."),
    "reason_needed": gettext_noop("Say why."),
}

DEAL_TEXTS = {
    "deal_malformed": gettext_noop("This is not a deal for %(n)s players: it names the camp "
                                   "and the cards of each seat, and the tainted cards "
                                   "(%(ref)s)."),
    "deal_players": gettext_noop("猫有n条命 is played by 5 or 6 players, not %(n)s (%(ref)s)."),
    "deal_seats": gettext_noop("A deal for %(n)s players has %(seats)s seats with a camp and a "
                               "hand each; this one has %(camps)s camps and %(hands)s hands "
                               "(%(ref)s)."),
    "deal_camps": gettext_noop("The camps drawn by lot must be exactly %(camps)s (%(ref)s)."),
    "deal_hand_size": gettext_noop("%(seat)s holds %(n)s cards; every hand has %(size)s "
                                   "(%(ref)s)."),
    "deal_saint": gettext_noop("With 6 players the %(card)s is left out of the deck "
                               "(%(ref)s)."),
    "deal_not_the_deck": gettext_noop("The hands together must be exactly the deck: missing "
                                      "%(missing)s; not in the deck %(extra)s (%(ref)s)."),
    "deal_must_hold": gettext_noop("%(seat)s is of the %(camp)s camp and must be dealt a "
                                   "%(card)s (%(ref)s)."),
    "deal_may_not_hold": gettext_noop("%(seat)s is of the %(camp)s camp and may not be dealt "
                                      "the %(card)s (%(ref)s)."),
    "deal_apart": gettext_noop("%(seat)s holds both %(card)s and %(card2)s, which are never "
                               "dealt to one player (%(ref)s)."),
    "deal_copies": gettext_noop("%(seat)s holds %(n)s %(card)s cards; the copies of a kind go "
                                "to different players (%(ref)s)."),
    "deal_neutral_cap": gettext_noop("%(seat)s holds %(n)s neutral cards; at most %(cap)s "
                                     "(%(ref)s)."),
    "deal_camp_cap": gettext_noop("%(seat)s is of the %(camp)s camp and holds %(n)s cards of "
                                  "the %(card_camp)s camp; at most %(cap)s (%(ref)s)."),
    "deal_no_core": gettext_noop("%(seat)s is of the %(camp)s camp but holds no card of its "
                                 "camp to keep as its core card (%(ref)s)."),
    "deal_free_agent_closed": gettext_noop(
        "%(seat)s is the free agent but no camp is open to it: for every camp it lacks a card "
        "of that camp, holds a card kept away from it (%(ref)s) or too many cards of another "
        "camp (%(ref2)s) (%(ref3)s)."),
    "deal_taints_named": gettext_noop("The taints must name the killer-tainted and the "
                                      "wolf-tainted neutral cards (%(ref)s)."),
    "deal_taint_count": gettext_noop("%(n)s different neutral cards carry the %(camp)s taint "
                                     "(%(ref)s)."),
    "deal_taint_not_neutral": gettext_noop("Only neutral cards of the deck can carry a taint, "
                                           "not %(cards)s (%(ref)s)."),
    "deal_taints_apart": gettext_noop("%(seat)s holds both cards with the %(camp)s taint; they "
                                      "go to different players (%(ref)s)."),
    "deal_one_taint": gettext_noop("A neutral card carries at most one taint (%(ref)s)."),
}

REASONS = ReasonTexts(reasons.R, {**CHAIN_TEXTS, **RESULT_TEXTS, **REFUSAL_TEXTS,
                                  **DEAL_TEXTS}, renderers=RENDERERS)


def reason_text(reason: dict, names: dict[int, str]) -> str:
    """One reason of the engine's table in the reader's language (its code if unknown)."""
    text = REASONS.render(reason, names)
    return str(reason.get("code")) if text is None else text


def review_intro() -> str:
    """The review's opening: what 猫有n条命 hides."""
    return _("Everything the game hid is shown here: every seat's camp, cards and loss order, "
             "the secret taints, the GM's secrets, every private action and result. Each event "
             "says who saw it at the time and why it happened.")


class NineLivesPresenter(Presenter):
    """猫有n条命 for people: the functions above are its presenter's methods
    (games/presenters/interface.py declares them; the others keep their defaults)."""

    EVENTS = EVENTS
    REASONS = REASONS
    ANNOUNCE_AT_ONCE = ANNOUNCE_AT_ONCE
    present = staticmethod(present)
    label = staticmethod(label)
    param_label = staticmethod(param_label)
    refusal = staticmethod(refusal)
    seat_facts = staticmethod(seat_facts)
    final_camp = staticmethod(final_camp)
    outcome = staticmethod(outcome)
    review_facts = staticmethod(review_facts)
    review_secret = staticmethod(review_secret)
    review_intro = staticmethod(review_intro)
    phase_label = staticmethod(phase_label)
    phase_name = staticmethod(phase_name)
    vote_tallies = staticmethod(vote_tallies)
    vote_heading = staticmethod(vote_heading)
    phase_summary = staticmethod(phase_summary)
    end_title = staticmethod(end_title)


PRESENTER = NineLivesPresenter()
