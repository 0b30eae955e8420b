"""The GM's undo: a phase end or a seat's last step rolled back by replaying
the log without it; what it said withdrawn, not deleted; ending again gives the same game."""

import datetime as dt

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import selectors, services
from games.engine import registry
from games.engine.base import replay
from games.models import Action, Announcement, Event, Game, Phase, Rollback, Vote
from messaging.models import Message, Post
from tests.factories.toy import seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def later(hours=2):
    return timezone.now() + dt.timedelta(hours=hours)


def snapshot(game):
    """Everything the log and the pages are made of, without row ids and times."""
    game.refresh_from_db()
    return {
        "state": game.state, "steps": game.steps, "status": game.status,
        "phase": (game.phase_name, game.phase_number, game.current_phase.seq),
        "actions": list(Action.objects.filter(game=game).order_by("seq").values_list(
            "seq", "actor", "kind", "params", "phase__seq")),
        "events": list(Event.objects.filter(game=game, seq__isnull=False).order_by("seq")
                       .values_list("seq", "kind", "public", "audience", "data", "phase__seq")),
        "alive": list(game.seats.order_by("number").values_list("alive", flat=True)),
        "phases": list(game.phases.order_by("seq").values_list("seq", "name", "number")),
        "votes": sorted(Vote.objects.filter(game=game).values_list(
            "phase__seq", "voter__number", "target__number")),
    }


def undo_end(game, gm, *, deadline=None, **kw):
    game.refresh_from_db()
    plan = selectors.rollback_plan(game, "phase_end")
    assert not isinstance(plan, str), plan
    return services.rollback(game_id=game.pk, gm=gm, kind="phase_end",
                             deadline=deadline or later(), expected_version=game.version,
                             expected_target=plan.target, expected_steps=game.steps, **kw)


def undo_step(game, gm, number, *, deadline=None):
    game.refresh_from_db()
    plan = selectors.rollback_plan(game, "step", number)
    assert not isinstance(plan, str), plan
    return services.rollback(game_id=game.pk, gm=gm, kind="step", seat_number=number,
                             deadline=deadline or later(), expected_version=game.version,
                             expected_target=plan.target)


def kill(game, target=None):
    wolf = wolf_seat(game)
    target = next(n for n in range(game.seat_count) if n != wolf) if target is None else target
    services.submit_action(game_id=game.pk, user=seat_user(game, "wolf"), kind="kill",
                           params={"target": target})
    game.refresh_from_db()
    return target


def vote(game, number, target):
    services.submit_action(game_id=game.pk, user=game.seats.get(number=number).user,
                           kind="vote", params={"target": target})


# --- a phase end -----------------------------------------------------------------------------

def test_rolling_back_a_phase_end_reopens_the_phase_and_revives_the_victim(game, gm):
    game.early_end = False
    game.save()
    victim = kill(game)
    before_end = snapshot(game)
    services.end_phase_now(game_id=game.pk, gm=gm)
    game.refresh_from_db()
    assert game.phase_name == "day" and not game.seats.get(number=victim).alive
    dawn = Announcement.objects.get(game=game, title__contains="is over")
    deadline = later(5)

    record = undo_end(game, gm, deadline=deadline)

    after = snapshot(game)
    assert after == before_end  # the log, events, phases, seats as before the end
    game.refresh_from_db()
    assert game.deadline == deadline and game.current_phase.deadline == deadline
    assert game.current_phase.ended_at is None and game.current_phase.end_reason == ""
    assert game.seats.get(number=victim).alive
    assert record.kind == "phase_end" and [s["kind"] for s in record.steps] == ["end_phase"]
    assert [e["kind"] for e in record.events] == ["killed"]
    dawn.refresh_from_db()
    assert dawn.withdrawn_at is not None and dawn.step_seq is None  # marked, not deleted
    assert Post.objects.get(pk=dawn.post_id).withdrawn_at is not None
    notice = Announcement.objects.filter(game=game).last()
    assert notice.title == "Rolled back by the GM" and notice.published_at is not None
    assert notice.withdrawn_at is None
    assert Event.objects.filter(game=game, kind="gm_rollback", public=False).count() == 1


def test_ending_again_with_the_same_steps_gives_the_same_game(game, gm):
    game.early_end = False
    game.save()
    kill(game)
    services.end_phase_now(game_id=game.pk, gm=gm)
    first = snapshot(game)
    undo_end(game, gm)
    services.end_phase_now(game_id=game.pk, gm=gm)
    assert snapshot(game) == first


def test_rolling_back_an_early_end_keeps_the_step_and_drops_the_new_phases_steps(game, gm):
    victim = kill(game)  # the night ends early: the day opens with its vote thread
    game.refresh_from_db()
    assert game.phase_name == "day"
    voter = next(n for n in range(5) if n not in (victim, wolf_seat(game)))
    vote(game, voter, wolf_seat(game))
    assert Vote.objects.filter(game=game).count() == 1
    undo_end(game, gm)
    game.refresh_from_db()
    assert game.phase_name == "night" and game.steps == 1
    assert list(Action.objects.filter(game=game).values_list("kind", flat=True)) == ["kill"]
    assert not Vote.objects.filter(game=game).exists()
    assert list(game.phases.values_list("seq", flat=True)) == [1]
    assert game.state["private"][wolf_seat(game)]["pending"] == victim  # the kill stands
    # The vote's public announcement (shown at once) is withdrawn too, as is the dawn.
    assert not Announcement.objects.filter(game=game, step_seq__isnull=False).exists()


def test_replayed_state_matches_the_log(game, gm):
    kill(game)
    undo_end(game, gm)
    game.refresh_from_db()
    steps = [a.as_step() for a in Action.objects.filter(game=game).order_by("seq")]
    setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
    assert replay(registry.get("toy"), setup, steps) == game.state


def test_a_paused_game_stays_paused_with_the_new_time_left(game, gm):
    kill(game)
    services.pause_game(game_id=game.pk, gm=gm)
    now = timezone.now()
    undo_end(game, gm, deadline=now + dt.timedelta(hours=3), now=now)
    game.refresh_from_db()
    assert game.status == Game.Status.PAUSED
    assert game.paused_remaining == dt.timedelta(hours=3)


# --- a seat's step -------------------------------------------------------------------------------

def test_undoing_a_seats_step_withdraws_its_private_result_for_that_seat_only(game, gm,
                                                                               chinese):
    game.early_end = False
    game.save()
    kill(game)
    wolf = game.seats.get(number=wolf_seat(game))
    sent = list(Message.objects.filter(conversation=wolf.conversation).order_by("id"))
    assert len(sent) == 3  # the deal, the private result, the receipt
    others_before = {s.number: list(Message.objects.filter(conversation=s.conversation)
                                    .values_list("pk", "withdrawn_at"))
                     for s in game.seats.exclude(pk=wolf.pk)}

    undo_step(game, gm, wolf.number)

    game.refresh_from_db()
    assert game.steps == 0 and not Action.objects.filter(game=game).exists()
    assert game.state["private"][wolf.number]["pending"] is None
    assert ruleset_awaiting(game) == {wolf.number}
    msgs = list(Message.objects.filter(conversation=wolf.conversation).order_by("id"))
    assert [m.withdrawn_at is not None for m in msgs[:3]] == [False, True, True]
    assert "你的步骤已被撤销" in msgs[-1].body and msgs[-1].withdrawn_at is None  # her language
    for seat in game.seats.exclude(pk=wolf.pk):  # nobody else was told anything
        assert list(Message.objects.filter(conversation=seat.conversation)
                    .values_list("pk", "withdrawn_at")) == others_before[seat.number]
    notice = Announcement.objects.filter(game=game).last()
    assert notice.title == "天神已回滚"
    assert wolf.user.profile.display_name not in notice.body  # whose step: hidden
    assert f"seat {wolf.number + 1}" not in notice.body


def ruleset_awaiting(game):
    return set(registry.get("toy").phase(game.state).awaiting)


def test_undoing_a_vote_lets_the_seat_vote_again_and_keeps_later_votes(game, gm):
    victim = kill(game)
    living = [n for n in range(5) if n != victim]
    first, second = living[0], living[1]
    vote(game, first, living[2])
    vote(game, second, living[3])
    undo_step(game, gm, first)
    game.refresh_from_db()
    assert list(Action.objects.filter(game=game).order_by("seq").values_list(
        "seq", "kind", "actor")) == [(1, "kill", str(wolf_seat(game))), (2, "end_phase", "clock"),
                                      (3, "vote", str(second))]
    assert list(Vote.objects.filter(game=game).values_list("voter__number", flat=True)) == [
        second]
    assert list(Event.objects.filter(game=game, seq__isnull=False).order_by("seq")
                .values_list("seq", flat=True)) == list(range(len(game.state["log"])))
    vote(game, first, living[3])  # the seat may vote again
    assert Vote.objects.filter(game=game).count() == 2


# --- refusals: nothing stored ------------------------------------------------------------------

def everything(game):
    game.refresh_from_db()
    return (snapshot(game), Announcement.objects.count(), Message.objects.count(),
            Rollback.objects.count(), list(Post.objects.filter(withdrawn_at__isnull=False)),
            game.version, game.deadline)


def test_nothing_to_roll_back_is_refused(game, gm):
    game.refresh_from_db()
    before = everything(game)
    with pytest.raises(services.GameError, match="No phase has ended yet") as caught:
        services.rollback(game_id=game.pk, gm=gm, kind="phase_end", deadline=later(),
                          expected_version=game.version, expected_target=1,
                          expected_steps=game.steps)
    assert caught.value.code == "nothing"
    with pytest.raises(services.GameError, match="no accepted step"):
        services.rollback(game_id=game.pk, gm=gm, kind="step", seat_number=0,
                          deadline=later(), expected_version=game.version, expected_target=1)
    assert everything(game) == before


@pytest.mark.parametrize("who", ["player", "other_staff", "anonymous"])
def test_only_this_games_gm_may_roll_back(game, gm, make_user, who):
    kill(game)
    user = {"player": game.seats.get(number=0).user, "anonymous": None,
            "other_staff": make_user("别的天神", staff=True)}[who]
    before = everything(game)
    plan = selectors.rollback_plan(game, "phase_end")
    with pytest.raises(services.GameError) as caught:
        services.rollback(game_id=game.pk, gm=user, kind="phase_end", deadline=later(),
                          expected_version=game.version, expected_target=plan.target,
                          expected_steps=game.steps)
    assert caught.value.code == "forbidden"
    assert everything(game) == before


def test_a_stale_page_is_refused(game, gm):
    kill(game)
    plan = selectors.rollback_plan(game, "phase_end")
    version, steps = game.version, game.steps
    vote(game, next(n for n in range(5) if game.seats.get(number=n).alive), wolf_seat(game))
    before = everything(game)
    with pytest.raises(services.GameError, match="moved on") as caught:
        services.rollback(game_id=game.pk, gm=gm, kind="phase_end", deadline=later(),
                          expected_version=version, expected_target=plan.target,
                          expected_steps=steps)  # a vote came in since the page was shown
    assert caught.value.code == "stale"
    with pytest.raises(services.GameError, match="moved on"):
        services.rollback(game_id=game.pk, gm=gm, kind="phase_end", deadline=later(),
                          expected_version=version - 1, expected_target=plan.target,
                          expected_steps=game.steps)
    assert everything(game) == before


@pytest.mark.parametrize("deadline", [None, "past", "now", "far"])
def test_the_new_deadline_must_be_in_the_future_and_near(game, gm, deadline):
    kill(game)
    now = timezone.now()
    value = {None: None, "past": now - dt.timedelta(minutes=1), "now": now,
             "far": now + dt.timedelta(days=31)}[deadline]
    plan = selectors.rollback_plan(game, "phase_end")
    before = everything(game)
    with pytest.raises(services.GameError) as caught:
        services.rollback(game_id=game.pk, gm=gm, kind="phase_end", deadline=value, now=now,
                          expected_version=game.version, expected_target=plan.target,
                          expected_steps=game.steps)
    assert caught.value.code == "deadline"
    assert everything(game) == before


def test_a_finished_game_is_not_rolled_back(game, gm):
    from tests.factories.toy import finish

    game = finish(game)
    assert selectors.rollback_plan(game, "phase_end") == \
        "Only a running or paused game can be rolled back."
    with pytest.raises(services.GameError, match="running or paused"):
        services.rollback(game_id=game.pk, gm=gm, kind="phase_end", deadline=later(),
                          expected_version=game.version, expected_target=1,
                          expected_steps=game.steps)


def test_an_unknown_kind_or_seat_is_refused(game, gm):
    with pytest.raises(services.GameError, match="Unknown kind"):
        services.rollback(game_id=game.pk, gm=gm, kind="everything", deadline=later(),
                          expected_version=game.version, expected_target=0)
    with pytest.raises(services.GameError, match="no such seat"):
        services.rollback(game_id=game.pk, gm=gm, kind="step", seat_number=99,
                          deadline=later(), expected_version=game.version, expected_target=0)


# --- the property: undo then end again = never undone ------------------------------------------

@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.text(alphabet="abcdef0123456789", min_size=4, max_size=8),
       picks=st.lists(st.integers(min_value=0, max_value=4), min_size=6, max_size=6))
def test_undo_then_end_again_is_as_if_never_undone(toy_ruleset, players, gm, seed, picks):
    g = services.create_game(name="性质", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60}, early_end=False)
    game = services.start_game(game_id=g.pk, users=players, seed=seed)
    wolf = wolf_seat(game)
    for round_ in range(2):  # night and day, each: the steps, the end, undo, end again
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        alive = [s.number for s in game.seats.filter(alive=True).order_by("number")]
        if game.phase_name == "night":
            target = [n for n in alive if n != wolf][picks[round_] % (len(alive) - 1)]
            kill(game, target)
        else:
            for i, n in enumerate(alive):
                vote(game, n, alive[picks[(i + round_) % len(picks)] % len(alive)])
        services.end_phase_now(game_id=game.pk, gm=gm)
        ended = snapshot(game)
        if ended["status"] != Game.Status.RUNNING:
            break
        undo_end(game, gm)
        services.end_phase_now(game_id=game.pk, gm=gm)
        assert snapshot(game) == ended
    assert Phase.objects.filter(game=game, ended_at=None).count() <= 1


# --- a real rule set: 猫有n条命's night, with private results at its end ------------------------

NL_ORDERS = {0: ["JAIL", "VEST", "WITCH_DOCTOR", "DEMON", "KILLER"],
             1: ["PARDON", "WOLFSBANE", "SOULBINDER", "SORCERER", "WEREWOLF"],
             2: ["SAINT", "SORCERER", "KILLER", "DIVINER", "SNIPER"],
             3: ["CURSE", "STRIKE", "WEREWOLF", "PROPHET", "DIVINER"],
             4: ["COUNTER_SNIPER", "BOMB", "BLESS", "DEMON", "PROPHET"]}


def test_a_ninelives_night_rolled_back_withdraws_each_seats_result_and_replays_the_same(
        start_ninelives, nl_gm, chinese):
    from tests.factories.ninelives import MANIFESTO, act

    game = start_ninelives()
    game.early_end = False
    game.save()
    for seat, order in NL_ORDERS.items():
        act(game, seat, "loss_order", cards=order)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 2, "use_card", card="DIVINER", target=0)
    act(game, 3, "use_card", card="WEREWOLF", target=4, manifesto=MANIFESTO)
    act(game, 4, "pass")
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    ended = snapshot(game)
    lost = "你丢了反狙击手（中立阵营）"
    seats = {s.number: s for s in game.seats.all()}

    def messages_of(n, text):
        return list(Message.objects.filter(conversation=seats[n].conversation,
                                           body__contains=text))

    [result] = messages_of(4, lost)
    assert all(not messages_of(n, lost) for n in (0, 1, 2, 3))
    undo_end(game, nl_gm)
    game.refresh_from_db()
    assert (game.phase_name, game.phase_number) == ("night", 1)
    result.refresh_from_db()
    assert result.withdrawn_at is not None  # still there, marked, in that seat's only
    assert all(not messages_of(n, lost) for n in (0, 1, 2, 3))
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    assert snapshot(game) == ended  # as if never undone
    again = messages_of(4, lost)
    assert len(again) == 2 and again[-1].withdrawn_at is None


def test_a_held_draft_of_the_undone_end_is_withdrawn_and_can_no_longer_be_published(game, gm):
    game.hold_announcements = True
    game.save()
    kill(game)
    draft = Announcement.objects.get(game=game, published_at=None)
    undo_end(game, gm)
    draft.refresh_from_db()
    assert draft.withdrawn_at is not None
    with pytest.raises(services.GameError, match="withdrawn by a rollback"):
        services.publish_announcement(announcement_id=draft.pk, story="黎明", gm=gm)
    services.publish_announcement(announcement_id=draft.pk)  # nor by anything else
    draft.refresh_from_db()
    assert draft.published_at is None and draft.post_id is None
    notice = Announcement.objects.filter(game=game).last()
    assert notice.published_at is not None  # the rollback's own notice is never held


def test_a_step_that_later_steps_depend_on_cannot_be_undone_alone(game, gm, monkeypatch):
    """Later steps stay only if the engine says exactly what it said before without the
    undone one; here each vote's event counts the votes before it, so it would not."""
    from tests.toy import Toy

    original = Toy.apply

    def counting(self, state, step):
        result = original(self, state, step)
        if step["kind"] == "vote" and result:
            result.events[-1]["data"]["before"] = len(state["public"]["votes"])
        return result

    monkeypatch.setattr(Toy, "apply", counting)
    victim = kill(game)
    living = [n for n in range(5) if n != victim]
    vote(game, living[0], living[2])
    vote(game, living[1], living[3])
    game.refresh_from_db()
    assert selectors.rollback_plan(game, "step", living[0]) == \
        "Later steps depend on this one; undo them first."
    before = everything(game)
    with pytest.raises(services.GameError, match="undo them first"):
        services.rollback(game_id=game.pk, gm=gm, kind="step", seat_number=living[0],
                          deadline=later(), expected_version=game.version, expected_target=3)
    assert everything(game) == before
    undo_step(game, gm, living[1])  # the latest one can go
    undo_step(game, gm, living[0])  # and then the one before it
    game.refresh_from_db()
    assert game.state["public"]["votes"] == {}


# --- a rollback racing the sweeper ------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
def test_a_rollback_racing_the_sweeper_never_does_both(game, gm):
    """The day's deadline has passed; the GM rolls back the night's end as the sweeper ends
    the day. Under the game lock one of them wins: either the day ends (and the rollback,
    made from a page of version 1, is refused as stale) or the night is reopened (and the
    sweeper's claim on version 1 no longer holds)."""
    from tests.services.test_concurrency import run_together

    kill(game)  # version 1: the day is open
    game.refresh_from_db()
    plan = selectors.rollback_plan(game, "phase_end")
    version, steps, due = game.version, game.steps, game.deadline + dt.timedelta(seconds=30)

    def undo():
        try:
            services.rollback(game_id=game.pk, gm=gm, kind="phase_end",
                              deadline=due + dt.timedelta(hours=1),
                              expected_version=version, expected_target=plan.target,
                              expected_steps=steps, now=due)
            return "rolled back"
        except services.GameError as exc:
            return exc.code

    results = run_together([undo, lambda: services.sweep(now=due)])
    game.refresh_from_db()
    if results[0] == "rolled back":
        assert results[1] == 0 and game.phase_name == "night" and game.version == 2
    else:
        assert results == ["stale", 1] and game.phase_name == "night" and game.phase_number == 2
    assert game.version == 2
    steps = [a.as_step() for a in Action.objects.filter(game=game).order_by("seq")]
    setup = {"seats": game.seat_count, "config": game.config, "seed": game.seed}
    assert replay(registry.get("toy"), setup, steps) == game.state
