"""Engine tests are pure Python: no database, cache or Django settings.

Overrides the project-wide autouse fixture of tests/conftest.py (which needs pytest-django's
`settings`), so these tests also run with `-p no:django`.
"""

import pytest


@pytest.fixture(autouse=True)
def _fast_and_isolated():
    yield
