"""The 天神 console's reads: the GM's inbox and reports, the GM steps offered, each seat's duties,
what ending the phase now would do, the manifestos to review."""

from __future__ import annotations

import hashlib
import json

from django.db.models import Q
from django.utils import timezone

from accounts.models import display_name
from messaging.models import Board, Conversation, Message, Report

from .. import rulesets
from ..engine.base import GM
from ..models import Game, ManifestoApproval
from ..presenters import phase_name, round_of
from .seats import gm_board_slug


def gm_inbox(game: Game) -> list[Message]:
    """The players' messages of `game` still waiting for an answer, oldest first: in each
    of the game's conversations (its board) the last `staff_unread` messages from the
    player (the services count them up on arrival and back to zero only when a GM answers
    or marks the conversation handled; automatic messages and page views leave them).
    Each message carries `.seat_label` ("3. 阿狗", or the owner's name without a seat)."""
    if not game.board_id:
        return []
    labels = {s.user_id: f"{s.number + 1}. {s.name or display_name(s.user)}"
              for s in game.seats.select_related("user__profile") if s.user_id}
    waiting: list[Message] = []
    for conversation in (Conversation.objects.filter(board_id=game.board_id, staff_unread__gt=0)
                         .select_related("owner__profile")):
        rows = list(conversation.messages.filter(from_messenger=False)
                    .select_related("sender__profile")
                    .order_by("-created_at", "-id")[:conversation.staff_unread])
        for message in rows:
            message.seat_label = labels.get(conversation.owner_id,
                                            display_name(conversation.owner))
            waiting.append(message)
    return sorted(waiting, key=lambda m: (m.created_at, m.pk))


def gm_reports(game: Game) -> list[Report]:
    """The open reports (举报) of posts on `game`'s boards (its board and its GM board),
    oldest first, each with its post, thread and author, and `.reporter_label` ("3. 阿狗",
    or the reporter's name without a seat). Read in the console by the game's GMs only."""
    if not game.board_id:
        return []
    boards = Board.objects.filter(Q(pk=game.board_id) | Q(slug=gm_board_slug(game)))
    labels = {s.user_id: f"{s.number + 1}. {s.name or display_name(s.user)}"
              for s in game.seats.select_related("user__profile") if s.user_id}
    reports = list(Report.objects.filter(handled_at=None, post__thread__board__in=boards)
                   .select_related("post__thread", "post__author__profile",
                                   "reporter__profile").order_by("created_at", "id"))
    for report in reports:
        report.reporter_label = (labels.get(report.reporter_id, display_name(report.reporter))
                                 if report.reporter_id else "—")
    return reports


def gm_choices(game: Game) -> list:
    """The GM steps the rule set offers now (engine `legal_actions(state, GM)`): the console
    builds one small form per kind from them."""
    if not game.state or not game.is_live or game.ruleset not in rulesets.names():
        return []
    return rulesets.engine(game.ruleset).legal_actions(game.state, GM)


def seat_duties(game: Game) -> dict[int, list[str]]:
    """{seat: the kinds of step it still owes this phase} for the seats the engine awaits
    (`phase(state).awaiting`), from the engine's `duties`; an awaited seat with nothing of
    its own to do (e.g. a silent member of a night team) owes ["wait"]."""
    if not game.state or not game.is_live or game.ruleset not in rulesets.names():
        return {}
    engine = rulesets.engine(game.ruleset)
    awaiting = sorted(engine.phase(game.state).awaiting)
    if choices_closed(game):
        # Closed ahead of the deadline: only a seat whose own view names a phase run
        # inside this one (Classic's police in their extra check) may still act
        # (services.steps refuses everyone else), so nobody else owes anything.
        awaiting = [seat for seat in awaiting if engine.view(game.state, seat)["public"][
            "phase"] in engine.within_previous]
    return {seat: engine.duties(game.state, seat) or ["wait"] for seat in awaiting}


def choices_closed(game: Game) -> bool:
    """Are the current phase's choices closed ahead of its deadline (the same test as
    services.lifecycle.choices_closed, now)?"""
    return game.choices_close_at is not None and (
        game.choices_closed or timezone.now() >= game.choices_close_at)


def inner_phase(game: Game) -> dict:
    """The current phase and a phase the rule set runs inside it (`within_previous`:
    Classic's extra check inside the night once the police checked the poison), for the
    console's "end this phase now":

        {"due": name or "",      # ending now would begin it (the GM chooses: wait for it,
                                 # or end both now); "" when ending now just ends the phase
         "running": name or "",  # it is under way now: ending now ends both
         "closed": bool}         # the phase's choices are closed ahead of its deadline
    """
    out = {"due": "", "running": "", "closed": False}
    if not game.state or game.status != Game.Status.RUNNING or \
            game.ruleset not in rulesets.names():
        return out
    engine = rulesets.engine(game.ruleset)
    out["closed"] = choices_closed(game)
    name = engine.phase(game.state).name
    if name in engine.within_previous:
        out["running"] = name
    elif engine.within_previous:
        after = engine.end_phase(game.state).state
        if engine.outcome(after) is None and engine.phase(after).name in engine.within_previous:
            out["due"] = engine.phase(after).name
    return out


def end_phase_consequences(game: Game, *, through_inner: bool = False) -> dict:
    """What "end phase now" would do, from the engine run on a copy of the state (the engine
    never mutates its input; nothing is stored). With `through_inner`, a phase the end
    would begin inside this one (`inner_phase`'s "due") is ended too, as the GM's "end
    without it" does: the events of both ends.

        {"missing": {seat: [kinds still owed]},     # seat_duties before the end
         "fouled_out": [seat, ...],                  # the end's foul_out events
         "defaults": [event, ...],                   # defaults: a kind naming one, or a
                                                     # draw standing in for a missing step
         "events": [event, ...],                     # everything the end produces
         "next_phase": (name, number) or None,
         "next_phase_name": its name ("第2夜", "第2轮 · 选牌") or ""}
    """
    if not game.state or not game.is_live or game.ruleset not in rulesets.names():
        return {"missing": {}, "fouled_out": [], "defaults": [], "events": [],
                "next_phase": None, "next_phase_name": ""}
    engine = rulesets.engine(game.ruleset)
    t = engine.end_phase(game.state)
    events = list(t.events)
    if through_inner and engine.outcome(t.state) is None and \
            engine.phase(game.state).name not in engine.within_previous and \
            engine.phase(t.state).name in engine.within_previous:
        t = engine.end_phase(t.state)
        events += t.events
    after = engine.phase(t.state)
    return {
        "missing": seat_duties(game),
        "fouled_out": [e["data"].get("seat") for e in events if e["kind"] == "foul_out"],
        "defaults": [e for e in events if "default" in e["kind"] or (
            e["kind"] == "chance" and (e.get("data") or {}).get("purpose") != "deal")],
        "events": events,
        "next_phase": None if after.finished or engine.outcome(t.state) else (
            after.name, after.number),
        "next_phase_name": "" if after.finished or engine.outcome(t.state) else phase_name(
            game.ruleset, after.name, after.number,
            round_of(game.ruleset, (t.state or {}).get("public")))}


def manifesto_digest(night: int, seat: int, action: dict) -> str:
    """What a GM's approval is of: the night, the seat, the card, the target and the text
    (a manifesto changed afterwards has another digest, so it is pending again)."""
    what = [night, seat, action.get("card"), action.get("target"), bool(action.get("story")),
            action.get("text") or ""]
    return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode("utf-8")).hexdigest()


def manifestos_for_review(game: Game) -> list[dict]:
    """The manifestos (and attack stories) of the current night the GM may still reject
    (猫有n条命 §3.5.2: the engine offers `reject_manifesto` for each), in seat order:

        {"seat": 0-based seat, "card", "target", "text", "story": a story of the author's
         own rather than a manifesto, "digest": manifesto_digest, "approved": bool}

    Nothing for a game that is not running or a rule set without manifestos. The texts
    come from the GM's view (`view(state, GM)`: every seat's pending action)."""
    if not game.state or game.status != Game.Status.RUNNING \
            or game.ruleset not in rulesets.names():
        return []
    engine = rulesets.engine(game.ruleset)
    seats = [c.params["seat"] for c in engine.legal_actions(game.state, GM)
             if c.kind == "reject_manifesto"]
    if not seats:
        return []
    private = engine.view(game.state, GM).get("private") or []
    night = game.phase_number
    approved = set(ManifestoApproval.objects.filter(game=game, night=night)
                   .values_list("digest", flat=True))
    out = []
    for seat in sorted(seats):
        action = (private[seat] if seat < len(private) else {}).get("action") or {}
        digest = manifesto_digest(night, seat, action)
        out.append({"seat": seat, "card": action.get("card"), "target": action.get("target"),
                    "text": action.get("text") or "", "story": bool(action.get("story")),
                    "digest": digest, "approved": digest in approved})
    return out
