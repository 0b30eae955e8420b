import pytest

from tests.service import toy


@pytest.fixture(autouse=True)
def toy_ruleset():
    """Register the toy rule set for the lifecycle tests."""
    toy.register()
    yield
    toy.unregister()


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ["阿猫", "阿狗", "小白", "老黑", "花花"]]


@pytest.fixture
def gm(make_user):
    return make_user("天神甲", staff=True)


@pytest.fixture
def game(players, gm):
    from games import services

    g = services.create_game(name="测试局", ruleset="toy", gm=gm, seat_count=5,
                             durations={"night": 60, "day": 60})
    return services.start_game(game_id=g.pk, users=players, seed="fixed-seed")


def seat_user(game, role):
    """The user holding the seat with `role` (wolf/villager) — the test's omniscience."""
    wolf = game.state["secret"]["wolf"]
    for seat in game.seats.order_by("number"):
        if (seat.number == wolf) == (role == "wolf"):
            return seat.user
    raise LookupError(role)


@pytest.fixture(autouse=True)
def english_messages():
    """These tests match the services' English sentences (the Chinese is tested elsewhere)."""
    from django.utils import translation

    with translation.override("en"):
        yield
