import pytest

from games.engine import registry


@pytest.fixture(autouse=True)
def toy_and_english(monkeypatch):
    from django.utils import translation

    monkeypatch.setitem(registry.RULESETS, "toy", "tests.service.toy:Toy")
    registry.get.cache_clear()
    with translation.override("en"):
        yield
    registry.get.cache_clear()


@pytest.fixture
def gm(make_user):
    return make_user("天神丙", staff=True)


@pytest.fixture
def crowd(make_user):
    return [make_user(f"玩家{i}") for i in range(8)]
