"""The deal commitment page (发牌承诺, linked from the game's home page and its review): the
commitment published at the start for everyone; the deal exactly when the review is shown
(after the end, or to the game's GM as a preview): the exact committed text (the hash needs
it), the same deal as the review's Chinese table, and how to check the hash in Chinese, the
shell recipe kept and labelled."""

from __future__ import annotations

import hashlib
import re
from html import unescape

import pytest
from django.urls import reverse

from games import services
from tests.web.test_chinese_pages import visible

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def get(client, name, game):
    return client.get(reverse(name, args=[game.pk]))


def deal_table(html: str, table_id: str) -> str:
    """The deal table's rows (its own id aside)."""
    found = re.search(fr'<table id="{table_id}" class="stack deal">(.*?)</table>', html, re.S)
    assert found, f"no #{table_id} table"
    return found.group(1)


def test_after_the_end_the_page_shows_the_text_the_table_and_how_to_check(
        client, start_ninelives, nl_gm):
    game = start_ninelives()
    services.abort_game(game_id=game.pk, gm=nl_gm, reason="")
    html = get(client, "game-commitment", game).content.decode()
    text = unescape(re.search(r'<pre id="deal"[^>]*>(.*?)</pre>', html, re.S).group(1))
    salt = re.search(r'<code id="salt">([0-9a-f]+)</code>', html).group(1)
    assert hashlib.sha256((text + salt).encode()).hexdigest() == game.commitment
    assert 'id="verdict" class="ok"' in html
    # The same deal as the review's table, row for row.
    review = get(client, "game-review", game).content.decode()
    assert deal_table(html, "deal-table") == deal_table(review, "deal")
    assert deal_table(html, "deal-table").count("data-deal-seat") == 5
    words = visible(html)
    assert "发牌的原始文本" in words and "如何核对哈希值" in words
    assert "紧接着写上盐值" in words and "64 个字符完全相同" in words
    assert "在终端里核对" in words  # the recipe's label
    assert "printf '%s%s' \"$DEAL\" \"$SALT\" | sha256sum" in unescape(html)


def test_before_the_end_the_deal_is_shown_exactly_to_whom_the_review_is(
        client, start_ninelives, nl_gm, nl_players, make_user):
    game = start_ninelives()
    staff = make_user("路过的管理员", staff=True)  # staff, not this game's GM
    viewers = {"visitor": None, "player": nl_players[0], "staff": staff, "gm": nl_gm}
    secret = services.ruleset_of(game).commitment_text(game.state)
    for who, user in viewers.items():
        client.logout()
        if user is not None:
            client.force_login(user)
        review = get(client, "game-review", game).status_code
        page = get(client, "game-commitment", game)
        html = page.content.decode()
        assert page.status_code == 200 and game.commitment in html, who
        shown = 'id="deal-table"' in html
        assert shown == (review == 200) == (who == "gm"), who
        assert ('id="deal"' in html) is shown and ('id="salt"' in html) is shown, who
        assert (game.salt in html) is shown and (unescape(secret) in unescape(html)) is shown
        if not shown:
            assert "发牌结果和盐值将在游戏结束时公开。" in visible(html), who
