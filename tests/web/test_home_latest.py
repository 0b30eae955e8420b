"""The home page's 最新主题 (messaging.latest): a reader's own games first, under a heading of
their own; 神的使者's announcements, vote threads and rounds one row per board (the newest,
the others folded under it) instead of a row each; 置顶 only on a thread's own board; people's
threads a row each, newest activity first. A visitor sees one list; the page's queries do
not grow with the number of games."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import messenger_user
from games import services
from games.models import Game
from messaging import services as forum
from messaging.models import Thread
from tests.factories.toy import night_kill

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "chinese")]


def toy_game(gm, users, name: str):
    draft = services.create_game(name=name, ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60})
    return services.start_game(game_id=draft.pk, users=users, seed="fixed-seed")


def home(client) -> str:
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    return response.content.decode()


def part(html: str, list_id: str) -> str:
    """The <ul id=list_id> of 最新主题, or "" when the page has none."""
    match = re.search(rf'<ul class="thread-list" id="{list_id}".*?</ul>\s*(?=<h3|</section>)',
                      html, re.S)
    return match.group(0) if match else ""


def rows(html: str) -> list[str]:
    """The rows of a list, in order (a group's folded threads stay inside its row)."""
    return [r.split("</ul>\n</section>")[0]
            for r in re.split(r'(?=<li class="thread-row)', html) if r.startswith("<li")]


def official(game) -> list[Thread]:
    """神的使者's threads of the game's board, newest activity first."""
    return list(Thread.objects.filter(board=game.board, author=messenger_user())
                .order_by("-last_post_at", "-id"))


@pytest.fixture
def two_games(game, gm, crowd):
    """The players' game (its first night over: a dawn announcement and a vote thread) and
    another game of other people, its night over too; a discussion on the lobby and one on
    the players' board, written last."""
    mine = night_kill(game)
    other = night_kill(toy_game(gm, crowd[:5], "别的局"))
    forum.start_thread(board=forum.lobby_board(), author=crowd[6], kind=Thread.Kind.DISCUSSION,
                       title="欢迎新人", body="你好", enforce_rate_limit=False)
    forum.start_thread(board=mine.board, author=mine.seats.get(number=2).user,
                       kind=Thread.Kind.ANALYSIS, title="第一夜分析", body="我看三号。",
                       enforce_rate_limit=False)
    return mine, other


def test_the_messengers_threads_of_a_game_are_one_row(client, two_games, players):
    mine, other = two_games
    assert len(official(mine)) >= 2 and len(official(other)) >= 2  # announcements, round
    client.force_login(players[0])
    html = home(client)
    html = html[html.index('id="latest"'):html.index('id="boards"')]
    for game in (mine, other):
        newest, *rest = official(game)
        groups = [r for r in rows(html) if f'data-board="{game.board.pk}"' in r]
        assert len(groups) == 1, game.name
        group = groups[0]
        assert "official-group" in group and f'data-thread="{newest.pk}"' in group
        assert group.count('class="title"') == 1  # the newest; the rest folded under it
        assert "<details" in group
        for thread in rest:
            assert f"/t/{thread.pk}/" in group.split("<details")[1]
        assert f"这里还有 {len(rest)} 个神的使者的主题" in group
    # no other row of the page is one of theirs
    listed = re.findall(r'data-thread="(\d+)"', html)
    assert len(listed) == len(set(listed))
    assert not {str(t.pk) for t in official(mine)[1:] + official(other)[1:]} & set(listed)


def test_a_readers_own_game_comes_first_under_its_heading(client, two_games, players):
    mine, other = two_games
    client.force_login(players[0])
    html = home(client)
    own, rest = part(html, "latest-mine"), part(html, "latest-rest")
    assert html.index("我参加的游戏") < html.index('id="latest-mine"') < html.index(
        "全站其他主题") < html.index('id="latest-rest"')
    assert [("第一夜分析" in r, f'data-board="{mine.board.pk}"' in r) for r in rows(own)] == [
        (True, False), (False, True)]  # the analysis was written after the dawn
    assert "别的局" not in own and "欢迎新人" not in own
    assert f'data-board="{other.board.pk}"' in rest and "欢迎新人" in rest
    assert mine.board.title not in rest


def test_a_player_of_the_other_game_sees_the_other_game_first(client, two_games, crowd):
    mine, other = two_games
    client.force_login(crowd[0])
    html = home(client)
    assert f'data-board="{other.board.pk}"' in part(html, "latest-mine")
    assert f'data-board="{mine.board.pk}"' in part(html, "latest-rest")
    assert "第一夜分析" in part(html, "latest-rest")


def test_the_gm_sees_the_games_they_run_first(client, two_games, gm):
    mine, other = two_games
    client.force_login(gm)
    own = part(home(client), "latest-mine")
    assert f'data-board="{mine.board.pk}"' in own and f'data-board="{other.board.pk}"' in own


def test_a_signed_up_player_and_an_approved_watcher_see_the_game_first(client, two_games, gm,
                                                                        make_user):
    mine, _other = two_games
    draft = services.create_game(name="报名局", ruleset="toy", gm=gm, seat_count=5)
    services.open_signups(game_id=draft.pk, gm=gm)
    signed = make_user("报名者")
    services.sign_up(game_id=draft.pk, user=signed)
    client.force_login(signed)
    own = part(home(client), "latest-mine")
    assert f'data-board="{draft.board.pk}"' in own and mine.board.title not in own

    mine = services.update_settings(game_id=mine.pk, changes={"outsiders": Game.Outsiders.OPEN,
                                                              "watch_risk_accepted": True})
    watcher = make_user("看客")
    services.watch(game_id=mine.pk, user=watcher)
    client.force_login(watcher)
    own = part(home(client), "latest-mine")
    assert f'data-board="{mine.board.pk}"' in own and "第一夜分析" in own


def test_a_reader_with_news_only_in_their_games_is_not_told_nothing_was_posted(
        client, game, players):
    night_kill(game)
    client.force_login(players[0])
    html = home(client)
    assert f'data-board="{game.board.pk}"' in part(html, "latest-mine")
    assert "全站其他主题" not in html and "还没有人发帖" not in html


def test_a_visitor_and_a_reader_without_games_see_one_list(client, two_games, make_user):
    mine, other = two_games
    for reader in (None, make_user("路人")):
        if reader is not None:
            client.force_login(reader)
        html = home(client)
        assert 'id="latest-mine"' not in html and "我参加的游戏" not in html
        rest = part(html, "latest-rest")
        boards = [re.search(r'data-board="(\d+)"', r) for r in rows(rest)]
        assert [int(b.group(1)) for b in boards if b] == [other.board.pk, mine.board.pk]
        # people's threads are rows of their own, newest first
        titles = re.findall(r'class="title" href="[^"]+">([^<]+)</a>', rest)
        assert titles.index("第一夜分析") < titles.index("欢迎新人")


def test_pinned_shows_on_its_own_board_only(client, two_games, players):
    mine, _other = two_games
    assert Thread.objects.filter(board=mine.board, is_pinned=True).count() >= 1
    welcome = Thread.objects.get(title="欢迎新人")
    welcome.is_pinned = True  # pinned on the lobby's board by its moderators
    forum.save_thread(thread=welcome, fields=["is_pinned"])
    client.force_login(players[0])
    html = home(client)
    latest = html[html.index('id="latest"'):html.index('id="boards"')]
    assert "欢迎新人" in latest
    assert "置顶" not in latest and " pinned" not in latest
    for board in (mine.board, welcome.board):
        page = client.get(board.get_absolute_url()).content.decode()
        assert "置顶" in page, board.title


def test_a_reply_brings_a_thread_back_to_the_top(client, two_games, crowd):
    mine, other = two_games
    old = Thread.objects.get(title="欢迎新人")

    def titles() -> list[str]:
        return re.findall(r'class="title" href="[^"]+">([^<]+)</a>',
                          part(home(client), "latest-rest"))

    assert titles().index("第一夜分析") < titles().index("欢迎新人")
    forum.reply(thread=old, author=crowd[7], body="欢迎！", enforce_rate_limit=False)
    assert titles()[0] == "欢迎新人"


def test_the_groups_new_posts_are_counted_for_the_reader(client, two_games, players):
    mine, _other = two_games
    client.force_login(players[0])
    newest, *rest = official(mine)

    def group():
        return next(r for r in rows(part(home(client), "latest-mine"))
                    if f'data-board="{mine.board.pk}"' in r)

    head, folded = group().split("<details")
    assert "has-unread" in group()
    unread_folded = sum(t.post_count for t in rest)  # never opened: every post is new
    assert f"{unread_folded} 条新帖" in folded.split("</summary>")[0]
    for thread in [newest, *rest]:  # read them all, as a page view does
        client.get(thread.get_absolute_url(), HTTP_SEC_FETCH_MODE="navigate",
                   HTTP_SEC_FETCH_DEST="document")
    assert "has-unread" not in group() and "new-mark" not in group()
    # 神的使者 adds to the older thread: it becomes the row's head, with its one new post
    forum.reply(thread=rest[0], author=messenger_user(), body="补充公告",
                enforce_rate_limit=False)
    head, folded = group().split("<details")
    assert f'data-thread="{rest[0].pk}"' in head and "1 条新帖" in head
    assert "new-mark" not in folded


def test_the_pages_queries_do_not_grow_with_the_games(client, game, gm, crowd, players):
    night_kill(game)
    client.force_login(players[0])

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            home(client)
        return len(captured)

    home(client)  # the first visit makes the lobby's board
    before = queries()
    for i in range(3):
        night_kill(toy_game(gm, crowd[:5], f"又一局{i}"))
    assert queries() == before
