"""The 谁偷了我的金币 engine tests are pure Python: they need no database, cache or settings.

The project-wide autouse fixture `_fast_and_isolated` (tests/conftest.py) needs
pytest-django's `settings` and clears the Django cache; overriding it here lets these tests
run with `-p no:django`, as the engine must never depend on Django.
"""

import pytest


@pytest.fixture(autouse=True)
def _fast_and_isolated():
    yield
