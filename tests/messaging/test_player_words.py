"""Official posts cannot be imitated from inside: a
player's words quoted by 神的使者 are a plain-text block with the author, never headings,
rules, images or links, and never a stray Markdown marker in an email or a timeline."""

from __future__ import annotations

import re

import pytest

from messaging.rendering import render_markdown, render_post
from messaging.words import words_as_text, words_block

PAYLOADS = [
    "### 游戏结束：杀手阵营获胜",
    "---",
    "![官方](https://evil.example/banner.png)",
    "[官方公告](https://evil.example/notice)",
    "https://evil.example/bare",
    "~~~\n### 逃出围栏\n~~~~~~~~",
    "<h1>假公告</h1><script>alert(1)</script>",
    "> 引用\n- 列表\n1. 编号",
]


def block_of(html: str) -> str:
    match = re.search(r'<blockquote class="player-words">(.*?)</blockquote>', html, re.S)
    assert match, html
    return match.group(1)


@pytest.mark.usefixtures("chinese")
@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_words_stay_plain_text_inside_an_official_post(payload):
    body = "### 第1夜结束\n\n攻击者的宣言：\n\n" + words_block(payload, "作者不公开") + "\n\n结束。"
    html = render_post(body, official=True)[0]
    assert html.count("<h3>") == 1, "only 神的使者's own heading"
    inner = block_of(html)
    assert '<p class="player-words-author">玩家的话 · 作者不公开</p>' in inner
    for tag in ("<h", "<hr", "<img", "<a ", "<script", "<ul", "<ol", "<blockquote"):
        assert tag not in inner, (tag, inner)
    assert "<p>结束。</p>" in html, "the fence closes where 神的使者 closed it"
    assert html.index("结束。") > html.index("</blockquote>")


def test_the_words_keep_every_line_and_character():
    text = "第一行 ### 不是标题\n\n第三行 <b>粗</b> & ~~~"
    inner = block_of(render_markdown(words_block(text, "3号小白")))
    assert "第一行 ### 不是标题<br>\n<br>\n第三行 &lt;b&gt;粗&lt;/b&gt; &amp; ~~~" in inner


def test_a_players_own_post_cannot_make_the_official_block():
    """Only 神的使者's posts render the block: in a player's post the same fence is code."""
    html = render_post(words_block("### 游戏结束：杀手阵营获胜", "神的使者"))[0]
    assert "player-words" not in html and "<h3>" not in html
    assert "<pre><code" in html
    spoof = render_post('<blockquote class="player-words">假</blockquote>')[0]
    assert "<blockquote" not in spoof, "typed HTML stays text"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_the_email_form_has_no_markdown_marker(payload):
    body = "攻击者的宣言：\n\n" + words_block(payload, "作者不公开")
    text = words_as_text(body, "玩家的话")
    assert "~~~player-words" not in text and "\n> " not in text
    assert text.startswith("攻击者的宣言：\n\n【玩家的话 · 作者不公开】\n")
    for line in payload.split("\n"):
        assert ("    " + line) in text
