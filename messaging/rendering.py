"""Markdown to safe HTML, done once when a post or message is written.

Two independent layers, so a gap in one is caught by the other:
1. markdown-it-py with raw HTML disabled: any `<script>` or `<img onerror=...>` typed by a
   user comes out as escaped text, and its link validator drops javascript:, vbscript:, file:
   and data: targets.
2. nh3 (ammonia) with an allowlist of tags, attributes and URL schemes, which also stamps
   every link with rel="nofollow noopener".
"""

from __future__ import annotations

import re

import nh3
from linkify_it import LinkifyIt
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p", "br", "hr", "em", "strong", "s", "del", "code", "pre", "blockquote",
    "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
    "a", "img", "table", "thead", "tbody", "tr", "th", "td",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
}
# Table alignment arrives as style="text-align:..."; nothing else may be styled.
ALLOWED_STYLE_PROPERTIES = {"text-align"}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}

_markdown = (
    MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False,
                              "breaks": True})
    .enable("table")
    .enable("strikethrough")
)


def render_markdown(text: str) -> str:
    """Return sanitized HTML for the Markdown `text`.

    Steps:
    1. Render with markdown-it-py; raw HTML in the input is escaped, not passed through.
    2. Clean the result with nh3: unknown tags are dropped (their text kept, except for
       script/style whose content goes too), event-handler attributes are removed, and
       links or images whose scheme is not http, https or mailto lose their URL.
    """
    return sanitize(_markdown.render(text))


def sanitize(html: str) -> str:
    """The nh3 step of `render_markdown` (layer 2), for any HTML markdown-it produced."""
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="nofollow noopener",
        filter_style_properties=ALLOWED_STYLE_PROPERTIES,
        set_tag_attribute_values={"img": {"loading": "lazy",
                                          "referrerpolicy": "no-referrer"}},
    ).strip()


# --- posts: bare URLs and @mentions ------------------------------------------------------

def _mention_rule(state, silent: bool) -> bool:
    """markdown-it inline rule: "@name" -> a link, when `state.env["mention"]` knows the name.

    `mention(tail)` gets the text after "@" and returns (length used, href, key) or None.
    Not inside a link, and not after an ASCII letter or digit ("a@b.example" stays an
    address; "你好@阿丽" is a mention).
    """
    mention = state.env.get("mention")
    if mention is None or state.src[state.pos] != "@" or state.linkLevel > 0:
        return False
    before = state.src[state.pos - 1] if state.pos > 0 else " "
    if before.isascii() and before.isalnum():
        return False
    found = mention(state.src[state.pos + 1:state.posMax])
    if found is None:
        return False
    length, href, key = found
    if not silent:
        token = state.push("link_open", "a", 1)
        token.attrs = {"href": href}
        state.push("text", "", 0).content = state.src[state.pos:state.pos + 1 + length]
        state.push("link_close", "a", -1)
        state.env.setdefault("mentioned", []).append(key)
    state.pos += 1 + length
    return True


# Where a bare URL ends in Chinese text: CJK punctuation, ideographs and full-width forms.
_URL_STOP = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")


class ChineseAwareLinkify(LinkifyIt):
    """linkify-it reads Chinese after a URL as part of its path ("https://a.example/x页面，
    好的" would link all of it); here a bare URL ends where Chinese text or full-width
    punctuation begins. A URL with Chinese in it can still be written as <https://…>."""

    def _trimmed(self, found, offset: int = 0):
        cut = _URL_STOP.search(found.raw)
        if cut is None:
            return found
        if cut.start() == 0:
            return None
        again = super().match_at_start(found.raw[:cut.start()])
        if again is None:
            return None
        again.index += found.index - offset
        again.last_index += found.index - offset
        return again

    def match(self, text):
        kept = [m for m in (self._trimmed(m) for m in super().match(text) or []) if m]
        return kept or None

    def match_at_start(self, text):
        found = super().match_at_start(text)
        return self._trimmed(found) if found is not None else None


_post_markdown = (
    MarkdownIt("commonmark", {"html": False, "linkify": True, "typographer": False,
                              "breaks": True})
    .enable("table")
    .enable("strikethrough")
    .enable("linkify")
)
_post_markdown.linkify = ChineseAwareLinkify()
_post_markdown.inline.ruler.before("text", "mention", _mention_rule)


def render_post(text: str, *, mention=None) -> tuple[str, list]:
    """(sanitized HTML, keys of the mentions linked) for a post or message.

    The Markdown of `render_markdown`, plus bare URLs turned into links (linkify-it-py, ending
    at Chinese text) and @mentions through `mention` (see `_mention_rule`), cleaned by the
    same nh3 allowlist.
    """
    env = {"mention": mention} if mention is not None else {}
    return sanitize(_post_markdown.render(text, env)), env.get("mentioned", [])
