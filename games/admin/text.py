"""The presenters' texts as the admin's pages show them."""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe

from messaging.rendering import render_markdown

from .. import rulesets
from ..presenters import describe
from .gm_steps import gm_log_text


def plain(text: str) -> str:
    """A presenter's sentence read as text (a field, a list cell): its Markdown bold dropped."""
    return text.replace("**", "")


def rendered(text: str) -> SafeString:
    """A presenter's text as the players read it: Markdown through the forum's safe
    renderer, so a player's words (a manifesto, last words, a speech) are the same
    【玩家的话】 block as on the game's pages, never the fence's raw markers. One paragraph
    stays inline (beside its seat and its "private")."""
    html = render_markdown(text)
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return mark_safe(html)  # noqa: S308 - sanitized by render_markdown


def event_sentence(ruleset: str, event: dict, names: dict[int, str]) -> str:
    """An event (an engine event, or a GM's own log entry) as a sentence in the reader's
    language; the kind itself only for a rule set the table no longer holds."""
    text = gm_log_text(event, names, ruleset)
    if text is not None:
        return text
    return describe(ruleset, event, names) if ruleset in rulesets.names() else event["kind"]


def is_gm_entry(event: dict) -> bool:
    """A GM's own log entry (services.kernel.log_gm), whose `because` only names the act."""
    return str(event.get("kind", "")).startswith("gm_")
