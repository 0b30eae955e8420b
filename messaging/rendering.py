"""Markdown to safe HTML, done once when a post or message is written.

Two independent layers, so a gap in one is caught by the other:
1. markdown-it-py with raw HTML disabled: any `<script>` or `<img onerror=...>` typed by a
   user comes out as escaped text, and its link validator drops javascript:, vbscript:, file:
   and data: targets.
2. nh3 (ammonia) with an allowlist of tags, attributes and URL schemes, which also stamps
   every link with rel="nofollow noopener".

Images: a post must not make its readers' browsers send requests.
- A relative or same-origin image (`![ ](/messenger/)`) would be a GET with the reader's
  cookies to one of our own pages; it is never embedded, only shown as a link.
- A remote image tells its host who reads what and when; it is shown as a link too unless
  the site enables remote images (POST_REMOTE_IMAGES), and then only https, with
  referrerpolicy="no-referrer". nh3's attribute filter repeats the check, so an `<img>` that
  got past the Markdown layer still cannot point at us.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import nh3
from django.conf import settings
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from linkify_it import LinkifyIt
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML

from config.site import site_url

from .rules import is_gm, is_messenger
from .words import INFO as WORDS_INFO

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
# The only classes a post may carry: the "player's words" block of an official post
# (messaging/words.py), written by `_render_fence` alone (Markdown has raw HTML disabled).
ALLOWED_CLASSES = {"blockquote": {"player-words"}, "p": {"player-words-author"}}
# Table alignment arrives as style="text-align:..."; nothing else may be styled.
ALLOWED_STYLE_PROPERTIES = {"text-align"}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}

_markdown = (
    MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False,
                              "breaks": True})
    .enable("table")
    .enable("strikethrough")
)

# A host name as a browser would read it: no user info, no backslash, no odd characters
# (anything else could mean a different host to the browser than to urlsplit).
_PLAIN_NETLOC = re.compile(r"^[a-z0-9.-]+(:[0-9]{1,5})?$")


def _own_hosts() -> list[str]:
    hosts = [h.lower() for h in settings.ALLOWED_HOSTS]
    site = urlsplit(site_url()).hostname
    if site:
        hosts.append(site.lower())
    return hosts


def is_embeddable_image(src: str) -> bool:
    """True only for an absolute https URL on another site, when the site enables remote
    images (POST_REMOTE_IMAGES)."""
    if not settings.POST_REMOTE_IMAGES:
        return False
    parts = urlsplit(src.strip())
    netloc = parts.netloc.lower()
    if parts.scheme.lower() != "https" or not _PLAIN_NETLOC.match(netloc):
        return False
    host = netloc.split(":")[0].rstrip(".")
    for own in _own_hosts():
        if own == "*" or host == own.lstrip(".") or (own.startswith(".") and host.endswith(own)):
            return False
    return True


def _render_image(renderer, tokens, idx, options, env) -> str:
    """An image Markdown token: embedded only if `is_embeddable_image`, else a link to it
    labelled with its alt text (nh3 then drops the link if its scheme is not allowed)."""
    token = tokens[idx]
    src = token.attrGet("src") or ""
    if is_embeddable_image(src):
        token.attrSet("alt", renderer.renderInlineAsText(token.children or [], options, env))
        return renderer.renderToken(tokens, idx, options, env)
    label = renderer.renderInlineAsText(token.children or [], options, env).strip() or src
    return f'<a href="{escapeHtml(src)}">{escapeHtml(label)}</a>'


_markdown.add_render_rule("image", _render_image)


def _render_fence(renderer, tokens, idx, options, env) -> str:
    """A fence: a player's words block (messaging/words.py) in an official text, else an
    ordinary code block. The words are escaped text, lines kept, nothing else."""
    token = tokens[idx]
    info = token.info.strip()
    if env.get("official") and (info == WORDS_INFO or info.startswith(WORDS_INFO + " ")):
        author = info[len(WORDS_INFO):].strip()
        label = _("Player's words")
        head = f"{label} · {author}" if author else label
        words = "<br>\n".join(escapeHtml(line) for line in token.content.rstrip("\n").split("\n"))
        return (f'<blockquote class="player-words"><p class="player-words-author">'
                f"{escapeHtml(head)}</p><p>{words}</p></blockquote>\n")
    return RendererHTML.fence(renderer, tokens, idx, options, env)


_markdown.add_render_rule("fence", _render_fence)


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute == "src" and not is_embeddable_image(value):
        return None
    return value


def render_markdown(text: str) -> str:
    """Return sanitized HTML for the Markdown `text`.

    Steps:
    1. Render with markdown-it-py; raw HTML in the input is escaped, not passed through.
       Images become links unless `is_embeddable_image` (see the module docstring).
    2. Clean the result with nh3: unknown tags are dropped (their text kept, except for
       script/style whose content goes too), event-handler attributes are removed, and
       links or images whose scheme is not http, https or mailto lose their URL; an image
       source that is not embeddable is removed, and without POST_REMOTE_IMAGES no `<img>`
       survives at all.
    """
    return sanitize(_markdown.render(text, {"official": True}))


def sanitize(html: str) -> str:
    """The nh3 step of `render_markdown` (layer 2), for any HTML markdown-it produced."""
    tags = ALLOWED_TAGS if settings.POST_REMOTE_IMAGES else ALLOWED_TAGS - {"img"}
    return nh3.clean(
        html,
        tags=tags,
        attribute_filter=_attribute_filter,
        clean_content_tags={"script", "style"},
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="nofollow noopener",
        filter_style_properties=ALLOWED_STYLE_PROPERTIES,
        set_tag_attribute_values={"img": {"loading": "lazy",
                                          "referrerpolicy": "no-referrer"}},
    ).strip()


# --- the author's badge -----------------------------------------------------

BADGE_CLASS = "author-badge"


def author_badge(user, board=None) -> SafeString:
    """The badge after the name of an author whose posts are official: 神的使者, or staff
    who act as the GM where the post stands (`board`: its board or id; `rules.is_gm`); an
    empty string for everybody else. A staff member who plays in a game posts on its board
    as a player: no badge there (nor on a game's board they do not run).

    Templates render it from the author, beside the name and outside the post body, so no
    post can produce one: nh3 keeps no `class` attribute but the player's-words block's two
    (`ALLOWED_CLASSES`, written only by `_render_fence` for official posts), so text that imitates the badge's HTML stays text or loses its class, and only
    this function writes `BADGE_CLASS`.
    """
    if user is None:
        return SafeString("")
    if is_messenger(user):
        label, kind = _("Official"), "official"
    elif user.is_staff and user.is_active and is_gm(user, board):
        label, kind = _("Staff"), "staff"
    else:
        return SafeString("")
    return format_html('<span class="{} {}-{}">{}</span>', BADGE_CLASS, BADGE_CLASS, kind, label)


# --- posts: bare URLs and @mentions ------------------------------------------------------

MENTION_WINDOW = 64  # characters after "@" a mention may read (a name is at most 24)


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
    # A bounded window after the "@" (a name and its spaces fit): slicing the rest of the
    # text for every "@" made a text full of them quadratic.
    found = mention(state.src[state.pos + 1:min(state.posMax, state.pos + 1 + MENTION_WINDOW)])
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
_post_markdown.add_render_rule("image", _render_image)
_post_markdown.add_render_rule("fence", _render_fence)
_post_markdown.inline.ruler.before("text", "mention", _mention_rule)


def render_post(text: str, *, mention=None, official: bool = False) -> tuple[str, list]:
    """(sanitized HTML, keys of the mentions linked) for a post or message.

    The Markdown of `render_markdown`, plus bare URLs turned into links (linkify-it-py, ending
    at Chinese text) and @mentions through `mention` (see `_mention_rule`), cleaned by the
    same nh3 allowlist. `official` (a post or message by 神的使者) renders the player's-words
    blocks of messaging/words.py; in anyone else's post such a fence is a code block.
    """
    env: dict = {"official": official}
    if mention is not None:
        env["mention"] = mention
    return sanitize(_post_markdown.render(text, env)), env.get("mentioned", [])
