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

from .base import seat_name

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
        return seat_name(names, target["seat"])
    return virtual_name(target["virtual"])


def joined(items) -> str:
    """A list of facts, with the reader's separator ("; " in English, "；" in Chinese)."""
    return _("; ").join(items)


def seat_list(seats, names: dict[int, str]) -> str:
    return "、".join(seat_name(names, s) for s in seats) or _("nobody")


def table_text(seat_cards: list, virtual_cards: list, names: dict[int, str]) -> str:
    """Every card on the table: the players' in seat order, then the virtual players'."""
    players = joined(f"{seat_name(names, i)} {card(c)}" for i, c in enumerate(seat_cards))
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
    return joined(f"{seat_name(names, i)} {c}" for i, c in enumerate(coins))


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
        "lead": seat_name(names, d["first_lead"])}


def _round_started(d, names):
    cards = joined(f"{virtual_name(v)} {card(c)}" for v, c in enumerate(d["virtual"]))
    return _("Round %(round)d begins; %(lead)s leads. The virtual players show: "
             "%(cards)s. Every player picks one of its three cards in secret.") % {
        "round": d["round"], "lead": seat_name(names, d["lead"]), "cards": cards}


def _picked(d, names):
    return _("%(seat)s picked %(card)s in secret; it will be shown when everyone's cards are "
             "revealed together.") % {"seat": seat_name(names, d["seat"]),
                                      "card": card(d["card"])}


def _pick_defaulted(d, names):
    return _("%(seat)s did not pick a card in time, so %(card)s was drawn at random from its "
             "hand.") % {"seat": seat_name(names, d["seat"]), "card": card(d["card"])}


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
    values = {"seat": seat_name(names, d["seat"]), "coins": d["coins"], "total": d["total"]}
    if d.get("missed"):
        return _("%(seat)s made no choice in time, so it keeps its priority token and its "
                 "card and takes %(coins)d bonus coins (now %(total)d).") % values
    return _("%(seat)s keeps its priority token and its card and takes %(coins)d bonus coins "
             "(now %(total)d).") % values


def _double(d, names):
    return _("%(seat)s trades its priority token for a ×2 token: what it wins this round is "
             "doubled. It will also take a turn to change cards.") % {
        "seat": seat_name(names, d["seat"])}


def _kept(d, names):
    if d.get("missed"):
        return _("%(seat)s made no choice in time, so it keeps its card.") % {
            "seat": seat_name(names, d["seat"])}
    return _("%(seat)s keeps its card.") % {"seat": seat_name(names, d["seat"])}


def _swapped(d, names):
    return _("%(seat)s covers its card with one of its two other cards, face down.") % {
        "seat": seat_name(names, d["seat"])}


def _swapped_card(d, names):
    return _("The card %(seat)s put face down is %(card)s; nobody else knows it until it is "
             "flipped or judged.") % {"seat": seat_name(names, d["seat"]),
                                      "card": card(d["card"])}


def _replaced(d, names):
    return _("%(seat)s puts a card face down in place of the %(removed)s of %(virtual)s. "
             "Nobody else may replace a virtual player's card this round.") % {
        "seat": seat_name(names, d["seat"]), "removed": card(d["removed"]),
        "virtual": virtual_name(d["virtual"])}


def _replaced_card(d, names):
    return _("The card %(seat)s put on %(virtual)s is %(card)s; nobody else knows it until it "
             "is flipped or judged.") % {"seat": seat_name(names, d["seat"]),
                                         "virtual": virtual_name(d["virtual"]),
                                         "card": card(d["card"])}


def _flipped(d, names):
    return _("%(seat)s flips the face-down card of %(place)s: it is %(card)s. Nobody else may "
             "flip a card this round.") % {"seat": seat_name(names, d["seat"]),
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
            "seat": seat_name(names, i), "share": d["shares"][i], "paid": d["paid"][i]})
    paid = [(i, p) for i, p in enumerate(d["paid"]) if p]
    if paid:
        lines.append(_("Coins won: %(list)s.") % {"list": joined(
            f"{seat_name(names, i)} +{p}" for i, p in paid)})
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
            "seat": seat_name(names, d["winners"][0]), "coins": best}
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
    """A refusal in the reader's language.

    The engine's reasons are the msgids (locale/zh_Hans/LC_MESSAGES/django.po translates
    each one); their `{seat}` placeholders are filled from the refusal's params, already numbered
    from 1. An unknown reason is still formatted, in English.
    """
    text = _(refused.reason)
    try:
        return text.format(**refused.params)
    except (KeyError, IndexError, ValueError):
        return text

# A player's visible move is announced at once in the announcement thread (services).
ANNOUNCE_AT_ONCE = frozenset({"swapped", "replaced", "flipped", "bonus", "double", "kept"})


# --- phase names and announcement titles (issue 14 item 7) ---------------------------------

def _title(name: str, public: dict, names: dict[int, str], template: str) -> str | None:
    """The round (public["round"], not the phase's counter) and, for a turn, its seat."""
    label = phase_label(name)
    if label is None or not public.get("round"):
        return None
    title = template % {"phase": label, "n": public["round"]}
    turn = public.get("turn")
    if name in ("priority", "operation") and isinstance(turn, int):
        title += f" · {seat_name(names, turn)}"
    return title


def end_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    """"第2轮操作结束 · 2号阿狗"."""
    return _title(name, public, names, _("%(phase)s %(n)d ends"))


def step_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    return _title(name, public, names, _("%(phase)s %(n)d"))


def phase_titles(phases: list[tuple[str, int]]) -> list[str]:
    """"第1轮选牌", "第1轮操作轮"... for a game's phases in order: a round begins with each
    pick (the phase's own number counts phases, not rounds)."""
    titles, round_ = [], 0
    for name, number in phases:
        round_ += name == "pick"
        titles.append(_title(name, {"round": max(round_, 1)}, {}, _("%(phase)s %(n)d"))
                      or f"{phase_label(name) or name} {number}")
    return titles


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
