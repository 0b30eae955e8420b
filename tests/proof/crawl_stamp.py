"""When the leak crawl at every phase runs (tests/proof/test_leak_crawler.py, "full").

The suite crawls a few chosen moments of each game on every run. The crawl at every phase,
with every seat and every id, takes minutes: it runs when asked (`make crawl`, which sets
CRAWL=full) and whenever the files that shape pages differ from those it last passed on.
`make crawl` writes the digest of those files to `full_crawl.stamp` once it has passed
(`python -m tests.proof.crawl_stamp`); the stamp is committed, so a change to a page whose
author did not run `make crawl` is crawled in full by the suite (in CI too) until someone
does. Standard library only: the Makefile runs it without Django.
"""

from __future__ import annotations

import hashlib
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
STAMP = pathlib.Path(__file__).with_name("full_crawl.stamp")

# What a viewer's pages are made of: templates, views, the reads behind them (selectors,
# the forum's reading rules and page caches), the sentences (presenters), the URLs, and the
# crawler itself. Folders are read whole (Python and templates; no caches).
PAGE_FILES = (
    "templates/",
    "games/web/", "games/selectors/", "games/presenters/",
    "games/templatetags/", "games/admin/", "games/urls.py", "games/community_urls.py",
    "messaging/views.py", "messaging/rules.py", "messaging/profile.py",
    "messaging/blocks.py", "messaging/context_processors.py", "messaging/templatetags/",
    "messaging/urls.py",
    "accounts/views.py", "accounts/urls.py", "accounts/profile_sections.py",
    "accounts/templatetags/",
    "config/urls.py",
    "tests/proof/crawl.py", "tests/proof/test_leak_crawler.py",
)
SUFFIXES = (".py", ".html", ".txt", ".xml", ".json")


def page_files(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    out = []
    for entry in PAGE_FILES:
        path = root / entry
        if entry.endswith("/"):
            out += [p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES
                    and "__pycache__" not in p.parts]
        elif path.is_file():
            out.append(path)
    return sorted(set(out))


def digest(root: pathlib.Path = ROOT) -> str:
    """SHA-256 over each page file's path and bytes, in path order."""
    h = hashlib.sha256()
    for path in page_files(root):
        data = path.read_bytes()
        h.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def recorded(stamp: pathlib.Path = STAMP) -> str | None:
    """The digest the last passing full crawl wrote, or None."""
    if not stamp.exists():
        return None
    lines = [s.strip() for s in stamp.read_text().splitlines()]
    return next((s for s in lines if s and not s.startswith("#")), None)


def full_crawl_due(root: pathlib.Path = ROOT, stamp: pathlib.Path = STAMP) -> str | None:
    """Why the full crawl must run now, or None when it need not."""
    if os.environ.get("CRAWL") == "full":
        return "asked for (CRAWL=full, make crawl)"
    if recorded(stamp) != digest(root):
        return "the files that shape pages changed since the last full crawl (make crawl)"
    return None


def write(root: pathlib.Path = ROOT, stamp: pathlib.Path = STAMP) -> str:
    value = digest(root)
    stamp.write_text("# The digest of the files that shape pages (tests/proof/crawl_stamp.py)"
                     " when the full\n# leak crawl last passed; written by `make crawl`.\n"
                     f"{value}\n")
    return value


if __name__ == "__main__":
    print(f"{STAMP.relative_to(ROOT)}: {write()}")
