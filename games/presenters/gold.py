"""谁偷了我的金币 (`gold`) for people: events as sentences, choices as form labels, refusals.

The machinery (games/presenters/__init__.py) calls four functions:
    present(event, names) -> str | None   an engine event (or the confirmation of a step)
    label(choice, names) -> str | None    how the action form offers a `Choice`
    refusal(refusal) -> str | None        a `Refusal` as a sentence for the player
    seat_facts(view, number) -> str       one seat's public facts, for the game's home page
`names` maps a seat index to its player's display name. Every sentence is an English msgid
translated through the one catalogue (Chinese by default,
locale/zh_Hans/LC_MESSAGES/django.po). Returning None (an unknown kind, a malformed event)
uses the generic text of games/presenters/base.py for that one event.

What a sentence may say is decided by the event's visibility, which the engine sets: a
private event (a secret pick, the card a seat laid face down) only ever reaches that seat's
conversation, the GM and the post-game review. The sentences here only restate the event's
own data, so they cannot add a secret the event did not already carry.

Seats and virtual players are numbered from 1 in every sentence.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext

from ..engine.gold.reasons import COUNTS, PAYMENTS, PLACE, TABLE, VIRTUAL, R
from ..engine.reasons import CARD, SECTIONS
from .base import listing, who
from .interface import Presenter
from .reasons import ReasonTexts

SHOWING = re.compile(r"\(showing (KILLER|ASSASSIN|THIEF)\)")


# --- small pieces --------------------------------------------------------------------------

def card(name) -> str:
    """A card's name in the reader's language (KILLER 杀手, ASSASSIN 刺客, THIEF 盗贼)."""
    names = {"KILLER": _("KILLER"), "ASSASSIN": _("ASSASSIN"), "THIEF": _("THIEF")}
    return names.get(name, str(name))


def param_label(key: str, value) -> str | None:
    """A step's card or virtual player for the console's pickers."""
    if key == "card":
        return card(value)
    if key == "virtual" and isinstance(value, int):
        return virtual_name(value)
    return None


def virtual_name(index) -> str:
    return _("virtual player %(n)d") % {"n": index + 1}


def place(target: dict, names: dict[int, str]) -> str:
    """`{"seat": i}` or `{"virtual": j}` as a readable place."""
    if "seat" in target:
        return who(names, target["seat"])
    return virtual_name(target["virtual"])


def joined(items) -> str:
    """A list of facts, with the reader's separator ("; " in English, "；" in Chinese)."""
    return _("; ").join(items)


def seat_list(seats, names: dict[int, str]) -> str:
    return "、".join(who(names, s) for s in seats) or _("nobody")


def table_text(seat_cards: list, virtual_cards: list, names: dict[int, str]) -> str:
    """Every card on the table: the players' in seat order, then the virtual players'."""
    players = joined(f"{who(names, i)} {card(c)}" for i, c in enumerate(seat_cards))
    virtual = joined(f"{virtual_name(v)} {card(c)}" for v, c in enumerate(virtual_cards))
    return _("players: %(players)s — virtual players: %(virtual)s") % {
        "players": players, "virtual": virtual}


def counts_text(counts: dict) -> str:
    return _("%(k)d KILLER, %(a)d ASSASSIN, %(t)d THIEF") % {
        "k": counts.get("KILLER", 0), "a": counts.get("ASSASSIN", 0),
        "t": counts.get("THIEF", 0)}


def judgment_text(judgment: dict) -> str:
    """Who takes the 4 coins under the coin rule (§4), and why, in one sentence.

    1. Work out which card would take the coins: the larger of KILLER and ASSASSIN, or THIEF
       on a tie (§4③ §4④).
    2. Nobody paid: either nobody holds that card, or 5 or more would share (§4⑤, I4 I5).
    3. Otherwise: the share each holder gets, and what vanishes (§4⑤ §4⑥).
    """
    counts = judgment["counts"]
    k, a = counts.get("KILLER", 0), counts.get("ASSASSIN", 0)
    would = "KILLER" if k > a else "ASSASSIN" if a > k else "THIEF"
    if judgment["winner"] is None:
        if counts.get(would, 0) == 0:
            return _("Nobody holds %(card)s, so the 4 coins vanish.") % {"card": card(would)}
        return _("%(n)d %(card)s holders would share the 4 coins; with 5 or more nobody gets "
                 "anything and the coins vanish.") % {"n": counts[would], "card": card(would)}
    winner = judgment["winner"]
    text = _("%(card)s takes the 4 coins: %(share)d for each holder.") % {
        "card": card(winner), "share": judgment["per_card"].get(winner, 0)}
    thief = judgment["per_card"].get("THIEF", 0)
    if winner != "THIEF" and thief:
        text += " " + _("The THIEF holders get the rest: %(n)d each.") % {"n": thief}
    if judgment.get("vanished"):
        text += " " + _("%(n)d coin(s) cannot be split evenly and vanish.") % {
            "n": judgment["vanished"]}
    return text


def coins_text(coins: list, names: dict[int, str]) -> str:
    return joined(f"{who(names, i)} {c}" for i, c in enumerate(coins))


# --- events ------------------------------------------------------------------------------

def present(event: dict, names: dict[int, str]) -> str | None:
    """One sentence (Markdown) for an engine event or a step's confirmation.

    A malformed or unknown event returns None, so the generic text is used instead of a
    crash (the timeline also shows the GM's own log entries).
    """
    kind = event.get("kind")
    data = event.get("data") or {}
    writer = EVENTS.get(kind) or CONFIRMATIONS.get(kind)
    if writer is None:
        return None
    try:
        return writer(data, names)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None


def _setup(d, names):
    return _("谁偷了我的金币 begins: %(players)d players and %(virtual)d virtual players, "
             "%(rounds)d rounds. %(lead)s leads the first round; the lead then passes to the "
             "next seat each round.") % {
        "players": d["players"], "virtual": d["virtual_players"], "rounds": d["rounds"],
        "lead": who(names, d["first_lead"])}


def _round_started(d, names):
    cards = joined(f"{virtual_name(v)} {card(c)}" for v, c in enumerate(d["virtual"]))
    return _("Round %(round)d begins; %(lead)s leads. The virtual players show: "
             "%(cards)s. Every player picks one of its three cards in secret.") % {
        "round": d["round"], "lead": who(names, d["lead"]), "cards": cards}


def _picked(d, names):
    return _("%(seat)s picked %(card)s in secret; it will be shown when everyone's cards are "
             "revealed together.") % {"seat": who(names, d["seat"]),
                                      "card": card(d["card"])}


def _pick_defaulted(d, names):
    return _("%(seat)s did not pick a card in time, so %(card)s was drawn at random from its "
             "hand.") % {"seat": who(names, d["seat"]), "card": card(d["card"])}


def _revealed(d, names):
    return _("All cards are revealed together: %(table)s.") % {
        "table": table_text(d["seats"], d["virtual"], names)}


def _preliminary(d, names):
    text = _("Preliminary judgment: %(counts)s.") % {"counts": counts_text(d["counts"])}
    text += " " + judgment_text(d)
    if d["priority"]:
        text += " " + _("Instead of coins, %(seats)s take(s) a priority token.") % {
            "seats": seat_list(d["priority"], names)}
    else:
        text += " " + _("No player would win coins, so nobody takes a priority token.")
    return text


def _bonus(d, names):
    values = {"seat": who(names, d["seat"]), "coins": d["coins"], "total": d["total"]}
    if d.get("missed"):
        return _("%(seat)s made no choice in time, so it keeps its priority token and its "
                 "card and takes %(coins)d bonus coins (now %(total)d).") % values
    return _("%(seat)s keeps its priority token and its card and takes %(coins)d bonus coins "
             "(now %(total)d).") % values


def _double(d, names):
    return _("%(seat)s trades its priority token for a ×2 token: what it wins this round is "
             "doubled. It will also take a turn to change cards.") % {
        "seat": who(names, d["seat"])}


def _kept(d, names):
    if d.get("missed"):
        return _("%(seat)s made no choice in time, so it keeps its card.") % {
            "seat": who(names, d["seat"])}
    return _("%(seat)s keeps its card.") % {"seat": who(names, d["seat"])}


def _swapped(d, names):
    return _("%(seat)s covers its card with one of its two other cards, face down.") % {
        "seat": who(names, d["seat"])}


def _swapped_card(d, names):
    return _("The card %(seat)s put face down is %(card)s; nobody else knows it until it is "
             "flipped or judged.") % {"seat": who(names, d["seat"]),
                                      "card": card(d["card"])}


def _replaced(d, names):
    return _("%(seat)s puts a card face down in place of the %(removed)s of %(virtual)s. "
             "Nobody else may replace a virtual player's card this round.") % {
        "seat": who(names, d["seat"]), "removed": card(d["removed"]),
        "virtual": virtual_name(d["virtual"])}


def _replaced_card(d, names):
    return _("The card %(seat)s put on %(virtual)s is %(card)s; nobody else knows it until it "
             "is flipped or judged.") % {"seat": who(names, d["seat"]),
                                         "virtual": virtual_name(d["virtual"]),
                                         "card": card(d["card"])}


def _flipped(d, names):
    return _("%(seat)s flips the face-down card of %(place)s: it is %(card)s. Nobody else may "
             "flip a card this round.") % {"seat": who(names, d["seat"]),
                                           "place": place(d["target"], names),
                                           "card": card(d["card"])}


def _final(d, names):
    lines = [_("Final judgment of round %(round)d: %(table)s.") % {
        "round": d["round"], "table": table_text(d["seats"], d["virtual"], names)},
        _("The table shows %(counts)s.") % {"counts": counts_text(d["judgment"]["counts"])},
        judgment_text(d["judgment"])]
    doubled = [i for i, t in enumerate(d["tokens"]) if t == "double"]
    for i in doubled:
        lines.append(_("%(seat)s holds a ×2 token: %(share)d becomes %(paid)d.") % {
            "seat": who(names, i), "share": d["shares"][i], "paid": d["paid"][i]})
    paid = [(i, p) for i, p in enumerate(d["paid"]) if p]
    if paid:
        lines.append(_("Coins won: %(list)s.") % {"list": joined(
            f"{who(names, i)} +{p}" for i, p in paid)})
    else:
        lines.append(_("No player wins coins this round."))
    lines.append(_("Coins so far: %(list)s.") % {"list": coins_text(d["coins"], names)})
    return " ".join(lines)


def outcome(o, names, view=None) -> str:
    """The result for the game's home page and the review, with the coins from the (GM's or
    any) view of the finished game."""
    coins = ((view or {}).get("public") or {}).get("coins")
    winners = list(o.get("winners") or [])
    if not winners:
        return ""
    if not coins:  # a list of games reads no state: the winners only
        return _("Winners: %(seats)s.") % {"seats": seat_list(winners, names)}
    return _game_over({"coins": coins, "winners": winners}, names)


def _game_over(d, names):
    best = max(d["coins"])
    if len(d["winners"]) == 1:
        text = _("The game is over. %(seat)s wins with %(coins)d coins.") % {
            "seat": who(names, d["winners"][0]), "coins": best}
    else:
        text = _("The game is over. %(seats)s share the win with %(coins)d coins each.") % {
            "seats": seat_list(d["winners"], names), "coins": best}
    return text + " " + _("Final coins: %(list)s.") % {"list": coins_text(d["coins"], names)}


EVENTS = {
    "setup": _setup, "round_started": _round_started, "picked": _picked,
    "pick_defaulted": _pick_defaulted, "revealed": _revealed, "preliminary": _preliminary,
    "bonus": _bonus, "double": _double, "kept": _kept, "swapped": _swapped,
    "swapped_card": _swapped_card, "replaced": _replaced, "replaced_card": _replaced_card,
    "flipped": _flipped, "final": _final, "game_over": _game_over,
}


# --- a step, as the player chose it (the confirmation, and the form's labels) ---------------

def _pick_step(d, names):
    return _("Pick %(card)s") % {"card": card(d["card"])}


def _bonus_step(d, names):
    return _("Keep the priority token and take 2 bonus coins; your card stays as it is")


def _double_step(d, names):
    return _("Trade the priority token for a ×2 token, then take a turn to change cards")


def _keep_step(d, names):
    return _("Keep your card and do nothing else")


def _swap_step(d, names):
    return _("Cover your card with your %(card)s, face down") % {"card": card(d["card"])}


def _replace_step(d, names):
    if "card" not in d or "virtual" not in d:  # the act form's option with two pickers
        return _("Put one of your cards face down in place of a virtual player's card: "
                 "choose the card and the virtual player below")
    return _("Put your %(card)s face down in place of the card of %(virtual)s") % {
        "card": card(d["card"]), "virtual": virtual_name(d["virtual"])}


def _flip_step(d, names):
    return _("Flip the face-down card of %(place)s") % {"place": place(d, names)}


CONFIRMATIONS = {
    "pick": _pick_step, "take_bonus": _bonus_step, "take_double": _double_step,
    "keep": _keep_step, "swap": _swap_step, "replace": _replace_step, "flip": _flip_step,
}


def label(choice, names: dict[int, str]) -> str | None:
    """How the action form offers `choice`.

    The engine's English label carries two facts the choice's params do not: that a card is
    the seat's current pick, and which face-up card a replacement would remove. Both are
    public or the seat's own, so they are carried over into the translated label.
    """
    writer = CONFIRMATIONS.get(choice.kind)
    if writer is None:
        return None
    try:
        text = writer(choice.params, names)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    if choice.kind == "pick" and "(your current pick)" in (choice.label or ""):
        text += " " + _("(your current pick)")
    shown = SHOWING.search(choice.label or "") if choice.kind == "replace" else None
    if shown:
        text += " " + _("(it shows %(card)s)") % {"card": card(shown.group(1))}
    return text


def pick_label(key: str, value, choices) -> str | None:
    """An entry of the act form's virtual-player picker: "虚拟玩家2（亮着刺客）", the face-up
    card (public) read from the engine's label of an offered replacement."""
    if key != "virtual" or not isinstance(value, int):
        return None
    for choice in choices:
        shown = SHOWING.search(choice.label or "") if choice.params.get("virtual") == value \
            else None
        if shown:
            return _("%(virtual)s (it shows %(card)s)") % {
                "virtual": virtual_name(value), "card": card(shown.group(1))}
    return virtual_name(value)


# --- the game's home page ---------------------------------------------------------------

def seat_facts(view: dict, number: int) -> str:
    """One seat's public facts for the home page's table of seats.

    Reads only `view["public"]`, never the viewer's own part, so every visitor reads the
    same line: coins, then (before the reveal) whether the seat has picked, or (after it) its
    shown card, a face-down card as "?" until it is turned up, and its token.
    """
    pub = view.get("public") or {}
    try:
        parts = [_("%(n)d gold coins") % {"n": pub["coins"][number]}]
        spot = pub["table"][number]
        if pub["phase"] == "pick" and spot is None:
            parts.append(_("has picked") if pub["picked"][number] else _("still picking"))
        elif spot is not None:
            parts.append(_("shows %(card)s") % {"card": card(spot["shown"])})
            if spot["covered"]:
                parts.append(_("face-down card: %(card)s") % {
                    "card": card(spot["cover"]) if spot["cover"] else "?"})
        token = pub["tokens"][number]
        if token == "priority":
            parts.append(_("priority token"))
        elif token == "double":
            parts.append(_("×2 token"))
    except (KeyError, IndexError, TypeError):
        return ""
    return " · ".join(parts)


# --- refusals ----------------------------------------------------------------------------

def refusal(refused) -> str | None:
    """A refusal in the reader's language: its code and params are a reason of the engine's
    table (a seat 0-based in the data, "3 号座位" in the sentence); None for a code the table
    does not know. The first letter is a capital ("Seat 1 already flipped…" in English)."""
    text = REASONS.render({"code": refused.code, "args": dict(refused.params)}, {})
    return text[:1].upper() + text[1:] if text else None

# A player's visible move is announced at once in the announcement thread (services).
ANNOUNCE_AT_ONCE = frozenset({"swapped", "replaced", "flipped", "bonus", "double", "kept"})


# --- phase names and announcement titles ---------------------------------

def _title(name: str, public: dict, names: dict[int, str], template: str) -> str | None:
    """The phase's name by its round (public["round"], not the phase's counter) and, for a
    turn, its seat."""
    label = phase_name(name, 0, round_of(public))
    if label is None or not public.get("round"):
        return None
    title = template % {"phase": label}
    turn = public.get("turn")
    if name in ("priority", "operation") and isinstance(turn, int):
        title += f" · {who(names, turn)}"
    return title


def end_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    """"第2轮 · 操作结束 · 2号阿狗"."""
    return _title(name, public, names, pgettext("title", "%(phase)s is over"))


def step_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    return _title(name, public, names, "%(phase)s")


# A round opens with its pick (§3); the phase counter counts every turn of every round.
ROUND_OPENS = "pick"


def round_of(public: dict) -> int | None:
    """The round of the current phase (the phase counter is no round)."""
    value = public.get("round")
    return value if isinstance(value, int) and value > 0 else None


def phase_name(name: str, number: int, round: int | None = None) -> str | None:
    """"第2轮 · 选牌", "第2轮 · 先手行动", "第2轮 · 操作": by the ROUND (players think in
    rounds), never by `number`, which counts every phase of the game."""
    names = {"pick": _("Round %(n)d · pick"), "priority": _("Round %(n)d · priority turn"),
             "operation": _("Round %(n)d · operation")}
    if name in names and round:
        return names[name] % {"n": round}
    return phase_label(name)  # no round known: the kind of phase, never the phase counter
# --- phases and the post-game review -----------------------------------------------------------

def phase_label(name: str) -> str | None:
    return {"pick": _("Pick"), "priority": _("Priority turns"),
            "operation": _("Operation turns"), "over": _("Game over")}.get(name)


def review_facts(private: dict, number: int, names: dict[int, str]) -> list[tuple[str, str]]:
    """A seat's cards at the end, for the review table."""
    rows = [(_("In my hand"), "、".join(card(c) for c in private.get("hand") or []) or "—")]
    if private.get("pick"):
        rows.append((_("Shown card"), card(private["pick"])))
    face_down = private.get("face_down")
    if face_down:
        where = (virtual_name(face_down["virtual"]) if "virtual" in face_down
                 else _("on the seat's own card"))
        rows.append((_("Face-down card"), f"{card(face_down.get('card'))}（{where}）"))
    return rows


def review_secret(secret: dict, names: dict[int, str]) -> list[tuple[str, str]]:
    """The GM's secrets for the review: the virtual players' cards."""
    cards = (secret.get("cards") or {}).get("virtual") or []
    return [(virtual_name(i), card(c)) for i, c in enumerate(cards) if c]


# --- reasons: the engine's explanations, refusals and results as data ----------------------
# Every code of games/engine/gold/reasons.py as a msgid with a placeholder per argument
# (games/presenters/reasons.py); tests/presenters/test_reasons_gold.py plays random games and
# fails on any code or argument this table cannot render in Chinese.

def rule_refs(refs, names=None) -> str:
    """The seed's references the reader's way: "4②" is §4②, "5④.3" is §5④ operation 3
    ("§5④ 操作3"), "I12" the engine's interpretation I12; joined "§6④、I12"."""
    def one(ref: str) -> str:
        if ref.startswith("I"):
            return ref
        section, _dot, operation = ref.partition(".")
        if operation:
            return f"§{section} " + _("operation %(n)s") % {"n": operation}
        return f"§{section}"
    return listing(one(r) for r in refs)


REASONS = ReasonTexts(R, {
    # the setup and the rounds
    "places": gettext_noop("%(n)s players and %(n2)s virtual players fill the 8 places; the "
                           "game lasts %(n3)s rounds (%(ref)s)."),
    "lead_by_lot": gettext_noop("The players left the first lead to chance: %(seat)s was "
                                "drawn by lot (%(ref)s)."),
    "lead_chosen": gettext_noop("The players chose %(seat)s to lead the first round "
                                "(%(ref)s)."),
    "round_lead": gettext_noop("Round %(n)s of %(n2)s; %(seat)s leads (%(ref)s)."),
    "lead_passes": gettext_noop("The lead passes to the next seat each round (%(ref)s)."),
    "deal": gettext_noop("Every player holds one %(card)s, one %(card2)s and one %(card3)s "
                         "(%(ref)s); the virtual pile of %(n)s cards was shuffled and %(n2)s "
                         "drawn face up for the virtual players (%(ref2)s)."),
    # the pick and the reveal (§3)
    "picked": gettext_noop("%(seat)s picked %(card)s in secret; it will be shown when the "
                           "pick phase ends (%(ref)s)."),
    "pick_confirmed": gettext_noop("%(seat)s confirmed its secret pick, %(card)s (%(ref)s)."),
    "pick_changed": gettext_noop("%(seat)s changed its secret pick from %(card)s to %(card2)s "
                                 "before the reveal (%(ref)s)."),
    "pick_defaulted": gettext_noop("%(seat)s did not pick a card in time, so %(card)s was "
                                   "drawn at random from its hand (%(ref)s)."),
    "picks_shown": gettext_noop("Every player's pick is shown at the same time (%(ref)s): "
                                "%(table)s."),
    "picks_missed": gettext_noop("%(seats)s missed the pick and got a card at random "
                                 "(%(ref)s)."),
    "priority_tokens": gettext_noop("%(seats)s would win coins; instead each takes a priority "
                                    "token (%(ref)s)."),
    "no_priority": gettext_noop("No player would win coins, so nobody takes a priority token "
                                "(%(ref)s)."),
    # the coin rule (§4)
    "table_counts": gettext_noop("The table shows %(counts)s (%(ref)s)."),
    "outnumber": gettext_noop("%(card)s outnumber %(card2)s, so the %(card3)s holders take "
                              "the %(n)s coins (%(ref)s)."),
    "tied": gettext_noop("%(card)s and %(card2)s are tied at %(n)s, so the %(card3)s holders "
                         "take the %(n2)s coins (%(ref)s)."),
    "nobody_holds": gettext_noop("Nobody holds %(card)s, so the %(n)s coins vanish."),
    "crowd": gettext_noop("%(n)s holders would share %(n2)s coins; with %(n3)s or more nobody "
                          "gets anything and the coins vanish (%(ref)s)."),
    "share": gettext_noop("The %(n)s %(card)s holder(s) get %(n2)s coin(s) each (%(ref)s)."),
    "rest_to_thieves": gettext_noop("The %(n)s coin(s) left over go to the %(n2)s %(card)s "
                                    "holder(s): %(n3)s each (%(ref)s)."),
    "rest_unclaimed": gettext_noop("The %(n)s coin(s) left over have no %(card)s to go to."),
    "rest_vanishes": gettext_noop("%(n)s coin(s) cannot be split evenly and vanish "
                                  "(%(ref)s)."),
    # the priority turns (§5③)
    "priority_missed": gettext_noop("%(seat)s made no priority choice in time, so it keeps "
                                    "the token (%(ref)s)."),
    "bonus": gettext_noop("%(seat)s keeps its priority token and its card and takes %(n)s "
                          "bonus coins from the supply (%(ref)s)."),
    "double": gettext_noop("%(seat)s trades its priority token for a ×2 token: what it wins "
                           "this round is doubled (%(ref)s)."),
    "double_operates": gettext_noop("Without a priority token it will also take a turn among "
                                    "the operations (%(ref)s)."),
    # the operations (§5④)
    "keep_missed": gettext_noop("%(seat)s made no choice in time, so it keeps its card "
                                "(%(ref)s)."),
    "kept": gettext_noop("%(seat)s keeps its card and does nothing else (%(ref)s)."),
    "swapped": gettext_noop("%(seat)s covers its %(card)s with one of its two other cards, "
                            "face down (%(ref)s)."),
    "swapped_card": gettext_noop("The card %(seat)s put face down is %(card)s; only it knows "
                                 "until the card is flipped or judged."),
    "replaced": gettext_noop("%(seat)s keeps its card and puts a card from its hand face down "
                             "in place of %(virtual)s's %(card)s (%(ref)s)."),
    "replace_once": gettext_noop("Nobody else may replace a virtual player's card this round "
                                 "(%(ref)s)."),
    "replaced_card": gettext_noop("The card %(seat)s put on %(virtual)s is %(card)s; only it "
                                  "knows until the card is flipped or judged."),
    "flipped": gettext_noop("%(seat)s keeps its card and flips the face-down card of "
                            "%(place)s: it is %(card)s (%(ref)s)."),
    "flip_once": gettext_noop("Nobody else may flip a card this round (%(ref)s)."),
    # the final judgment (§6) and the end
    "final_table": gettext_noop("Every player turns its card face up for the final judgment "
                                "(%(ref)s): %(table)s."),
    "doubled": gettext_noop("%(seat)s holds a ×2 token: %(n)s becomes %(n2)s (%(ref)s)."),
    "paid": gettext_noop("Coins paid: %(payments)s."),
    "nobody_paid": gettext_noop("No player wins coins this round."),
    "all_rounds": gettext_noop("All %(n)s rounds are played; the most coins wins and a tie "
                               "shares the win (%(ref)s)."),
    # results
    "wins": gettext_noop("%(seat)s wins with %(n)s coins."),
    "share_win": gettext_noop("%(seats)s share the win with %(n)s coins each."),
    # refusals
    "bad_step": gettext_noop("This is not a step the game understands."),
    "bad_params": gettext_noop("The choice's details are missing."),
    "unknown_action": gettext_noop("This game has no such action."),
    "not_a_seat": gettext_noop("Only a seated player can act in this game."),
    "game_over": gettext_noop("The game is over."),
    "still_picking": gettext_noop("Everyone is still picking a card; this choice comes after "
                                  "the reveal."),
    "not_your_turn": gettext_noop("It is %(seat)s's turn, not yours."),
    "already_acted": gettext_noop("You have already made your choice this turn."),
    "not_priority_turn": gettext_noop("Only a priority holder, in its priority turn, chooses "
                                      "between the bonus and the ×2 token."),
    "priority_turn": gettext_noop("This is a priority turn: take the bonus or the ×2 token."),
    "already_revealed": gettext_noop("The cards have already been revealed this round."),
    "bad_card": gettext_noop("Pick one of KILLER, ASSASSIN or THIEF."),
    "no_details": gettext_noop("This choice takes no details."),
    "no_swap_card": gettext_noop("Name the card to put face down."),
    "card_not_in_hand": gettext_noop("You can only use one of the two cards still in your "
                                     "hand."),
    "bad_replace": gettext_noop("Name a card from your hand and a virtual player."),
    "replace_used": gettext_noop("%(seat)s already replaced a virtual player's card this "
                                 "round; only one may."),
    "no_such_virtual": gettext_noop("There is no such virtual player."),
    "flip_used": gettext_noop("%(seat)s already flipped a card this round; only one may."),
    "not_face_down": gettext_noop("Flip a face-down card that is still hidden."),
}, renderers={
    CARD: lambda v, names: card(v),
    SECTIONS: rule_refs,
    TABLE: lambda v, names: table_text(v["seats"], v["virtual"], names),
    COUNTS: lambda v, names: counts_text(v),
    VIRTUAL: lambda v, names: virtual_name(v),
    PLACE: place,
    PAYMENTS: lambda v, names: joined(f"{who(names, p['seat'])} +{p['coins']}" for p in v),
})


def review_intro() -> str:
    """The review's opening: what 谁偷了我的金币 hides."""
    return _("Everything the game hid is shown here: each seat's picks and the cards laid "
             "face down, round by round, and every private result. Each event says who saw it "
             "at the time and why it happened.")


class GoldPresenter(Presenter):
    """谁偷了我的金币 for people: the functions above are its presenter's methods
    (games/presenters/interface.py declares them; the others keep their defaults)."""

    EVENTS = EVENTS
    REASONS = REASONS
    ANNOUNCE_AT_ONCE = ANNOUNCE_AT_ONCE
    ROUND_OPENS = ROUND_OPENS
    present = staticmethod(present)
    label = staticmethod(label)
    param_label = staticmethod(param_label)
    pick_label = staticmethod(pick_label)
    refusal = staticmethod(refusal)
    seat_facts = staticmethod(seat_facts)
    outcome = staticmethod(outcome)
    review_facts = staticmethod(review_facts)
    review_secret = staticmethod(review_secret)
    review_intro = staticmethod(review_intro)
    phase_label = staticmethod(phase_label)
    phase_name = staticmethod(phase_name)
    round_of = staticmethod(round_of)
    end_title = staticmethod(end_title)
    step_title = staticmethod(step_title)


PRESENTER = GoldPresenter()
