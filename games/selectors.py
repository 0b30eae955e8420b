"""Reads for pages, tasks and services: nothing here writes.

Every secret passes through the engine's `view(state, viewer)` (`view_for`); events through
their stored visibility (`events_visible_to`). Services may call these; these call no
service.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import icalendar
from django.db import connection
from django.db.models import Count, Exists, F, Max, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Concat, Lower
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import display_name
from config.site import site_url
from messaging.models import Board, Conversation, Message, Post, Report, Thread
from messaging.rules import readable_posts

from . import rulesets
from .engine.base import GM, SPECTATOR, Choice, replay
from .models import (
    Action,
    ActivityWarning,
    Announcement,
    Award,
    Event,
    Game,
    ManifestoApproval,
    Phase,
    Seat,
    Signup,
    StepMessage,
    StepPost,
    Substitution,
    Vote,
)
from .presenters import (
    VoteTally,
    counts_rounds,
    outcome_text,
    phase_name,
    phase_names,
    round_of,
    ruleset_name,
    seat_camp,
    vote_tallies,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


# --- a game and its seats ------------------------------------------------------------------

def seat_names(game: Game, seats=None) -> dict[int, str]:
    """{seat number: the name shown for it}; `seats` (with their users and profiles joined)
    when the caller read them already."""
    if seats is None:
        seats = game.seats.select_related("user__profile")
    return {s.number: display_name(s.user) if s.user else _("seat %(n)d") % {"n": s.number + 1}
            for s in seats}


def seat_of(game: Game, user: User | AnonymousUser | None, *,
            related: tuple[str, ...] = (), seats=None) -> Seat | None:
    """`user`'s seat in `game` (None: none), with the `related` rows joined in; found among
    `seats` (all of the game's) when the caller read them already."""
    if user is None or not user.is_authenticated:
        return None
    if seats is not None:
        return next((s for s in seats if s.user_id == user.pk), None)
    return game.seats.filter(user=user).select_related(*related).first()


# --- who runs a game ------------------------------------------------------------------------

def game_records_of(user: User) -> list[str]:
    """Why the games need `user`'s row (accounts.records): the seats it holds or held and the
    games it hosts or hosted. Seat.user is SET_NULL, so deleting the user would leave a game's
    record without its player."""
    reasons = []
    if Seat.objects.filter(user=user).exists() or Substitution.objects.filter(
            Q(outgoing=user) | Q(incoming=user), status=Substitution.Status.ACCEPTED).exists():
        reasons.append(_("held a seat in a game"))
    if Game.objects.filter(Q(gm=user) | Q(co_gms=user)).exists():
        reasons.append(_("hosts or hosted a game (GM or co-GM)"))
    return reasons


def ever_seated_ids(game: Game) -> set[int]:
    """The users who hold or ever held a seat of `game` (substitutions included)."""
    ids = set(game.seats.exclude(user=None).values_list("user_id", flat=True))
    for out_id, in_id in Substitution.objects.filter(
            game=game, status=Substitution.Status.ACCEPTED).values_list("outgoing_id",
                                                                        "incoming_id"):
        ids.update(i for i in (out_id, in_id) if i is not None)
    return ids


def is_gm(user: User | AnonymousUser | None, game: Game) -> bool:
    """The one authority check: `user` runs `game`.

    1. an active staff account (staff status means "may host games");
    2. named as the game's GM or one of its co-GMs (superusers too: they may reassign the
       GM, they are not GM of every game);
    3. and never a seat holder of it: whoever holds or ever held a seat has no GM power or
       GM view of that game.
    """
    if user is None or not user.is_authenticated or not user.is_active or not user.is_staff:
        return False
    if game.gm_id != user.pk and not game.co_gms.filter(pk=user.pk).exists():
        return False
    return user.pk not in ever_seated_ids(game)


def games_played_by(user: User | AnonymousUser | None) -> set[int]:
    """The ids of the games in which `user` holds or ever held a seat (as `ever_seated_ids`
    counts: their seats now, and accepted substitutions either way)."""
    if user is None or not user.is_authenticated:
        return set()
    ids = set(Seat.objects.filter(user=user).values_list("game_id", flat=True))
    ids |= set(Substitution.objects.filter(status=Substitution.Status.ACCEPTED).filter(
        Q(outgoing=user) | Q(incoming=user)).values_list("game_id", flat=True))
    return ids


def games_run_by(user: User | AnonymousUser | None) -> list[Game]:
    """The games `user` runs (see `is_gm`), oldest first."""
    if user is None or not user.is_authenticated or not user.is_active or not user.is_staff:
        return []
    named = (Game.objects.filter(Q(gm=user) | Q(co_gms=user)).distinct()
             .select_related("board").order_by("id"))
    return [g for g in named if user.pk not in ever_seated_ids(g)]


def gm_board_slug(game: Game) -> str:
    """The slug of the game's GM board (see services.ghosts.gm_board)."""
    return f"gm-{game.board.slug}"[:60] if game.board_id else ""


def board_authority(user) -> tuple[set[int], set[int]]:
    """(boards `user` governs as GM, boards that belong to any game): a game's board and its
    GM board, in one query. messaging.rules asks this (registered in GamesConfig.ready)."""
    uid = user.pk if user is not None and user.is_authenticated else None
    staff = bool(uid and user.is_active and user.is_staff)
    seated = (Q(seats__user_id=uid) | Q(substitutions__status=Substitution.Status.ACCEPTED,
                                        substitutions__outgoing_id=uid))
    rows = (Game.objects.exclude(board=None).annotate(
        gm_board_id=Subquery(Board.objects.filter(
            slug=Concat(Value("gm-"), OuterRef("board__slug"))).values("id")[:1]),
        named=Exists(Game.co_gms.through.objects.filter(game_id=OuterRef("pk"), user_id=uid)),
        played=Exists(Game.objects.filter(seated, pk=OuterRef("pk"))))
        .values_list("board_id", "gm_board_id", "gm_id", "named", "played"))
    governed: set[int] = set()
    owned: set[int] = set()
    for board_id, gm_board_id, gm_id, named, played in rows:
        ids = {board_id} | ({gm_board_id} if gm_board_id else set())
        owned |= ids
        if staff and (gm_id == uid or named) and not played:
            governed |= ids
    return governed, owned


def draft_boards_hidden_from(user) -> QuerySet:
    """The boards of draft games that `user` does not run (messaging.rules hides them:
    registered in GamesConfig.ready): a draft game's board, threads and posting exist only for
    its GM and co-GMs until its sign-ups open. A draft game has no seats, so no one is excluded
    from running it by having played."""
    drafts = Game.objects.filter(status=Game.Status.DRAFT).exclude(board=None)
    if user is not None and user.is_authenticated and user.is_active and user.is_staff:
        drafts = drafts.exclude(gm_id=user.pk).exclude(co_gms=user.pk)
    return drafts.values("board_id")


def view_for(game: Game, user: User | AnonymousUser | None, *,
             seats=None) -> tuple[dict | None, Seat | None]:
    """The engine's view for `user`, and their seat (None without one):
    1. a seat holder gets their seat's view (also after the end: the review shows all);
    2. anyone else gets the GM's view once the game is over (the review reveals everything);
    3. anyone else gets a spectator's view while it runs. Staff status opens nothing here:
       a game's secrets reach the GM through the 天神 console, not through the pages.

    The only way pages read a game's state. `seats`: all of the game's seats, when the
    caller read them already.
    """
    if not game.state:
        return None, None
    seat = seat_of(game, user, seats=seats)
    return seat_view(game, seat.number if seat is not None else None), seat


def seat_view(game: Game, number: int | None) -> dict | None:
    """`view_for` by the viewer's seat number (None: no seat), for a caller that read the
    number with the game's row (the home page: the view and its cache key then come from
    the same read): seat `number`'s view; without one, the GM's view once the game is over
    and a spectator's while it runs."""
    if not game.state:
        return None
    engine = rulesets.engine(game.ruleset)
    if number is not None:
        return engine.view(game.state, number)
    if game.is_over:
        return engine.view(game.state, GM)  # the review reveals everything
    return engine.view(game.state, SPECTATOR)


def gm_view(game: Game) -> dict | None:
    """The GM's view (everything the game hides), None for a game without a state. For the
    post-game review and its preview by the game's GM: the caller has checked that the
    viewer may read it (`view_for` gives it to everyone only after the end)."""
    if not game.state:
        return None
    return rulesets.engine(game.ruleset).view(game.state, GM)


def legal_actions_for(game: Game, number: int | None) -> list[Choice]:
    """What seat `number` may do now (the engine's `legal_actions(state, seat)`, the choices
    its forms are built from): nothing without a seat or a state, or once the game is not
    running (a paused game takes no step)."""
    if number is None or not game.state or game.status != Game.Status.RUNNING:
        return []
    return rulesets.engine(game.ruleset).legal_actions(game.state, number)


def living_seats(game: Game) -> set[int] | None:
    """The seats still in the game (the engine's `living_seats`), for the GM's console; None
    for a game without a state or of a rule set no longer registered."""
    if not game.state or game.ruleset not in rulesets.names():
        return None
    return set(rulesets.engine(game.ruleset).living_seats(game.state))


def revealed_deal(game: Game) -> str | None:
    """The deal as the commitment hashed it (the rule set's `commitment_text`), once the game
    is over; None before the end (the deal is the game's secret) or without a state."""
    if not game.is_over or not game.state:
        return None
    return rulesets.engine(game.ruleset).commitment_text(game.state)


# The key row's columns, in the model's order (Model.from_db takes a partial row so).
_HOME_FIELDS = tuple(f.attname for f in Game._meta.concrete_fields if f.attname in (
    "id", "name", "status", "created", "page_version", "checkin_hours", "deadline"))
_HOME_COLUMNS = ", ".join(f"g.{name}" for name in _HOME_FIELDS)
_HOME_ROW = f"""
SELECT {_HOME_COLUMNS},
       s.number AS viewer_seat, s.checked_in_at AS viewer_checked_in_at,
       (SELECT u.role FROM {Signup._meta.db_table} u WHERE u.game_id = g.id AND u.user_id = %s
         AND u.withdrawn_at IS NULL) AS viewer_signup_role
FROM {Game._meta.db_table} g LEFT JOIN {Seat._meta.db_table} s
  ON s.game_id = g.id AND s.user_id = %s
WHERE g.id = %s"""  # noqa: S608 (names from _meta, values bound)
_HOME_ROW_ANONYMOUS = f"SELECT {_HOME_COLUMNS} FROM {Game._meta.db_table} g WHERE g.id = %s"  # noqa: S608
# For an active staff visitor, also whether they run the game as `is_gm` decides (named GM or
# co-GM, and never seated in it: no seat now, no accepted substitution either way), so the
# page knows without another query whether to give them the GM's word on the game clock.
_CO_GMS = Game._meta.get_field("co_gms")
_HOME_ROW_STAFF = _HOME_ROW.replace("\nFROM ", f""",
       ((g.gm_id = %s OR EXISTS (SELECT 1 FROM {_CO_GMS.m2m_db_table()} c
                                 WHERE c.{_CO_GMS.m2m_column_name()} = g.id
                                   AND c.{_CO_GMS.m2m_reverse_name()} = %s))
        AND s.number IS NULL
        AND NOT EXISTS (SELECT 1 FROM {Substitution._meta.db_table} x
                        WHERE x.game_id = g.id AND x.status = '{Substitution.Status.ACCEPTED}'
                          AND (x.outgoing_id = %s OR x.incoming_id = %s))) AS viewer_runs
FROM """, 1)  # noqa: S608


def home_row(pk, user: User | AnonymousUser | None) -> Game | None:
    """What every visit of game `pk`'s home page reads, in one small query written out (no
    state, no joins beyond the visitor's seat, no ORM compile; the page's cache key is made
    of it): the game's id, name, status, creation time, `page_version` (moved by the
    database on every change the page shows, migration games 0015), check-in window and
    deadline, all else deferred; for a signed-in `user` also `viewer_seat`,
    `viewer_checked_in_at` and `viewer_signup_role` as `game_for_home` reads them; and
    `viewer_runs`: what `is_gm(user, game)` answers (False without asking, for anyone but
    an active staff account). None: no such game."""
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        return None
    signed_in = user is not None and user.is_authenticated
    staff = signed_in and user.is_active and user.is_staff
    with connection.cursor() as cursor:
        if staff:
            cursor.execute(_HOME_ROW_STAFF, [user.pk, user.pk] + [user.pk] * 4 + [pk])
        elif signed_in:
            cursor.execute(_HOME_ROW, [user.pk, user.pk, pk])
        else:
            cursor.execute(_HOME_ROW_ANONYMOUS, [pk])
        row = cursor.fetchone()
    if row is None:
        return None
    n = len(_HOME_FIELDS)
    game = Game.from_db(connection.alias, _HOME_FIELDS, row[:n])
    if signed_in:
        game.viewer_seat, game.viewer_checked_in_at, game.viewer_signup_role = row[n:n + 3]
    game.viewer_runs = bool(row[n + 3]) if staff else False
    return game


def game_for_home(pk, user: User | AnonymousUser | None) -> Game | None:
    """Game `pk` with its board and current phase and, for a signed-in `user`, what the home
    page needs of them, in one query: `viewer_seat` (their seat's number, None: no seat),
    `viewer_checked_in_at` (that seat's check-in) and `viewer_signup_role` (their sign-up
    not withdrawn, None: none)."""
    qs = Game.objects.select_related("board", "current_phase")
    if user is not None and user.is_authenticated:
        seat = Seat.objects.filter(game=OuterRef("pk"), user_id=user.pk)
        qs = qs.annotate(
            viewer_seat=Subquery(seat.values("number")[:1]),
            viewer_checked_in_at=Subquery(seat.values("checked_in_at")[:1]),
            viewer_signup_role=Subquery(Signup.objects.filter(
                game=OuterRef("pk"), user_id=user.pk, withdrawn_at=None).values("role")[:1]))
    return qs.filter(pk=pk).first()


def events_visible_to(game: Game, user: User | AnonymousUser | None) -> QuerySet[Event]:
    """Events the user may see: their seat's and public ones; everything for the game's GM
    (`is_gm`) or after the end."""
    qs = Event.objects.filter(game=game)
    if game.is_over or is_gm(user, game):
        return qs
    seat = seat_of(game, user)
    cond = Q(public=True)
    if seat is not None:
        cond |= Q(audience__contains=f",{seat.number},")
    return qs.filter(cond)


def public_event_rows(game: Game) -> list[Event]:
    """Every PUBLIC event of `game` (the stored rows, with their phases), oldest first: the
    same for every viewer. The home page reads them once for its timeline and its tallies."""
    return list(Event.objects.filter(game=game, public=True).select_related("phase")
                .order_by("id"))


def public_events(game: Game, *, from_phase_seq: int | None = None,
                  rows: list[Event] | None = None) -> list[dict]:
    """The game's PUBLIC engine events in the engine's order, as engine event dicts with the
    `phase_number` (the round) of the phase they were stored with. Only public events: what
    is read from here is the same for every viewer (vote tallies). `rows`: the game's public
    event rows (`public_event_rows`), when the caller read them already."""
    if rows is None:
        qs = Event.objects.filter(game=game, public=True, seq__isnull=False).select_related(
            "phase").order_by("seq")
        if from_phase_seq is not None:
            qs = qs.filter(phase__seq__gte=from_phase_seq)
    else:
        qs = sorted((e for e in rows if e.seq is not None and (
            from_phase_seq is None or (e.phase is not None and e.phase.seq >= from_phase_seq))),
            key=lambda e: e.seq)
    return [dict(e.as_engine_event(), phase_number=e.phase.number if e.phase else 0)
            for e in qs]


def game_vote_tallies(game: Game, *, from_phase_seq: int | None = None,
                      rows: list[Event] | None = None,
                      names: dict[int, str] | None = None) -> list[VoteTally]:
    """The tallies of the game's votes (public events only), oldest first (`rows`, `names`:
    the public event rows and seat names, when the caller read them already)."""
    return vote_tallies(game.ruleset,
                        public_events(game, from_phase_seq=from_phase_seq, rows=rows),
                        seat_names(game) if names is None else names)


def phase_vote_tally(game: Game, phase: Phase) -> VoteTally | None:
    """The tally of the vote of `phase` (a phase with a vote thread), or None."""
    for tally in game_vote_tallies(game, from_phase_seq=phase.seq):
        if tally.key == (phase.name, phase.number):
            return tally
    return None


def preview_end_phase(game: Game) -> list[dict]:
    """What resolving the current phase now would produce (nothing is stored)."""
    if not game.state or not game.is_live:
        return []
    return rulesets.engine(game.ruleset).end_phase(game.state).events


def board_game_links(board_ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    """The lobby's link from each game's board to the game's page (games past the draft:
    during sign-ups the page is where players sign up). Registered in GamesConfig.ready."""
    links: dict[int, list[tuple[str, str]]] = {}
    for game in Game.objects.filter(board_id__in=board_ids).exclude(status=Game.Status.DRAFT):
        label = (_("Game page: sign up here") if game.status == Game.Status.SIGNUP
                 else _("Game page"))
        links.setdefault(game.board_id, []).append(
            (label, reverse("game-home", args=[game.pk])))
    return links


def gm_inbox(game: Game) -> list[Message]:
    """The players' messages of `game` still waiting for an answer, oldest first: in each
    of the game's conversations (its board) the last `staff_unread` messages from the
    player (the services count them up on arrival and back to zero only when a GM answers
    or marks the conversation handled; automatic messages and page views leave them).
    Each message carries `.seat_label` ("3. 阿狗", or the owner's name without a seat)."""
    if not game.board_id:
        return []
    labels = {s.user_id: f"{s.number + 1}. {display_name(s.user)}"
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
    labels = {s.user_id: f"{s.number + 1}. {display_name(s.user)}"
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
    return {seat: engine.duties(game.state, seat) or ["wait"]
            for seat in sorted(engine.phase(game.state).awaiting)}


def end_phase_consequences(game: Game) -> dict:
    """What "end phase now" would do, from the engine run on a copy of the state (the engine
    never mutates its input; nothing is stored):

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
    after = engine.phase(t.state)
    return {
        "missing": seat_duties(game),
        "fouled_out": [e["data"].get("seat") for e in t.events if e["kind"] == "foul_out"],
        "defaults": [e for e in t.events if "default" in e["kind"] or (
            e["kind"] == "chance" and (e.get("data") or {}).get("purpose") != "deal")],
        "events": t.events,
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


def commitment_of(text: str, salt: str) -> str:
    """SHA-256 hex of the canonical deal text followed by the salt (see docs)."""
    return hashlib.sha256((text + salt).encode("utf-8")).hexdigest()


# --- the community around a game ------------------------------------------------------------

def waiting_substitutes(game: Game) -> QuerySet[Signup]:
    """Substitute sign-ups who may still take a seat: nobody who holds or ever held a seat of
    `game` (issue 16 item 2: one person, one seat's secrets)."""
    return (Signup.objects.filter(game=game, role=Signup.Role.SUBSTITUTE, withdrawn_at=None)
            .exclude(user_id__in=player_ids(game)).select_related("user"))


def ever_held_seat(user: User | AnonymousUser | None, game: Game) -> bool:
    """Whether `user` holds a seat of `game` now or held one before (a replaced player)."""
    if user is None or not user.is_authenticated:
        return False
    return game.seats.filter(user=user).exists() or Substitution.objects.filter(
        game=game).filter(Q(outgoing=user) | Q(incoming=user)).exists()


# §9.1.6: a seat that posts fewer than `Game.min_posts_48h` times in 48 hours may be ruled
# out. What counts is every post of the seat's player on the game's board (any thread):
# the same count for the warning (services.community.check_activity) and the game home.
POSTS_WINDOW = dt.timedelta(hours=48)


def posts_in_window(board_id: int, user_ids, *, now: dt.datetime | None = None
                    ) -> dict[int, int]:
    """{user id: their posts on board `board_id` in the `POSTS_WINDOW` before `now`} for
    `user_ids` (a user with none is left out), in one query."""
    now = now or timezone.now()
    rows = (Post.objects.filter(thread__board_id=board_id, author_id__in=list(user_ids),
                                created_at__gte=now - POSTS_WINDOW)
            .order_by().values("author_id").annotate(n=Count("pk")))
    return {row["author_id"]: row["n"] for row in rows}


@dataclass(frozen=True)
class SeatPosts:
    label: int      # the seat's number as shown (from 1)
    name: str       # the seat as a sentence names it: "3号阿猫"
    posts: int      # their posts on the game's board in the last 48 hours
    short: bool     # fewer than the game's minimum (§9.1.6)


def seat_post_counts(game_id: int, *, now: dt.datetime | None = None
                     ) -> tuple[list[SeatPosts], int, bool]:
    """([each living seat with a player and their posts in the last 48 hours (as
    `posts_in_window` counts them)], the game's minimum, whether the game has run 48 hours
    (before that no seat can fall short)), in one query."""
    now = now or timezone.now()
    posts = (Post.objects.filter(thread__board_id=OuterRef("game__board_id"),
                                 author_id=OuterRef("user_id"),
                                 created_at__gte=now - POSTS_WINDOW)
             .order_by().values("author_id").annotate(n=Count("pk")).values("n"))
    seats = list(Seat.objects.filter(game_id=game_id, alive=True).exclude(user=None)
                 .select_related("user__profile")
                 .annotate(posts=Coalesce(Subquery(posts), 0),
                           minimum=F("game__min_posts_48h"), started=F("game__started_at"))
                 .order_by("number"))
    if not seats:
        return [], 0, False
    minimum, started = seats[0].minimum, seats[0].started
    full = started is not None and now - started >= POSTS_WINDOW
    return [SeatPosts(label=s.number + 1, posts=s.posts, short=full and s.posts < minimum,
                      name=_("%(name)s (seat %(n)d)") % {"name": display_name(s.user),
                                                         "n": s.number + 1})
            for s in seats], minimum, full


def last_activity(game: Game, user: User | AnonymousUser | None) -> dt.datetime | None:
    """The user's last post on the game's board or message to 神的使者 in it."""
    if user is None:
        return None
    post = Post.objects.filter(thread__board=game.board, author=user).aggregate(
        t=Max("created_at"))["t"]
    message = Message.objects.filter(conversation__board=game.board, sender=user).aggregate(
        t=Max("created_at"))["t"]
    return max([t for t in (post, message) if t is not None], default=None)


def dead_seat(game: Game, user: User | AnonymousUser | None) -> Seat | None:
    return game.seats.filter(user=user, alive=False).first() if user else None


def open_warnings(game: Game) -> QuerySet[ActivityWarning]:
    return ActivityWarning.objects.filter(game=game, resolved_at=None).select_related(
        "seat__user__profile").order_by("seat__number")


# --- awards -----------------------------------------------------------------------------------

def player_ids(game: Game) -> set[int]:
    """Ids of every user who holds or held a seat in `game` (present holders, everyone a
    replacement was opened for, everyone who took a seat over)."""
    ids = set(game.seats.exclude(user=None).values_list("user_id", flat=True))
    for pair in Substitution.objects.filter(game=game).values_list("outgoing_id",
                                                                   "incoming_id"):
        ids.update(i for i in pair if i is not None)
    return ids


def tally(award: Award) -> list[dict]:
    """The candidates of `award` with their votes, winner first.

    Order: most votes; on a tie, the one whose last vote came first (who reached the count
    first); candidates without votes last, in the order they were added.
    """
    rows = []
    for nomination in award.nominations.select_related("nominee__profile").order_by(
            "created", "id"):
        times = sorted(v.created for v in nomination.votes.all())
        rows.append({"nomination": nomination, "name": display_name(nomination.nominee),
                     "votes": len(times), "reached": times[-1] if times else None})
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    rows.sort(key=lambda r: (-r["votes"], r["reached"] or far))
    return rows


# --- the review -------------------------------------------------------------------------------

def phase_titles(game: Game) -> dict[int, str]:
    """Phase.pk -> the phase's name ("第1夜", "第2轮 · 选牌") in the reader's language."""
    phases = list(game.phases.order_by("seq"))
    return dict(zip([p.pk for p in phases], phase_names(game.ruleset, phases), strict=True))


def phase_title(game: Game, phase) -> str:
    """One stored phase's name (a gold phase's round is counted from the phases before it:
    one query; no query for the other rule sets); "—" for none."""
    if phase is None:
        return "—"
    if not counts_rounds(game.ruleset):
        return phase_name(game.ruleset, phase.name, phase.number)
    phases = list(game.phases.filter(seq__lte=phase.seq).order_by("seq"))
    return phase_names(game.ruleset, phases)[-1] if phases else phase_name(
        game.ruleset, phase.name, phase.number)


def current_phase_name(game: Game) -> str:
    """The name of the game's current phase (the round from the public state: no query);
    "" before the game starts."""
    if not game.phase_name:
        return ""
    public = (game.state or {}).get("public") if isinstance(game.state, dict) else None
    return phase_name(game.ruleset, game.phase_name, game.phase_number,
                      round_of(game.ruleset, public))


def seat_holders(game: Game) -> dict[int, list[str]]:
    """Seat number -> the names of everyone who held it, first to last (substitutions)."""
    holders: dict[int, list[str]] = {}
    handovers = (Substitution.objects.filter(game=game, status=Substitution.Status.ACCEPTED)
                 .select_related("seat", "outgoing__profile", "incoming__profile")
                 .order_by("closed_at", "id"))
    for sub in handovers:
        chain = holders.setdefault(sub.seat.number, [])
        if not chain and sub.outgoing_id:
            chain.append(display_name(sub.outgoing))
        if sub.incoming_id:
            chain.append(display_name(sub.incoming))
    for seat in game.seats.select_related("user__profile"):
        chain = holders.setdefault(seat.number, [])
        current = display_name(seat.user) if seat.user_id else ""
        if current and (not chain or chain[-1] != current):
            chain.append(current)
    return holders


def commitment_check(game: Game) -> dict:
    """The deal commitment recomputed from the revealed deal and salt (after the end, or for
    staff: the caller has checked access)."""
    text = rulesets.engine(game.ruleset).commitment_text(game.state) if game.state else None
    if text is None or not game.commitment:
        return {"text": None}
    recomputed = commitment_of(text, game.salt)
    return {"text": text, "salt": game.salt, "recomputed": recomputed,
            "matches": recomputed == game.commitment}


# --- the calendar -----------------------------------------------------------------------------

def _host() -> str:
    return urlsplit(site_url()).hostname or "localhost"


def _entry(uid: str, when: dt.datetime, summary: str, url: str, now: dt.datetime,
           description: str = "") -> icalendar.Event:
    """One deadline: an instant (DTSTART without DTEND, RFC 5545 §3.6.1) in UTC."""
    event = icalendar.Event()
    event.add("uid", f"{uid}@{_host()}")
    event.add("dtstamp", now)
    event.add("dtstart", when.astimezone(dt.UTC))
    event.add("summary", summary)
    event.add("url", site_url() + url)
    if description:
        event.add("description", description)
    return event


def deadlines(user: User | AnonymousUser | None, *,
              now: dt.datetime | None = None) -> list[icalendar.Event]:
    """The calendar entries of `user` (what they are: games/web/calendar.py), soonest first.

    Precondition: the caller has activated the language the summaries should use.
    """
    now = now or timezone.now()
    entries: list[tuple[dt.datetime, icalendar.Event]] = []
    mine = Q(seats__user=user) | Q(gm=user)

    # 1-3: running games.
    for game in Game.objects.filter(mine, status=Game.Status.RUNNING).distinct():
        is_gm = game.gm_id == user.pk
        home = reverse("game-act" if not is_gm else "game-home", args=[game.pk])
        seat = Seat.objects.filter(game=game, user=user).first()
        # A dead seat owes nothing any more: no phase deadline, no check-in (issue 16).
        owes = is_gm or (seat is not None and seat.alive)
        if owes and game.deadline and game.current_phase_id:
            title = current_phase_name(game)
            entries.append((game.deadline, _entry(
                f"game-{game.pk}-phase-{game.current_phase_id}", game.deadline,
                _("%(game)s: %(phase)s ends") % {"game": game.name, "phase": title},
                home, now)))
        if owes and seat is not None and seat.checked_in_at is None and game.started_at:
            until = game.started_at + dt.timedelta(hours=game.checkin_hours)
            if until > now:
                entries.append((until, _entry(
                    f"game-{game.pk}-checkin-{seat.number}", until,
                    _("%(game)s: check in by now") % {"game": game.name}, home, now)))
        handovers = Substitution.objects.filter(game=game, status=Substitution.Status.OPEN)
        if not is_gm:
            handovers = handovers.filter(seat__user=user)
        for sub in handovers.select_related("seat"):
            entries.append((sub.ends_at, _entry(
                f"game-{game.pk}-handover-{sub.pk}", sub.ends_at,
                _("%(game)s: the handover of seat %(n)d ends")
                % {"game": game.name, "n": sub.seat.number + 1}, home, now)))

    # 4: games in sign-up with an announced start.
    signed = Signup.objects.filter(user=user, withdrawn_at__isnull=True).values("game_id")
    upcoming = Game.objects.filter(Q(pk__in=signed) | Q(gm=user), status=Game.Status.SIGNUP,
                                   starts_at__isnull=False)
    for game in upcoming:
        entries.append((game.starts_at, _entry(
            f"game-{game.pk}-start", game.starts_at,
            _("%(game)s starts") % {"game": game.name}, game.get_absolute_url(), now)))

    # 5: open awards of finished games the user played in (or ran).
    open_awards = Award.objects.filter(closed_at__isnull=True, vote_until__isnull=False) \
        .select_related("game")
    for award in open_awards.filter(Q(game__gm=user) | Q(game__seats__user=user)
                                    | Q(game__substitutions__outgoing=user)).distinct():
        if award.game.gm_id != user.pk and user.pk not in player_ids(award.game):
            continue
        entries.append((award.vote_until, _entry(
            f"game-{award.game_id}-award-{award.kind}", award.vote_until,
            _("%(game)s: voting for %(award)s closes")
            % {"game": award.game.name, "award": award.get_kind_display()},
            reverse("game-awards", args=[award.game_id]), now)))

    entries.sort(key=lambda pair: pair[0])
    return [event for _when, event in entries]


# --- the archive: finished games and a player's record -----------------------------------------

def finished_games() -> QuerySet[Game]:
    """Finished games, newest end first (the archive's list; aborted games have no result)."""
    return (Game.objects.filter(status=Game.Status.FINISHED)
            .order_by("-finished_at", "-id").defer("state", "config"))


def outcome_results() -> list[str]:
    """The result codes finished games have ended with (the archive's outcome filter)."""
    rows = finished_games().order_by().values_list("outcome__result", flat=True).distinct()
    return sorted({r for r in rows if isinstance(r, str) and r})


def filter_archive(games: QuerySet[Game], *, ruleset: str | None = None,
                   player_id: int | None = None, result: str | None = None,
                   since: dt.date | None = None, until: dt.date | None = None) -> QuerySet[Game]:
    """`games` narrowed by rule set, a player (who held a seat at the end or before a
    handover), the result code and the day the game ended (inclusive, in the active zone)."""
    if ruleset:
        games = games.filter(ruleset=ruleset)
    if player_id is not None:
        handed = Substitution.objects.filter(
            status=Substitution.Status.ACCEPTED, outgoing_id=player_id).values("game_id")
        games = games.filter(Q(seats__user_id=player_id) | Q(pk__in=handed)).distinct()
    if result:
        games = games.filter(outcome__result=result)
    zone = timezone.get_current_timezone()
    if since is not None:
        games = games.filter(finished_at__gte=dt.datetime.combine(since, dt.time.min, zone))
    if until is not None:
        games = games.filter(finished_at__lt=dt.datetime.combine(
            until + dt.timedelta(days=1), dt.time.min, zone))
    return games


def outcome_line(game: Game, names: dict[int, str] | None = None,
                 view: dict | None = None) -> str:
    """A finished game's result in the reader's language (presenters.outcome_text). Without
    `names` the winners are named by seat number, without `view` a rule set may say less (the
    archive lists many games: no query, and no state read, per game)."""
    if not game.outcome:
        return ""
    return outcome_text(game.ruleset, game.outcome, names or {}, view)


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


# --- a seat's posts (ISO for a seat) -------------------------------------------------------------

def seat_holdings(game: Game, seat: Seat) -> list[dict]:
    """Who held `seat`, first to last: {"user_id", "since", "until"} (None = open end),
    from its accepted handovers (Substitution.closed_at is the moment of the handover)."""
    holdings: list[dict] = []
    handovers = (Substitution.objects.filter(seat=seat, status=Substitution.Status.ACCEPTED)
                 .order_by("closed_at", "id").values("outgoing_id", "incoming_id", "closed_at"))
    for sub in handovers:
        if not holdings and sub["outgoing_id"]:
            holdings.append({"user_id": sub["outgoing_id"], "since": None, "until": None})
        if holdings:
            holdings[-1]["until"] = sub["closed_at"]
        if sub["incoming_id"]:
            holdings.append({"user_id": sub["incoming_id"], "since": sub["closed_at"],
                             "until": None})
    if not holdings and seat.user_id:
        holdings.append({"user_id": seat.user_id, "since": None, "until": None})
    return holdings


def _held_at(holdings: list[dict], post: Post) -> bool:
    return any(h["user_id"] == post.author_id
               and (h["since"] is None or post.created_at >= h["since"])
               and (h["until"] is None or post.created_at < h["until"]) for h in holdings)


def seat_posts(game: Game, seat: Seat, viewer: User | AnonymousUser | None) -> dict:
    """Every post written from `seat` on the game's board that `viewer` may read
    (messaging.rules.readable_posts), grouped by the phase it was written in (Phase start
    and end times), oldest first. A post counts for the seat when its author held the seat
    at the time (seat_holdings); a later holder's posts carry `by_substitute`.
    Four queries whatever the number of posts, phases or handovers.
    """
    holdings = seat_holdings(game, seat)
    first = holdings[0]["user_id"] if holdings else None
    posts = readable_posts(viewer, Post.objects.filter(
        thread__board_id=game.board_id, author_id__in={h["user_id"] for h in holdings}))
    posts = posts.select_related("thread", "author__profile").order_by("created_at", "id")
    phases = list(game.phases.order_by("seq"))
    groups: list[dict] = []
    before = {"title": _("Before the game"), "posts": []}
    after = {"title": _("After the game"), "posts": []}
    by_phase = {p.pk: {"title": title, "phase": p, "posts": []}
                for p, title in zip(phases, phase_names(game.ruleset, phases), strict=True)}
    count = 0
    for post in posts:
        if not _held_at(holdings, post):
            continue
        count += 1
        post.by_substitute = post.author_id != first
        phase = next((p for p in reversed(phases) if p.started_at <= post.created_at), None)
        if phase is None:
            before["posts"].append(post)
        elif phase.ended_at is not None and post.created_at >= phase.ended_at \
                and phase is phases[-1]:
            after["posts"].append(post)
        else:
            by_phase[phase.pk]["posts"].append(post)
    groups = [before, *by_phase.values(), after]
    return {"groups": [g for g in groups if g["posts"]], "count": count,
            "holders": [h["user_id"] for h in holdings]}


# --- the GM's undo: what can be rolled back (games/services/rollback.py does it) ----------------

@dataclass
class RollbackPlan:
    """What undoing `kind` would do, computed without writing anything.

    `kind` is "phase_end" (the most recent phase end and every step after it) or "step" (one
    seat's last accepted step in the current phase). `target` is the Action.seq the GM
    confirms (a stale page names another one); `steps` the game's step count when planned.
    """

    kind: str
    target: int
    steps: int
    version: int
    removed: list  # the Action rows taken out of the log, in order
    kept_after: list  # the Action rows after `target` that stay (a "step" plan only)
    seat: Seat | None  # the seat whose step is undone (a "step" plan only)
    phase: Phase  # the phase open afterwards
    dropped_phases: list  # the phases the undone phase end opened (they are removed)
    state: dict  # the rebuilt state
    events_removed: list  # stored engine events that go
    events_renumbered: list  # (Event row, its new seq) for later events that stay
    announcements: list  # Announcement rows marked withdrawn
    messages: list  # StepMessage rows whose messages are marked withdrawn
    posts: list  # StepPost rows (vote results, round replies) whose posts are marked withdrawn
    votes: list  # Vote rows deleted (the voter may vote again)
    revived: list  # seat numbers alive again
    fallen: list  # seat numbers no longer alive (a later kept step may kill)

    def summary(self, names: dict[int, str]) -> dict:
        """What the confirm page lists (per seat, how many private messages are withdrawn)."""
        per_seat: dict[int, int] = {}
        for link in self.messages:
            seat = getattr(link.message.conversation, "seat", None)
            if seat is not None:
                per_seat[seat.number] = per_seat.get(seat.number, 0) + 1
        return {"messages": [(n + 1, names.get(n, ""), c) for n, c in sorted(per_seat.items())],
                "revived": [(n + 1, names.get(n, "")) for n in self.revived],
                "fallen": [(n + 1, names.get(n, "")) for n in self.fallen]}


def _same_event(stored: dict, logged: dict) -> bool:
    return all(stored.get(k) == logged.get(k) for k in ("kind", "visibility", "data"))


def rollback_plan(game: Game, kind: str, seat_number: int | None = None) -> RollbackPlan | str:
    """The plan of an undo, or the sentence that says why there is nothing to undo.

    1. Only a running or paused game: a finished or aborted game is not rolled back.
    2. "phase_end": the latest end_phase step and every step after it (the steps taken in
       the phase it opened) leave the log; the phases it opened go; the phase it closed
       is open again.
       "step": the seat's latest accepted step in the current phase leaves the log; the
       later steps stay, provided the engine, replaying them without it, says exactly what
       it said before (else that step cannot be undone alone).
    3. The state is `replay(setup, kept steps)` (games.engine.base.replay).
    """
    if not game.is_live or not game.state or not game.seed:
        return _("Only a running or paused game can be rolled back.")
    actions = list(Action.objects.filter(game=game).order_by("seq"))
    if kind == "phase_end":
        ends = [a for a in actions if a.actor == "clock" and a.kind == "end_phase"]
        if not ends:
            return _("No phase has ended yet: there is nothing to roll back.")
        target = ends[-1]
        removed = [a for a in actions if a.seq >= target.seq]
        kept = [a for a in actions if a.seq < target.seq]
        closing = Phase.objects.filter(pk=target.phase_id).first()
        if closing is None:
            return _("The phase that step ended is no longer on record.")
        phase, seat = closing, None
        dropped = list(game.phases.filter(seq__gt=closing.seq).order_by("seq"))
    elif kind == "step":
        seat = game.seats.filter(number=seat_number).first() if isinstance(
            seat_number, int) and not isinstance(seat_number, bool) else None
        if seat is None:
            return _("There is no such seat.")
        mine = [a for a in actions if a.actor == str(seat.number)
                and a.phase_id == game.current_phase_id and game.current_phase_id]
        if not mine:
            return _("This seat has no accepted step in the current phase to undo.")
        target = mine[-1]
        removed = [target]
        kept = [a for a in actions if a.seq != target.seq]
        phase, dropped = game.current_phase, []
    else:
        return _("Unknown kind of rollback.")
    engine = rulesets.engine(game.ruleset)
    setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
    try:
        state = replay(engine, setup, [a.as_step() for a in kept])
    except ValueError:
        return _("The remaining steps do not replay without it; it cannot be undone alone.")
    stored = list(Event.objects.filter(game=game, seq__isnull=False).order_by("seq"))
    log = state["log"]
    prefix = 0
    while prefix < min(len(stored), len(log)) and _same_event(
            stored[prefix].as_engine_event(), log[prefix]):
        prefix += 1
    tail, renumbered, removed_events = stored[prefix:], [], []
    for row in tail:  # the new tail must be the old one less the undone step's events
        if len(renumbered) < len(log) - prefix and _same_event(
                row.as_engine_event(), log[prefix + len(renumbered)]):
            renumbered.append((row, prefix + len(renumbered)))
        else:
            removed_events.append(row)
    if prefix + len(renumbered) != len(log):
        return _("Later steps depend on this one; undo them first.")
    removed_seqs = [a.seq for a in removed]
    living_now = set(engine.living_seats(game.state))
    living_then = set(engine.living_seats(state))
    return RollbackPlan(
        kind=kind, target=target.seq, steps=game.steps, version=game.version,
        removed=removed, kept_after=[a for a in kept if a.seq > target.seq], seat=seat,
        phase=phase, dropped_phases=dropped, state=state, events_removed=removed_events,
        events_renumbered=[(row, seq) for row, seq in renumbered if row.seq != seq],
        announcements=list(Announcement.objects.filter(
            game=game, step_seq__in=removed_seqs, withdrawn_at=None).order_by("id")),
        messages=list(StepMessage.objects.filter(game=game, step_seq__in=removed_seqs)
                      .select_related("message__conversation__seat").order_by("id")),
        posts=list(StepPost.objects.filter(game=game, step_seq__in=removed_seqs,
                                           post__withdrawn_at=None).order_by("id")),
        votes=list(_undone_votes(game, removed, dropped)),
        revived=sorted(living_then - living_now), fallen=sorted(living_now - living_then))


def _undone_votes(game: Game, removed: list, dropped: list) -> QuerySet[Vote]:
    """The Vote rows of the undone steps: every vote of a dropped phase, and the vote an
    undone vote step cast."""
    cond = Q(phase__in=dropped)
    for a in removed:
        if a.kind in ("vote", "runoff_vote", "proxy_vote") and a.seat_id and a.phase_id:
            cond |= Q(phase_id=a.phase_id, voter_id=a.seat_id, proxy=a.kind == "proxy_vote")
    return Vote.objects.filter(cond, game=game).select_related("voter", "target")


def undoable(game: Game) -> dict:
    """What the GM may roll back now: the latest phase end and each seat's last step in the
    current phase, each a RollbackPlan or the reason it cannot be undone."""
    seats = sorted(set(Action.objects.filter(game=game, phase=game.current_phase_id)
                       .exclude(actor__in=("clock", GM)).values_list("seat__number", flat=True))
                   - {None}) if game.current_phase_id else []
    return {"phase_end": rollback_plan(game, "phase_end"),
            "steps": [(n, rollback_plan(game, "step", n)) for n in seats]}


# --- links between the pages ---------------------------------------------------------------

LOBBY_GAMES = 10


def my_current_games(user: User | AnonymousUser | None) -> list[dict]:
    """The games `user` is in now: a seat in a running or paused game (with the seat, for
    its action page), or a sign-up to a game still taking them. Oldest first."""
    if user is None or not user.is_authenticated:
        return []
    live = (Game.Status.RUNNING, Game.Status.PAUSED)
    rows = [{"game": s.game, "seat": s} for s in Seat.objects.filter(
        user=user, game__status__in=live).select_related("game").order_by("game_id")]
    rows += [{"game": s.game, "seat": None, "signup": s} for s in Signup.objects.filter(
        user=user, withdrawn_at=None, game__status=Game.Status.SIGNUP)
        .select_related("game").order_by("game_id")]
    return rows


def open_games(limit: int = LOBBY_GAMES) -> list[Game]:
    """Games taking sign-ups or being played, newest first (the home page's list)."""
    return list(Game.objects.filter(status__in=(
        Game.Status.SIGNUP, Game.Status.RUNNING, Game.Status.PAUSED)).order_by("-id")[:limit])


def vote_thread(game: Game) -> tuple[Thread | None, bool]:
    """The game's vote thread to link: (the current phase's, True) while a vote (or runoff)
    is open, else (the latest one, False); (None, False) before the first vote."""
    if game.board_id is None:
        return None, False
    threads = Thread.objects.filter(board_id=game.board_id, key__startswith="vote-")
    if game.current_phase_id and game.is_live:
        today = threads.filter(key=f"vote-{game.current_phase.seq}").first()
        if today is not None:
            return today, True
    latest = max(threads, key=lambda t: int(t.key.split("-")[1]), default=None)
    return latest, False


def game_threads(game: Game) -> tuple[Thread | None, bool, Thread | None]:
    """`vote_thread(game)` and `announcement_thread(game)` in one query: (the vote thread to
    link, whether it is today's, the announcement thread)."""
    if game.board_id is None:
        return None, False, None
    threads = list(Thread.objects.filter(Q(key__startswith="vote-") | Q(key="announcements"),
                                         board_id=game.board_id).only("pk", "key", "title"))
    announcements = next((t for t in threads if t.key == "announcements"), None)
    votes = [t for t in threads if t.key.startswith("vote-")]
    if game.current_phase_id and game.is_live:
        today = next((t for t in votes if t.key == f"vote-{game.current_phase.seq}"), None)
        if today is not None:
            return today, True, announcements
    latest = max(votes, key=lambda t: int(t.key.split("-")[1]), default=None)
    return latest, False, announcements


def announcement_thread(game: Game) -> Thread | None:
    if game.board_id is None:
        return None
    return Thread.objects.filter(board_id=game.board_id, key="announcements").first()


def _places(*, users: set[int] | None = None, games: set[int] | None = None
            ) -> set[tuple[int, int]]:
    """(user id, game id) for every seat held now or through an accepted substitution (either
    way), and every GM and co-GM chair, of the `users` or in the `games` given."""
    def where(user_field: str, game_field: str = "game_id") -> Q:
        q = Q()
        if users is not None:
            q &= Q(**{f"{user_field}__in": users})
        if games is not None:
            q &= Q(**{f"{game_field}__in": games})
        return q

    pairs = set(Seat.objects.exclude(user=None).filter(where("user_id"))
                .values_list("user_id", "game_id"))
    accepted = Substitution.objects.filter(status=Substitution.Status.ACCEPTED)
    for field in ("outgoing_id", "incoming_id"):
        pairs |= set(accepted.exclude(**{field: None}).filter(where(field))
                     .values_list(field, "game_id"))
    pairs |= set(Game.objects.exclude(gm=None).filter(where("gm_id", "id"))
                 .values_list("gm_id", "id"))
    pairs |= set(Game.co_gms.through.objects.filter(where("user_id"))
                 .values_list("user_id", "game_id"))
    return pairs


def table_mates(user) -> QuerySet:
    """The users who hold or held a seat (as `ever_seated_ids` counts) in a running or
    paused game in which `user` holds or held one, `user` left out, as a query of user ids
    (messaging.rules asks this, as a subquery: registered in GamesConfig.ready). A general
    conversation of one of them is not `user`'s to answer as 神的使者."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    if user is None or not user.is_authenticated:
        return users.none().values("pk")
    accepted = Substitution.objects.filter(status=Substitution.Status.ACCEPTED)
    live = Game.objects.filter(
        Exists(Seat.objects.filter(game=OuterRef("pk"), user=user.pk))
        | Exists(accepted.filter(Q(outgoing=user.pk) | Q(incoming=user.pk),
                                 game=OuterRef("pk"))),
        status__in=(Game.Status.RUNNING, Game.Status.PAUSED)).values("pk")
    return users.filter(
        Exists(Seat.objects.filter(user=OuterRef("pk"), game__in=live))
        | Exists(accepted.filter(Q(outgoing=OuterRef("pk")) | Q(incoming=OuterRef("pk")),
                                 game__in=live))).exclude(pk=user.pk).values("pk")


def recent_outbox(viewer: User, limit: int = 50):
    """The newest outgoing emails `viewer` may read (the development outbox page), newest
    first:

    1. the emails to `viewer` (to their account; an email to no account, to one of their
       verified addresses);
    2. the notifications (not "account" mail: sign-in, verification and password-reset
       links are their addressee's alone) to a person whose every game, played or run, is
       one `viewer` runs (`games_run_by`: GM or co-GM, never seated). A row names its
       reader, not its game, so the emails of a person who also plays or runs a game
       `viewer` does not run are read by that person only: a viewer seated in a game never
       reads what it sends to the others.
    """
    from allauth.account.models import EmailAddress

    from .mail import ACCOUNT
    from .models import OutboxEmail

    if viewer is None or not viewer.is_authenticated:
        return []
    addresses = [a.lower() for a in EmailAddress.objects.filter(
        user=viewer, verified=True).values_list("email", flat=True)]
    own = Q(user_id=viewer.pk)
    if addresses:
        own |= Q(user=None, to_lower__in=addresses)
    run = {g.pk for g in games_run_by(viewer)}
    people = {uid for uid, _g in _places(games=run)} - {viewer.pk}
    elsewhere = {uid for uid, gid in _places(users=people) if gid not in run}
    theirs = ~Q(kind=ACCOUNT) & Q(user_id__in=people - elsewhere)
    return list(OutboxEmail.objects.annotate(to_lower=Lower("to")).filter(own | theirs)
                .order_by("-created", "-id")[:limit])
