"""Markdown is rendered to HTML that cannot run script, whatever the author typed."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messaging.rendering import render_markdown

# No table is read here; the shared autouse fixture clears the database-backed cache.
pytestmark = pytest.mark.django_db

ATTACKS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">x</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](  javascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![pic](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "[click](vbscript:msgbox(1))",
    '<svg onload="alert(1)"></svg>',
    '<iframe src="https://evil.example"></iframe>',
    "<style>body{display:none}</style>",
    '[x](https://ok.example "title" onmouseover=alert(1))',
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "`<script>`",
]


def _tags(html: str) -> set[str]:
    return {m.lower() for m in re.findall(r"<\s*([a-zA-Z][a-zA-Z0-9]*)", html)}


def _attributes(html: str) -> set[str]:
    attrs = set()
    for tag in re.findall(r"<[a-zA-Z][^>]*>", html):
        attrs.update(a.lower() for a in re.findall(r"\s([a-zA-Z-]+)=", tag))
    return attrs


@pytest.mark.parametrize("attack", ATTACKS)
def test_markup_attacks_produce_no_active_content(attack):
    html = render_markdown(attack)
    assert not _tags(html) & {"script", "iframe", "svg", "style", "div", "object", "embed"}
    assert not any(a.startswith("on") for a in _attributes(html))
    real_tags = " ".join(re.findall(r"<[a-zA-Z][^>]*>", html))
    for url in re.findall(r'(?:href|src)="([^"]*)"', real_tags):
        assert url.startswith(("http://", "https://", "mailto:", "/")), url


def test_script_tag_is_shown_as_text():
    assert render_markdown("<script>alert(1)</script>") == (
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>")


def test_img_with_onerror_is_shown_as_text_not_as_an_image():
    html = render_markdown('<img src=x onerror="alert(1)">')
    assert "<img" not in html
    assert "&lt;img" in html


def test_javascript_link_is_not_a_link():
    html = render_markdown("[click me](javascript:alert(1))")
    assert "<a" not in html
    assert "click me" in html


def test_data_link_is_not_a_link():
    assert "<a" not in render_markdown("[x](data:text/html,<script>alert(1)</script>)")


def test_data_image_loses_its_source():
    html = render_markdown("![pic](data:image/png;base64,AAAA)")
    assert "data:" not in html


def test_links_get_nofollow_noopener():
    html = render_markdown("[site](https://example.com/a?b=1)")
    assert html == ('<p><a href="https://example.com/a?b=1" rel="nofollow noopener">'
                    "site</a></p>")


def test_ordinary_markdown_survives():
    html = render_markdown("**粗体** *斜体* ~~删~~\n\n> 引用\n\n- 一\n- 二\n\n`code`")
    for fragment in ("<strong>粗体</strong>", "<em>斜体</em>", "<s>删</s>",
                     "<blockquote>", "<li>一</li>", "<code>code</code>"):
        assert fragment in html


def test_table_alignment_keeps_only_text_align():
    html = render_markdown("| a | b |\n|:-|-:|\n| 1 | 2 |")
    assert 'style="text-align:left"' in html
    assert "<table>" in html


def test_https_image_is_kept_without_leaking_the_referrer_when_enabled(settings):
    settings.POST_REMOTE_IMAGES = True
    html = render_markdown("![猫](https://example.com/cat.png)")
    assert 'src="https://example.com/cat.png"' in html
    assert 'referrerpolicy="no-referrer"' in html


_PIECES = st.sampled_from([
    "<script>", "</script>", "<img src=x onerror=alert(1)>", "<a href='javascript:x'>",
    "[a](javascript:alert(1))", "[b](data:text/html,x)", "![c](vbscript:x)", "<svg onload=x>",
    "**", "*", "`", "```", "\n", "> ", "- ", "1. ", "|", "---", "[", "]", "(", ")", "<", ">",
    '"', "'", "&", "&#106;", "javascript:", "on", "=", " ", "文字", "https://example.com",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_no_mix_of_markdown_and_markup_yields_active_content(text):
    html = render_markdown(text)
    assert not _tags(html) & {"script", "svg", "iframe", "style", "object", "embed"}
    assert not any(a.startswith("on") for a in _attributes(html))
    real_tags = " ".join(re.findall(r"<[a-zA-Z][^>]*>", html))
    for url in re.findall(r'(?:href|src)="([^"]*)"', real_tags):
        assert url.startswith(("http://", "https://", "mailto:", "/", "#")) or ":" not in url
