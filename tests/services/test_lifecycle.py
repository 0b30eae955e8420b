"""The game lifecycle: start, private actions, refusals, early ends, the sweeper, replay."""

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from games import services
from games.engine import registry
from games.engine.base import replay
from games.models import Action, Event, Game, Phase, Vote
from messaging.models import Message, Thread
from tests.factories.toy import seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def wolf_and_villagers(game):
    wolf = seat_user(game, "wolf")
    return wolf, [s.user for s in game.seats.order_by("number") if s.user != wolf]


def test_start_seats_players_deals_privately_and_opens_night(game, players):
    assert game.status == Game.Status.RUNNING
    assert game.phase_name == "night" and game.current_phase.seq == 1
    assert game.deadline - game.started_at == dt.timedelta(minutes=60)
    assert [s.user for s in game.seats.order_by("number")] == players
    for seat in game.seats.all():
        texts = [m.body for m in Message.objects.filter(conversation=seat.conversation)]
        assert len(texts) == 1
        role = game.state["private"][seat.number]["role"]
        assert role in texts[0]
        other = "villager" if role == "wolf" else "wolf"
        assert other not in texts[0]
    announcements = Thread.objects.get(board=game.board, key="announcements")
    assert announcements.post_count == 2  # the opening post and the player list
    assert "阿猫" in announcements.posts.last().body


def test_a_second_start_is_refused(game, players):
    with pytest.raises(services.GameError, match="already started"):
        services.start_game(game_id=game.pk, users=players)


def test_early_end_when_everyone_has_acted_opens_the_day_and_its_vote_thread(game):
    wolf, villagers = wolf_and_villagers(game)
    victim = game.seats.get(user=villagers[0]).number
    services.submit_action(game_id=game.pk, user=wolf, kind="kill", params={"target": victim})
    game.refresh_from_db()
    assert game.phase_name == "day" and game.current_phase.seq == 2
    assert Phase.objects.get(game=game, seq=1).end_reason == "early"
    assert Thread.objects.filter(board=game.board, key="vote-2", kind="vote").exists()
    assert not game.seats.get(number=victim).alive
    dawn = Thread.objects.get(board=game.board, key="announcements").posts.last().body
    assert f"victim: {villagers[0].profile.display_name}" in dawn


def test_actions_are_confirmed_in_the_players_conversation(game, gm):
    game.early_end = False
    game.save()
    wolf, villagers = wolf_and_villagers(game)
    seat = game.seats.get(user=wolf)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                           params={"target": game.seats.get(user=villagers[1]).number})
    last = Message.objects.filter(conversation=seat.conversation).last()
    assert last.from_messenger and villagers[1].profile.display_name in last.body


@pytest.mark.parametrize("who", ["villager", "outsider"])
def test_a_seat_without_that_power_or_no_seat_is_refused_and_nothing_is_stored(
        game, who, make_user):
    _wolf, villagers = wolf_and_villagers(game)
    user = villagers[0] if who == "villager" else make_user("路人")
    before = (Action.objects.count(), Event.objects.count(), game.state)
    with pytest.raises(services.GameError):
        services.submit_action(game_id=game.pk, user=user, kind="kill", params={"target": 0})
    game.refresh_from_db()
    assert (Action.objects.count(), Event.objects.count(), game.state) == before


def test_a_stale_page_phase_is_refused(game):
    wolf, villagers = wolf_and_villagers(game)
    with pytest.raises(services.GameError, match="phase is over"):
        services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                               params={"target": game.seats.get(user=villagers[0]).number},
                               expected_phase=7)


def test_forged_targets_and_params_are_refused(game):
    wolf, _villagers = wolf_and_villagers(game)
    for params in ({"target": 99}, {"target": "1"}, {"target": None}, {"seat": 0, "target": 1},
                   {"target": game.seats.get(user=wolf).number}):
        with pytest.raises(services.GameError):
            services.submit_action(game_id=game.pk, user=wolf, kind="kill", params=params)
    assert Action.objects.filter(game=game).count() == 0


def test_after_the_deadline_nothing_is_recorded(game):
    wolf, villagers = wolf_and_villagers(game)
    with pytest.raises(services.GameError, match="deadline has passed"):
        services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                               params={"target": game.seats.get(user=villagers[0]).number},
                               now=game.deadline + dt.timedelta(seconds=1))
    assert not Action.objects.filter(game=game).exists()


def test_changes_close_at_the_cut_off_but_a_first_action_is_still_taken(game):
    game.early_end = False
    game.save()
    wolf, villagers = wolf_and_villagers(game)
    targets = [game.seats.get(user=v).number for v in villagers]
    late = game.deadline - dt.timedelta(minutes=5)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill", params={"target": targets[0]},
                           now=late)
    with pytest.raises(services.GameError, match="Changes are closed"):
        services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                               params={"target": targets[1]}, now=late)
    game.refresh_from_db()
    assert game.state["private"][game.seats.get(user=wolf).number]["pending"] == targets[0]


def day_game(game):
    wolf, villagers = wolf_and_villagers(game)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                           params={"target": game.seats.get(user=villagers[0]).number})
    game.refresh_from_db()
    return wolf, villagers


def test_a_second_vote_is_refused_and_the_first_stands(game):
    _wolf, villagers = day_game(game)
    voter = villagers[1]
    t1, t2 = (game.seats.get(user=villagers[2]).number, game.seats.get(user=villagers[3]).number)
    services.submit_action(game_id=game.pk, user=voter, kind="vote", params={"target": t1})
    with pytest.raises(services.GameError, match="already voted"):
        services.submit_action(game_id=game.pk, user=voter, kind="vote", params={"target": t2})
    assert list(Vote.objects.filter(voter__user=voter).values_list("target__number", flat=True)) \
        == [t1]


def test_a_dead_seat_cannot_vote(game):
    _wolf, villagers = day_game(game)
    with pytest.raises(services.GameError):
        services.submit_action(game_id=game.pk, user=villagers[0], kind="vote",
                               params={"target": 0})


def test_the_sweeper_advances_a_due_game_once_after_the_grace(game, settings):
    assert services.sweep(now=game.deadline - dt.timedelta(seconds=1)) == 0
    # an action that arrived just before the deadline may still be waiting for the lock
    assert services.sweep(now=game.deadline + dt.timedelta(seconds=1)) == 0
    later = game.deadline + dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS + 1)
    assert services.sweep(now=later) == 1
    assert services.sweep(now=later) == 0
    game.refresh_from_db()
    assert game.phase_name == "day" and game.version == 1
    assert Phase.objects.get(game=game, seq=1).end_reason == "deadline"
    assert Action.objects.filter(game=game, actor="clock").count() == 1


def test_a_stale_claim_does_not_advance(game, settings):
    later = game.deadline + dt.timedelta(seconds=settings.SWEEP_GRACE_SECONDS + 1)
    assert services.advance_phase(game_id=game.pk, expected_version=game.version, now=later)
    # a second sweeper that read the same (id, version) before the first committed
    assert not services.advance_phase(game_id=game.pk, expected_version=0,
                                      now=later + dt.timedelta(hours=2))


def test_an_idle_sweep_costs_one_query_whatever_the_number_of_games(
        game, gm, players, django_assert_num_queries):
    for i in range(20):
        g = services.create_game(name=f"局{i}", ruleset="toy", gm=gm, seat_count=5)
        services.start_game(game_id=g.pk, users=players)
    with django_assert_num_queries(1):
        assert services.sweep(now=timezone.now()) == 0


def test_the_action_log_replays_to_the_stored_state(game):
    _wolf, villagers = day_game(game)
    for v in villagers[1:]:
        services.submit_action(game_id=game.pk, user=v, kind="vote",
                               params={"target": game.seats.get(user=villagers[1]).number})
    services.sweep(now=timezone.now() + dt.timedelta(days=3))
    game.refresh_from_db()
    steps = [a.as_step() for a in Action.objects.filter(game=game).order_by("seq")]
    setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
    assert replay(registry.get("toy"), setup, steps) == game.state


def test_the_game_finishes_and_stops_the_clock(game):
    wolf, villagers = day_game(game)
    wolf_seat = game.seats.get(user=wolf).number
    for v in [wolf] + villagers[1:]:
        try:
            services.submit_action(game_id=game.pk, user=v, kind="vote",
                                   params={"target": wolf_seat})
        except services.GameError:
            pass
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.deadline is None and game.outcome["result"] == "village"
    assert services.sweep(now=timezone.now() + dt.timedelta(days=9)) == 0


def test_time_travel_through_a_whole_day_with_the_clock(game):
    with time_machine.travel(game.deadline + dt.timedelta(minutes=1), tick=False):
        assert services.sweep() == 1
        game.refresh_from_db()
        assert game.phase_name == "day"


def test_the_beat_sweep_task_costs_one_query_when_nothing_is_due(
        game, django_assert_num_queries):
    from games.tasks import sweep as sweep_task

    with django_assert_num_queries(1):
        assert sweep_task() == {"advanced": 0}
