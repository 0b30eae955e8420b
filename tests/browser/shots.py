"""Screenshots only when asked: `SCREENSHOTS=1` in the environment (docs/operations.md
"Tests"). The browser tests' pictures prove nothing by themselves (what a page must show, the
tests assert); they are for people to look at: the guide's pictures, a page at 390 px. A run
without SCREENSHOTS=1 takes none and spends no time on them. A test whose pictures the docs
use (the GM's walk, docs/gm-guide.md) asks for them itself with the `docs_screenshots`
fixture (tests/browser/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path


def wanted() -> bool:
    return os.environ.get("SCREENSHOTS") == "1"


def screenshot(target, path: str | Path, **options) -> Path | None:
    """`target.screenshot(path=path, **options)` (a Playwright page or locator) when
    SCREENSHOTS=1, and the file it wrote; otherwise nothing, and None. A locator's screenshot
    waits for its element to be shown: without one the element is still waited for, so a
    test reads the same with or without pictures."""
    from playwright.sync_api import Locator

    if not wanted():
        if isinstance(target, Locator):
            target.wait_for(state="visible")
        return None
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(path), **options)
    assert path.stat().st_size > 0, path  # a picture was written
    return path
