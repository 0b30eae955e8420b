"""The 天神 console in the admin: every power goes through services and is logged."""

import datetime as dt

import pytest
from django.urls import reverse

from games import services
from games.models import Event, Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def command(client, game, name, **data):
    return client.post(reverse("admin:games_game_command", args=[game.pk, name]), data,
                       follow=True)


def test_players_cannot_open_the_console(client, game, players):
    client.force_login(players[0])
    response = client.get(reverse("admin:games_game_console", args=[game.pk]))
    assert response.status_code == 302 and "login" in response["Location"]
    command(client, game, "end_phase")
    game.refresh_from_db()
    assert game.version == 0


def test_console_shows_state_awaiting_and_preview(client, game, gm):
    client.force_login(gm)
    html = client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()
    assert 'id="seats"' in html and 'id="preview"' in html
    assert "quiet night" in html  # the preview of ending now (the toy's generic text)
    assert "<textarea" not in html.split('id="gm-steps"')[1].split("</fieldset>")[0]


def test_start_from_the_console(client, gm, players):
    g = services.create_game(name="新局", ruleset="toy", gm=gm, seat_count=5)
    client.force_login(gm)
    data = {f"seat_{i}": p.pk for i, p in enumerate(players)}
    response = command(client, g, "start", **data)
    assert response.status_code == 200
    g.refresh_from_db()
    assert g.status == Game.Status.RUNNING and g.seats.count() == 5


def test_start_refuses_the_same_player_twice(client, gm, players):
    g = services.create_game(name="新局", ruleset="toy", gm=gm, seat_count=5)
    client.force_login(gm)
    data = {f"seat_{i}": players[0].pk for i in range(5)}
    command(client, g, "start", **data)
    g.refresh_from_db()
    assert g.status == Game.Status.DRAFT and not g.seats.exists()


def test_pause_resume_keeps_the_time_left(client, game, gm):
    client.force_login(gm)
    left = game.deadline - dt.datetime.now(dt.UTC)
    command(client, game, "pause")
    game.refresh_from_db()
    assert game.status == Game.Status.PAUSED
    assert services.sweep(now=game.deadline + dt.timedelta(hours=1)) == 0  # paused: no advance
    command(client, game, "resume")
    game.refresh_from_db()
    remaining = game.deadline - dt.datetime.now(dt.UTC)
    assert abs(remaining - left) < dt.timedelta(seconds=30)


def test_extend_end_phase_and_abort_are_logged_for_the_gm_only(client, game, gm):
    client.force_login(gm)
    before = game.deadline
    command(client, game, "extend", minutes="30")
    game.refresh_from_db()
    assert game.deadline - before == dt.timedelta(minutes=30)
    command(client, game, "extend", minutes="-5")
    command(client, game, "extend", minutes="lots")
    game.refresh_from_db()
    assert game.deadline - before == dt.timedelta(minutes=30)
    command(client, game, "end_phase")
    game.refresh_from_db()
    assert game.phase_name == "day"
    command(client, game, "abort", reason="测试")
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    gm_events = Event.objects.filter(game=game, kind__startswith="gm_")
    assert {e.kind for e in gm_events} >= {"gm_extend_deadline", "gm_end_phase_now", "gm_abort"}
    assert not gm_events.filter(public=True).exists() and not gm_events.exclude(audience="")


def test_a_bad_gm_step_is_refused_readably(client, game, gm):
    client.force_login(gm)
    response = command(client, game, "step", kind="explode", params="{not json")
    assert response.status_code == 200
    assert "规则此刻不提供这一步" in response.content.decode()  # not offered: a message
    response = command(client, game, "step", kind="explode", p_seat="2")
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.steps == 0


def test_held_announcements_wait_for_the_gm_and_publish_once(client, game, gm):
    game.hold_announcements = True
    game.save()
    services.end_phase_now(game_id=game.pk, gm=gm)
    draft = game.announcements.get(published_at=None)
    client.force_login(gm)
    command(client, game, "publish", announcement=draft.pk, story="月黑风高")
    command(client, game, "publish", announcement=draft.pk, story="again")
    draft.refresh_from_db()
    assert draft.published_at and draft.story == "月黑风高"
    from messaging.models import Post

    assert Post.objects.filter(body__contains="月黑风高").count() == 1
