"""The player-facing rules pages: docs/rules/players/<ruleset>.<language>.md as HTML.

One page per rule set and language (`ninelives`, `classic`, `gold`; `zh-hans` and `en`),
written for players from docs/rules/<ruleset>.md. Each page:
* opens with one `# title` line (returned as `title`, left out of `html`);
* gives every `##` section and every card or role heading a stable id, written after the
  heading text in the attribute syntax `## 牌 {#cards}`, `### 杀手 {#card-KILLER}`; the ids
  are the same in both languages, so a link (`/games/rules/ninelives/#card-KILLER`) works
  whatever the reader's language;
* ends with the section `{#interpretations}` ("本站的规则解释" / "How this site reads the
  rules"), one paragraph per interpretation, each with the id `interp-<number>` (I1, D2, W3...
  as numbered in docs/rules/).

Anchor schemes: 猫有n条命 `card-<CODE>` for every code of engine/ninelives/cards.py CARDS;
classic `role-<code>` for every code of engine/classic/roles.py ROLE_NAMES_ZH; 谁偷了我的金币
`card-<CODE>` (KILLER, ASSASSIN, THIEF), `token-priority`, `token-double` and `op-<action>`.

The files are the project's own text (no user input), rendered once per process and cached.
Raw HTML in them is not passed through, and an attribute block may only set an id.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from mdit_py_plugins.attrs import attrs_block_plugin
from mdit_py_plugins.attrs.parse import ParseError, parse

RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules" / "players"
DEFAULT_LANGUAGE = "zh-hans"
TOC_LEVELS = ("h2",)

# "text {#id}" at the end of a heading's text: the braces are handed to the attrs parser.
_TRAILING_ATTRS = re.compile(r"\s*(\{[^{}]*\})\s*$")


@dataclass(frozen=True)
class RulesPage:
    ruleset: str
    language: str                           # the language of the file shown (see rules_page)
    title: str
    html: str
    toc: tuple[tuple[str, str], ...]        # (anchor, heading) of every `##` section, in order


def rulesets() -> tuple[str, ...]:
    """The rule sets that have a rules page (those with a file in the default language)."""
    suffix = f".{DEFAULT_LANGUAGE}.md"
    return tuple(sorted(p.name[: -len(suffix)] for p in RULES_DIR.glob(f"*{suffix}")))


def page_path(ruleset: str, language: str) -> Path:
    return RULES_DIR / f"{ruleset}.{language}.md"


def rules_page(ruleset: str, language: str) -> RulesPage:
    """The rules page of `ruleset` in `language`.

    1. An unknown rule set raises KeyError (the caller answers 404).
    2. The language is read as Django writes it ("zh-hans", "en", "en-us", "zh_Hans"): the
       file of that language, else of its primary subtag ("en" for "en-us").
    3. A language with no file gets the zh-hans page; `RulesPage.language` says which file
       was used, so a view can tell the reader.
    """
    if ruleset not in rulesets():
        raise KeyError(ruleset)
    return _render(ruleset, _file_language(ruleset, language))


def _file_language(ruleset: str, language: str) -> str:
    code = (language or "").strip().lower().replace("_", "-")
    for candidate in (code, code.split("-")[0]):
        if candidate and page_path(ruleset, candidate).is_file():
            return candidate
    return DEFAULT_LANGUAGE


def _heading_attrs(state: StateCore) -> None:
    """Move a trailing `{#id}` of a heading's text onto the heading (before inline parsing)."""
    for index, token in enumerate(state.tokens):
        if token.type != "heading_open":
            continue
        inline = state.tokens[index + 1]
        match = _TRAILING_ATTRS.search(inline.content)
        if not match:
            continue
        try:
            end, attrs = parse(match.group(1))
        except ParseError:
            continue
        if end != len(match.group(1)) - 1 or set(attrs) != {"id"}:  # end: the "}" index
            continue
        token.attrSet("id", attrs["id"])
        inline.content = inline.content[: match.start()]


def _markdown() -> MarkdownIt:
    md = (MarkdownIt("commonmark", {"html": False, "typographer": False})
          .enable("table")
          .use(attrs_block_plugin, allowed=("id",)))
    md.core.ruler.after("block", "heading_attrs", _heading_attrs)
    return md


def _text(inline) -> str:
    return "".join(c.content for c in inline.children or () if c.type in ("text", "code_inline"))


@functools.cache
def _render(ruleset: str, language: str) -> RulesPage:
    """Render one file. Steps: parse; take the first `#` heading out as the title; collect
    the table of contents from the `##` headings that carry an id; render the rest."""
    md = _markdown()
    tokens = md.parse(page_path(ruleset, language).read_text(encoding="utf-8"))
    title = ""
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            title = _text(tokens[index + 1])
            tokens = tokens[:index] + tokens[index + 3:]
            break
    toc = tuple(
        (token.attrGet("id"), _text(tokens[index + 1]))
        for index, token in enumerate(tokens)
        if token.type == "heading_open" and token.tag in TOC_LEVELS and token.attrGet("id")
    )
    html = md.renderer.render(tokens, md.options, {})
    return RulesPage(ruleset=ruleset, language=language, title=title, html=html, toc=toc)
