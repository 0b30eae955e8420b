"""Search as players type it: several words (AND), an author field by display name with the
filter shown as a removable chip, the profile's link listing a player's posts, and each
result's excerpt around its first hit with every hit in <mark> (escaped first, so neither
the query nor the post can inject markup)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from messaging import search, services
from messaging.models import Thread

pytestmark = pytest.mark.django_db
URL = reverse("messaging-search")


def _found(response) -> list[str]:
    """The "title #n" of each result, in order (marks dropped)."""
    return [re.sub(r"</?mark>", "", title) for title in re.findall(
        r'<a class="title" href="/p/\d+/">(.*?)</a>', response.content.decode())]


def _excerpts(response) -> list[str]:
    return re.findall(r'<p class="excerpt">(.*?)</p>', response.content.decode(), re.S)


@pytest.fixture
def talk(lobby, game_board, alice, bob, gm, committed):
    """Posts holding 狼毒, 金水, both, and a name: by 阿丽 and 阿博; a GM-only thread
    (committed: their search rows written)."""
    with committed():
        thread = services.start_thread(board=game_board, author=bob, kind="discussion",
                                       title="第一天分析", body="我拿到狼毒，三号是金水。")
        services.reply(thread=thread, author=alice, body="狼毒在谁手里？",
                       enforce_rate_limit=False)
        services.reply(thread=thread, author=alice, body="金水不能查杀。阿博说得对。",
                       enforce_rate_limit=False)
        services.reply(thread=thread, author=bob, body="金水和狼毒我都看到了：刀",
                       enforce_rate_limit=False)
        services.start_thread(board=game_board, author=gm, kind=Thread.Kind.GM_ONLY,
                              title="天神笔记", body="狼毒 金水 都在二号")
    return thread


# --- words -----------------------------------------------------------------------------------

def test_two_words_find_the_posts_holding_both_wherever_they_are(client, talk):
    """"狼毒 金水" was searched as one string with its space, so it found nothing."""
    response = client.get(URL, {"q": "狼毒 金水"})
    assert response.status_code == 200
    assert _found(response) == ["第一天分析 #4", "第一天分析 #1"]


def test_the_order_of_the_words_does_not_matter(client, talk):
    assert _found(client.get(URL, {"q": "金水 狼毒"})) == ["第一天分析 #4", "第一天分析 #1"]


def test_one_character_words_are_words_too(client, talk):
    assert _found(client.get(URL, {"q": "刀 金"})) == ["第一天分析 #4"]
    assert _found(client.get(URL, {"q": "三 狼"})) == ["第一天分析 #1"]


def test_a_phrase_in_double_quotes_is_one_word(client, lobby, alice, committed):
    with committed():
        services.start_thread(board=lobby, author=alice, kind="discussion", title="English",
                              body="the big cat sat")
        services.start_thread(board=lobby, author=alice, kind="discussion", title="Other",
                              body="a cat that is big")
    assert _found(client.get(URL, {"q": "big cat"})) == ["Other #1", "English #1"]
    assert _found(client.get(URL, {"q": '"big cat"'})) == ["English #1"]
    assert _found(client.get(URL, {"q": "“big cat”"})) == ["English #1"]


def test_punctuation_between_words_separates_them(client, talk):
    assert _found(client.get(URL, {"q": "狼毒 / 金水"})) == ["第一天分析 #4", "第一天分析 #1"]


def test_query_words_and_terms():
    assert search.query_words("狼毒 金水 狼毒") == ["狼毒", "金水"]
    assert search.query_words('"big cat" sat') == ["big cat", "sat"]
    assert search.query_words("狼毒 - 金水") == ["狼毒", "金水"]
    assert search.query_terms("狼毒 金水") == ["狼毒", "金水"]
    # Every word keeps a share of the index terms, however long the first one is.
    terms = search.query_terms("一二三四五六七八九十甲乙丙丁戊己庚辛 狼毒")
    assert "狼毒" in terms and len(terms) <= search.MAX_INDEX_TERMS


def test_words_found_only_in_posts_the_viewer_may_read(client, talk, alice, gm):
    client.force_login(alice)
    assert "天神笔记 #1" not in _found(client.get(URL, {"q": "狼毒 金水"}))
    client.force_login(gm)
    assert "天神笔记 #1" in _found(client.get(URL, {"q": "狼毒 金水"}))


# --- excerpts and marks ------------------------------------------------------------------------

def test_the_excerpt_shows_a_hit_far_into_a_long_post(client, lobby, alice, committed):
    """The excerpt was the post's first 300 characters: a hit at ~1,600 was never seen."""
    filler = "今天天气很好大家慢慢说。" * 133  # 1,596 characters
    with committed():
        services.start_thread(board=lobby, author=alice, kind="discussion", title="长文",
                              body=filler + "其实我是反狙击手，别投我。" + filler)
    response = client.get(URL, {"q": "反狙击手"})
    assert _found(response) == ["长文 #1"]
    (excerpt,) = _excerpts(response)
    assert "<mark>反狙击手</mark>" in excerpt
    assert excerpt.startswith("…") and excerpt.endswith("…")
    assert len(re.sub(r"</?mark>", "", excerpt)) <= search.EXCERPT_LENGTH + 2


def test_every_hit_of_every_word_is_marked(client, talk):
    response = client.get(URL, {"q": "狼毒 金水"})
    excerpts = _excerpts(response)
    assert excerpts[0] == "<mark>金水</mark>和<mark>狼毒</mark>我都看到了：刀"
    assert excerpts[1] == "我拿到<mark>狼毒</mark>，三号是<mark>金水</mark>。"


def test_hits_in_the_title_are_marked(client, talk):
    body = client.get(URL, {"q": "分析"}).content.decode()
    assert '">第一天<mark>分析</mark> #1</a>' in body


def test_marks_match_width_and_case_as_the_search_does(client, lobby, alice, committed):
    with committed():
        services.start_thread(board=lobby, author=alice, kind="discussion", title="Ｗｉｄｅ",
                              body="The BIG Cat.")
    response = client.get(URL, {"q": "big ｃａｔ"})
    assert _excerpts(response) == ["The <mark>BIG</mark> <mark>Cat</mark>."]


def test_an_author_search_without_words_shows_the_posts_start_unmarked(client, talk, bob):
    excerpts = _excerpts(client.get(URL, {"author": bob.pk}))
    assert excerpts == ["金水和狼毒我都看到了：刀", "我拿到狼毒，三号是金水。"]


def test_markup_in_posts_and_queries_is_escaped_never_injected(client, lobby, alice,
                                                               committed):
    with committed():
        services.start_thread(board=lobby, author=alice, kind="discussion", title="<b>粗</b>",
                              body="写 `<script>alert(1)</script>` 和 a < b & c，金水")
    response = client.get(URL, {"q": "script 金水"})
    body = response.content.decode()
    assert "<script>alert" not in body and "<b>粗" not in body
    (excerpt,) = _excerpts(response)
    assert excerpt == ("写 &lt;<mark>script</mark>&gt;alert(1)&lt;/<mark>script</mark>&gt; "
                       "和 a &lt; b &amp; c，<mark>金水</mark>")
    # A query that looks like markup marks nothing and adds no tag.
    assert search.highlight("<b>x</b>", '"<mark>" b') == \
        "&lt;<mark>b</mark>&gt;x&lt;/<mark>b</mark>&gt;"
    # Entities are text: "amp" of "&amp;" is not a hit.
    assert search.excerpt("<p>a &amp; b 金水</p>", "amp 金水") == "a &amp; b <mark>金水</mark>"


# --- the author field ----------------------------------------------------------------------------

def test_the_author_field_finds_posts_by_that_player_not_about_them(client, talk):
    """A name in the search box found posts mentioning it; the author field finds posts by
    the player."""
    response = client.get(URL, {"q": "金水", "by": "阿博"})
    assert response.status_code == 200
    assert _found(response) == ["第一天分析 #4", "第一天分析 #1"]  # not 阿丽's "阿博说得对"
    assert _found(client.get(URL, {"q": "金水", "by": "阿丽"})) == ["第一天分析 #3"]


def test_the_author_field_reads_names_as_names_are_compared(client, talk, make_user):
    make_user("Big Cat")
    assert _found(client.get(URL, {"q": "金水", "by": " 阿 博 "})) == [
        "第一天分析 #4", "第一天分析 #1"]
    assert client.get(URL, {"q": "金水", "by": "ＢＩＧ ｃａｔ"}).status_code == 200


def test_part_of_a_name_finds_every_player_whose_name_holds_it(client, talk):
    response = client.get(URL, {"q": "狼毒", "by": "阿"})
    assert _found(response) == ["第一天分析 #4", "第一天分析 #2", "第一天分析 #1"]
    chip = re.search(r'id="chip-author".*?</li>', response.content.decode(), re.S).group(0)
    assert "阿博" in chip and "阿丽" in chip


def test_an_unknown_name_is_a_readable_refusal(client, talk):
    response = client.get(URL, {"q": "金水", "by": "无名氏"})
    assert response.status_code == 400
    assert "No player&#x27;s name holds “无名氏”." in response.content.decode()
    assert _found(response) == []


def test_too_many_matching_names_ask_for_more_of_the_name(client, make_user):
    for i in range(search.MAX_AUTHOR_MATCHES + 1):
        make_user(f"小明{i}")
    response = client.get(URL, {"q": "金水", "by": "小明"})
    assert response.status_code == 400
    assert "write more of the name" in response.content.decode()


def test_the_author_filter_is_a_chip_that_removes_itself(client, talk, game_board):
    response = client.get(URL, {"q": "金水", "by": "阿博", "board": game_board.slug})
    body = response.content.decode()
    chip = re.search(r'<li class="chip" id="chip-author">.*?</li>', body, re.S).group(0)
    assert "阿博" in chip
    remove = re.search(r'href="([^"]+)"', chip).group(1).replace("&amp;", "&")
    assert "by=" not in remove and "author=" not in remove
    assert "q=%E9%87%91%E6%B0%B4" in remove and f"board={game_board.slug}" in remove
    after = client.get(remove)
    assert 'id="chip-author"' not in after.content.decode()
    assert _found(after) == ["第一天分析 #4", "第一天分析 #3", "第一天分析 #1"]


def test_the_profiles_link_lists_the_players_posts_with_the_filter_shown(client, talk, bob):
    """/search/?author=<id> (搜索该玩家的发言) was an empty form with a hidden filter."""
    response = client.get(URL, {"author": bob.pk})
    body = response.content.decode()
    assert response.status_code == 200
    assert _found(response) == ["第一天分析 #4", "第一天分析 #1"]
    assert 'id="chip-author"' in body and "阿博" in body
    # The filter is in plain sight: the author field holds the name; no hidden author id is
    # carried to the next search.
    assert re.search(r'<input type="search" name="by" id="search-by" value="阿博"', body)
    assert 'type="hidden" name="author"' not in body
    # The next search from that form keeps the author by name, visibly.
    assert _found(client.get(URL, {"q": "狼毒", "by": "阿博"})) == [
        "第一天分析 #4", "第一天分析 #1"]


def test_the_author_filter_keeps_hidden_posts_hidden(client, talk, alice, gm):
    client.force_login(alice)
    assert _found(client.get(URL, {"author": gm.pk})) == []
    assert _found(client.get(URL, {"q": "狼毒", "by": "天神甲"})) == []
    client.force_login(gm)
    assert _found(client.get(URL, {"author": gm.pk})) == ["天神笔记 #1"]


def test_an_empty_search_without_an_author_is_still_refused(client, talk):
    response = client.get(URL, {"q": "", "by": ""})
    assert response.status_code == 400
    assert "Type something to search for." in response.content.decode()


@pytest.mark.parametrize("params", [{"author": "x"}, {"author": "²"}, {"by": "\u200b"},
                                    {"q": "金水", "by": "%"}, {"author": "1", "page": "0"}])
def test_bad_author_filters_are_a_400_with_a_message(client, talk, params):
    response = client.get(URL, params)
    assert response.status_code == 400
    assert 'id="search-error"' in response.content.decode()


def test_results_pages_keep_the_author(client, lobby, alice, committed):
    from messaging.views import RESULTS_PER_PAGE

    with committed():
        thread = services.start_thread(board=lobby, author=alice, kind="discussion",
                                       title="多", body="金水")
        for i in range(RESULTS_PER_PAGE):
            services.reply(thread=thread, author=alice, body=f"金水 {i}",
                           enforce_rate_limit=False)
    body = client.get(URL, {"q": "金水", "by": "阿丽"}).content.decode()
    assert "by=%E9%98%BF%E4%B8%BD&amp;page=2" in body


@pytest.mark.parametrize("posts", [5, 60])
def test_author_search_query_budget_does_not_grow_with_posts(
        client, lobby, alice, posts, django_assert_num_queries, committed):
    with committed():
        thread = services.start_thread(board=lobby, author=alice, kind="discussion",
                                       title="多", body="查杀")
        for i in range(posts):
            services.reply(thread=thread, author=alice, body=f"查杀 金水 {i}",
                           enforce_rate_limit=False)
    client.force_login(alice)
    client.get(URL, {"q": "查杀 金水", "by": "阿丽"})
    # session, user with profile, readable boards, the name (exact), the ids of one page,
    # those posts with threads, boards and authors, the header's badges
    with django_assert_num_queries(7):
        client.get(URL, {"q": "查杀 金水", "by": "阿丽"})
