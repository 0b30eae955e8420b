"""The game home shows each living seat's posts on the game's board in the last 48 hours
(the count the activity rule warns by, services.community.check_activity); the GM also
sees the minimum and who is below it. The card is written on every answer: the kept parts
and the page kept for anonymous readers never hold an old count."""

from __future__ import annotations

import datetime as dt
import re

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from games import selectors, services
from games.models import Game
from messaging import services as forum
from messaging.models import Post
from tests.conftest import clear_cache

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]


def post(game, user, n=1):
    thread = forum.start_thread(
        board=game.board,
        author=user,
        kind="discussion",
        title="分析",
        body="一",
        enforce_rate_limit=False,
    )
    for _ in range(n - 1):
        forum.reply(thread=thread, author=user, body="再", enforce_rate_limit=False)


def counts(html: str) -> dict[str, str]:
    card = html[
        html.index('id="seat-posts"') : html.index("</section>", html.index('id="seat-posts"'))
    ]
    return dict(
        re.findall(r'<span class="seat-name">([^<]+)</span> <strong class="count">([^<]+)<', card)
    )


def test_everyone_sees_each_seats_posts_in_the_last_48_hours(client, game, players, gm):
    post(game, players[0], 3)
    post(game, players[2], 1)
    old = Post.objects.filter(author=players[2]).first()
    Post.objects.filter(pk=old.pk).update(created_at=old.created_at - dt.timedelta(hours=49))
    client.force_login(players[1])
    html = client.get(reverse("game-home", args=[game.pk])).content.decode()
    seen = counts(html)
    names = selectors.seat_names(game)
    seat = {s.user_id: s.number for s in game.seats.all()}
    assert seen[f"{seat[players[0].pk] + 1}号{names[seat[players[0].pk]]}"] == "3 帖"
    assert seen[f"{seat[players[2].pk] + 1}号{names[seat[players[2].pk]]}"] == "0 帖"
    assert len(seen) == 5
    assert "seat-posts-rule" not in html and "short-mark" not in html  # the GM's only


def test_the_gm_sees_the_minimum_and_who_is_short(client, game, players, gm):
    started = Game.objects.get(pk=game.pk).started_at
    with time_machine.travel(started + dt.timedelta(hours=50), tick=False):
        for user in players[:4]:
            post(game, user, 5)
        post(game, players[4], 2)
        client.force_login(gm)
        html = client.get(reverse("game-home", args=[game.pk])).content.decode()
    rule = html[html.index('id="seat-posts-rule"') :]
    assert "48 小时内在本局版块发言少于 5 贴" in rule[:300]
    short = re.findall(r'<li class="short"><span class="seat-name">([^<]+)</span>', html)
    assert short == [
        f"{s.number + 1}号{selectors.seat_names(game)[s.number]}"
        for s in game.seats.filter(user=players[4])
    ]
    assert html.count("少于 5 贴</span>") == 1


def test_before_48_hours_nobody_is_marked_short(client, game, players, gm):
    client.force_login(gm)
    html = client.get(reverse("game-home", args=[game.pk])).content.decode()
    assert "开局未满 48 小时" in html
    assert "short-mark" not in html


def test_the_count_is_current_on_a_kept_page(game, players):
    reader = Client()
    url = reverse("game-home", args=[game.pk])
    clear_cache()
    before = counts(reader.get(url).content.decode())
    assert set(before.values()) == {"0 帖"}
    post(game, players[0], 2)  # a post on the board does not move the game's page version
    after = counts(reader.get(url).content.decode())
    assert sorted(after.values()) == ["0 帖"] * 4 + ["2 帖"]


def test_the_warning_and_the_home_count_the_same_posts(game, players):
    started = Game.objects.get(pk=game.pk).started_at
    later = started + dt.timedelta(hours=49)
    with time_machine.travel(later, tick=False):
        for user in players:
            post(game, user, 5 if user != players[3] else 4)
        warned = services.check_activity(game=Game.objects.get(pk=game.pk), now=later)
        seats, minimum, full = selectors.seat_post_counts(game.pk, now=later)
    few = {w.seat.user_id for w in warned if w.reason == "few_posts"}
    assert few == {players[3].pk}
    assert full and minimum == 5
    assert [s.short for s in seats] == [
        s.user_id == players[3].pk for s in game.seats.order_by("number")
    ]


def test_a_finished_or_signup_game_has_no_card(client, game):
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    clear_cache()
    assert (
        'id="seat-posts"' not in client.get(reverse("game-home", args=[game.pk])).content.decode()
    )


def test_the_card_reads_in_english_for_an_english_reader(client, game, players):
    Profile.objects.filter(user=players[1]).update(language="en")
    client.force_login(players[1])
    html = client.get(reverse("game-home", args=[game.pk])).content.decode()
    assert "Posts in the last 48 hours" in html
