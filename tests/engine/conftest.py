"""Engine tests need no database and no cache.

Overrides the project-wide autouse fixture of tests/conftest.py (which needs pytest-django's
`settings` and clears the cache). The engine itself never imports Django
(test_engine_purity.py); the folder runs under pytest-django like the whole suite, and the
golden playthroughs (golden.py, each rule set's golden_games.py) use its settings and
translations to write through the presenters, in Chinese, with no database.
"""

import pytest


@pytest.fixture(autouse=True)
def _fast_and_isolated():
    yield
