"""Classic 杀人游戏 (`classic`) for people: events as sentences, choices as form labels,
refusals as sentences a player can read.

The machinery (games/presenters/__init__.py) calls three functions:
    present(event, names) -> str | None   an engine event, or the confirmation of a step
                                          (then `kind` is the step's kind, `data` its params)
    label(choice, names) -> str | None    how the action form offers a `Choice`
    refusal(refusal) -> str | None        a `Refusal` as a sentence for the player
and `REASONS` renders the engine's reasons (its `because` chains, refusals and results: codes
with typed arguments, games/engine/classic/reasons.py). `names` maps a seat index to its
player's display name. Every sentence is an English msgid translated through the one
catalogue (Chinese by default, locale/zh_Hans/LC_MESSAGES/django.po). Returning None (an
unknown kind, a malformed event) uses the generic text of games/presenters/base.py for that
one event.

What a sentence may say is decided by the event's visibility, which the engine sets (a team's
proposals reach the team, a check result the police, a protection its guardian). The
sentences here only restate the event's own data, so they cannot add a secret the event did
not already carry: a death whose identity the engine withholds (label None) is written as
"identity not revealed", never guessed.

Seats are numbered from 1 in every sentence ("3号阿狗" in Chinese).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, pgettext, pgettext_lazy

from messaging.words import words_block

from ..engine.classic.reasons import VOTES
from ..engine.classic.reasons import R as WHY
from ..engine.reasons import CARD, SEAT, SEATS, SECTIONS
from .base import TallyRow, VoteTally, listing, sentences
from .interface import Presenter
from .reasons import ReasonTexts

# The 'my hand' panel translates role and phase codes as they come in the view
# ({% translate code context "classic role" %}). Most codes are also the English words used
# here; these are the others, written out so that makemessages keeps their entries.
PANEL_CODES = (
    pgettext_lazy("classic role", "ghost"),
    pgettext_lazy("classic role", "police_guardian"),
    pgettext_lazy("classic role", "bandit_guardian"),
    pgettext_lazy("classic role", "possessed_bandit"),
    pgettext_lazy("classic phase", "setup"),
    pgettext_lazy("classic phase", "night"),
    pgettext_lazy("classic phase", "extra_check"),
    pgettext_lazy("classic phase", "last_words"),
    pgettext_lazy("classic phase", "speech"),
    pgettext_lazy("classic phase", "tie_speech"),
    pgettext_lazy("classic phase", "vote"),
    pgettext_lazy("classic phase", "tie_vote"),
    pgettext_lazy("classic phase", "over"),
)


# --- small pieces --------------------------------------------------------------------------

def final_camp(view: dict, number: int) -> str:
    """The role seat `number` played, from the final reveal after the end (the archive)."""
    roles = view.get("public", {}).get("final_roles") or []
    return role_text(roles[number]) if number < len(roles) else ""


def role_text(label: str | None) -> str:
    """A card or an announced identity in the reader's language; None = withheld.

    The same codes, translated with the same context, are what the 'my hand' panel shows
    (templates/games/panels/classic.html), so a role reads the same everywhere.
    """
    labels = {
        "police": pgettext("classic role", "police"),
        "bandit": pgettext("classic role", "bandit"),
        "civilian": pgettext("classic role", "civilian"),
        "poison": pgettext("classic role", "poison"),
        "guardian": pgettext("classic role", "guardian"),
        "police_guardian": pgettext("classic role", "police guardian"),
        "bandit_guardian": pgettext("classic role", "bandit guardian"),
        "possessed_bandit": pgettext("classic role", "possessed bandit"),
        "ghost": pgettext("classic role", "ghost bandit"),
    }
    if label is None:
        return _("identity not revealed")
    return labels.get(label, str(label))


def who(names: dict[int, str], seat) -> str:
    """A seat as its number and its player's name ("3号阿狗")."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return str(seat)
    name = names.get(seat)
    if not name:
        return pgettext("classic", "seat %(n)d") % {"n": seat + 1}
    return _("%(name)s (seat %(n)d)") % {"name": name, "n": seat + 1}


def seat_list(seats, names: dict[int, str]) -> str:
    shown = [who(names, s) for s in seats or []]
    if not shown:
        return pgettext("classic", "nobody")
    return pgettext("list separator", ", ").join(shown)


def quote(text, author: str) -> str:
    """A player's own words, by `author`, as a plain-text block that no Markdown in them
    can turn into a heading, rule, image or link (messaging/words.py)."""
    return words_block(text, author)


def deaths_text(deaths: list[dict], names: dict[int, str]) -> str:
    """The dead of one announcement: each seat with what the announcement reveals."""
    parts = []
    for entry in deaths:
        text = _("%(seat)s: %(role)s") % {"seat": who(names, entry["seat"]),
                                          "role": role_text(entry.get("label"))}
        if entry.get("last_words"):
            text += _(" (leaves last words)")
        parts.append(text)
    return pgettext("list separator", ", ").join(parts)


# --- engine events -------------------------------------------------------------------------

def _role(data, names, event) -> str:
    role = data["role"]
    duties = {
        "police": _("Each night the police choose one seat to check together and learn its "
                    "exact identity."),
        "bandit": _("Each night the bandits choose one victim together; a silent bandit "
                    "counts as agreeing."),
        "ghost": _("You are one of the bandits. Once per game, at night, you may possess a "
                   "seat outside your team; it happens after the kill."),
        "civilian": _("You have no night action: find the bandits by speaking and voting."),
        "poison": _("You are on the police side but do not check. If the bandits kill you, "
                    "the bandit named in their death pact dies with you; if the ghost "
                    "possesses you, the ghost dies with you."),
        "guardian": _("Your stance is your own. Each night protect one seat (never yourself, "
                      "never the same seat twice): if it is killed or voted out this round, "
                      "you die in its place. You may skip once; the second skip is death by "
                      "dereliction."),
        "police_guardian": _("Each night protect one seat (never yourself, never the same "
                             "seat twice). Your protection works for the police side and "
                             "civilians: you die in their place. You may skip once."),
        "bandit_guardian": _("Each night protect one seat (never yourself, never the same "
                             "seat twice). Your protection works for the bandits and "
                             "civilians: you die in their place. You may skip once."),
    }
    text = _("Your card: **%(role)s**.") % {"role": role_text(role)}
    if role in duties:
        text += "\n\n" + duties[role]
    return text


def _teammates(data, names, event) -> str:
    team = seat_list(data["team"], names)
    if "ghost" not in data:  # the police's list carries no ghost
        return _("The police are %(seats)s; you see each other.") % {"seats": team}
    text = _("The bandits are %(seats)s; you see each other.") % {"seats": team}
    if data["ghost"] is not None:
        text += "\n\n" + _("Your ghost bandit is %(seat)s.") % {"seat": who(names, data["ghost"])}
    return text


def _night_falls(data, names, event) -> str:
    return _("Night %(n)d falls: the bandits choose a victim and the police a seat to "
             "check.") % {"n": data["number"]}


def _kill_proposed(data, names, event) -> str:
    text = _("%(seat)s proposes to kill %(target)s.") % {
        "seat": who(names, data["seat"]), "target": who(names, data["target"])}
    if data.get("pact") is not None:
        text += " " + _("Death pact: if the victim is the poison, %(pact)s dies with it.") % {
            "pact": who(names, data["pact"])}
    return text


def _deferred(data, names, event) -> str:
    return _("%(seat)s goes with the team's choice.") % {"seat": who(names, data["seat"])}


def _team_message(data, names, event) -> str:
    return (_("%(seat)s to the team:") % {"seat": who(names, data["seat"])}
            + "\n\n" + quote(data["text"], who(names, data["seat"])))


def _possession_submitted(data, names, event) -> str:
    return _("The ghost %(seat)s will possess %(target)s after tonight's kill.") % {
        "seat": who(names, data["seat"]), "target": who(names, data["target"])}


def _possession_cancelled(data, names, event) -> str:
    return _("The ghost %(seat)s withdrew tonight's possession.") % {
        "seat": who(names, data["seat"])}


def _check_proposed(data, names, event) -> str:
    return _("%(seat)s proposes to check %(target)s.") % {
        "seat": who(names, data["seat"]), "target": who(names, data["target"])}


def _protection_submitted(data, names, event) -> str:
    return _("You protect %(target)s this round, against tonight's kill and the next "
             "day's vote.") % {"target": who(names, data["target"])}


def _protection_skip_chosen(data, names, event) -> str:
    return _("You protect nobody this round. A guardian may do so once; the second time is "
             "death by dereliction.")


def _protection_skipped(data, names, event) -> str:
    return _("You protected nobody this round. That was your one skip: the next one is death "
             "by dereliction.")


def _check_result(data, names, event) -> str:
    words = (_("Extra check: %(seat)s is **%(role)s**.") if data.get("extra")
             else _("Check: %(seat)s is **%(role)s**."))
    return words % {"seat": who(names, data["seat"]), "role": role_text(data["result"])}


def _poison_checked(data, names, event) -> str:
    return _("The police have checked you: they know you are the poison.")


def _possessed(data, names, event) -> str:
    return _("The ghost possessed %(seat)s, a civilian, who is now a bandit. The bandits are "
             "now %(team)s.") % {"seat": who(names, data["seat"]),
                                 "team": seat_list(data["team"], names)}


def _possession_void(data, names, event) -> str:
    if data.get("seat") is None:
        return _("The possession did not happen: the ghost or its target died first tonight. "
                 "The ghost keeps its possession.")
    return _("The possession of %(seat)s had no effect; the ghost has used its one "
             "possession.") % {"seat": who(names, data["seat"])}


def _possession_on_police(data, names, event) -> str:
    return _("A ghost possessed one of the police, without effect. The GM does not say whom.")


def _extra_check(data, names, event) -> str:
    return _("You checked the poison: the police may check one more seat before the day.")


def _guardian_lapsed(data, names, event) -> str:
    return _("The bandits killed the bandit guardian. From now on you play as a civilian, and "
             "your protection of this round is void.")


def _dawn(data, names, event) -> str:
    """1. Who died and what each reveals; 2. the poison pair, whose two identities stay
    mixed; 3. deaths by dereliction; 4. who leaves last words."""
    deaths = data.get("deaths") or []
    if deaths:
        lines = [_("Dawn of day %(n)d. Died in the night: %(deaths)s.") % {
            "n": data["number"], "deaths": deaths_text(deaths, names)}]
    else:
        lines = [_("Dawn of day %(n)d. Nobody died in the night.") % {"n": data["number"]}]
    pair = data.get("pair")
    if pair:  # {"seats": the poison and the pact's bandit in seat order, "label": the bandit's}
        lines.append(_("One of %(seats)s was the poison and the other a %(role)s; which is "
                       "which is not revealed.") % {"seats": seat_list(pair["seats"], names),
                                                    "role": role_text(pair["label"])})
    if data.get("dereliction"):
        lines.append(_("%(seats)s died of dereliction: a guardian who skipped twice or had "
                       "nobody left to protect.") % {
            "seats": seat_list(data["dereliction"], names)})
    return "\n\n".join(lines)


def _last_words(data, names, event) -> str:
    if "seat" not in data:  # the confirmation of one's own last words
        return _("my last words")
    return (_("Last words of %(seat)s:") % {"seat": who(names, data["seat"])}
            + "\n\n" + quote(data["text"], who(names, data["seat"])))


def _last_words_skipped(data, names, event) -> str:
    return _("%(seats)s left no last words.") % {"seats": seat_list(data["seats"], names)}


def _speeches_open(data, names, event) -> str:
    order = seat_list(data["order"], names)
    stage = data.get("stage", 0)
    if stage == 1:
        return _("The vote tied: the tied seats speak again, in this order: %(order)s.") % {
            "order": order}
    if stage == 2:
        return _("The vote tied again: the others speak, in this order: %(order)s.") % {
            "order": order}
    return _("Speeches, in this order: %(order)s. Each speaker closes with 过.") % {
        "order": order}


def _speech(data, names, event) -> str:
    return (_("%(seat)s speaks:") % {"seat": who(names, data["seat"])}
            + "\n\n" + quote(data["text"], who(names, data["seat"])) + "\n\n" + _("(过)"))


def _speech_skipped(data, names, event) -> str:
    # The slot ends by its deadline or by the GM's "end now": the sentence is true of both.
    return _("%(seat)s's speaking time ended without a speech; the turn passes.") % {
        "seat": who(names, data["seat"])}


def _vote_opens(data, names, event) -> str:
    order = seat_list(data["order"], names)
    if data.get("stage", 0):
        return _("The vote among %(candidates)s, in this order: %(order)s.") % {
            "candidates": seat_list(data["candidates"], names), "order": order}
    return _("The vote, in this order: %(order)s. One vote or abstention each; votes are "
             "public.") % {"order": order}


def _vote(data, names, event) -> str:
    if "voter" not in data:  # the confirmation of one's own vote
        return _("a vote for %(target)s") % {"target": who(names, data.get("target"))}
    if data.get("target") is None:
        return _("%(voter)s abstains.") % {"voter": who(names, data["voter"])}
    return _("%(voter)s votes for %(target)s.") % {
        "voter": who(names, data["voter"]), "target": who(names, data["target"])}


def _abstained(data, names, event) -> str:
    # As `_speech_skipped`: the deadline or the GM ended the slot.
    return _("%(voter)s's voting time ended without a vote, which counts as abstaining.") % {
        "voter": who(names, data["voter"])}


def _vote_result(data, names, event) -> str:
    """The five outcomes of a tally (games/engine/classic/day.py `tally`)."""
    eliminated, tied = data.get("eliminated") or [], data.get("tied") or []
    if eliminated and tied:
        return _("%(seats)s tie at the top: a guardian and the seat it protects, so both "
                 "die.") % {"seats": seat_list(tied, names)}
    if eliminated:
        return _("%(seat)s has the most votes.") % {"seat": who(names, eliminated[0])}
    if tied and data.get("stage", 0) >= 2:
        return _("%(seats)s tie a third time: nobody is eliminated today.") % {
            "seats": seat_list(tied, names)}
    if tied and data.get("stage", 0) == 1:
        return _("%(seats)s tie at the top again.") % {"seats": seat_list(tied, names)}
    if tied:
        return _("%(seats)s tie at the top.") % {"seats": seat_list(tied, names)}
    return _("Nobody received a vote: nobody is eliminated today.")


def _verdict(data, names, event) -> str:
    return _("Died: %(deaths)s.") % {"deaths": deaths_text(data["deaths"], names)}


def outcome(o, names, view=None) -> str:
    """The result for the game's home page and the review."""
    result = {"police": _("The police and the civilians win."),
              "bandit": _("The bandits win."),
              "draw": _("The game is a draw.")}.get(o.get("result"))
    if result is None:
        return ""
    return result + " " + _("Winners: %(seats)s.") % {"seats": seat_list(o.get("winners"),
                                                                          names)}


def _game_over(data, names, event) -> str:
    result = {"police": _("The police and the civilians win."),
              "bandit": _("The bandits win."),
              "draw": _("The game is a draw.")}.get(data["result"], str(data["result"]))
    cards = pgettext("list separator", ", ").join(
        _("%(seat)s: %(role)s") % {"seat": who(names, s), "role": role_text(r)}
        for s, r in enumerate(data.get("roles") or []))
    return "\n\n".join([
        _("Game over. %(result)s") % {"result": result},
        _("Winners: %(seats)s.") % {"seats": seat_list(data.get("winners"), names)},
        _("Every card: %(cards)s.") % {"cards": cards}])


def _gm_note(data, names, event) -> str | None:
    """GM-only notes (the deal, lots, the night's resolution) for the console and the GM's
    view: the deal and the lots from the event's data, the night's resolution reason by
    reason (its `because` chain, through `REASONS`)."""
    because = event.get("because") or []
    if not because:
        return None
    kind = event["kind"]
    if kind == "deal":
        return _("The GM dealt the roles by hand: %(roles)s.") % {
            "roles": _role_list(data.get("roles"), names)}
    if kind == "chance":
        return _chance_note(data, names) or " ".join(_reason(b, names) for b in because)
    return _("How the night resolved: %(steps)s") % {
        "steps": " ".join(_reason(b, names) for b in because)}


def _role_list(roles, names) -> str:
    return listing([_("%(seat)s: %(role)s") % {"seat": who(names, n), "role": role_text(r)}
                    for n, r in enumerate(roles or [])])


def _chance_note(data, names) -> str | None:
    purpose, drawn = data.get("purpose"), data.get("drawn")
    if purpose == "deal":
        return _("The roles were dealt by lot: %(roles)s.") % {
            "roles": _role_list(drawn, names)}
    if purpose == "ghost":
        return _("The ghost was drawn by lot among the bandits: %(seat)s.") % {
            "seat": who(names, drawn)}
    tie = {"kill_tie": _("the victim"), "pact_tie": _("the bandit named in the death pact"),
           "check_tie": _("the seat to check")}.get(purpose)
    if tie is None:
        return None
    return _("A lot broke the tie for %(what)s between %(among)s: it drew %(seat)s.") % {
        "what": tie, "among": listing([who(names, n) for n in data.get("among") or []]),
        "seat": who(names, drawn)}


# --- the engine's reasons (its `because` chains, refusals and results) --------------------
# One sentence per code of the engine's table (games/engine/classic/reasons.py), with a
# placeholder per argument; games/presenters/reasons.py renders the arguments by their type:
# seats as "3号阿狗", cards by `role_text`, the rules' references by `rule_refs`, a vote's
# count by `votes_text`. tests/presenters/test_reasons_classic.py checks the table against the
# engine's and plays random games through it.

def rule_refs(refs, names=None) -> str:
    """References to the rules, short: seed 001's sections as "§3.10" (a range "§3.3–§3.11"),
    seed 003's paragraphs by their names on the Chinese rules page
    (docs/rules/players/classic.zh-hans.md: 鬼匪, 毒药, 细则, 守护神, 双守护神), the rules of
    one paragraph together: ["guardian 2", "guardian 5"] is "守护神 2、5"."""
    paragraphs = {
        "ghost": pgettext("classic rules", "ghost bandit"),
        "poison": pgettext("classic rules", "poison"),
        "minor": pgettext("classic rules", "minor rules"),
        "guardian": pgettext("classic rules", "guardian"),
        "dual": pgettext("classic rules", "dual guardians"),
    }
    groups: list[tuple[str, list[str]]] = []  # (paragraph or "", its rules' numbers)
    for ref in refs or []:
        part, _sep, number = str(ref).partition(" ")
        if part[:1].isdigit():  # a section of seed 001
            groups.append(("", ["–".join(f"§{n}" for n in part.split("-"))]))
        elif part == "ghost_paragraph":
            groups.append(("", [pgettext("classic rules", "ghost bandit, paragraph %(n)s")
                                % {"n": number}]))
        elif groups and groups[-1][0] == part and number:
            groups[-1][1].append(number)
        else:
            groups.append((part, [number] if number else []))
    items = []
    for part, numbers in groups:
        if not part:
            items += numbers
            continue
        name = paragraphs.get(part, part)
        items.append(f"{name} {listing(numbers)}" if numbers else name)
    return listing(items)


def votes_text(tally, names) -> str:
    """A vote's count, seat by seat: "2号阿狗：3票、7号阿猫：1票"."""
    return listing(_("%(seat)s: %(n)d votes") % {"seat": who(names, seat), "n": n}
                   for seat, n in tally or [])


REASONS = ReasonTexts(WHY, {
    # the deal and the teams
    "dealt_by_hand": gettext_noop("The GM dealt the roles by hand (fixed_roles)."),
    "dealt_by_lot": gettext_noop("The roles are dealt by lot (%(ref)s)."),
    "ghost_drawn": gettext_noop(
        "The ghost is drawn among the bandits once their list is fixed (%(ref)s)."),
    "drew_card": gettext_noop("You drew the card: %(role)s."),
    "police_team": gettext_noop("The police are %(seats)s; they see each other (%(ref)s)."),
    "bandit_team": gettext_noop("The bandits are %(seats)s; they see each other (%(ref)s)."),
    "their_ghost": gettext_noop("Their ghost is %(seat)s (%(ref)s)."),
    # victory and the night's frame
    "every_bandit_dead": gettext_noop("Every bandit is dead (%(ref)s)."),
    "every_police_dead": gettext_noop("Every police officer is dead (%(ref)s)."),
    "every_civilian_dead_draw": gettext_noop(
        "Every civilian is dead, a draw under this game's rule (%(ref)s)."),
    "every_civilian_dead_bandit_win": gettext_noop(
        "Every civilian is dead, a bandit win under this game's rule (%(ref)s)."),
    "two_results": gettext_noop("Two results hold at once, so the game is a draw (%(ref)s)."),
    "night_begins": gettext_noop("Night %(n)s begins: the bandits choose a victim and the "
                                 "police a seat to check (%(ref)s)."),
    # a seat's own steps
    "proposes_kill": gettext_noop("%(seat)s proposes to kill %(target)s."),
    "death_pact_named": gettext_noop(
        "If the victim is the poison, %(seat)s dies with it (the death pact, %(ref)s)."),
    "defers": gettext_noop(
        "%(seat)s goes with the team's choice; silence counts as agreeing (%(ref)s)."),
    "writes_to_team": gettext_noop("%(seat)s writes to the team (the GM reads the team's talk)."),
    "will_possess": gettext_noop(
        "The ghost in %(seat)s will possess %(target)s after tonight's kill (%(ref)s)."),
    "possession_withdrawn": gettext_noop("The ghost in %(seat)s withdrew tonight's possession."),
    "proposes_check": gettext_noop("%(seat)s proposes to check %(target)s."),
    "you_protect": gettext_noop("You protect %(seat)s this round, against the night's kill and "
                                "the day's vote (%(ref)s)."),
    "you_protect_nobody": gettext_noop(
        "You protect nobody this round; a guardian may do so once, the second time is death "
        "by dereliction (%(ref)s)."),
    "leaves_last_words": gettext_noop("%(seat)s leaves last words (%(ref)s)."),
    "speaks": gettext_noop("%(seat)s speaks and closes with 过 (%(ref)s)."),
    "votes_for": gettext_noop(
        "%(seat)s votes for %(target)s. Votes are cast in the open, in order (%(ref)s)."),
    "abstains": gettext_noop("%(seat)s abstains. Votes are cast in the open, in order "
                             "(%(ref)s)."),
    # the night
    "no_victim_proposed": gettext_noop("Nobody proposed a victim, so there is none."),
    "no_pact_proposed": gettext_noop(
        "Nobody proposed a bandit for the death pact, so there is none."),
    "no_check_proposed": gettext_noop("Nobody proposed a seat to check, so there is none."),
    "victim_proposed": gettext_noop(
        "%(seats)s proposed a victim; silent members count as agreeing (%(ref)s)."),
    "pact_proposed": gettext_noop("%(seats)s proposed a bandit for the death pact; silent "
                                  "members count as agreeing (%(ref)s)."),
    "check_proposed": gettext_noop(
        "%(seats)s proposed a seat to check; silent members count as agreeing (%(ref)s)."),
    "most_proposals": gettext_noop("%(seat)s had the most proposals (%(n)s)."),
    "lot_breaks_tie": gettext_noop("A lot breaks the tie between %(seats)s."),
    "lot_drew": gettext_noop(
        "%(seats)s tied with %(n)s proposal(s) each; the lot drew %(seat)s."),
    "police_learn": gettext_noop("The police learn that %(seat)s is: %(role)s (%(ref)s)."),
    "poison_told": gettext_noop("The police checked the poison, which is told so (%(ref)s)."),
    "guardian_protects": gettext_noop("The guardian in %(seat)s protects %(target)s this round."),
    "guardian_stranded": gettext_noop(
        "The guardian in %(seat)s had nobody left to protect (%(n)s round(s) in a row)."),
    "guardian_skipped": gettext_noop(
        "The guardian protected nobody this round; a second skip in the game is death by "
        "dereliction (%(ref)s)."),
    "died_in_its_place": gettext_noop(
        "%(seats)s protected %(target)s, so died in its place (%(ref)s)."),
    "killed_by_bandits": gettext_noop("%(seat)s was killed by the bandits."),
    "police_guardian_lapses": gettext_noop(
        "The victim was the bandit guardian: the police guardian lapses (%(ref)s)."),
    "pact_bandit_dies": gettext_noop(
        "The victim was the poison: %(seat)s, named in the death pact, dies with it (%(ref)s)."),
    "dereliction_stranded": gettext_noop(
        "The guardian in %(seat)s died of dereliction: it had nobody left to protect for two "
        "rounds in a row (%(ref)s)."),
    "dereliction_skipped": gettext_noop(
        "The guardian in %(seat)s died of dereliction: it skipped its protection a second "
        "time (%(ref)s)."),
    "extra_check_opens": gettext_noop(
        "The police checked the poison and may check one more seat before the day (%(ref)s)."),
    "guardian_lapsed": gettext_noop(
        "The bandits killed the bandit guardian, so from this round the police guardian plays "
        "as a civilian and its protection is void (%(ref)s)."),
    "possession_void_ghost_dead": gettext_noop(
        "The possession did not happen: the ghost died first tonight; the ghost keeps its one "
        "possession (the kill comes first, %(ref)s)."),
    "possession_void_target_dead": gettext_noop(
        "The possession did not happen: %(seat)s died first tonight; the ghost keeps its one "
        "possession (the kill comes first, %(ref)s)."),
    "possessed_civilian": gettext_noop(
        "The ghost possessed %(seat)s, a civilian, who turns bandit and joins the team "
        "(%(ref)s); the GM introduces them (rule %(n)s)."),
    "civilian_now_bandit": gettext_noop("The ghost possessed %(seat)s, a civilian, now a bandit."),
    "possessed_poison": gettext_noop(
        "The ghost possessed %(seat)s, the poison: both die (%(ref)s)."),
    "possession_on_police": gettext_noop(
        "A ghost possessed one of the police, without effect; the GM does not say whom "
        "(%(ref)s)."),
    "possession_no_effect": gettext_noop(
        "The possession of %(seat)s had no effect, and the ghost has used its one possession "
        "(%(ref)s)."),
    "possession_without_effect": gettext_noop(
        "The ghost possessed %(seat)s (%(role)s): no effect."),
    "nothing_happened": gettext_noop("Nothing happened tonight."),
    "dawn_announces": gettext_noop("At dawn the GM announces who died in the night (%(ref)s)."),
    "identities_hidden": gettext_noop(
        "The ghost possessed the poison, so the identities of the ghost, the poison and "
        "tonight's victim (if any) are not revealed (%(ref)s)."),
    "poison_pair": gettext_noop(
        "The bandits killed the poison: one of %(seats)s was the poison, the other a "
        "%(role)s, and the GM does not say which is which (%(ref)s)."),
    "nobody_died": gettext_noop("Nobody died."),
    "died_as": gettext_noop("%(seat)s died: %(role)s."),
    "died_for_voted_out": gettext_noop(
        "%(seat)s died: %(role)s (a guardian dying for the seat voted out, %(ref)s)."),
    "died_of_dereliction": gettext_noop(
        "%(seats)s died of dereliction: a guardian that skipped twice, or had nobody to "
        "protect for two rounds (%(ref)s)."),
    "last_words_due_one": gettext_noop(
        "%(seat)s leaves last words: the first %(n)s deaths do (%(ref)s)."),
    "last_words_due": gettext_noop(
        "%(seats)s leave last words: the first %(n)s deaths do (%(ref)s)."),
    # the day
    "no_last_words_left": gettext_noop(
        "The time for last words ended before %(seats)s left any."),
    "speeches_open": gettext_noop(
        "Each living player speaks once, in seat order from the seat after the night's first "
        "dead, and closes with 过 (%(ref)s)."),
    "tie_speeches": gettext_noop(
        "The vote tied: the tied seats speak again, then the others vote among them "
        "(%(ref)s)."),
    "tie_speeches_again": gettext_noop(
        "The vote tied again: the others speak, then vote among the seats still tied "
        "(%(ref)s)."),
    "speech_skipped": gettext_noop(
        "%(seat)s's speaking time ended without a speech, so the turn passes (a silent "
        "speaker is skipped)."),
    "vote_follows": gettext_noop(
        "After the speeches comes the vote, in the same order: one vote or abstention each "
        "(%(ref)s)."),
    "only_candidates": gettext_noop("Only %(seats)s can receive votes (%(ref)s)."),
    "silent_voter": gettext_noop(
        "%(seat)s's voting time ended without a vote, which counts as abstaining."),
    "votes_per_seat": gettext_noop("Votes per seat: %(tally)s."),
    "no_votes_cast": gettext_noop("Votes per seat: none."),
    "nobody_voted": gettext_noop("Nobody received a vote, so nobody is eliminated today."),
    "most_votes": gettext_noop("%(seat)s has the most votes (%(ref)s)."),
    "guardian_pair_tie": gettext_noop(
        "%(seats)s tied at the top: a guardian and the seat it protects, so both die "
        "(%(ref)s)."),
    "tied_at_top": gettext_noop("%(seats)s tied at the top (%(ref)s)."),
    "third_tie": gettext_noop(
        "%(seats)s tied a third time, so nobody is eliminated today (%(ref)s, read as a day "
        "without elimination)."),
    # refusals
    "bad_step": gettext_noop("That is not a well-formed action."),
    "game_over": gettext_noop("The game is over."),
    "gm_has_no_moves": gettext_noop(
        "The GM has no moves of its own in this game; the rules run the night and the day."),
    "clock_step": gettext_noop("Only the clock ends a phase."),
    "bad_actor": gettext_noop("That seat is not in this game."),
    "unknown_action": gettext_noop("There is no such action in this game."),
    "bad_text": gettext_noop("Write some text."),
    "bad_text_length": gettext_noop("The text must hold %(min)s to %(max)s characters."),
    "dead": gettext_noop("You are dead; the dead take no part in the game."),
    "wrong_phase": gettext_noop("That is a night action; it is day now."),
    "choices_closed": gettext_noop("Tonight's choices are closed."),
    "not_your_turn_to_speak": gettext_noop("It is not your turn to speak."),
    "not_your_turn_to_vote": gettext_noop("It is not your turn to vote."),
    "no_last_words_due": gettext_noop("You have no last words to leave now."),
    "last_words_given": gettext_noop("You already left your last words."),
    "no_team": gettext_noop("You have no team to talk to now."),
    "not_a_team_member": gettext_noop("Only a team member can go with the team's choice."),
    "already_deferred": gettext_noop("You already said you go with your team."),
    "not_police": gettext_noop("Only the police check."),
    "not_bandit": gettext_noop("Only the bandits kill."),
    "cannot_possess": gettext_noop("Only the living ghost may possess, once per game."),
    "nothing_to_cancel": gettext_noop("You have no possession to cancel."),
    "not_guardian": gettext_noop("Only a guardian protects."),
    "already_skipped": gettext_noop("You already chose to protect nobody."),
    "nobody_to_protect": gettext_noop("There is nobody left you may protect."),
    "kill_needs_pact": gettext_noop(
        "Name the victim and, in the death pact, the bandit who dies with it if the victim is "
        "the poison."),
    "bad_params": gettext_noop(
        "That action was sent with the wrong details; choose it again from the form."),
    "bad_pact": gettext_noop("The death pact must name a living bandit."),
    "self_vote": gettext_noop("You cannot vote for yourself."),
    "bad_kill_target": gettext_noop("You cannot kill that seat now."),
    "bad_possess_target": gettext_noop("You cannot possess that seat now."),
    "bad_check_target": gettext_noop("You cannot check that seat now."),
    "bad_protect_target": gettext_noop("You cannot protect that seat now."),
    "bad_vote_target": gettext_noop("You cannot vote for that seat now."),
}, renderers={SEAT: lambda seat, names: who(names, seat),
              SEATS: lambda seats, names: seat_list(seats, names),
              CARD: lambda role, names: role_text(role),
              SECTIONS: rule_refs,
              VOTES: votes_text})


def _reason(reason, names) -> str:
    """One reason of a chain in the reader's language (a sentence of an older game, stored as
    text, as it was written)."""
    text = REASONS.render(reason, names)
    if text is not None:
        return text
    return str(reason.get("code") if isinstance(reason, dict) else reason)


# --- confirmations of a seat's own step (data = the step's params) --------------------------

def _kill(data, names, event) -> str:
    text = _("a proposal to kill %(target)s") % {"target": who(names, data.get("target"))}
    if data.get("pact") is not None:
        text += _(", death pact: %(pact)s") % {"pact": who(names, data["pact"])}
    return text


EVENTS = {
    "role": _role,
    "teammates": _teammates,
    "night_falls": _night_falls,
    "kill_proposed": _kill_proposed,
    "deferred": _deferred,
    "team_message": lambda d, n, e: (_team_message(d, n, e) if "seat" in d
                                     else _("a message to my team")),
    "possession_submitted": _possession_submitted,
    "possession_cancelled": _possession_cancelled,
    "check_proposed": _check_proposed,
    "protection_submitted": _protection_submitted,
    "protection_skip_chosen": _protection_skip_chosen,
    "protection_skipped": _protection_skipped,
    "check_result": _check_result,
    "poison_checked": _poison_checked,
    "possessed": _possessed,
    "possession_void": _possession_void,
    "possession_on_police": _possession_on_police,
    "extra_check": _extra_check,
    "guardian_lapsed": _guardian_lapsed,
    "dawn": _dawn,
    "last_words": _last_words,
    "last_words_skipped": _last_words_skipped,
    "speeches_open": _speeches_open,
    "speech": _speech,
    "speech_skipped": _speech_skipped,
    "vote_opens": _vote_opens,
    "vote": _vote,
    "abstained": _abstained,
    "vote_result": _vote_result,
    "verdict": _verdict,
    "game_over": _game_over,
    "deal": _gm_note,
    "chance": _gm_note,
    "night_resolved": _gm_note,
    # confirmations only (the engine's own events for these have other kinds)
    "kill": _kill,
    "defer": lambda d, n, e: _("going with my team's choice"),
    "possess": lambda d, n, e: _("a possession of %(target)s") % {
        "target": who(n, d.get("target"))},
    "cancel_possession": lambda d, n, e: _("cancelling tonight's possession"),
    "check": lambda d, n, e: _("a check of %(target)s") % {"target": who(n, d.get("target"))},
    "protect": lambda d, n, e: _("protecting %(target)s") % {"target": who(n, d.get("target"))},
    "skip_protection": lambda d, n, e: _("protecting nobody this round"),
    "speak": lambda d, n, e: _("my speech (过)"),
    "abstain": lambda d, n, e: _("an abstention"),
}


def present(event: dict, names: dict[int, str]) -> str | None:
    """One sentence (Markdown) for an engine event or a step's confirmation; None for an
    unknown kind. A malformed event also gives None (the generic text): this runs inside
    the transaction that stores a player's step, and a presentation slip must not undo it."""
    handler = EVENTS.get(event.get("kind"))
    if handler is None:
        return None
    try:
        return handler(event.get("data") or {}, names, event)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


# --- the action form -----------------------------------------------------------------------

def label(choice, names: dict[int, str]) -> str | None:
    """How the action form offers a Choice (games.engine.base.Choice)."""
    params = choice.params
    target = who(names, params.get("target"))
    if choice.kind == "kill":
        if "target" not in params:  # the victim and the bandit come from pickers of their own
            return _("Kill: choose the victim and the death pact's bandit below")
        if params.get("pact") is not None:
            return _("Kill %(target)s — death pact: %(pact)s") % {
                "target": target, "pact": who(names, params["pact"])}
        return _("Kill %(target)s") % {"target": target}
    labels = {
        "defer": _("Go with my team's choice (no proposal of my own)"),
        "team_message": _("Write to my team (write the text below)"),
        "cancel_possession": _("Cancel tonight's possession"),
        "skip_protection": _("Protect nobody this round"),
        "last_words": _("Leave my last words (write them below)"),
        "speak": _("Speak (write below; sending it closes your speech: 过)"),
        "abstain": pgettext("classic", "Abstain"),
    }
    if choice.kind in labels:
        return labels[choice.kind]
    with_target = {
        "possess": _("Possess %(target)s (once per game)"),
        "check": _("Check %(target)s"),
        "protect": _("Protect %(target)s"),
        "vote": _("Vote for %(target)s"),
    }
    if choice.kind in with_target:
        return with_target[choice.kind] % {"target": target}
    return None


# --- refusals ------------------------------------------------------------------------------

def refusal(refusal) -> str | None:
    """A Refusal (a code of the engine's reason table and its arguments) in the reader's
    language, from `REASONS`; None for a code the table does not know."""
    return REASONS.render({"code": refusal.code, "args": dict(refusal.params or {})}, {})


# --- the game's home page and titles ------------------------------------------------------

# Public events of a player's own step that go to the announcement thread at once (the
# machinery reads this if it supports it): the day's words and its open, ordered votes are
# what the players discuss, so they should not wait for the end of a slot.
ANNOUNCE_AT_ONCE = frozenset({"last_words", "speech", "vote"})

PHASES = ("setup", "night", "extra_check", "last_words", "speech", "tie_speech", "vote",
          "tie_vote", "over")


def phase_label(name: str) -> str | None:
    """A kind of phase in the reader's language (the durations form); None if unknown."""
    if name not in PHASES:
        return None
    return pgettext("classic phase", name)


def phase_name(name: str, number: int, round: int | None = None) -> str | None:
    """One phase as every page names it. The phase number is the round (a night and the
    day after it), so a night is "第1夜" and a day's slots are "第1天 · 发言", as the
    sentences of 神的使者 say ("第1夜：匪徒选定被害人…", "第1天天亮。")."""
    names = {
        "night": pgettext("classic phase name", "Night %(n)d"),
        # The police's extra check after checking the poison (seed 003 poison rules 3-4) is
        # known to the police and the poison only: every page names it as the night going
        # on. The police see the check itself in their panel (their own events and legal
        # actions), the GM in the console.
        "extra_check": pgettext("classic phase name", "Night %(n)d"),
        "last_words": pgettext("classic phase name", "Day %(n)d · last words"),
        "speech": pgettext("classic phase name", "Day %(n)d · speeches"),
        "tie_speech": pgettext("classic phase name", "Day %(n)d · tie speeches"),
        "vote": pgettext("classic phase name", "Day %(n)d · vote"),
        "tie_vote": pgettext("classic phase name", "Day %(n)d · tie vote"),
    }
    if name in names:
        return names[name] % {"n": number}
    return phase_label(name)


def seat_facts(view: dict, number: int) -> str:
    """One seat's public facts for the home page's table of seats.

    Reads only `view["public"]`, never the viewer's own part, so every visitor reads the same
    line: 1. once the game is over, the seat's card and whether it won; 2. otherwise, for a
    dead seat, the order of its death and what its announcement revealed; 3. whose speech
    or vote slot it is now; 4. the last words still due.
    """
    pub = view.get("public") or {}
    try:
        if pub.get("final_roles"):
            parts = [role_text(pub["final_roles"][number])]
            if number in (pub.get("outcome") or {}).get("winners", []):
                parts.append(_("winner"))
            return " · ".join(parts)
        parts = []
        if not pub["alive"][number]:
            parts.append(_("dead (death %(n)d): %(role)s") % {
                "n": pub["death_order"].index(number) + 1,
                "role": role_text(pub["revealed"][number])})
        queue, turn = pub.get("queue") or [], pub.get("turn", 0)
        if turn < len(queue) and queue[turn] == number and not pub.get("done"):
            if pub["phase"] in ("speech", "tie_speech"):
                parts.append(_("speaking now"))
            elif pub["phase"] in ("vote", "tie_vote"):
                parts.append(_("voting now"))
        if number in (pub.get("last_words_due") or []) and number not in (
                pub.get("last_words_given") or []):
            parts.append(_("last words due"))
        return " · ".join(parts)
    except (KeyError, IndexError, TypeError, ValueError):
        return ""


# --- vote tallies ----------------------------------------------------
# Classic 杀人游戏's vote tallies for people, from the engine's PUBLIC events.
#
# Every vote is cast in the open, in the queue's order (seed 001 §3.16), so the public tally is
# the engine's own count (games/engine/classic/day.py `tally`): nothing is hidden or adjusted.
# `vote_tallies(events, names)` returns one `VoteTally` per vote of a day (`key` = (day,
# stage)): the day's vote (stage 0) and each vote after a tie (stage 1, 2: "第1次生死投票",
# "第2次生死投票", seed 001 §4.5). Each event carries `phase_number` (the round) from the service.
#
# 1. `vote_opens`: a vote begins (a tie vote's rows are its candidates).
# 2. `vote`: one vote or abstention in the order cast; `abstained`: a silent voter.
# 3. `vote_result`: the count is the votes cast; the result (eliminated, tied, a guardian and
#    its protégé both dying, a third tie, nobody).
# 4. `verdict`: who died, as announced (a guardian may die in the place of the seat voted
#    out: seed 003), added to the result.

def heading(day: int, stage: int) -> str:
    """The vote's phase name: "第1天 · 投票", "第1天 · 平票投票", "第1天 · 平票投票（第2次）"."""
    if not stage:
        return phase_name("vote", day)
    text = phase_name("tie_vote", day)
    return text if stage == 1 else pgettext("tally", "%(phase)s (time %(k)d)") % {
        "phase": text, "k": stage}


def _result(data: dict, names: dict[int, str]) -> str:
    """What a vote's count decided, stage by stage (seed 001 §4.5; day.py `tally`):
    stage 0's tie sends the tied seats to speak again and the others to vote among them;
    stage 1's tie sends the others to speak and vote again; stage 2's tie ends the day with
    nobody out. A single top seat only "has the most votes" here: whether it dies is the
    verdict's to say (a guardian may die in its place), see `_verdict_result`."""
    eliminated, tied = data.get("eliminated") or [], data.get("tied") or []
    stage = data.get("stage", 0)
    if eliminated and tied:
        return pgettext("tally", "%(seats)s are tied with the most votes: a guardian and the "
                                 "seat it protects, so both die.") % {
            "seats": seat_list(tied, names)}
    if eliminated:
        return pgettext("tally", "%(seat)s has the most votes.") % {
            "seat": who(names, eliminated[0])}
    if tied and stage >= 2:
        return pgettext("tally", "%(seats)s are tied a third time: nobody is voted out "
                                 "today.") % {"seats": seat_list(tied, names)}
    if tied and stage == 1:
        return pgettext("tally", "%(seats)s are tied again: the others speak, then vote "
                                 "among them once more.") % {"seats": seat_list(tied, names)}
    if tied:
        return pgettext("tally", "%(seats)s are tied with the most votes: they speak again, "
                                 "then the others vote among them.") % {
            "seats": seat_list(tied, names)}
    return pgettext("tally", "Nobody received a vote: nobody is voted out today.")


def _verdict_result(top: int | None, deaths: list[dict], names: dict[int, str]) -> str:
    """The verdict after a count with a single top seat `top`: voted out if it died, else
    saved (its guardian died in its place, seed 003 guardian); then who died."""
    died = pgettext("tally", "Died: %(deaths)s.") % {"deaths": deaths_text(deaths, names)}
    if top is None:
        return died
    if any(d.get("seat") == top for d in deaths):
        fate = pgettext("tally", "%(seat)s is voted out.") % {"seat": who(names, top)}
    else:
        fate = pgettext("tally", "%(seat)s stays alive: a guardian died in its place.") % {
            "seat": who(names, top)}
    return sentences(fate, died)


def vote_tallies(events: list[dict], names: dict[int, str]) -> list[VoteTally]:
    """Every vote of every day found in `events` (public engine events, in order)."""
    tallies: list[tuple[VoteTally, dict[int, TallyRow]]] = []
    rows: dict[int, TallyRow] = {}
    current: VoteTally | None = None
    last: VoteTally | None = None
    top: int | None = None  # the single top seat of the last count, if any
    for event in events:
        if not event.get("visibility", {}).get("public", True):
            continue
        kind, d = event["kind"], event.get("data") or {}
        if kind == "vote_opens":
            stage = int(d.get("stage", 0))
            current = VoteTally(key=(event.get("phase_number", 0), stage),
                                heading=heading(event.get("phase_number", 0), stage))
            current.result = pgettext("tally", "The vote is open; every vote is public.")
            rows = {}
            for seat in (d.get("candidates") or []) if stage else []:
                rows[seat] = TallyRow(seat=seat, name=who(names, seat), count=0)
            tallies.append((current, rows))
        elif current is not None and kind in ("vote", "abstained") and "voter" in d:
            target = d.get("target") if kind == "vote" else None
            if target is None:
                current.notes.append(pgettext("tally", "%(seat)s abstains.") % {
                    "seat": who(names, d["voter"])})
                continue
            row = rows.setdefault(target, TallyRow(seat=target, name=who(names, target),
                                                   count=0))
            row.in_person.append(names.get(d["voter"]) or who(names, d["voter"]))
            row.count = len(row.in_person)
        elif current is not None and kind == "vote_result":
            current.status, current.settled_seq = "closed", event.get("seq")
            current.result = _result(d, names)
            eliminated = d.get("eliminated") or []
            top = eliminated[0] if len(eliminated) == 1 and not d.get("tied") else None
            last, current = current, None
        elif last is not None and kind == "verdict":
            last.result = sentences(last.result,
                                    _verdict_result(top, d.get("deaths") or [], names))
            last = None
    for tally, seat_rows in tallies:
        tally.rows = sorted(seat_rows.values(), key=lambda r: (-(r.count or 0), r.seat))
    return [tally for tally, _rows in tallies]


# --- announcement titles and the round's record thread ------------------

# A day's last words, speeches and votes come one seat at a time: each is posted as it
# happens in the round's record thread ("第1轮：遗言、发言与投票"), not as an announcement of
# its own; the announcements keep the night's result and the vote's result with its tally.
ROUND_THREAD_KINDS = frozenset({"last_words", "last_words_skipped", "speeches_open", "speech",
                                "speech_skipped", "vote_opens", "vote", "abstained"})


def round_thread_title(number: int) -> str:
    return _("Round %(n)d: last words, speeches and votes") % {"n": number}


def _slot_seat(public: dict) -> int | None:
    """The seat whose slot a speech or vote phase is (the queue's current turn)."""
    queue, turn = public.get("queue") or [], public.get("turn")
    if public.get("phase") in ("speech", "tie_speech", "vote", "tie_vote") and \
            isinstance(turn, int) and 0 <= turn < len(queue):
        return queue[turn]
    return None


def end_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    """"第1夜结束", "第1天 · 投票结束", "第1天 · 平票投票（第2次）结束": the phase that
    ended. An announcement ends a whole phase (a slot's end goes to the round's record
    thread), so the title names no seat: the last slot's seat is not what ended. The
    second tie vote carries its count, so a day's titles stay distinct."""
    if name in ("vote", "tie_vote") and public.get("phase") == name:
        label = heading(number, int(public.get("stage") or 0))
    else:
        label = phase_name(name, number)
    if label is None:
        return None
    return pgettext("title", "%(phase)s is over") % {"phase": label}


def step_title(name: str, number: int, public: dict, names: dict[int, str]) -> str | None:
    title = phase_name(name, number)
    if title is None:
        return None
    seat = _slot_seat(public)
    return title + (f" · {who(names, seat)}" if seat is not None else "")
# --- the post-game review ------------------------------------------------------------------

def review_facts(private: dict, number: int, names: dict[int, str]) -> list[tuple[str, str]]:
    """A seat's card at the end, for the review table."""
    return [(pgettext("classic", "Card"), role_text(private.get("role")))]


def review_secret(secret: dict, names: dict[int, str]) -> list[tuple[str, str]]:
    """The GM's secrets for the review: every card, the ghost and whom it possessed."""
    rows = [(who(names, s), role_text(r)) for s, r in enumerate(secret.get("roles") or [])]
    if secret.get("ghost") is not None:
        rows.append((pgettext("classic", "Ghost"), who(names, secret["ghost"])))
    if secret.get("possessed"):
        rows.append((pgettext("classic", "Possessed"), seat_list(secret["possessed"], names)))
    if secret.get("lapsed"):
        rows.append((pgettext("classic", "Lapsed"), seat_list(secret["lapsed"], names)))
    return rows


def review_intro() -> str:
    """The review's opening: what a classic game hides (no loss orders here)."""
    return _("Everything the game hid is shown here: every seat's identity (the ghost bandit, "
             "the possessed and a lapsed guardian included), the police's checks, the night "
             "choices of the bandits and the guardians, and every private result. Each event "
             "says who saw it at the time and why it happened.")


class ClassicPresenter(Presenter):
    """Classic 杀人游戏 for people: the functions above are its presenter's methods
    (games/presenters/interface.py declares them; the others keep their defaults)."""

    EVENTS = EVENTS
    ANNOUNCE_AT_ONCE = ANNOUNCE_AT_ONCE
    ROUND_THREAD_KINDS = ROUND_THREAD_KINDS
    present = staticmethod(present)
    label = staticmethod(label)
    REASONS = REASONS
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
    round_thread_title = staticmethod(round_thread_title)
    end_title = staticmethod(end_title)
    step_title = staticmethod(step_title)


PRESENTER = ClassicPresenter()
