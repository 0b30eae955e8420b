"""Everything the 天神 of seed 002 did by hand around the rules (§5.1-5.3, §5.7, §7, §9):
sign-ups, the fair draw, check-in, substitutes and handovers, leave requests, activity
warnings and ghost posts. Services over the shared kernel (games/services/kernel.py): keyword-only,
under the game lock, refusals as GameError, emails on commit.

Interpretations (also in docs/community.md):
- §5.1: players are picked by the GM, or by a draw the service performs and publishes with
  its seed (anyone can recompute it); player sign-ups not picked become substitutes.
- The game's GM and co-GMs never play in it (a seat holder loses every GM power, so a GM
  drawn into their own game would leave it without a GM): they cannot sign up (as player or
  substitute), be picked, take over a seat or start in one; the draw leaves out a sign-up of
  theirs made before they were named (and says so); someone signed up or seated cannot be
  named co-GM (`add_co_gm`).
- §5.2/§9.1.4: check-in is a button on the game page, open from the start for
  `checkin_hours` (24 h); a seat not checked in by then is warned and a replacement starts.
- §9.3: a replacement opens a handover window of `handover_hours` (12 h) and extends the
  current phase by as much (§5.7); every waiting substitute is asked at once; the first to
  accept takes the seat; with several open replacements, the first substitute takes the seat
  whose player has been silent longest. If nobody accepts in time the seat plays on without
  (the slot is "wasted"). The GM can cancel while it is open.
- §7.2: a dead player's new thread is moved to the game's GM board at once and restored when
  the game ends; a dead player's reply is limited to `ghost_reply_max_chars` characters.
- §9.1.5/§9.1.6/§7.1: missing votes are the rule set's business (Nine Lives counts a seat
  with neither vote nor proxy as out at the count); few posts in 48 h and a day without an
  analysis thread produce a warning to the player (message + email) and list the seat on the
  GM console for a one-click foul-out.
"""


from __future__ import annotations

import datetime as dt
import hashlib
import random
import secrets
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from accounts.models import display_name, messenger_user
from config.site import site_url
from messaging import services as forum
from messaging.models import Thread

from ..mail import ACCOUNT, queue_email, user_locale
from ..models import (
    ActivityWarning,
    Game,
    LeaveRequest,
    Phase,
    Seat,
    Signup,
    Substitution,
    Watcher,
)
from ..presenters import listing, ruleset_name
from ..reminders import EMAIL_KIND as REMINDERS
from ..reminders import reminder_hours
from ..selectors import (
    POSTS_WINDOW,
    ever_held_seat,
    ever_seated_ids,
    last_activity,
    posts_in_window,
    seat_of,
    secret_games,
    waiting_substitutes,
)
from . import kernel
from .kernel import GameError, announce, changed, lock_game, log_gm, require_gm, runs_game
from .lifecycle import start_game

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser as User
    from django.contrib.auth.models import AnonymousUser


# --- sign-ups (§5.1) ---------------------------------------------------------------------

def open_signups(*, game_id: int, gm: User | None, starts_at: dt.datetime | None = None,
                 note: str = "") -> Game:
    """Announce a draft game in the lobby with its sign-up thread."""
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.status != Game.Status.DRAFT:
            raise GameError(_("Only a game in draft can open its sign-ups."))
        game.status = Game.Status.SIGNUP
        game.starts_at = starts_at
        when = timezone.localtime(starts_at).strftime("%Y-%m-%d %H:%M %Z") if starts_at else "—"
        body = _("Sign-ups are open for **%(name)s** (%(seats)d seats). Sign up as a player or "
                 "a substitute on [the game's page](%(url)s). Start: %(when)s.") % {
            "name": game.name, "seats": game.seat_count, "when": when,
            "url": reverse("game-home", args=[game.pk])}
        body += "\n\n" + _("The rules of %(ruleset)s, with every interpretation this site "
                           "uses: [the rules page](%(rules)s).") % {
            "ruleset": ruleset_name(game.ruleset),
            "rules": reverse("rules-detail", args=[game.ruleset])}
        if note:
            body += "\n\n" + note
        game.signup_thread = forum.start_thread(
            board=forum.lobby_board(), author=messenger_user(), kind=Thread.Kind.ANNOUNCEMENT,
            title=_("Sign-ups: %(name)s") % {"name": game.name}, body=body,
            enforce_rate_limit=False)
        game.save(update_fields=["status", "starts_at", "signup_thread"])
        log_gm(game, gm, "open_signups", {})
        changed(game, what="phase")
    return game


def _hosts_of(game: Game) -> set[int]:
    """The ids of `game`'s GM and co-GMs."""
    return {game.gm_id, *game.co_gms.values_list("pk", flat=True)} - {None}


def _refuse_hosts(game: Game, users) -> None:
    """GameError naming the first of `users` who runs `game`."""
    hosts = _hosts_of(game)
    for user in users:
        if user.pk in hosts:
            raise GameError(_("%(name)s runs this game (its GM or a co-GM) and cannot hold a "
                              "seat in it.") % {"name": display_name(user)})


def sign_up(*, game_id: int, user: User | AnonymousUser | None,
            role: str = Signup.Role.PLAYER) -> Signup:
    if role not in Signup.Role.values:
        raise GameError(_("Sign up as a player or as a substitute."))
    if user is None or not user.is_authenticated:
        raise GameError(_("Sign in to sign up."), code="forbidden")
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        running = game.status in (Game.Status.RUNNING, Game.Status.PAUSED)
        if game.status != Game.Status.SIGNUP and not (running and role == Signup.Role.SUBSTITUTE):
            raise GameError(_("Sign-ups for this game are closed."))
        if runs_game(game, user):  # a GM in a seat loses the console: the game has no GM
            raise GameError(_("You run this game (as its GM or a co-GM): the GM of a game "
                              "cannot play in it, as a player or a substitute."))
        if game.seats.filter(user=user).exists():
            raise GameError(_("You already hold a seat in this game."))
        if ever_held_seat(user, game):  # a replaced player knows that seat's secrets
            raise GameError(_("You held a seat in this game; nobody plays two seats of one "
                              "game."))
        if Watcher.objects.filter(game=game, user=user).exists():  # they saw hidden play
            raise GameError(_("You watch this game: a watcher does not sign up for it."))
        if secret_games(user).exists():  # they would be silenced at the new table
            raise GameError(_("You read the secrets of a running game (you watch it, or "
                              "left its table): you write nothing its living players "
                              "read until it ends, so sign up for a game after that."))
        signup = Signup.objects.filter(game=game, user=user).first()
        if signup is not None and signup.withdrawn_at is None:
            raise GameError(_("You have already signed up for this game."))
        if signup is not None:
            signup.role, signup.withdrawn_at, signup.chosen = role, None, False
            signup.save(update_fields=["role", "withdrawn_at", "chosen"])
            return signup
        return Signup.objects.create(game=game, user=user, role=role)


def withdraw_signup(*, game_id: int, user: User | AnonymousUser | None) -> None:
    with transaction.atomic():
        game = lock_game(game_id)
        signup = Signup.objects.filter(game=game, user=user, withdrawn_at=None).first()
        if signup is None:
            raise GameError(_("You have not signed up for this game."))
        if game.status != Game.Status.SIGNUP and signup.role == Signup.Role.PLAYER:
            raise GameError(_("The players are already chosen."))
        signup.withdrawn_at = timezone.now()
        signup.save(update_fields=["withdrawn_at"])


def draw_players(*, game_id: int, gm: User | None, seed: str | None = None) -> list:
    """Pick the players among the player sign-ups by a published, recomputable draw.

    The draw: sort the candidates by user id, seed `random.Random` with the SHA-256 of the
    published seed, and take `random.sample(candidates, seat_count)` in that order (the seat
    order). Everyone can recompute it from the announcement.

    The candidates are the standing player sign-ups except the game's GM's and co-GMs'
    (made before they were named; sign-up refuses them since): those are left out of the
    draw, and the announcement names them, so the recomputation uses the same list.
    """
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.status != Game.Status.SIGNUP:
            raise GameError(_("The draw happens during sign-ups."))
        hosts = _hosts_of(game)
        standing = list(Signup.objects.filter(game=game, role=Signup.Role.PLAYER,
                                              withdrawn_at=None).order_by("user_id"))
        candidates = [s for s in standing if s.user_id not in hosts]
        left_out = [s for s in standing if s.user_id in hosts]
        if len(candidates) < game.seat_count:
            raise GameError(_("Only %(n)d player sign-ups for %(seats)d seats.")
                            % {"n": len(candidates), "seats": game.seat_count})
        seed = seed or secrets.token_hex(8)
        rng = random.Random(int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big"))
        picked = rng.sample(candidates, game.seat_count)
        Signup.objects.filter(game=game).update(chosen=False, seat_order=None)
        for order, s in enumerate(picked):
            s.chosen, s.seat_order = True, order
            s.save(update_fields=["chosen", "seat_order"])
        names = listing(display_name(s.user) for s in picked)
        body = _("The players of **%(name)s** were drawn by lot (seed `%(seed)s`, among the "
                 "sign-ups sorted by user id): %(names)s. The other sign-ups are "
                 "substitutes.") % {"name": game.name, "seed": seed, "names": names}
        if left_out:
            body += " " + _("Left out of the draw, since they run this game: %(names)s.") % {
                "names": listing(display_name(s.user) for s in left_out)}
        if game.signup_thread is not None:
            forum.reply(thread=game.signup_thread, author=messenger_user(), body=body,
                        enforce_rate_limit=False)
        log_gm(game, gm, "draw_players", {"seed": seed})
    return [s.user for s in picked]


def pick_players(*, game_id: int, gm: User | None, users: list[User]) -> None:
    """The GM picks the players by hand (in seat order)."""
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if game.status != Game.Status.SIGNUP:
            raise GameError(_("Players are picked during sign-ups."))
        _refuse_hosts(game, users)
        Signup.objects.filter(game=game).update(chosen=False, seat_order=None)
        for order, user in enumerate(users):
            Signup.objects.update_or_create(game=game, user=user,
                                            defaults={"chosen": True, "withdrawn_at": None,
                                                      "role": Signup.Role.PLAYER,
                                                      "seat_order": order})
        log_gm(game, gm, "pick_players", {"users": [u.pk for u in users]})


def add_co_gm(*, game_id: int, gm: User | None, user: User) -> Game:
    """Name `user` a co-GM of the game (the GM or a co-GM asks). Refused for someone signed
    up for it (as player or substitute) or who holds or held a seat in it: a co-GM in a seat
    has no GM power, and would have read the GM's view before sitting down."""
    with transaction.atomic():
        game = require_gm(game_id, gm)
        if user.pk in ever_seated_ids(game):
            raise GameError(_("%(name)s holds or held a seat in this game and cannot run it.")
                            % {"name": display_name(user)})
        if Signup.objects.filter(game=game, user=user, withdrawn_at=None).exists():
            raise GameError(_("%(name)s is signed up for this game and cannot run it unless "
                              "they withdraw their sign-up first.")
                            % {"name": display_name(user)})
        game.co_gms.add(user)
        log_gm(game, gm, "add_co_gm", {"user": user.pk})
    return game


def start_from_signups(*, game_id: int, gm: User | None, now: dt.datetime | None = None) -> Game:
    """Deal to the chosen players (in the order they were drawn or picked) and open check-in.

    A refusal names the missing step (the draw or the pick), not just a count."""
    chosen = list(Signup.objects.filter(game_id=game_id, chosen=True, withdrawn_at=None)
                  .select_related("user").order_by("seat_order", "pk"))
    game = Game.objects.filter(pk=game_id).first()
    if game is not None and game.status == Game.Status.SIGNUP and len(chosen) < game.seat_count:
        if not chosen:
            raise GameError(_("No players are chosen yet: draw the players by lot (or pick "
                              "them) first."), code="draw")
        raise GameError(_("Only %(n)d of the %(seats)d chosen players are still signed up: "
                          "draw again or pick the missing players.")
                        % {"n": len(chosen), "seats": game.seat_count}, code="draw")
    if game is not None and game.status == Game.Status.SIGNUP:
        _refuse_hosts(game, [s.user for s in chosen])  # chosen, then named GM: choose again
    game = start_game(game_id=game_id, users=[s.user for s in chosen], now=now)
    Signup.objects.filter(game=game, chosen=False, withdrawn_at=None).update(
        role=Signup.Role.SUBSTITUTE)
    return game


# --- check-in (§5.2, §9.1.4) ---------------------------------------------------------------

def check_in(*, game_id: int, user: User | AnonymousUser | None,
             now: dt.datetime | None = None) -> Seat:
    now = kernel.now(now)
    with transaction.atomic():
        game = lock_game(game_id)
        seat = seat_of(game, user) if game else None
        if seat is None:
            raise GameError(_("You do not hold a seat in this game."), code="forbidden")
        if seat.checked_in_at is not None:
            raise GameError(_("You have already checked in."))
        if game.started_at and now > game.started_at + dt.timedelta(hours=game.checkin_hours):
            raise GameError(_("The check-in window has closed."))
        seat.checked_in_at = now
        seat.save(update_fields=["checked_in_at"])
    return seat


# --- substitutes and handovers (§5.7, §9.2, §9.3) ------------------------------------------

def start_substitution(*, game_id: int, gm: User | None = None, seat_number: int, reason: str = "",
                       now: dt.datetime | None = None) -> Substitution:
    """Open a handover for a seat: extend the phase, ask every waiting substitute."""
    now = kernel.now(now)
    with transaction.atomic():
        game = require_gm(game_id, gm) if gm is not None else lock_game(game_id)
        if not game.is_live:
            raise GameError(_("This game is not running."))
        seat = game.seats.filter(number=seat_number).first()
        if seat is None:
            raise GameError(_("No such seat."))
        if Substitution.objects.filter(seat=seat, status=Substitution.Status.OPEN).exists():
            raise GameError(_("A replacement for this seat is already open."))
        hours = dt.timedelta(hours=game.handover_hours)
        sub = Substitution.objects.create(game=game, seat=seat, outgoing=seat.user,
                                          reason=reason[:200], ends_at=now + hours)
        if game.deadline is not None:  # §5.7: the phase is extended by the handover window
            game.deadline += hours
            Phase.objects.filter(pk=game.current_phase_id).update(deadline=game.deadline)
            game.save(update_fields=["deadline"])
            changed(game, what="deadline")
        log_gm(game, gm, "start_substitution", {"seat": seat_number, "reason": reason})
        link = site_url() + f"/games/{game.pk}/"
        for signup in waiting_substitutes(game):
            conversation = forum.conversation_for(owner=signup.user, board=None)
            forum.send_as_messenger(conversation=conversation, body=_(
                "A seat in **%(game)s** needs a substitute. Can you take it over now? "
                "The first to accept on the game's page plays it: %(link)s") % {
                "game": game.name, "link": link})
            _email(signup.user, _("[%(game)s] A seat needs a substitute") % {"game": game.name},
                   _("A seat in %(game)s needs a substitute; accept here: %(link)s") % {
                       "game": game.name, "link": link})
    return sub


def accept_substitution(*, game_id: int, user: User | AnonymousUser | None,
                        now: dt.datetime | None = None) -> Seat:
    """The first waiting substitute to accept takes the open seat whose player has been
    silent longest; they inherit the seat's conversation (and so everything it was told)."""
    now = kernel.now(now)
    with transaction.atomic():
        game = lock_game(game_id)
        if game is None:
            raise GameError(_("This game does not exist."), code="not_found")
        if ever_held_seat(user, game) and not game.seats.filter(user=user).exists():
            raise GameError(_("You held a seat in this game; nobody plays two seats of one "
                              "game."), code="forbidden")
        if runs_game(game, user):
            raise GameError(_("You run this game (as its GM or a co-GM): the GM of a game "
                              "cannot play in it, as a player or a substitute."),
                            code="forbidden")
        if not waiting_substitutes(game).filter(user=user).exists():
            raise GameError(_("You are not a waiting substitute of this game."),
                            code="forbidden")
        open_subs = list(Substitution.objects.filter(
            game=game, status=Substitution.Status.OPEN, ends_at__gt=now).select_related("seat"))
        if not open_subs:
            raise GameError(_("No seat is waiting for a substitute (someone was faster)."))
        open_subs.sort(key=lambda s: last_activity(game, s.outgoing) or dt.datetime.min.replace(
            tzinfo=dt.UTC))
        sub = open_subs[0]
        seat = sub.seat
        if seat.conversation is not None:
            forum.hand_over_conversation(conversation=seat.conversation, new_owner=user)
        seat.user = user
        seat.checked_in_at = now
        seat.name = display_name(user)  # the newcomer's name, kept for the rest of the game
        seat.save(update_fields=["user", "checked_in_at", "name"])
        sub.incoming, sub.status, sub.closed_at = user, Substitution.Status.ACCEPTED, now
        sub.save(update_fields=["incoming", "status", "closed_at"])
        Signup.objects.filter(game=game, user=user).update(chosen=True)
        ActivityWarning.objects.filter(seat=seat, resolved_at=None).update(resolved_at=now)
        announce(game, game.current_phase, _("Substitute"), _(
            "%(new)s takes over seat %(n)d.") % {"new": display_name(user), "n": seat.label},
            events=[], force_publish=True)
        changed(game)  # the seat's name on the game's home
    return seat


def cancel_substitution(*, substitution_id: int, gm: User | None,
                        now: dt.datetime | None = None) -> None:
    """The original player came back before anyone accepted (§9.3)."""
    now = kernel.now(now)
    with transaction.atomic():
        sub = Substitution.objects.select_related("game").get(pk=substitution_id)
        require_gm(sub.game_id, gm)
        sub = Substitution.objects.select_for_update().get(pk=substitution_id)
        if sub.status != Substitution.Status.OPEN:
            raise GameError(_("This replacement is no longer open."))
        sub.status, sub.closed_at = Substitution.Status.CANCELLED, now
        sub.save(update_fields=["status", "closed_at"])
        log_gm(sub.game, gm, "cancel_substitution", {"seat": sub.seat.number})


def expire_substitutions(*, now: dt.datetime | None = None) -> int:
    """Open handovers whose window passed: the seat plays on without (a wasted slot)."""
    now = kernel.now(now)
    return Substitution.objects.filter(status=Substitution.Status.OPEN, ends_at__lte=now).update(
        status=Substitution.Status.WASTED, closed_at=now)


def request_leave(*, game_id: int, user: User | AnonymousUser | None, message: str) -> LeaveRequest:
    """A player announces an absence (§9.2); the GM sees it in the console and the
    conversation, and decides to extend or replace."""
    message = (message or "").strip()
    if not message or len(message) > 2000:
        raise GameError(_("Say when and how long you will be away (up to 2,000 characters)."))
    with transaction.atomic():
        game = lock_game(game_id)
        seat = seat_of(game, user) if game else None
        if seat is None:
            raise GameError(_("You do not hold a seat in this game."), code="forbidden")
        leave = LeaveRequest.objects.create(game=game, seat=seat, user=user, message=message)
        if seat.conversation is not None:
            forum.send_to_messenger(conversation=seat.conversation, author=user,
                                    body=_("Leave request: %(m)s") % {"m": message},
                                    enforce_rate_limit=False)
    return leave


# --- activity rules (§7.1, §9.1.4, §9.1.6) -------------------------------------------------

def check_activity(*, game: Game, now: dt.datetime | None = None) -> list[ActivityWarning]:
    """Warn the seats that break an activity rule now (once per seat, phase and reason)."""
    now = kernel.now(now)
    if game.status != Game.Status.RUNNING or game.started_at is None:
        return []
    made = []
    window = POSTS_WINDOW
    checkin_closed = now > game.started_at + dt.timedelta(hours=game.checkin_hours)
    seats = list(game.seats.filter(alive=True).exclude(user=None).select_related("user"))
    # The count the game home shows each seat (selectors.seat_post_counts), in one query.
    counts = posts_in_window(game.board_id, [s.user_id for s in seats], now=now)
    for seat in seats:
        reasons = []
        if checkin_closed and seat.checked_in_at is None:
            reasons.append((ActivityWarning.Reason.NO_CHECK_IN, None))
        if now - game.started_at >= window:
            n = counts.get(seat.user_id, 0)
            if n < game.min_posts_48h:
                reasons.append((ActivityWarning.Reason.FEW_POSTS, n))
        phase = game.current_phase
        if phase is not None and phase.name == "day" and phase.deadline and \
                now >= phase.deadline - dt.timedelta(hours=6) and not Thread.objects.filter(
                    board=game.board, author=seat.user, kind=Thread.Kind.ANALYSIS,
                    created_at__gte=phase.started_at).exists():
            reasons.append((ActivityWarning.Reason.NO_ANALYSIS, None))
        for reason, posts in reasons:
            made += _warn(game, seat, reason, posts)
    return made


def _posts_detail(posts: int | None) -> str:
    """The fact behind a few-posts warning, in the active language ("" for the others)."""
    return "" if posts is None else _("%(n)d posts in the last 48 hours") % {"n": posts}


def _warn(game: Game, seat: Seat, reason: str, posts: int | None) -> list[ActivityWarning]:
    """Record the warning (once per seat, phase and reason) and tell the player: a message
    from 神的使者 in their conversation and an email, both written in the player's language
    and timezone (the sweep runs in the site's). The email is a reminder to act: it carries
    the reminders' one-click unsubscribe and is not sent to a player who turned reminders
    off; the message, the warning itself (§9.1), always goes."""
    try:
        with transaction.atomic():
            warning = ActivityWarning.objects.create(game=game, seat=seat,
                                                     phase=game.current_phase, reason=reason,
                                                     detail=_posts_detail(posts))
    except IntegrityError:
        return []
    deadline = game.deadline
    if reason == ActivityWarning.Reason.NO_CHECK_IN and game.started_at:
        deadline = game.started_at + dt.timedelta(hours=game.checkin_hours)
    locale = user_locale(seat.user)
    with translation.override(locale.language), timezone.override(locale.timezone):
        text = _("Warning from 神的使者: %(why)s. %(detail)s Please act before the deadline, "
                 "or the GM may rule you out of the game (§9.1).") % {
            "why": ActivityWarning.Reason(reason).label, "detail": _posts_detail(posts)}
        if deadline is not None:
            text += " " + _("Deadline: %(when)s (%(zone)s).") % {
                "when": timezone.localtime(deadline).strftime("%Y-%m-%d %H:%M"),
                "zone": locale.timezone}
        subject = _("[%(game)s] Activity warning") % {"game": game.name}
    if seat.conversation is not None:
        forum.send_as_messenger(conversation=seat.conversation, body=text)
    _email(seat.user, subject, text, kind=REMINDERS)
    if reason == ActivityWarning.Reason.NO_CHECK_IN and not Substitution.objects.filter(
            seat=seat, status=Substitution.Status.OPEN).exists():
        start_substitution(game_id=game.pk, seat_number=seat.number,
                           reason=str(ActivityWarning.Reason(reason).label))
    return [warning]


def sweep_community(*, now: dt.datetime | None = None) -> int:
    """The periodic part: expire handovers, warn inactive seats. Returns warnings made."""
    now = kernel.now(now)
    expire_substitutions(now=now)
    made = 0
    for game in Game.objects.filter(status=Game.Status.RUNNING).select_related("current_phase"):
        made += len(check_activity(game=game, now=now))
    return made


def _email(user: User | AnonymousUser | None, subject: str, body: str, *,
           kind: str = ACCOUNT) -> None:
    """Queue an email to `user` (none without an address). `kind` "reminders": only while
    the user has reminders on (a reminder kind's one-click unsubscribe turns them off)."""
    if user is None or not user.email:
        return
    if kind == REMINDERS and not reminder_hours(user):
        return
    queue_email(to=user.email, subject=subject, body=body, user=user, kind=kind)
