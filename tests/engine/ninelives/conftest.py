"""The 猫有n条命 engine tests need no database, cache or settings.

The project-wide autouse fixture `_fast_and_isolated` (tests/conftest.py) needs
pytest-django's `settings`; these tests need none, so it is overridden here. The folder
runs under pytest-django like the whole suite (golden_games.py writes through the
presenters, in Chinese).
"""

import pytest


@pytest.fixture(autouse=True)
def _fast_and_isolated():
    yield
