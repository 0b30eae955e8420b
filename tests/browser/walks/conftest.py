"""What the walks share: pages read in Chinese, limits that a fast walker would trip turned
off, and a folder for the screenshots (var/artifacts/walks/)."""

import pytest


@pytest.fixture(autouse=True)
def _walking(chinese, settings):
    """Chinese pages (django.po compiled afresh); a walker clicks faster than any person, so
    the per-minute limits of sign-in and posting are off."""
    settings.ACCOUNT_RATE_LIMITS = False
    settings.POSTS_PER_MINUTE = 1000
    yield


@pytest.fixture
def shots(artifacts_dir):
    """shots(page, name[, part]): a screenshot under var/artifacts/walks/<name>.png."""
    folder = artifacts_dir / "walks"
    folder.mkdir(parents=True, exist_ok=True)

    def shot(page, name: str, part: str | None = None):
        """The whole page, or only the element `part` (a long page's readable piece)."""
        path = folder / f"{name}.png"
        if part:
            page.locator(part).first.screenshot(path=str(path))
        else:
            page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 1000
        return path

    return shot
