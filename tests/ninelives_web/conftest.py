"""A 猫有n条命 game run through games.services with a fixed deal and named players.

The tests read `game.state` (the truth) only to decide what to play and what must not leak;
every check of what a player sees goes through a message, an announcement or a page.
"""

from __future__ import annotations

import datetime as dt

import pytest

from games import services
from games.models import Game
from messaging.models import Message, Thread
from tests.engine.ninelives.deals import FIVE, SIX

DURATIONS = {"night": 24 * 60, "day": 24 * 60, "runoff": 12 * 60}
NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花", "大黄"]
MANIFESTO = "夜色如墨，屋顶上的猫数着自己剩下的命，风从巷口吹来。" * 5  # 130 characters


@pytest.fixture
def nl_players(make_user):
    return [make_user(name) for name in NAMES]


@pytest.fixture
def nl_gm(make_user):
    return make_user("天神丙", staff=True)


@pytest.fixture
def start_ninelives(nl_players, nl_gm):
    """start_ninelives(deal=FIVE) -> a running game dealt `deal` (seat i = NAMES[i]), started
    now: pages post through the real clock, so the deadlines must lie ahead of it."""

    def start(*, deal: dict = FIVE, now: dt.datetime | None = None) -> Game:
        players = deal["players"]
        g = services.create_game(name="九命局", ruleset="ninelives", gm=nl_gm,
                                 seat_count=players, config={"players": players, "deal": deal},
                                 durations=dict(DURATIONS))
        return services.start_game(game_id=g.pk, users=nl_players[:players],
                                   seed="nl-web", now=now)

    return start


@pytest.fixture
def chinese(settings, tmp_path):
    """The Chinese catalogue (django.po) compiled afresh; changing LOCALE_PATHS makes Django
    reload its translations."""
    from .helpers import build_chinese_catalog

    settings.LOCALE_PATHS = [build_chinese_catalog(tmp_path)]
    settings.LANGUAGE_CODE = "zh-hans"
    yield


# --- small helpers -------------------------------------------------------------------------

def fresh(game: Game) -> Game:
    game.refresh_from_db()
    return game


def user_of(game: Game, number: int):
    return game.seats.get(number=number).user


def act(game: Game, number: int, kind: str, now: dt.datetime | None = None, **params):
    """Seat `number` submits a step through the service, well before the deadline."""
    game = fresh(game)
    when = now or game.current_phase.started_at + dt.timedelta(minutes=1)
    return services.submit_action(game_id=game.pk, user=user_of(game, number), kind=kind,
                                  params=params, now=when)


def conversation(game: Game, number: int) -> str:
    """Every message 神的使者 and the seat exchanged in the seat's conversation, in order."""
    seat = game.seats.get(number=number)
    return "\n".join(Message.objects.filter(conversation=seat.conversation)
                     .order_by("created_at", "id").values_list("body", flat=True))


def announcements(game: Game) -> list[str]:
    thread = Thread.objects.get(board=game.board, key="announcements")
    return list(thread.posts.order_by("id").values_list("body", flat=True))


def default_orders(deal: dict) -> dict[int, list[str]]:
    """For each non-free-agent seat: its hand with the first card of its camp moved last."""
    from games.engine.ninelives.cards import camp_of

    orders = {}
    for seat, entry in enumerate(deal["seats"]):
        if entry["camp"] == "free_agent":
            continue
        core = next(c for c in entry["cards"] if camp_of(c) == entry["camp"])
        orders[seat] = [c for c in entry["cards"] if c != core] + [core]
    return orders


__all__ = ["FIVE", "SIX", "MANIFESTO", "fresh", "user_of", "act", "conversation",
           "announcements", "default_orders"]
