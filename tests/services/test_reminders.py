"""Reminder emails: N hours before a deadline, only to those who still owe a move, once."""

import datetime as dt

import pytest
from django.core import mail
from django.db.models import F

from games import reminders, services
from games.models import Game, ReminderLook, ReminderSent
from messaging.models import Notification
from tests.factories.toy import seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english", "eager_email")]


@pytest.fixture
def long_game(players, gm):
    g = services.create_game(name="长局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 24 * 60, "day": 24 * 60})
    return services.start_game(game_id=g.pk, users=players)


def test_no_reminder_before_the_first_window(long_game, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        sent = reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=7))
    assert sent == 0 and not mail.outbox


def test_only_the_seat_that_owes_a_move_is_reminded_once(long_game,
                                                          django_capture_on_commit_callbacks):
    wolf = seat_user(long_game, "wolf")
    at = long_game.deadline - dt.timedelta(hours=5)
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=at) == 1
        assert reminders.send_due_reminders(now=at + dt.timedelta(minutes=1)) == 0
    assert [m.to for m in mail.outbox] == [[wolf.email]]
    assert f"/games/{long_game.pk}/act/" in mail.outbox[0].body
    assert "Asia/Shanghai" in mail.outbox[0].body


def test_the_bell_a_reminder_rings_is_heard_by_its_readers_open_pages(
        long_game, django_capture_on_commit_callbacks, monkeypatch):
    """The change feed carries the reminded reader's unread count once the sweep commits
    (their open pages ask the header's counts again); nobody else's."""
    from config import feed

    sent = []
    monkeypatch.setattr(feed, "publish", sent.append)
    wolf = seat_user(long_game, "wolf")
    with django_capture_on_commit_callbacks(execute=False) as waiting:
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=5)) == 1
    assert [e for e in sent if e["t"] == "user"] == []  # nothing before the commit
    for callback in waiting:
        callback()
    unread = Notification.objects.filter(user=wolf, read_at=None).count()
    assert Notification.objects.filter(user=wolf, kind="deadline").count() == 1
    assert [e for e in sent if e["t"] == "user"] == [
        {"t": "user", "id": wolf.pk, "v": unread, "what": "notices"}]


def test_the_one_hour_reminder_follows_and_then_nothing(long_game,
                                                        django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=5))
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=50))
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=10))
    assert len(mail.outbox) == 2
    # one row for the user's reminders of the phase: made at the 6-hour mark, moved to 1
    [row] = ReminderSent.objects.all()
    assert (row.first_hours, row.hours) == (6, 1)
    assert Notification.objects.filter(kind="deadline").count() == 1  # the first rang it


def test_a_late_first_sweep_sends_only_the_nearest_reminder(long_game,
                                                            django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))
    assert len(mail.outbox) == 1 and "还剩 30 分钟" in mail.outbox[0].subject
    # the 6-hour mark passed with it: the row says the nearest, and nothing more is sent
    [row] = ReminderSent.objects.all()
    assert (row.first_hours, row.hours) == (1, 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=9)) == 0
    assert len(mail.outbox) == 1


def test_a_seat_that_acted_is_not_reminded(long_game, django_capture_on_commit_callbacks):
    long_game.early_end = False
    long_game.save()
    wolf = seat_user(long_game, "wolf")
    target = next(s.number for s in long_game.seats.all() if s.user != wolf)
    services.submit_action(game_id=long_game.pk, user=wolf, kind="kill",
                           params={"target": target})
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=2)) == 0


def test_users_choose_their_hours_or_none(long_game, django_capture_on_commit_callbacks):
    wolf = seat_user(long_game, "wolf")
    wolf.profile.reminder_hours = ""
    wolf.profile.save()
    services.profile_saved(user_id=wolf.pk, renamed=False, new_hours=True)  # as the page does
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=5)) == 0
    wolf.profile.reminder_hours = "12"
    wolf.profile.save()
    services.profile_saved(user_id=wolf.pk, renamed=False, new_hours=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=11)) == 1


def test_the_database_refuses_a_second_reminder_row(long_game):
    from django.db import IntegrityError, transaction

    user = long_game.seats.first().user
    ReminderSent.objects.create(phase=long_game.current_phase, user=user, hours=6)
    for hours in (6, 1):  # one row a user and phase, whatever its mark
        with pytest.raises(IntegrityError), transaction.atomic():
            ReminderSent.objects.create(phase=long_game.current_phase, user=user, hours=hours)


def test_a_claim_is_made_once_and_only_ever_nearer(long_game,
                                                   django_capture_on_commit_callbacks):
    """The claim: the first makes the row (the bell rings), a nearer mark moves it (an
    email, no second bell), the same or a farther mark changes nothing (no email). The game
    is made due for a look before each sweep, so that each one reaches the claim."""
    from accounts.models import Profile

    wolf = seat_user(long_game, "wolf")

    def sweep(at, hours="6,1"):
        Profile.objects.filter(user=wolf).update(reminder_hours=hours)
        ReminderLook.objects.filter(game=long_game).update(at=at)
        with django_capture_on_commit_callbacks(execute=True):
            return reminders.send_due_reminders(now=at)

    now = long_game.deadline - dt.timedelta(hours=5)
    assert sweep(now) == 1  # the 6-hour mark: the row made
    assert sweep(now) == 0  # the same mark
    assert sweep(now, hours="12") == 0  # a farther mark (the only one due, for these hours)
    later = now + dt.timedelta(hours=4)
    assert sweep(later) == 1  # the 1-hour mark: the row moved
    assert sweep(later) == 0
    [row] = ReminderSent.objects.filter(phase=long_game.current_phase, user=wolf)
    assert (row.first_hours, row.hours) == (6, 1)
    assert Notification.objects.filter(user=wolf, kind="deadline").count() == 1
    assert len(mail.outbox) == 2


# --- the time really left, dead and fouled-out seats, the schedule, the cost ----------------

def test_the_subject_says_the_time_really_left(long_game, django_capture_on_commit_callbacks):
    wolf = seat_user(long_game, "wolf")
    wolf.profile.language = "en"
    wolf.profile.save()
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=4, seconds=30))
    [email] = mail.outbox
    assert email.to == [wolf.email]
    assert f"[{long_game.name}] 4 min left: you have not acted yet" == email.subject


def test_the_time_left_reads_in_hours_and_minutes_in_both_languages():
    from django.utils import translation

    assert reminders.time_left(dt.timedelta(hours=5, minutes=59, seconds=59)) == "5 h 59 min"
    assert reminders.time_left(dt.timedelta(hours=1)) == "1 h"
    assert reminders.time_left(dt.timedelta(seconds=20)) == "1 min"
    with translation.override("zh-hans"):
        assert reminders.time_left(dt.timedelta(minutes=4)) == "4 分钟"
        assert reminders.time_left(dt.timedelta(hours=2, minutes=5)) == "2 小时 5 分钟"


def test_a_chinese_reader_s_subject_states_the_minutes_left(long_game,
                                                            django_capture_on_commit_callbacks):
    wolf = seat_user(long_game, "wolf")
    wolf.profile.language = "zh-hans"
    wolf.profile.save()
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=4))
    [email] = mail.outbox
    assert email.subject == f"【{long_game.name}】还剩 4 分钟：你还没有行动"


def _day(game, django_capture_on_commit_callbacks):
    """Move the toy game to its first day (every living seat owes a vote)."""
    with django_capture_on_commit_callbacks(execute=True):
        services.sweep(now=game.deadline + dt.timedelta(minutes=1))
    game.refresh_from_db()
    mail.outbox.clear()
    assert game.phase_name == "day"
    return game


def test_a_seat_the_engine_counts_dead_is_not_reminded(long_game,
                                                       django_capture_on_commit_callbacks):
    game = _day(long_game, django_capture_on_commit_callbacks)
    living = [s for s in game.seats.order_by("number") if game.state["public"]["alive"][s.number]]
    gone = living[0]
    # the engine's state says dead; the Seat row's copy still says alive (it lags the state)
    state = game.state
    state["public"]["alive"][gone.number] = False
    # a state written without the services (a data fix): its step count moves, the record
    # of who is awaited does not, so the sweep works it out from the state instead
    Game.objects.filter(pk=game.pk).update(state=state, steps=F("steps") + 1)
    assert Game.objects.get(pk=game.pk).awaiting["living"] == [s.number for s in living]
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=game.deadline - dt.timedelta(hours=2))
    reminded = {m.to[0] for m in mail.outbox}
    assert reminded == {s.user.email for s in living[1:]}
    assert gone.user.email not in reminded
    assert not Notification.objects.filter(user=gone.user, kind="deadline").exists()


def test_a_fouled_out_seat_gets_no_reminder(start_ninelives, nl_gm,
                                            django_capture_on_commit_callbacks):
    from games import rulesets

    game = start_ninelives()
    awaiting = sorted(rulesets.engine("ninelives").phase(game.state).awaiting)
    assert len(awaiting) >= 2
    out = awaiting[0]
    services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                     params={"seat": out, "reason": "测试"})
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    owing = rulesets.engine("ninelives").phase(game.state).awaiting
    users = {s.number: s.user for s in game.seats.select_related("user")}
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30))
    reminded = {m.to[0] for m in mail.outbox}
    assert users[out].email not in reminded
    assert reminded == {users[n].email for n in owing if n != out}
    assert not Notification.objects.filter(user=users[out], kind="deadline").exists()


def _look(game):
    return ReminderLook.objects.get(game=game).at


def test_the_game_is_looked_at_again_only_at_the_next_hour_mark(long_game,
                                                                django_capture_on_commit_callbacks):
    assert _look(long_game) == long_game.deadline - dt.timedelta(hours=reminders.MAX_HOURS)
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=20))
    assert _look(long_game) == long_game.deadline - dt.timedelta(hours=6)
    with django_capture_on_commit_callbacks(execute=True):
        reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=5))
    assert _look(long_game) == long_game.deadline - dt.timedelta(hours=1)
    # a user who asks for an earlier reminder has the game looked at again at once
    wolf = seat_user(long_game, "wolf")
    wolf.profile.reminder_hours = "24,3"
    wolf.profile.save()
    services.profile_saved(user_id=wolf.pk, renamed=False, new_hours=True)  # as the page does
    assert _look(long_game) <= long_game.deadline - dt.timedelta(hours=5)
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=2)) == 1
    assert "还剩 2 小时：" in mail.outbox[-1].subject
    # a new deadline (the next phase) schedules the game again
    with django_capture_on_commit_callbacks(execute=True):
        services.sweep(now=long_game.deadline + dt.timedelta(minutes=1))
    before = long_game.deadline
    long_game.refresh_from_db()
    assert long_game.deadline > before
    assert _look(long_game) == long_game.deadline - dt.timedelta(hours=reminders.MAX_HOURS)


@pytest.mark.django_db(transaction=True)
def test_a_sweep_skips_the_games_another_sweep_holds_and_locks_only_their_looks(long_game):
    """While one sweep holds a game's look (its transaction open), another sweep skips that
    game at once instead of waiting (SKIP LOCKED), and the game's own row stays free for the
    services; once the first lets go, the next sweep sends."""
    import threading

    from django.db import connection, transaction

    now = long_game.deadline - dt.timedelta(minutes=30)
    held, release, seen = threading.Event(), threading.Event(), []

    def other_sweep():
        try:
            with transaction.atomic():
                seen.extend(game.pk for game in reminders.due_games(now, lock=True))
                held.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=other_sweep)
    thread.start()
    try:
        assert held.wait(30) and seen == [long_game.pk]
        assert reminders.send_due_reminders(now=now) == 0
        assert not ReminderSent.objects.exists()
        with transaction.atomic():  # raises if the look's lock had taken the game's row too
            Game.objects.select_for_update(nowait=True).get(pk=long_game.pk)
    finally:
        release.set()
        thread.join()
    assert reminders.send_due_reminders(now=now) == 1


def test_a_user_without_a_profile_gets_the_default_marks_in_the_site_s_language(
        long_game, django_capture_on_commit_callbacks):
    """The sweep reads a user's hours, language and timezone as plain values: without a
    profile, the default marks (6 and 1 hours) and games.mail.user_locale's defaults."""
    from accounts.models import Profile
    from games.mail import Locale, user_locale
    from games.models import OutboxEmail

    wolf = seat_user(long_game, "wolf")
    Profile.objects.filter(user=wolf).delete()
    wolf = type(wolf).objects.get(pk=wolf.pk)
    now = long_game.deadline - dt.timedelta(hours=5)  # the 6-hour mark
    [game] = reminders.due_games(now)
    [seat] = [s for s in game.seats if s.user_id == wolf.pk]
    assert seat.hours is None
    assert seat.locale == user_locale(wolf) == Locale("zh-hans", "Asia/Shanghai")
    with django_capture_on_commit_callbacks(execute=False):
        assert reminders.send_due_reminders(now=now) == 1
    [row] = OutboxEmail.objects.filter(kind="reminders")
    assert (row.user_id, row.context["language"], row.context["timezone"]) == (
        wolf.pk, "zh-hans", "Asia/Shanghai")
    assert ReminderSent.objects.get(user=wolf).hours == 6


def test_a_look_leaves_the_game_row_and_its_home_page_alone_and_an_ended_game_is_let_go(
        long_game, django_capture_on_commit_callbacks):
    """Moving the next look writes the narrow ReminderLook row, not the game's: the game's
    page version (its home page's kept parts) stays. A look at a game no longer running
    (its look left over) clears the look, so it is not looked at again."""
    version = Game.objects.get(pk=long_game.pk).page_version
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=5)) == 1
    assert _look(long_game) == long_game.deadline - dt.timedelta(hours=1)
    assert Game.objects.get(pk=long_game.pk).page_version == version
    Game.objects.filter(pk=long_game.pk).update(status=Game.Status.FINISHED)
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30)) == 0
    assert _look(long_game) is None


# Every sweep's statements whatever the number of games, seats and reminders due: the
# savepoint and its release, the due looks (locked), the games, their living seats (users,
# profiles and each user's claim of the phase), the claims made or moved (one upsert), the
# notices, the outbox rows, the next looks (one upsert).
SWEEP_BUDGET = 9


def test_a_sweep_s_queries_do_not_grow_with_the_games_or_seats_due(
        players, gm, make_user, django_assert_max_num_queries,
        django_capture_on_commit_callbacks):
    """Twelve games at night, eight of them inside the 1-hour mark (each wolf owes its
    move), four far from any mark: a sweep with two games due and one with six more (and a
    day game whose five seats all owe a vote) take the same number of queries, within
    SWEEP_BUDGET."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    crowd = players + [make_user(f"路人{i}") for i in range(55)]
    games = []
    for i in range(12):
        minutes = 3 * 60 if i < 8 else 3 * 24 * 60  # (the 1-hour mark fits a 3-hour phase)
        g = services.create_game(name=f"局{i}", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": minutes, "day": minutes})
        games.append(services.start_game(game_id=g.pk, users=crowd[5 * i:5 * i + 5]))
    now = max(g.deadline for g in games[:8]) - dt.timedelta(minutes=20)
    with django_capture_on_commit_callbacks(execute=False):
        reminders.send_due_reminders(now=now - dt.timedelta(hours=50))  # nothing is due yet
    later = ReminderLook.objects.filter(game__in=[g.pk for g in games[2:8]])
    later.update(at=now + dt.timedelta(minutes=1))
    with CaptureQueriesContext(connection) as two, \
            django_capture_on_commit_callbacks(execute=False):
        assert reminders.send_due_reminders(now=now) == 2
    later.update(at=now)
    with django_capture_on_commit_callbacks(execute=True):
        services.end_phase_now(game_id=games[8].pk, gm=gm)  # its day: every seat owes a vote
    day = Game.objects.get(pk=games[8].pk)
    assert day.phase_name == "day"
    ReminderLook.objects.filter(game=day).update(at=now)
    Game.objects.filter(pk=day.pk).update(deadline=now + dt.timedelta(minutes=30))
    with django_assert_max_num_queries(SWEEP_BUDGET), \
            CaptureQueriesContext(connection) as more, \
            django_capture_on_commit_callbacks(execute=False) as callbacks:
        sent = reminders.send_due_reminders(now=now)
    assert sent == 6 + 5  # night: only the wolf of each game owes a move; day: every seat
    assert len(two) == len(more) <= SWEEP_BUDGET
    # one nudge of the worker for every email, one publication of the bells' counts
    assert len(callbacks) == 2
    assert ReminderSent.objects.filter(hours=1).count() == 8 + 5
    assert Notification.objects.filter(kind="deadline").count() == 8 + 5
    far = ReminderLook.objects.filter(game__in=[g.pk for g in games[9:]])
    assert len(far) == 3 and all(look.at > now for look in far)


# --- the text is written when the email is sent ------------------------

def test_the_sweep_writes_what_the_email_is_made_of_and_the_sender_writes_the_text(
        long_game, settings):
    """The sweep's outbox row holds no text, only what it is made of; sending writes the
    subject with the time left at the sweep, the body with its link and the footer, and the
    one-click unsubscribe header, and keeps them on the row."""
    from django.core import signing
    from django.test import Client

    from accounts.models import Profile
    from accounts.unsubscribe import SALT, unsubscribe_url
    from games import mail as outbox
    from games.models import OutboxEmail

    settings.CELERY_TASK_ALWAYS_EAGER = False
    from config.celery import app

    app.conf.task_always_eager = False
    wolf = seat_user(long_game, "wolf")
    Profile.objects.filter(user=wolf).update(language="en")
    at = long_game.deadline - dt.timedelta(minutes=4)
    assert reminders.send_due_reminders(now=at) == 1
    [row] = OutboxEmail.objects.filter(kind="reminders")
    assert (row.subject, row.body, row.template) == ("", "", "reminder")
    assert row.context["left"] == 240
    assert row.context["language"] == "en"
    outbox.send_due(now=row.next_attempt_at + dt.timedelta(hours=1))
    [email] = [m for m in mail.outbox if m.to == [wolf.email] and "left" in m.subject]
    assert email.subject == f"[{long_game.name}] 4 min left: you have not acted yet"
    assert f"/games/{long_game.pk}/act/" in email.body
    # The link's token is signed with the time it was made (a second apart is another
    # string): what it says is compared, and where it leads.
    header = email.extra_headers["List-Unsubscribe"]
    expected = unsubscribe_url(wolf, "reminders")
    assert header.startswith(f"<{expected.rsplit('/', 2)[0]}/") and header.endswith("/>")
    token = header.removesuffix("/>").rsplit("/", 1)[1]
    assert signing.loads(token, salt=SALT) == {"u": wolf.pk, "k": "reminders"}
    row.refresh_from_db()
    assert (row.subject, row.template) == (email.subject, "") and row.sent_at is not None
    path = unsubscribe_url(wolf, "reminders").removeprefix(settings.SITE_URL)
    assert Client(enforce_csrf_checks=True).post(path).status_code == 200
    assert Profile.objects.get(user=wolf).reminder_hours == ""


def test_a_failed_first_attempt_keeps_the_text_it_wrote(long_game, settings, monkeypatch):
    from accounts.models import Profile
    from games import mail as outbox
    from games.models import OutboxEmail

    settings.CELERY_TASK_ALWAYS_EAGER = False
    from config.celery import app

    app.conf.task_always_eager = False
    Profile.objects.filter(user=seat_user(long_game, "wolf")).update(language="en")
    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))
    [row] = OutboxEmail.objects.filter(kind="reminders")

    def refuse(self, *args, **kwargs):
        raise ConnectionRefusedError("down")

    monkeypatch.setattr("django.core.mail.EmailMessage.send", refuse)
    assert not outbox.send_one(row.pk, now=row.next_attempt_at)
    row.refresh_from_db()
    assert row.attempts == 1 and row.sent_at is None
    assert "30 min left" in row.subject and row.template == ""


def test_the_emails_of_one_sweep_are_one_broker_message(players, gm, make_user, monkeypatch,
                                                        django_capture_on_commit_callbacks):
    from celery import current_app

    from config.celery import app

    app.conf.task_always_eager = False
    sent = []
    monkeypatch.setattr(current_app, "send_task",
                        lambda name, kwargs, **options: sent.append(kwargs))
    crowd = players + [make_user(f"路人{i}") for i in range(10)]
    for i in range(3):
        g = services.create_game(name=f"局{i}", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 3 * 60, "day": 3 * 60})
        game = services.start_game(game_id=g.pk, users=crowd[5 * i:5 * i + 5])
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=20)) == 3
    assert len(sent) == 1 and len(sent[0]["outbox_ids"]) == 3


# --- what a sweep reads and what it writes ------------------------------------------------

def _written(game_ids, now):
    """Every column of what a sweep wrote (ids and the real clock's stamps aside)."""
    from games.models import OutboxEmail

    claims = sorted(ReminderSent.objects.filter(phase__game__in=game_ids)
                    .values_list("phase_id", "user_id", "hours", "first_hours"))
    notices = sorted(tuple(sorted((k, v) for k, v in n.items() if k not in ("id", "created_at")))
                     for n in Notification.objects.filter(kind="deadline").values())
    emails = sorted(tuple(sorted((k, str(v)) for k, v in e.items()
                                 if k not in ("id", "created", "next_attempt_at")))
                    for e in OutboxEmail.objects.filter(kind="reminders").values())
    stamps = [(n.created_at, n.created_at) for n in Notification.objects.filter(
        kind="deadline")] + list(OutboxEmail.objects.filter(kind="reminders").values_list(
            "created", "next_attempt_at"))
    looks = sorted(ReminderLook.objects.filter(game__in=game_ids).values_list("game", "at"))
    return claims, notices, emails, looks, stamps


def _forget(game_ids, now, looks):
    """Remove what a sweep at `now` wrote and put the games' next looks back."""
    from games.models import OutboxEmail

    ReminderSent.objects.filter(phase__game__in=game_ids).delete()
    Notification.objects.filter(kind="deadline").delete()
    OutboxEmail.objects.filter(kind="reminders").delete()
    for pk, at in looks:
        ReminderLook.objects.filter(game=pk).update(at=at)


def test_a_sweep_reads_the_games_due_and_writes_every_row(
        long_game, make_user, django_capture_on_commit_callbacks, django_assert_max_num_queries):
    """Day 1 (every living seat owes a vote): readers of both languages, one without an
    email address (a notice, no email), one disabled (an email, no notice), one whose
    6-hour mark already went, and a game with no mark due: the read gives each game with
    its seats, users and profiles; the sweep makes each claim, notice and outbox row and
    the next looks, within SWEEP_BUDGET queries."""
    from zoneinfo import ZoneInfo

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from accounts.models import Profile
    from games.mail import Locale, user_locale
    from games.models import OutboxEmail

    game = _day(long_game, django_capture_on_commit_callbacks)
    living = [s.user for s in game.seats.order_by("number").select_related("user")
              if game.state["public"]["alive"][s.number]]
    assert len(living) >= 4
    english, mute, disabled, early = living[:4]
    Profile.objects.filter(user=english).update(language="en", timezone="Europe/Paris")
    get_user_model().objects.filter(pk=mute.pk).update(email="")
    get_user_model().objects.filter(pk=disabled.pk).update(is_active=False)
    ReminderSent.objects.create(phase=game.current_phase, user=early, hours=6, first_hours=6)
    far = services.start_game(game_id=services.create_game(
        name="远局", ruleset="toy", gm=game.gm, seat_count=5,
        durations={"night": 3 * 24 * 60, "day": 3 * 24 * 60}).pk,
        users=[make_user(f"远{i}") for i in range(5)])
    ids = [game.pk, far.pk]
    now = game.deadline - dt.timedelta(minutes=40)
    ReminderLook.objects.filter(game=far.pk).update(at=now)
    games = {g.pk: g for g in reminders.due_games(now)}
    assert set(games) == set(ids)
    read_game = games[game.pk]
    assert (read_game.name, read_game.deadline, read_game.phase_name,
            read_game.current_phase_id) == (game.name, game.deadline, "day",
                                            game.current_phase_id)
    read = {s.user_id: s for s in read_game.seats}  # the living seats (all, this day)
    assert set(read) == {s.user_id for s in game.seats.all()}
    assert read[english.pk].locale == user_locale(english) == Locale("en", "Europe/Paris")
    assert all(read[user.pk].locale == user_locale(user) for user in living)
    assert read[mute.pk].email == "" and read[disabled.pk].is_active is False
    started = timezone.now()
    with django_capture_on_commit_callbacks(execute=False) as nudges:
        with django_assert_max_num_queries(SWEEP_BUDGET):
            sent = reminders.send_due_reminders(now=now)
    assert len(nudges) == 2  # the worker's nudge, the bells' counts
    assert sent == len(living) - 1  # all but the one with no address
    claims, notices, _emails, looks, stamps = _written(ids, now)
    # each living seat's 1-hour mark; the one reminded at 6 hours before: the row moved
    assert claims == sorted((game.current_phase_id, user.pk, 1, 6 if user == early else 1)
                            for user in living)
    notices = [dict(n) for n in notices]  # no second bell, none for the disabled account
    assert sorted(n["user_id"] for n in notices) == sorted(
        user.pk for user in living if user not in (disabled, early))
    for notice in notices:
        assert (notice["kind"], notice["url"], notice["read_at"], notice["thread_id"]) == (
            "deadline", f"/games/{game.pk}/act/", None, None)
        zone = ZoneInfo(read[notice["user_id"]].locale.timezone)
        assert notice["text"].startswith(game.name)
        assert game.deadline.astimezone(zone).strftime("%Y-%m-%d %H:%M") in notice["text"]
    emails = {row.user_id: row for row in OutboxEmail.objects.filter(kind="reminders")}
    assert sorted(row.to for row in emails.values()) == sorted(
        user.email for user in living if user != mute)
    for row in emails.values():
        assert (row.template, row.subject, row.body, row.attempts, row.sent_at) == (
            "reminder", "", "", 0, None)
    context = emails[english.pk].context
    assert (context["game"], context["language"], context["timezone"], context["left"]) == (
        game.pk, "en", "Europe/Paris", 40 * 60)
    assert all(started <= a == b <= timezone.now() for a, b in stamps)
    assert all(started <= c.created <= timezone.now() for c in ReminderSent.objects.filter(
        phase=game.current_phase).exclude(user=early))
    assert dict(looks)[game.pk] is None and dict(looks)[far.pk] == far.deadline - dt.timedelta(
        hours=6)


def test_a_sweep_builds_model_instances_only_for_the_rows_it_writes(players, gm, make_user):
    """Three games due (one of them at day, every seat owing): the sweep reads games, seats,
    users, profiles and claims as plain values; the only model instances it builds are the
    rows it writes, one per claim, notice, email and next look."""
    from django.db.models.signals import post_init

    crowd = players + [make_user(f"路人{i}") for i in range(10)]
    games = [services.start_game(game_id=services.create_game(
        name=f"局{i}", ruleset="toy", gm=gm, seat_count=5,
        durations={"night": 3 * 60, "day": 3 * 60}).pk, users=crowd[5 * i:5 * i + 5])
        for i in range(3)]
    services.end_phase_now(game_id=games[0].pk, gm=gm)  # its day: all five owe a vote
    now = min(Game.objects.get(pk=g.pk).deadline for g in games) - dt.timedelta(minutes=20)
    ReminderLook.objects.filter(game__in=games).update(at=now)
    built = []

    def count(sender, **kwargs):
        built.append(sender.__name__)

    post_init.connect(count)
    try:
        sent = reminders.send_due_reminders(now=now)
    finally:
        post_init.disconnect(count)
    assert sent == 5 + 1 + 1
    assert sorted(set(built)) == ["Notification", "OutboxEmail", "ReminderLook", "ReminderSent"]
    assert len(built) == 3 * sent + len(games)


def test_the_plain_values_rule_of_who_gets_a_notice_is_notify_s(make_user, settings):
    """The sweep reads users as plain values: `may_notify` keeps notify's rule (none for
    神的使者, none for a disabled account)."""
    from messaging import rules
    from messaging.notifications import may_notify, notice_for

    messenger = make_user("神的使者")
    messenger.username = settings.MESSENGER_USERNAME
    player = make_user("阿猫")
    for user in (messenger, player):
        for active in (True, False):
            user.is_active = active
            kept = may_notify(user_id=user.pk, username=user.username, is_active=active)
            assert kept == (active and not rules.is_messenger(user))
            assert kept == (notice_for(user=user, kind="deadline", url="/x/") is not None)


@pytest.mark.django_db(transaction=True)
def test_the_migration_folds_the_old_rows_into_one_a_phase_and_user(
        long_game, make_user, django_capture_on_commit_callbacks):
    """games 0016: the old rows (the bell's hours=0, one per mark) become one per (phase,
    user) with the nearest mark emailed and the first one; a bell alone keeps 0."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    game = _day(long_game, django_capture_on_commit_callbacks)  # every living seat owes
    living = [s.user_id for s in game.seats.order_by("number")
              if game.state["public"]["alive"][s.number]]
    before = [("games", "0015_game_page_version")]
    phase = game.current_phase_id
    both, one_mark, bell_only = living[0], living[1], make_user("旧").pk
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps.get_model("games", "ReminderSent")
        for user, hours in ((both, 0), (both, 6), (both, 1), (bell_only, 0), (one_mark, 6)):
            old.objects.create(phase_id=phase, user_id=user, hours=hours)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())  # 0016 and all after it
    rows = {r.user_id: (r.first_hours, r.hours) for r in ReminderSent.objects.all()}
    assert rows == {both: (6, 1), bell_only: (0, 0), one_mark: (6, 6)}
    # and a sweep goes on from there: nothing twice, the one past 6 hours gets the 1-hour
    # mark (no second bell), the others their first
    with django_capture_on_commit_callbacks(execute=True):
        sent = reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30))
    rows = {r.user_id: (r.first_hours, r.hours) for r in ReminderSent.objects.all()}
    assert rows == {both: (6, 1), bell_only: (0, 0), one_mark: (6, 1),
                    **dict.fromkeys(living[2:], (1, 1))}
    assert sent == len(living) - 1
    assert not Notification.objects.filter(user__in=(both, one_mark), kind="deadline").exists()


def test_the_gm_reads_each_seat_s_first_and_nearest_mark_in_the_admin(long_game, client,
                                                                      players):
    """The reminders' changelist shows the mark that rang the bell beside the nearest one
    sent, in Chinese, to the game's GM."""
    import re

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from games import selectors

    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=5))
    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))
    [row] = ReminderSent.objects.all()
    assert (row.first_hours, row.hours) == (6, 1)
    client.force_login(long_game.gm)
    url = reverse("admin:games_remindersent_changelist")
    page = client.get(url).content.decode()
    heads = re.findall(r"<th scope=\"col\" class=\"[^\"]*column-(\w+)", page)
    assert heads[heads.index("game"):] == ["game", "phase_title", "user_name", "first_hours",
                                           "hours", "created"]
    assert "首次提醒" in page
    phase = re.search(r'<td class="field-phase_title">(.*?)</td>', page).group(1)
    assert phase == selectors.phase_title(long_game, long_game.current_phase) != "night 1"
    cells = re.findall(r'<td class="field-(first_hours|hours)">(\d+)</td>', page)
    assert cells == [("first_hours", "6"), ("hours", "1")]
    # the phases' names cost no query a row: three rows read in as many queries as one
    with CaptureQueriesContext(connection) as one:
        client.get(url)
    for user in [p for p in players if p != row.user][:2]:
        ReminderSent.objects.create(phase=long_game.current_phase, user=user, hours=6,
                                    first_hours=6)
    with CaptureQueriesContext(connection) as more:
        longer = client.get(url).content.decode()
    assert longer.count('<td class="field-phase_title">') == 3 and len(more) == len(one)


def test_a_deleted_game_or_user_takes_its_claims_with_it(long_game, players, make_user):
    """Deleting a user or a game (its phases), as the admin does, deletes their claims
    (real foreign keys since games 0024)."""
    from django.contrib.auth import get_user_model

    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))
    wolf = seat_user(long_game, "wolf")
    phases = list(long_game.phases.values_list("pk", flat=True))
    assert ReminderSent.objects.filter(user=wolf).count() == 1
    get_user_model().objects.filter(pk=wolf.pk).delete()
    assert not ReminderSent.objects.filter(user_id=wolf.pk).exists()
    ReminderSent.objects.create(phase_id=phases[-1], user=players[0], hours=1, first_hours=1)
    Game.objects.filter(pk=long_game.pk).delete()
    assert not ReminderSent.objects.filter(phase_id__in=phases).exists()


# --- who the engine awaits, kept with the state (games/awaiting.py) -----------------------

def test_the_services_write_who_the_engine_awaits_with_the_state(
        long_game, django_capture_on_commit_callbacks):
    from games import awaiting

    def stored(game):
        game.refresh_from_db()
        return game.awaiting

    wolf = next(s.number for s in long_game.seats.all() if s.user == seat_user(long_game, "wolf"))
    started = stored(long_game)
    assert started == {"living": [0, 1, 2, 3, 4], "awaiting": [wolf], "round": None,
                       "steps": long_game.steps}
    assert started == awaiting.for_game(long_game)
    day = _day(long_game, django_capture_on_commit_callbacks)  # the night's end is a step
    record = stored(day)
    assert record == awaiting.for_game(day) and record["steps"] == day.steps > started["steps"]
    assert record["awaiting"] == record["living"]  # by day every living seat owes a vote
    assert record["living"] == started["living"]  # the wolf made no move: nobody died


def test_a_record_of_another_step_is_not_trusted(long_game):
    """A record whose step count is not the game's (a state written without the services)
    is not used: the sweep works out who is awaited from the state."""
    game = reminders.due_games(long_game.deadline)[0]
    assert reminders.who_is_awaited(game) == game.awaiting
    Game.objects.filter(pk=long_game.pk).update(
        awaiting={"living": [], "awaiting": [], "round": None, "steps": long_game.steps - 1})
    game = reminders.due_games(long_game.deadline)[0]
    assert reminders.who_is_awaited(game)["living"] == [0, 1, 2, 3, 4]


def test_the_sweep_sends_the_same_from_the_record_and_from_the_state(
        long_game, make_user, django_capture_on_commit_callbacks):
    """Day 1 of two games, one reminded from the records, then again with the records
    emptied (worked out from the states): the same claims, notices, emails and next looks."""
    game = _day(long_game, django_capture_on_commit_callbacks)
    other = services.start_game(game_id=services.create_game(
        name="另局", ruleset="toy", gm=game.gm, seat_count=5,
        durations={"night": 24 * 60, "day": 24 * 60}).pk,
        users=[make_user(f"另{i}") for i in range(5)])
    ids = [game.pk, other.pk]
    now = game.deadline - dt.timedelta(minutes=40)
    Game.objects.filter(pk=other.pk).update(deadline=game.deadline)
    ReminderLook.objects.filter(game=other.pk).update(at=now)
    before = sorted(ReminderLook.objects.filter(game__in=ids).values_list("game", "at"))
    assert all(g.awaiting for g in Game.objects.filter(pk__in=ids))
    with django_capture_on_commit_callbacks(execute=False):
        from_records = reminders.send_due_reminders(now=now)
    written = _written(ids, now)
    _forget(ids, now, before)
    Game.objects.filter(pk__in=ids).update(awaiting=None)
    with django_capture_on_commit_callbacks(execute=False):
        from_states = reminders.send_due_reminders(now=now)
    assert from_records == from_states == 5 + 1  # day: five voters (none died); night: the wolf
    assert written[:4] == _written(ids, now)[:4]


def test_the_read_carries_no_state_where_the_record_is_kept(long_game,
                                                            django_assert_num_queries):
    now = long_game.deadline - dt.timedelta(minutes=40)
    [game] = reminders.due_games(now)
    assert not hasattr(game, "state")
    with django_assert_num_queries(0):
        assert reminders.who_is_awaited(game)["living"] == [0, 1, 2, 3, 4]
    Game.objects.filter(pk=long_game.pk).update(awaiting=None)
    [game] = reminders.due_games(now)
    with django_assert_num_queries(1):  # this game's state alone
        assert reminders.who_is_awaited(game)["living"] == [0, 1, 2, 3, 4]
