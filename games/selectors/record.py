"""A player's record on the public profile: finished games, totals by camp and rule set."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from django.db.models import Q
from django.utils.translation import gettext as _

from .. import rulesets
from ..engine.base import GM
from ..models import Award, Event, Game, Seat, Substitution
from ..presenters import ruleset_name, seat_camp
from .archive import outcome_line

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User


def _record_row(game: Game, number: int, how: str, fouls: int, awards: list[str]) -> dict:
    """One finished game in a player's record. `how`: "" (held the seat throughout),
    "in" (took it over as a substitute) or "out" (handed it over)."""
    view = rulesets.engine(game.ruleset).view(game.state, GM) if game.state else {}
    outcome = game.outcome or {}
    return {"game": game, "ruleset": ruleset_name(game.ruleset), "seat": number + 1,
            "camp": seat_camp(game.ruleset, view, number),
            "outcome": outcome_line(game, view=view),
            "won": number in (outcome.get("winners") or []), "substitute": how,
            "fouls": fouls, "awards": awards}


def _held_spans(changes: list[tuple[dt.datetime, bool]]) -> list[tuple]:
    """When a user held a seat, as [since, until) spans (None: the game's start or end),
    from their handovers of it in order, each (when, came_in); none: held throughout."""
    spans: list[tuple] = []
    since, holding = None, not changes or not changes[0][1]
    for when, came_in in changes:
        if came_in and not holding:
            since, holding = when, True
        elif not came_in and holding:
            spans.append((since, when))
            holding = False
    if holding:
        spans.append((since, None))
    return spans


def player_record(user: User) -> dict:
    """What the public profile shows of `user`'s games, in a number of queries that does not
    depend on how many games they played (six; four with no finished game):
    1. finished games: seat, camp (the GM's view: a finished game reveals everything),
       outcome, won or lost, substitute in or out, fouls, awards won; totals by camp (a
       rule set without camps, like 谁偷了我的金币, under "no camps") and by rule set, and
       the overall record (games, wins, win rate, fouls);
    2. running games: only that the user plays in them (never a camp, a hand or a seat's
       secret: the game's state is not even read);
    3. the number of finished games they hosted as GM.

    Fouls are the engine's `foul_out` events against the seat, whichever way it came: the
    GM's foul-out step (an Action of kind foul_out, which the engine answers with the event)
    and the engine's own at the end of a phase (猫有n条命 §9.1.5: a seat that neither voted nor
    sent a proxy vote). A rollback deletes the event with its step. A foul counts for the
    user who held the seat when it was written (a handover splits the seat's fouls).
    """
    finished = Game.Status.FINISHED
    held = {(s.game_id, s.number): s for s in Seat.objects.filter(
        user=user, game__status=finished).select_related("game")}
    how: dict[tuple[int, int], str] = {key: "" for key in held}
    games = {gid: seat.game for (gid, _n), seat in held.items()}
    subs = (Substitution.objects.filter(Q(outgoing=user) | Q(incoming=user),
                                        status=Substitution.Status.ACCEPTED,
                                        game__status=finished)
            .select_related("game", "seat"))
    changes: dict[tuple[int, int], list[tuple[dt.datetime, bool]]] = {}
    for sub in subs:
        key = (sub.game_id, sub.seat.number)
        games.setdefault(sub.game_id, sub.game)
        changes.setdefault(key, []).append(
            (sub.closed_at or sub.ends_at, sub.incoming_id == user.pk))
        if sub.outgoing_id == user.pk and key not in held:
            how[key] = "out"
        elif sub.incoming_id == user.pk and how.get(key) != "out":
            how[key] = "in"
    spans = {key: _held_spans(sorted(changes.get(key, []), key=lambda c: c[0]))
             for key in how}
    fouls: dict[tuple[int, int], int] = {}
    for gid, data, created in Event.objects.filter(
            game_id__in=list(games), kind="foul_out").values_list("game_id", "data", "created"):
        key = (gid, data.get("seat") if isinstance(data, dict) else None)
        if any((since is None or created >= since) and (until is None or created < until)
               for since, until in spans.get(key, ())):
            fouls[key] = fouls.get(key, 0) + 1
    awards: dict[int, list[str]] = {}
    for award in Award.objects.filter(game_id__in=list(games), winner=user):
        awards.setdefault(award.game_id, []).append(str(award.get_kind_display()))
    rows = [_record_row(games[gid], number, kind, fouls.get((gid, number), 0),
                        awards.get(gid, []))
            for (gid, number), kind in how.items()]
    rows.sort(key=lambda r: (r["game"].finished_at or r["game"].created, r["game"].pk),
              reverse=True)
    running = list(Game.objects.filter(status__in=(Game.Status.RUNNING, Game.Status.PAUSED),
                                       seats__user=user).distinct()
                   .order_by("-started_at").only("id", "name", "ruleset"))
    hosted = Game.objects.filter(gm=user, status=finished).count()
    by_ruleset = ruleset_totals(rows)
    return {"played": rows, "camps": camp_totals(rows), "rulesets": by_ruleset,
            "overall": _totals(rows, ruleset=_("All rule sets")), "running": running,
            "hosted": hosted}


def _totals(rows: list[dict], **label) -> dict:
    """Games, wins, the win rate in whole percent and fouls of `rows`, with `label`."""
    games, wins = len(rows), sum(bool(r["won"]) for r in rows)
    return dict(label, games=games, wins=wins, fouls=sum(r["fouls"] for r in rows),
                rate=round(100 * wins / games) if games else 0)


def ruleset_totals(rows: list[dict]) -> list[dict]:
    """Per rule set (every one the user played, with camps or without): games, wins, the
    win rate in percent and fouls; most played first."""
    by: dict[str, list[dict]] = {}
    for row in rows:
        by.setdefault(row["ruleset"], []).append(row)
    totals = [_totals(group, ruleset=name) for name, group in by.items()]
    return sorted(totals, key=lambda e: (-e["games"], e["ruleset"]))


def camp_totals(rows: list[dict]) -> list[dict]:
    """Per camp (rule set and camp name): games, wins and the win rate in percent. A game
    without a camp (a rule set without camps: 谁偷了我的金币, every player for themselves)
    counts under "no camps", so every rule set is in the table."""
    totals: dict[tuple[str, str], dict] = {}
    for row in rows:
        camp = row["camp"] or _("no camps")
        entry = totals.setdefault((row["ruleset"], camp), {
            "ruleset": row["ruleset"], "camp": camp, "games": 0, "wins": 0})
        entry["games"] += 1
        entry["wins"] += row["won"]
    for entry in totals.values():
        entry["rate"] = round(100 * entry["wins"] / entry["games"])
    return sorted(totals.values(), key=lambda e: (-e["games"], e["ruleset"], e["camp"]))
