"""Search: Chinese one- and two-character words, titles and posts, filters, visibility,
pagination, and bad input (never a 500); the GIN index the search's condition uses."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from messaging import search, services
from messaging.models import Post, Thread
from messaging.views import RESULTS_PER_PAGE

pytestmark = pytest.mark.django_db
URL = reverse("messaging-search")


def _found(response) -> list[str]:
    """The "title #n" of each result, in order (hits in the title are marked: tags dropped)."""
    import re

    return [re.sub(r"</?mark>", "", title) for title in re.findall(
        r'<a class="title" href="/p/\d+/">(.*?)</a>', response.content.decode())]


@pytest.fixture
def forum(lobby, game_board, gm, alice, bob, committed):
    """A lobby thread, a game board thread with replies, a GM-only thread (committed: their
    search rows written)."""
    with committed():
        a = services.start_thread(board=lobby, author=alice, kind="discussion",
                                  title="新手报到", body="大家好，我是新手")
        b = services.start_thread(board=game_board, author=bob, kind="discussion",
                                  title="第一天分析", body="我觉得3号是杀手，查杀他")
        services.reply(thread=b, author=alice, body="金水不能查杀，50%的人都这么说_",
                       enforce_rate_limit=False)
        services.reply(thread=b, author=bob, body="Big CAT is suspicious, 刀他",
                       enforce_rate_limit=False)
        hidden = services.start_thread(board=game_board, author=gm, kind=Thread.Kind.GM_ONLY,
                                       title="天神笔记", body="3号真的是杀手，查杀")
    return a, b, hidden


@pytest.mark.parametrize(("q", "expected"), [
    ("查杀", ["第一天分析 #2", "第一天分析 #1"]),
    ("刀", ["第一天分析 #3"]),
    ("新手", ["新手报到 #1"]),
    ("分析", ["第一天分析 #1"]),   # a thread's title is found through its first post
    ("杀手，查", ["第一天分析 #1"]),
    ("ｂｉｇ cat", ["第一天分析 #3"]),  # width- and case-insensitive
    ("50%", ["第一天分析 #2"]),
    ("手查", []),                  # pairs that are not next to each other do not match
])
def test_search_finds_chinese_words_of_any_length(client, forum, q, expected):
    response = client.get(URL, {"q": q})
    assert response.status_code == 200
    assert _found(response) == expected


def test_gm_only_content_is_never_found_by_players_but_is_by_the_gm(client, forum, alice, gm):
    client.force_login(alice)
    assert "天神笔记 #1" not in _found(client.get(URL, {"q": "杀手"}))
    client.force_login(gm)
    assert "天神笔记 #1" in _found(client.get(URL, {"q": "杀手"}))


def test_gm_boards_are_never_searched_by_players(client, gm_board, gm, alice, committed):
    with committed():
        services.start_thread(board=gm_board, author=gm, kind="discussion", title="内部讨论",
                              body="查杀名单")
    client.force_login(alice)
    assert _found(client.get(URL, {"q": "查杀"})) == []
    assert _found(client.get(URL, {"q": "查杀", "board": gm_board.slug})) == []
    client.force_login(gm)
    assert _found(client.get(URL, {"q": "查杀"})) == ["内部讨论 #1"]


def test_private_conversations_are_never_searched(client, lobby, alice, messenger, committed):
    """The same words in a forum post are found (the positive control: the search would
    see them), in the conversation they are not, even by its owner."""
    with committed():
        conversation = services.conversation_for(owner=alice)
        services.send_as_messenger(conversation=conversation, body="你的验人结果：查杀")
        services.start_thread(board=lobby, author=alice, kind="discussion", title="规则问答",
                              body="验人结果什么时候公布？")
    client.force_login(alice)
    assert _found(client.get(URL, {"q": "验人"})) == ["规则问答 #1"]
    assert _found(client.get(URL, {"q": "查杀"})) == []


def test_filters_by_board_and_author(client, forum, lobby, game_board, alice, bob):
    assert _found(client.get(URL, {"q": "新手", "board": game_board.slug})) == []
    assert _found(client.get(URL, {"q": "我", "board": lobby.slug})) == ["新手报到 #1"]
    assert _found(client.get(URL, {"q": "查杀", "author": alice.pk})) == ["第一天分析 #2"]
    assert _found(client.get(URL, {"q": "查杀", "author": 999_999})) == []


def test_filter_by_game_uses_the_games_board(client, forum, game_board, gm):
    from games.models import Game

    game = Game.objects.create(name="第一局", ruleset="toy", board=game_board, gm=gm,
                               status=Game.Status.SIGNUP)  # a draft is hidden
    assert _found(client.get(URL, {"q": "查杀", "game": game.pk})) == [
        "第一天分析 #2", "第一天分析 #1"]
    assert _found(client.get(URL, {"q": "新手", "game": game.pk})) == []
    assert _found(client.get(URL, {"q": "查杀", "game": 999_999})) == []


def test_results_are_paginated(client, lobby, alice, committed):
    with committed():
        thread = services.start_thread(board=lobby, author=alice, kind="discussion",
                                       title="刷屏", body="金水一号")
        for i in range(RESULTS_PER_PAGE + 3):
            services.reply(thread=thread, author=alice, body=f"金水 {i}",
                           enforce_rate_limit=False)
    first = client.get(URL, {"q": "金水"})
    assert len(_found(first)) == RESULTS_PER_PAGE
    assert "q=%E9%87%91%E6%B0%B4&amp;page=2" in first.content.decode()
    second = client.get(URL, {"q": "金水", "page": 2})
    assert len(_found(second)) == 4
    assert 'rel="next"' not in second.content.decode()


@pytest.mark.parametrize(("q", "message"), [
    ("", "Type something to search for."),
    ("   ", "Type something to search for."),
    ("查" * 1000, "at most 100 characters"),
    ("%%%", "punctuation alone cannot be searched"),
    ("_", "punctuation alone cannot be searched"),
    ("\\", "punctuation alone cannot be searched"),
    (".*", "punctuation alone cannot be searched"),
    ("'; --", "punctuation alone cannot be searched"),
])
def test_unsearchable_queries_get_a_clear_message(client, forum, q, message):
    response = client.get(URL, {"q": q})
    assert response.status_code == 400
    assert message in response.content.decode()


@pytest.mark.parametrize("q", ["%杀%", "杀_", "a\\b", "(杀.*)+", "' OR 1=1 --", "查杀%'",
                               "[金水]", "x" * 100, "\x00查"])
def test_special_characters_are_searched_literally(client, forum, q):
    response = client.get(URL, {"q": q})
    assert response.status_code == 200
    for title in _found(response):
        post = Post.objects.get(thread__title=title.split(" #")[0],
                                number=int(title.split("#")[1]))
        for word in search.query_words(search.clean_query(q)):
            assert word in post.search.text


def test_underscore_and_percent_match_only_themselves(client, forum):
    assert _found(client.get(URL, {"q": "说_"})) == ["第一天分析 #2"]
    assert _found(client.get(URL, {"q": "人_"})) == []


@pytest.mark.parametrize("params", [{"q": "金水", "author": "²"}, {"q": "金水", "game": "１"},
                                    {"q": "金水", "page": "0"}, {"q": "金水", "page": "99999"},
                                    {"q": "金水", "page": "٣"}])
def test_bad_filters_are_a_400_with_a_message(client, forum, params):
    response = client.get(URL, params)
    assert response.status_code == 400
    assert 'id="search-error"' in response.content.decode()


def test_an_empty_form_is_shown_without_a_message(client, forum):
    response = client.get(URL)
    assert response.status_code == 200 and 'id="search-error"' not in response.content.decode()


def test_a_first_posts_search_fields_hold_its_threads_title(forum):
    _a, b, _hidden = forum
    post = b.posts.get(number=1)
    assert "第一天分析" in post.search.text and "查杀" in post.search.terms.split()


@pytest.mark.parametrize("posts", [5, 80])
def test_search_query_budget_does_not_grow_with_posts(
        client, lobby, alice, posts, django_assert_num_queries, committed):
    with committed():
        thread = services.start_thread(board=lobby, author=alice, kind="discussion",
                                       title="多", body="查杀")
        for i in range(posts):
            services.reply(thread=thread, author=alice, body=f"查杀 {i}",
                           enforce_rate_limit=False)
    client.force_login(alice)
    client.get(URL, {"q": "查杀"})
    # session, user with profile, readable boards, the ids of one page (+1 row), those
    # posts with threads, boards and authors, the header's badges
    with django_assert_num_queries(6):
        client.get(URL, {"q": "查杀"})


# --- the index ----------------------------------------------------------------------------

def test_the_gin_index_exists_and_serves_the_searchs_condition(forum, alice):
    """The index covers the very expression the search filters on (a tiny table would
    rather be scanned, so sequential scans are switched off for the EXPLAIN)."""
    condition = """string_to_array("messaging_postsearch"."terms", ' ') @> (ARRAY[%s])::text[]"""
    sql, _params = search.search_posts(viewer=alice, query="查杀").query.sql_with_params()
    assert condition in sql
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s",
                       ["post_search_terms_gin"])
        (definition,) = cursor.fetchone()
        assert "messaging_postsearch using gin (string_to_array(terms" in definition.lower()
        cursor.execute("SET enable_seqscan = off")
        try:
            cursor.execute("EXPLAIN SELECT post_id FROM messaging_postsearch WHERE " + condition,
                           ["查杀"])
            plan = "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("SET enable_seqscan = on")
    assert "post_search_terms_gin" in plan, plan


def test_the_index_condition_finds_what_the_plain_like_finds(forum, alice):
    with CaptureQueriesContext(connection) as captured:
        found = list(search.search_posts(viewer=alice, query="查杀").values_list("pk", flat=True))
    assert "@>" in captured.captured_queries[-1]["sql"]
    plain = list(Post.objects.filter(search__text__contains="查杀")
                 .exclude(thread__kind=Thread.Kind.GM_ONLY)
                 .order_by("-id").values_list("pk", flat=True))
    assert found == plain and len(found) == 2
