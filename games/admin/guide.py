"""The GM guide (docs/gm-guide.md) inside the admin, with its screenshots (docs/img/).

The file is the project's own text: rendered once per process and language with markdown-it
(raw HTML off), image paths `img/<name>.png` pointed at the `guide_image` view. The file is
the Chinese guide followed by its "## English summary": a reader of Chinese gets the Chinese
part (without the line pointing English readers to the summary), a reader of English the
summary.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from django.http import FileResponse, Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import get_language
from markdown_it import MarkdownIt

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"
GUIDE = DOCS / "gm-guide.md"
IMAGES = DOCS / "img"
IMAGE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*\.png")
ENGLISH = "## English summary"


def guide_parts(text: str, english: bool) -> tuple[str, str]:
    """(title, Markdown body) of the guide in one language."""
    title, _nl, body = text.partition("\n")
    chinese, _sep, summary = body.partition(ENGLISH)
    if english and summary:
        first, _nl, rest = summary.strip("\n").partition("\n")
        return first.strip("* ").rstrip("."), rest
    chinese = "\n".join(line for line in chinese.split("\n")
                        if not line.startswith("English summary:"))
    return title.lstrip("# ").strip(), chinese


@functools.cache
def guide_html(image_url: str, english: bool = False) -> tuple[str, str]:
    """(title, HTML) of the guide; `image_url` is the image view's URL with a "NAME" slot."""
    title, body = guide_parts(GUIDE.read_text(encoding="utf-8"), english)
    body = re.sub(r"\]\(img/([a-z0-9-]+\.png)\)",
                  lambda m: "](" + image_url.replace("NAME", m.group(1)) + ")", body)
    return title, MarkdownIt("commonmark", {"html": False}).enable(
        "table").render(body)


def guide_view(admin_site, request):
    title, html = guide_html(reverse("admin:games_game_guide_image", args=["NAME"]),
                             english=(get_language() or "").startswith("en"))
    return TemplateResponse(request, "admin/games/guide.html", {
        **admin_site.each_context(request), "title": title, "guide": html})


def guide_image(request, name: str):
    if not IMAGE_NAME.fullmatch(name) or not (IMAGES / name).is_file():
        raise Http404
    return FileResponse((IMAGES / name).open("rb"), content_type="image/png")
