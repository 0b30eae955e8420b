"""The Chinese catalogue with the community_b fragment merged in, for language tests."""

from __future__ import annotations

from pathlib import Path

from tests.ninelives_web.helpers import DJANGO_PO, read_catalog

FRAGMENT = Path(__file__).resolve().parents[2] / "locale" / "zh_Hans" / "LC_MESSAGES" / \
    "community_b.po"


def build_chinese_catalog(directory: Path) -> Path:
    """django.po with the fragment merged in, compiled under `directory`; returns the
    directory to use as LOCALE_PATHS."""
    from babel.messages.mofile import write_mo

    catalog = read_catalog(DJANGO_PO)
    for message in read_catalog(FRAGMENT):
        if not message.id:
            continue
        existing = catalog.get(message.id, context=message.context)
        if existing is None:
            catalog.add(message.id, message.string, context=message.context)
        else:
            existing.string = message.string
    out = directory / "zh_Hans" / "LC_MESSAGES"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "django.mo", "wb") as f:
        write_mo(f, catalog)
    return directory
