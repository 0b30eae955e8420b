"""The 谁偷了我的金币 engine tests need no database, cache or settings.

The project-wide autouse fixture `_fast_and_isolated` (tests/conftest.py) needs
pytest-django's `settings` and clears the Django cache; these tests need neither, so it is
overridden here. The engine never depends on Django (tests/engine/test_engine_purity.py);
the folder runs under pytest-django like the whole suite (golden_games.py writes through
the presenters, in Chinese).
"""

import pytest


@pytest.fixture(autouse=True)
def _fast_and_isolated():
    yield
