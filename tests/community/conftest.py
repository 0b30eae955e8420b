import pytest

from tests.service import toy


@pytest.fixture(autouse=True)
def toy_and_english():
    from django.utils import translation

    toy.register()
    with translation.override("en"):
        yield
    toy.unregister()


@pytest.fixture
def gm(make_user):
    return make_user("天神丙", staff=True)


@pytest.fixture
def crowd(make_user):
    return [make_user(f"玩家{i}") for i in range(8)]
