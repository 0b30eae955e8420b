"""The toy rule set (tests/toy.py) played through the services. Its fixtures (`toy_ruleset`,
`english`, `players`, `gm`, `game`) are in tests/conftest.py; a module that plays it says so
with `pytestmark = pytest.mark.usefixtures("toy_ruleset", ...)`.

The tests read `game.state["secret"]` (the truth) only to decide who plays what."""

from __future__ import annotations

from games import services

# How a process the tests start (a Celery worker) registers the toy: EXTRA_RULESETS names it
# (games.rulesets.register_extra, run by GamesConfig.ready()).
TOY_REGISTRATION = "tests.toy:register"


def seat_user(game, role):
    """The user holding the seat with `role` (wolf/villager) — the test's omniscience."""
    wolf = game.state["secret"]["wolf"]
    for seat in game.seats.order_by("number"):
        if (seat.number == wolf) == (role == "wolf"):
            return seat.user
    raise LookupError(role)


def wolf_seat(toy) -> int:
    return toy.state["secret"]["wolf"]


def night_kill(toy):
    """The wolf kills the first other seat; the night ends early. Returns the fresh toy."""
    wolf = seat_user(toy, "wolf")
    target = next(n for n in range(toy.seat_count) if n != wolf_seat(toy))
    services.submit_action(game_id=toy.pk, user=wolf, kind="kill", params={"target": target})
    toy.refresh_from_db()
    return toy


def finish(toy):
    """Night: the wolf kills; day: every living seat votes the wolf out (the wolf votes for
    someone else): the village wins. Returns the fresh, finished toy."""
    return vote_out_the_wolf(night_kill(toy))


def vote_out_the_wolf(toy):
    """Day: every living seat votes the wolf out (the wolf votes for someone else): the
    village wins. Returns the fresh, finished toy."""
    wolf = wolf_seat(toy)
    for seat in toy.seats.filter(alive=True).order_by("number"):
        target = wolf if seat.number != wolf else next(
            s.number for s in toy.seats.filter(alive=True) if s.number != wolf)
        services.submit_action(game_id=toy.pk, user=seat.user, kind="vote",
                               params={"target": target})
    toy.refresh_from_db()
    assert toy.status == toy.Status.FINISHED, toy.status
    return toy


def open_to_outsiders(game):
    """`game` lets any signed-in outsider watch (the GM's choice, risk accepted: the toy's
    roles never change, as Classic's)."""
    from games.models import Game

    Game.objects.filter(pk=game.pk).update(outsiders=Game.Outsiders.OPEN,
                                           watch_risk_accepted=True)
    game.outsiders, game.watch_risk_accepted = Game.Outsiders.OPEN, True
    return game
