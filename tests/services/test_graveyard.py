"""A game's graveyard (墓地), from every seat: made when the game starts; while it runs its
watchers (the dead who chose to watch, outsiders let in) and its GM read and write there and
nobody else reads a word of it (pages, search, notices, the live feed's permission); its posts count in a budget of
their own; a mention of a living player is delivered when the game ends, and then the board
opens to all."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q
from django.urls import reverse

from games import services
from games.models import OutboxEmail
from messaging import rules
from messaging import services as forum
from messaging.models import Notification, Thread
from messaging.search import search_posts
from messaging.services import PostingRefused
from tests.factories.toy import night_kill, open_to_outsiders
from tests.factories.toy import vote_out_the_wolf as finish

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def after_night(game):
    """The toy game at day 1: the night's victim is dead."""
    return night_kill(game)


def readers(game, users) -> list[bool]:
    game.graveyard.refresh_from_db()
    return [rules.can_read_board(u, game.graveyard) for u in users]


def test_only_the_watchers_and_the_gm_read_it_until_the_end(after_night, gm, make_user):
    game = open_to_outsiders(after_night)
    assert game.graveyard is not None and game.graveyard != game.board
    dead = game.seats.get(alive=False).user
    living = [s.user for s in game.seats.filter(alive=True)]
    watcher, outsider, host = make_user("看客"), make_user("路人"), make_user("别的天神",
                                                                                staff=True)
    services.watch(game_id=game.pk, user=watcher)
    assert readers(game, [watcher, gm]) == [True, True]
    # The toy's dead may still reply on the game's board (as 猫有n条命's, §7.2): they read
    # the graveyard once they watch, which ends those replies (docs/community.md, "Watching").
    assert readers(game, [dead]) == [False]
    services.watch(game_id=game.pk, user=dead)
    assert readers(game, [dead]) == [True]
    assert readers(game, [*living, outsider, host, AnonymousUser()]) == [False] * (
        len(living) + 3)
    game = finish(game)
    assert all(readers(game, [*living, outsider, AnonymousUser()]))


def test_where_the_dead_are_silent_they_read_it_only_once_they_watch(after_night):
    """Classic's and gold's dead too: the graveyard opens with watching, which they choose
    (and which costs them every word the living read until the end)."""
    import dataclasses

    from games import rulesets

    toy = rulesets.TABLE["toy"]  # the toy as Classic: its dead write nothing on the board
    rulesets.TABLE["toy"] = dataclasses.replace(toy, dead_talk=rulesets.SILENT)
    try:
        game = after_night
        dead = game.seats.get(alive=False).user
        assert readers(game, [dead]) == [False]
        services.watch(game_id=game.pk, user=dead)
        assert readers(game, [dead]) == [True]
        assert not any(readers(game, [s.user for s in game.seats.filter(alive=True)]))
    finally:
        rulesets.TABLE["toy"] = toy


def test_what_the_dead_write_there_reaches_no_living_player(
        after_night, client, gm, django_capture_on_commit_callbacks):
    game = after_night
    dead = game.seats.get(alive=False).user
    services.watch(game_id=game.pk, user=dead)
    living = game.seats.filter(alive=True).first().user
    name = living.profile.display_name
    with django_capture_on_commit_callbacks(execute=True):  # the search row, on commit
        thread = forum.start_thread(board=game.graveyard, author=dead,
                                    kind=Thread.Kind.DISCUSSION, title="坟头聊天",
                                    body=f"@{name} 狼是小白，墓地秘密")
    forum.reply(thread=thread, author=gm, body=f"@{name} 天神在墓地说话", quote=thread.posts.get())
    assert not Notification.objects.filter(user=living).filter(thread=thread).exists()
    assert not OutboxEmail.objects.filter(user=living).filter(
        Q(subject__contains="坟头聊天") | Q(body__contains="墓地")).exists()
    assert not search_posts(viewer=living, query="墓地秘密").exists()
    assert search_posts(viewer=dead, query="墓地秘密").exists()
    client.force_login(living)
    for url in (thread.get_absolute_url(), reverse("game-graveyard", args=[game.pk]),
                reverse("messaging-board", args=[game.graveyard.slug])):
        assert client.get(url).status_code == 404, url
    response = client.post(reverse("messaging-reply", args=[thread.pk]), {"body": "我也说"})
    assert response.status_code == 404 and thread.posts.count() == 2  # the GM's reply only
    response = client.get(reverse("live"), {"thread": thread.pk})
    assert response.status_code in (204, 403, 404)
    game = finish(game)  # the end: the mention reaches its reader, the board opens
    notices = Notification.objects.filter(user=living, thread=thread)
    assert [n.kind for n in notices] == [Notification.Kind.MENTION] * 2  # one per post
    assert client.get(thread.get_absolute_url()).status_code == 200


def test_its_posts_count_in_a_budget_of_their_own(after_night, settings):
    game = after_night
    settings.GRAVEYARD_POSTS_PER_MINUTE = 2
    settings.POSTS_PER_MINUTE = 3
    dead = game.seats.get(alive=False).user
    services.watch(game_id=game.pk, user=dead)
    grave = forum.start_thread(board=game.graveyard, author=dead,
                               kind=Thread.Kind.DISCUSSION, title="墓地", body="一")
    forum.reply(thread=grave, author=dead, body="二")
    with pytest.raises(PostingRefused) as refused:
        forum.reply(thread=grave, author=dead, body="三")
    assert refused.value.code == "rate_limited" and grave.posts.count() == 2
    finish(game)  # a watcher writes in the lobby again once the game is over
    lobby = forum.start_thread(board=forum.lobby_board(), author=dead,
                               kind=Thread.Kind.DISCUSSION, title="大厅", body="不受墓地影响")
    assert lobby.posts.count() == 1
