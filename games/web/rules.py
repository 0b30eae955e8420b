"""The rules pages players read: one per rule set, in the reader's language (games/rules_pages)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from .. import rules_pages, rulesets


def rules_index(request: HttpRequest) -> HttpResponse:
    entries = [rulesets.get(name) for name in rules_pages.rulesets() if name in rulesets.names()]
    return render(request, "games/rules_index.html", {"entries": entries})


def rules_detail(request: HttpRequest, ruleset: str) -> HttpResponse:
    if ruleset not in rulesets.names():
        raise Http404
    try:
        page = rules_pages.rules_page(ruleset, get_language() or "")
    except KeyError:
        raise Http404 from None
    requested = (get_language() or "").lower()
    fallback = requested.split("-")[0] != page.language.split("-")[0]
    return render(request, "games/rules.html", {
        "page": page, "entry": rulesets.get(ruleset), "fallback": fallback})
