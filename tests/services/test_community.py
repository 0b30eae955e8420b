"""Sign-ups, the draw, check-in, substitutes and handovers, leave, activity, ghost threads."""

import datetime as dt
import hashlib
import random

import pytest
import time_machine
from django.urls import reverse

from games import services
from games.models import ActivityWarning, Game, LeaveRequest, Signup, Substitution
from messaging import services as forum
from messaging.models import Conversation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def signup_game(gm):
    g = services.create_game(name="报名局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60})
    return services.open_signups(game_id=g.pk, gm=gm)


def test_sign_ups_open_in_the_lobby_and_refuse_doubles(signup_game, crowd):
    assert signup_game.signup_thread.board.kind == "lobby"
    services.sign_up(game_id=signup_game.pk, user=crowd[0])
    with pytest.raises(services.GameError, match="already signed up"):
        services.sign_up(game_id=signup_game.pk, user=crowd[0], role="substitute")
    with pytest.raises(services.GameError):
        services.sign_up(game_id=signup_game.pk, user=crowd[1], role="referee")
    assert Signup.objects.filter(game=signup_game).count() == 1


def test_the_draw_is_published_and_recomputable(signup_game, crowd, gm):
    for user in crowd[:7]:
        services.sign_up(game_id=signup_game.pk, user=user)
    picked = services.draw_players(game_id=signup_game.pk, gm=gm, seed="abc123")
    candidates = sorted(crowd[:7], key=lambda u: u.pk)
    rng = random.Random(int.from_bytes(hashlib.sha256(b"abc123").digest(), "big"))
    assert picked == rng.sample(candidates, 5)
    assert "abc123" in signup_game.signup_thread.posts.last().body
    game = services.start_from_signups(game_id=signup_game.pk, gm=gm)
    assert [s.user for s in game.seats.order_by("number")] == picked
    losers = set(crowd[:7]) - set(picked)
    assert {s.user for s in Signup.objects.filter(game=game, role="substitute")} == losers


def test_a_draw_needs_enough_players(signup_game, crowd, gm):
    services.sign_up(game_id=signup_game.pk, user=crowd[0])
    with pytest.raises(services.GameError, match="sign-ups"):
        services.draw_players(game_id=signup_game.pk, gm=gm)


@pytest.fixture
def running(signup_game, crowd, gm):
    for user in crowd[:5]:
        services.sign_up(game_id=signup_game.pk, user=user)
    for user in crowd[5:7]:
        services.sign_up(game_id=signup_game.pk, user=user, role="substitute")
    services.pick_players(game_id=signup_game.pk, gm=gm, users=crowd[:5])
    return services.start_from_signups(game_id=signup_game.pk, gm=gm)


def test_check_in_once_within_the_window(running, crowd):
    services.check_in(game_id=running.pk, user=crowd[0])
    with pytest.raises(services.GameError, match="already checked in"):
        services.check_in(game_id=running.pk, user=crowd[0])
    late = running.started_at + dt.timedelta(hours=25)
    with pytest.raises(services.GameError, match="closed"):
        services.check_in(game_id=running.pk, user=crowd[1], now=late)
    with pytest.raises(services.GameError, match="seat"):
        services.check_in(game_id=running.pk, user=crowd[6])


def test_no_check_in_warns_and_opens_a_replacement_that_extends_the_phase(running, crowd):
    for user in crowd[1:5]:
        services.check_in(game_id=running.pk, user=user)
    deadline = Game.objects.get(pk=running.pk).deadline
    later = running.started_at + dt.timedelta(hours=25)
    with time_machine.travel(later, tick=False):
        running.refresh_from_db()
        warnings = services.check_activity(game=running, now=later)
        again = services.check_activity(game=running, now=later)
    assert [w.reason for w in warnings] == ["no_check_in"] and again == []
    sub = Substitution.objects.get(game=running)
    assert sub.seat.user == crowd[0] and sub.status == "open"
    assert Game.objects.get(pk=running.pk).deadline == deadline + dt.timedelta(hours=12)
    for user in crowd[5:7]:  # every waiting substitute is asked
        conversation = Conversation.objects.get(owner=user, board=None)
        assert "substitute" in conversation.messages.last().body


def test_the_first_substitute_takes_the_seat_and_its_conversation(running, crowd, gm, client):
    seat = running.seats.get(user=crowd[2])
    forum.send_as_messenger(conversation=seat.conversation, body="秘密结果：你的身份")
    services.start_substitution(game_id=running.pk, gm=gm, seat_number=seat.number)
    taken = services.accept_substitution(game_id=running.pk, user=crowd[5])
    assert taken.pk == seat.pk and taken.user == crowd[5]
    with pytest.raises(services.GameError, match="faster|No seat"):
        services.accept_substitution(game_id=running.pk, user=crowd[6])
    client.force_login(crowd[5])
    page = client.get(reverse("game-act", args=[running.pk])).content.decode()
    assert "秘密结果" in page
    client.force_login(crowd[2])
    assert client.get(reverse("game-act", args=[running.pk])).status_code == 404
    assert client.get(reverse("messaging-conversation",
                              args=[seat.conversation.pk])).status_code == 404


def test_only_waiting_substitutes_may_accept(running, crowd, gm, make_user):
    services.start_substitution(game_id=running.pk, gm=gm, seat_number=0)
    with pytest.raises(services.GameError, match="not a waiting substitute"):
        services.accept_substitution(game_id=running.pk, user=make_user("路人丁"))
    with pytest.raises(services.GameError, match="not a waiting substitute"):
        services.accept_substitution(game_id=running.pk, user=crowd[1])  # a seated player


def test_the_gm_cancels_and_an_unanswered_handover_is_wasted(running, crowd, gm):
    sub = services.start_substitution(game_id=running.pk, gm=gm, seat_number=0)
    services.cancel_substitution(substitution_id=sub.pk, gm=gm)
    with pytest.raises(services.GameError):
        services.cancel_substitution(substitution_id=sub.pk, gm=gm)
    sub2 = services.start_substitution(game_id=running.pk, gm=gm, seat_number=1)
    assert services.expire_substitutions(now=sub2.ends_at + dt.timedelta(seconds=1)) == 1
    sub2.refresh_from_db()
    assert sub2.status == "wasted"
    assert running.seats.get(number=1).user == crowd[1]  # the seat plays on without


def test_several_replacements_go_to_the_longest_silent_first(running, crowd, gm):
    seat_a, seat_b = running.seats.get(number=0), running.seats.get(number=1)
    thread = forum.start_thread(board=running.board, author=crowd[0], kind="discussion",
                                title="早", body="我很活跃", enforce_rate_limit=False)
    assert thread
    services.start_substitution(game_id=running.pk, gm=gm, seat_number=0)
    services.start_substitution(game_id=running.pk, gm=gm, seat_number=1)
    first = services.accept_substitution(game_id=running.pk, user=crowd[5])
    assert first.pk == seat_b.pk  # seat 1's player never posted: silent longest
    second = services.accept_substitution(game_id=running.pk, user=crowd[6])
    assert second.pk == seat_a.pk


def test_a_leave_request_reaches_the_gm(running, crowd):
    services.request_leave(game_id=running.pk, user=crowd[3], message="明天出差一天")
    assert LeaveRequest.objects.get(game=running).seat.user == crowd[3]
    conversation = running.seats.get(user=crowd[3]).conversation
    conversation.refresh_from_db()
    assert conversation.staff_unread == 1
    with pytest.raises(services.GameError):
        services.request_leave(game_id=running.pk, user=crowd[3], message="  ")


def test_few_posts_in_48_hours_warn_once(running, crowd):
    later = running.started_at + dt.timedelta(hours=49)
    for user in crowd[:5]:
        services.check_in(game_id=running.pk, user=user, now=running.started_at)
    with time_machine.travel(later, tick=False):
        for i in range(5):
            t = forum.start_thread(board=running.board, author=crowd[0], kind="discussion",
                                   title=f"帖{i}", body="内容", enforce_rate_limit=False)
            assert t
        running.refresh_from_db()
        warned = services.check_activity(game=running, now=later)
    reasons = {(w.seat.user, w.reason) for w in warned}
    last = running.seats.get(user=crowd[1]).conversation.messages.last().body
    # in the reader's language (no profile language: the site's, Chinese), not the sweep's
    assert "截止时间：" in last and "Asia/Shanghai" in last
    assert (crowd[0], "few_posts") not in reasons
    assert (crowd[1], "few_posts") in reasons
    assert ActivityWarning.objects.filter(seat__user=crowd[1], reason="few_posts").count() == 1


def test_sign_up_through_the_page(signup_game, crowd, client):
    client.force_login(crowd[0])
    response = client.post(reverse("game-community", args=[signup_game.pk, "signup"]),
                           {"role": "substitute"}, follow=True)
    assert response.status_code == 200
    assert Signup.objects.get(user=crowd[0]).role == "substitute"
    response = client.post(reverse("game-community", args=[signup_game.pk, "nonsense"]))
    assert response.status_code == 404
