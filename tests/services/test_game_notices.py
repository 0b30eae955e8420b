"""On-site notices (the bell) from games: announcements of my games, a new
vote thread in my game, a deadline I have not met, private results from 神的使者 — each to
the right seats only, once, and never about GM-only content."""

from __future__ import annotations

import datetime as dt

import pytest

from games import reminders, services
from games.engine.base import gm_only, make_event, seats
from games.services import kernel
from messaging import services as forum
from messaging.models import Notification, Thread
from tests.factories.toy import night_kill, seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]
Kind = Notification.Kind


def notices(user, kind) -> list[Notification]:
    return list(Notification.objects.filter(user=user, kind=kind))


def events(user, kind) -> int:
    """How many notices of `kind` `user` was given: alike unread notices are one grouped
    notice (messaging.notifications.GROUPED) counting them."""
    return sum(n.count for n in notices(user, kind))


@pytest.fixture
def long_game(players, gm):
    g = services.create_game(name="长局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 24 * 60, "day": 24 * 60})
    return services.start_game(game_id=g.pk, users=players, seed="fixed-seed")


# --- announcements ---------------------------------------------------------------------------

def test_every_player_is_told_of_the_player_list_announcement(game, players, gm):
    for user in players:
        [notice] = notices(user, Kind.ANNOUNCEMENT)
        assert notice.text == "测试局"
        assert notice.post.thread.key == "announcements"
        assert notice.get_absolute_url() != ""
    assert notices(gm, Kind.ANNOUNCEMENT) == []


def test_a_dawn_announcement_is_one_more_notice_each(game, players):
    night_kill(game)
    for user in players:
        assert events(user, Kind.ANNOUNCEMENT) == 2


def test_a_held_draft_tells_nobody_until_it_is_published(players, gm):
    g = services.create_game(name="草稿局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60}, hold_announcements=True)
    g = services.start_game(game_id=g.pk, users=players, seed="fixed-seed")
    night_kill(g)
    draft = g.announcements.filter(published_at=None).get()
    assert all(events(u, Kind.ANNOUNCEMENT) == 1 for u in players)  # the player list
    kernel.publish_announcement(announcement_id=draft.pk, gm=gm)
    kernel.publish_announcement(announcement_id=draft.pk, gm=gm)  # twice: still one notice
    assert all(events(u, Kind.ANNOUNCEMENT) == 2 for u in players)


# --- vote threads ----------------------------------------------------------------------------

def test_the_living_seats_are_told_of_the_new_vote_thread(game, players):
    assert all(notices(u, Kind.VOTE_THREAD) == [] for u in players)  # night 1: no vote
    game = night_kill(game)
    vote = Thread.objects.get(board=game.board, key__startswith="vote-")
    dead = game.seats.get(alive=False).user
    for user in players:
        got = notices(user, Kind.VOTE_THREAD)
        if user == dead:
            assert got == []
        else:
            assert [n.thread for n in got] == [vote] and got[0].text == "测试局"


# --- private results -------------------------------------------------------------------------

def test_private_results_are_one_result_notice_not_also_a_message_notice(game, players):
    for user in players:
        [notice] = notices(user, Kind.RESULT)  # the role, dealt at the start
        assert notice.text == "测试局"
        assert notice.conversation.owner == user
        assert notices(user, Kind.MESSENGER) == []


def test_a_result_for_one_seat_notifies_that_seat_only(game, players):
    wolf = seat_user(game, "wolf")
    before = {u.pk: events(u, Kind.RESULT) for u in players}
    kernel.deliver_private(game, [make_event("kill_planned", seats(wolf_seat(game)), target=1)],
                           {})
    after = {u.pk: events(u, Kind.RESULT) for u in players}
    assert {pk for pk in after if after[pk] != before[pk]} == {wolf.pk}


# --- GM-only content -------------------------------------------------------------------------

def test_gm_only_events_and_gm_acts_never_notify_a_player(game, players, gm):
    before = Notification.objects.filter(user__in=players).count()
    kernel.deliver_private(game, [make_event("secret_note", gm_only(), note="x")], {})
    assert kernel.announce(game, game.current_phase, "GM", "",
                           events=[make_event("secret_note", gm_only(), note="x")]) is None
    services.extend_deadline(game_id=game.pk, gm=gm, minutes=30)
    services.pause_game(game_id=game.pk, gm=gm)
    assert Notification.objects.filter(user__in=players).count() == before


def test_a_gm_only_thread_is_never_the_subject_of_a_players_notice(game, players, gm):
    secret = forum.start_thread(board=game.board, author=gm, kind=Thread.Kind.GM_ONLY,
                                title="天神笔记", body="只有天神看", enforce_rate_limit=False)
    kernel.notify_players(game, kind=Kind.VOTE_THREAD, thread=secret)
    assert Notification.objects.filter(thread=secret).count() == 0


# --- deadlines -------------------------------------------------------------------------------

def test_a_deadline_notice_goes_once_to_the_seat_that_owes_a_step(long_game, players):
    wolf = seat_user(long_game, "wolf")
    at = long_game.deadline - dt.timedelta(hours=5)
    reminders.send_due_reminders(now=at)
    reminders.send_due_reminders(now=at + dt.timedelta(minutes=1))
    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))  # 1 h
    [notice] = notices(wolf, Kind.DEADLINE)
    assert notice.url == f"/games/{long_game.pk}/act/" and "长局" in notice.text
    for user in players:
        if user != wolf:  # villagers owe nothing at night
            assert notices(user, Kind.DEADLINE) == []


@pytest.mark.parametrize(("language", "zone", "ends"), [("zh-hans", "Asia/Shanghai", "截止"),
                                                     ("en", "America/New_York", "ends")])
def test_a_deadline_notice_states_the_deadline_in_its_reader_s_language_and_timezone(
        long_game, language, zone, ends):
    from zoneinfo import ZoneInfo

    from accounts.models import Profile

    wolf = seat_user(long_game, "wolf")
    Profile.objects.filter(user=wolf).update(language=language, timezone=zone)
    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(minutes=30))
    [notice] = notices(wolf, Kind.DEADLINE)
    local = long_game.deadline.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
    utc = long_game.deadline.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")
    assert local != utc and f" {local} " in f" {notice.text} " and utc not in notice.text
    assert ends in notice.text


def test_no_deadline_notice_before_the_users_first_reminder_hour(long_game):
    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=7))
    assert Notification.objects.filter(kind=Kind.DEADLINE).count() == 0


def test_a_player_without_email_still_gets_the_notice(long_game):
    wolf = seat_user(long_game, "wolf")
    type(wolf).objects.filter(pk=wolf.pk).update(email="")
    assert reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=2)) == 0
    assert len(notices(wolf, Kind.DEADLINE)) == 1


def test_a_seat_that_acted_gets_no_deadline_notice(long_game):
    long_game.early_end = False
    long_game.save()
    wolf = seat_user(long_game, "wolf")
    target = next(n for n in range(5) if n != wolf_seat(long_game))
    services.submit_action(game_id=long_game.pk, user=wolf, kind="kill",
                           params={"target": target})
    reminders.send_due_reminders(now=long_game.deadline - dt.timedelta(hours=2))
    assert Notification.objects.filter(kind=Kind.DEADLINE).count() == 0


def test_a_dead_seat_is_never_told_of_a_deadline(players, gm, monkeypatch):
    from games import rulesets
    from games.engine.base import PhaseInfo

    g = services.create_game(name="长局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 24 * 60})
    g = night_kill(services.start_game(game_id=g.pk, users=players, seed="fixed-seed"))
    dead = g.seats.get(alive=False)
    engine = rulesets.engine("toy")
    # An engine that (wrongly) still awaited every seat: the dead one is skipped all the same.
    monkeypatch.setattr(type(engine), "phase",
                        lambda self, state: PhaseInfo("day", 1, frozenset(range(5))))
    reminders.send_due_reminders(now=g.deadline - dt.timedelta(hours=2))
    assert notices(dead.user, Kind.DEADLINE) == []
    living = [s.user for s in g.seats.filter(alive=True)]
    assert all(len(notices(u, Kind.DEADLINE)) == 1 for u in living)
