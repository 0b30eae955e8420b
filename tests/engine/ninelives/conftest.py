"""The 猫有n条命 engine tests are pure Python: no database, cache or settings.

The project-wide autouse fixture `_fast_and_isolated` (tests/conftest.py) needs
pytest-django's `settings`; overriding it here lets these tests run with `-p no:django`.
"""

import pytest


@pytest.fixture(autouse=True)
def _fast_and_isolated():
    yield
