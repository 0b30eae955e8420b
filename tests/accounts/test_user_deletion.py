"""Nobody who played, hosted or wrote is deleted from the admin:
a seat's user is SET_NULL and a conversation with 神的使者 is CASCADE, so deleting such a
user would leave games without their people; the admin refuses with "deactivate instead",
from the delete page (GET and POST) and from the "delete selected" action (read in Chinese,
the default)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client

from games import services
from messaging import services as forum
from messaging.models import Board

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def admin_client(make_user):
    client = Client()
    client.force_login(make_user("站长", staff=True))
    return client


def texts(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def delete_url(user) -> str:
    return f"/admin/auth/user/{user.pk}/delete/"


def assert_kept(admin_client, user, reason: str):
    """The delete page, asked and posted to (garbage and a real confirmation), keeps `user`
    and says why and what to do instead."""
    page = admin_client.get(delete_url(user))
    assert page.status_code == 302 and page["Location"] == f"/admin/auth/user/{user.pk}/change/"
    [message] = texts(page)
    assert reason in message and "请改为停用该账户" in message
    for data in ({"post": "yes"}, {"junk": "x"}):
        response = admin_client.post(delete_url(user), data)
        assert response.status_code == 302
        assert User.objects.filter(pk=user.pk).exists()
    change = admin_client.get(f"/admin/auth/user/{user.pk}/change/")
    assert change.status_code == 200 and delete_url(user) not in change.content.decode()


def test_a_seat_holder_is_kept(chinese, admin_client, game, players):
    assert_kept(admin_client, players[2], "曾在游戏中占有座位")
    assert game.seats.get(number=2).user == players[2]


def test_the_gm_and_a_co_gm_are_kept(chinese, admin_client, game, gm, make_user):
    co = make_user("副天神", staff=True)
    game.co_gms.add(co)
    assert_kept(admin_client, gm, "主持或主持过游戏")
    assert_kept(admin_client, co, "主持或主持过游戏")


def test_a_replaced_player_is_kept(chinese, admin_client, toy_ruleset, make_user, players, gm):
    """A former seat holder (replaced by a substitute) no longer holds the seat, but the game's
    record names them."""
    from games.models import Substitution
    from games.services.kernel import now

    g = services.create_game(name="换人局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60})
    g = services.start_game(game_id=g.pk, users=players, seed="s")
    sub = make_user("替补")
    seat = g.seats.get(number=1)
    Substitution.objects.create(game=g, seat=seat, outgoing=players[1], incoming=sub,
                                status=Substitution.Status.ACCEPTED, ends_at=now())
    seat.user = sub
    seat.save(update_fields=["user"])
    assert_kept(admin_client, players[1], "曾在游戏中占有座位")


def test_an_author_and_a_correspondent_are_kept(chinese, admin_client, make_user):
    writer, asker = make_user("写手"), make_user("提问者")
    board = Board.objects.create(slug="talk", title="闲聊")
    forum.start_thread(board=board, author=writer, kind="discussion", title="你好",
                       body="第一帖")
    forum.write_to_messenger(author=asker, body="请问规则")
    assert_kept(admin_client, writer, "在论坛发过帖")
    assert_kept(admin_client, asker, "与神的使者有过对话")


def test_a_user_without_records_can_still_be_deleted(chinese, admin_client, make_user):
    newcomer = make_user("新人")
    page = admin_client.get(delete_url(newcomer))
    assert page.status_code == 200
    assert admin_client.post(delete_url(newcomer), {"post": "yes"}).status_code == 302
    assert not User.objects.filter(pk=newcomer.pk).exists()


def test_delete_selected_deletes_only_the_users_nobody_needs(chinese, admin_client, game,
                                                             players, make_user):
    newcomer = make_user("新人")
    chosen = {"action": "delete_users_without_records",
              "_selected_action": [players[0].pk, newcomer.pk]}
    confirm = admin_client.post("/admin/auth/user/", chosen)
    assert confirm.status_code == 200  # the confirmation page, for the newcomer only
    [message] = texts(confirm)
    assert "曾在游戏中占有座位" in message and "停用" in message
    assert "新人" in confirm.content.decode()
    done = admin_client.post("/admin/auth/user/", dict(chosen, post="yes"))
    assert done.status_code == 302
    assert not User.objects.filter(pk=newcomer.pk).exists()
    assert User.objects.filter(pk=players[0].pk).exists()
    assert game.seats.get(number=0).user == players[0]
    # only kept users selected: nothing to confirm, straight back to the list
    alone = admin_client.post("/admin/auth/user/", dict(chosen, _selected_action=[players[1].pk]))
    assert alone.status_code == 302 and User.objects.filter(pk=players[1].pk).exists()
    # Django's own action is gone (it would not ask)
    listing = admin_client.get("/admin/auth/user/").content.decode()
    assert 'value="delete_selected"' not in listing


def test_the_replay_log_and_the_events_cannot_be_deleted(admin_client, game):
    """Also found by the fuzz once users were kept: a garbage POST to an event's delete page
    removed a row of the engine's log (the game no longer matched its events)."""
    from games.models import Action, Event

    services.end_phase_now(game_id=game.pk, gm=game.gm)
    event, step = Event.objects.filter(game=game).first(), Action.objects.filter(game=game).first()
    assert event is not None and step is not None
    before = (Event.objects.count(), Action.objects.count())
    for url in (f"/admin/games/event/{event.pk}/delete/", f"/admin/games/action/{step.pk}/delete/"):
        assert admin_client.post(url, {"post": "yes"}).status_code == 403
    for model, row in (("event", event), ("action", step)):
        admin_client.post(f"/admin/games/{model}/", {"action": "delete_selected",
                                                     "_selected_action": [row.pk], "post": "yes"})
    assert (Event.objects.count(), Action.objects.count()) == before
