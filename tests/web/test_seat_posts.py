"""A seat's posts on the game's board, by phase: linked from
the seat table, a substitute's posts under the seat and marked, readable only as the board
is, and a query count that does not grow with posts."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Substitution
from messaging import services as forum
from messaging.models import Post, Thread
from tests.factories.toy import night_kill

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture(autouse=True)
def english_pages(client, settings):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"


def talk(game, user, body, *, at=None, thread=None) -> Post:
    if thread is None:
        thread = Thread.objects.filter(board=game.board, kind=Thread.Kind.DISCUSSION).first()
    if thread is None:
        post = forum.start_thread(board=game.board, author=user, kind=Thread.Kind.DISCUSSION,
                                  title="讨论", body=body, enforce_rate_limit=False).posts.get()
    else:
        post = forum.reply(thread=thread, author=user, body=body, enforce_rate_limit=False)
    if at is not None:
        Post.objects.filter(pk=post.pk).update(created_at=at)
    return post


def page(client, game, number: int) -> str:
    response = client.get(reverse("game-seat-posts", args=[game.pk, number]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_seat_table_links_each_seats_posts(client, game):
    html = client.get(game.get_absolute_url()).content.decode()
    for number in range(1, 6):
        assert reverse("game-seat-posts", args=[game.pk, number]) in html


def test_posts_are_grouped_by_the_phase_they_were_written_in(client, game, players):
    me = game.seats.get(number=0).user
    talk(game, me, "第一夜的话")
    talk(game, players[1] if me != players[1] else players[2], "别人的话")
    game = night_kill(game)
    day = game.current_phase
    talk(game, me, "白天的话", at=day.started_at + dt.timedelta(seconds=5))
    html = page(client, game, 1)
    assert "第一夜的话" in html and "白天的话" in html and "别人的话" not in html
    assert html.index("Night 1") < html.index("第一夜的话") < html.index("Day 1") \
        < html.index("白天的话")
    assert "2 posts" in html


def test_a_substitutes_posts_are_under_the_seat_and_marked(client, game, players, make_user):
    seat = game.seats.get(number=1)
    before, sub_user = seat.user, make_user("替补乙")
    handover = timezone.now() + dt.timedelta(minutes=1)
    talk(game, before, "交接前原主的话")
    talk(game, before, "原主离开后的话", at=handover + dt.timedelta(seconds=2))
    Substitution.objects.create(game=game, seat=seat, outgoing=before, incoming=sub_user,
                                status=Substitution.Status.ACCEPTED, ends_at=handover,
                                closed_at=handover)
    seat.user = sub_user
    seat.save()
    talk(game, sub_user, "替补接手前的话", at=handover - dt.timedelta(seconds=30))
    talk(game, sub_user, "替补接手后的话", at=handover + dt.timedelta(seconds=1))
    html = page(client, game, 2)
    assert "交接前原主的话" in html and "替补接手后的话" in html
    assert "替补接手前的话" not in html and "原主离开后的话" not in html
    marked = html[html.index("替补接手后的话") - 900:html.index("替补接手后的话")]
    assert "substitute-mark" in marked
    unmarked = html[html.index("交接前原主的话") - 600:html.index("交接前原主的话")]
    assert "substitute-mark" not in unmarked
    assert html.index("替补乙") > html.index('id="seat-holders"')


def test_a_gm_only_thread_is_read_here_only_as_on_the_board(client, game, gm):
    me = game.seats.get(number=0).user
    secret = talk(game, me, "天神专帖里的话")
    Thread.objects.filter(pk=secret.thread_id).update(kind=Thread.Kind.GM_ONLY)
    for viewer in [None, *[s.user for s in game.seats.all()]]:
        client.logout()
        if viewer is not None:
            client.force_login(viewer)
        assert "天神专帖里的话" not in client.get(
            reverse("game-seat-posts", args=[game.pk, 1])).content.decode()
    client.force_login(gm)  # the GM reads the GM-only thread on the board too
    assert "天神专帖里的话" in client.get(
        reverse("game-seat-posts", args=[game.pk, 1])).content.decode()


@pytest.mark.parametrize("number", [0, 6, 99, 10**6])
def test_a_seat_that_does_not_exist_is_a_404(client, game, number):
    # written out: seat 0 is not even a seat number the URL accepts (config/converters.py)
    path = reverse("game-seat-posts", args=[game.pk, 1]).replace("/seat/1/", f"/seat/{number}/")
    assert client.get(path).status_code == 404


def test_a_draft_game_has_no_seat_pages(client, gm):
    draft = services.create_game(name="草稿", ruleset="toy", gm=gm, seat_count=5)
    assert client.get(reverse("game-seat-posts", args=[draft.pk, 1])).status_code == 404


def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_query_count_does_not_grow_with_posts_phases_or_handovers(client, game, make_user):
    seat = game.seats.get(number=0)
    url = reverse("game-seat-posts", args=[game.pk, 1])
    talk(game, seat.user, "一")
    client.force_login(seat.user)
    few = queries(client, url)
    for i in range(15):
        talk(game, seat.user, f"帖子{i}")
    game = night_kill(game)
    sub_user = make_user("替补丙")
    now = timezone.now()
    Substitution.objects.create(game=game, seat=seat, outgoing=seat.user, incoming=sub_user,
                                status=Substitution.Status.ACCEPTED, ends_at=now, closed_at=now)
    type(seat).objects.filter(pk=seat.pk).update(user=sub_user)
    talk(game, sub_user, "替补的帖子", at=now + dt.timedelta(seconds=1))
    assert queries(client, url) == few
