"""What the walks share: pages read in Chinese, limits that a fast walker would trip turned
off, a folder for the screenshots (var/artifacts/walks/), and a clock a walk moves instead of
waiting for it."""

import pytest
import time_machine

from tests.browser.shots import screenshot


@pytest.fixture(autouse=True)
def _walking(chinese, settings):
    """Chinese pages (django.po compiled afresh); a walker clicks faster than any person, so
    the per-minute limits of sign-in and posting are off."""
    settings.ACCOUNT_RATE_LIMITS = False
    settings.POSTS_PER_MINUTE = 1000
    yield


@pytest.fixture
def shots(artifacts_dir):
    """shots(page, name[, part]): a screenshot under var/artifacts/walks/<name>.png, taken
    only with SCREENSHOTS=1 (tests/browser/shots.py)."""
    folder = artifacts_dir / "walks"
    folder.mkdir(parents=True, exist_ok=True)

    def shot(page, name: str, part: str | None = None):
        """The whole page, or only the element `part` (a long page's readable piece)."""
        path = folder / f"{name}.png"
        if part:
            return screenshot(page.locator(part).first, path)
        return screenshot(page, path, full_page=True)

    return shot


@pytest.fixture
def move_clock():
    """move_clock(when): from now on the process's clock reads `when` and runs on from there,
    for the test and for the live server alike (its thread is in this process); the real
    clock is back when the test ends. How a walk lets a deadline pass without waiting: move
    past it, then run the sweep the beat runs (`services.sweep()`)."""
    moved = []

    def move(when):
        if moved:
            moved.pop().stop()
        travel = time_machine.travel(when, tick=True)
        travel.start()
        moved.append(travel)

    yield move
    while moved:
        moved.pop().stop()
