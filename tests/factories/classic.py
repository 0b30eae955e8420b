"""Classic played through the service: eleven named players with a fixed deal (fixtures
`players`, `game`, `zh_catalogue`, which the Classic folders' conftest.py import), helpers to
act as a seat and to check what a page reveals. Every sentence is read in Chinese, as the
players see it (the UI is Chinese by default); the GM is tests/conftest.py's `gm`.

The table (seats from 1, as players see them):

    1 阿猫 police    2 阿狗 bandit    3 小白 civilian  4 老黑 civilian
    5 花花 police    6 大黄 bandit    7 小红 civilian  8 阿青 civilian
    9 木木 police   10 豆豆 bandit   11 球球 civilian

In the code seats are 0-based like the engine's: POLICE = [0, 4, 8], BANDITS = [1, 5, 9].
"""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
from django.urls import reverse

from games import services
from messaging.models import Message, Thread
from tests.factories import DJANGO_PO, fresh, read_catalog, user_of

NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花", "大黄", "小红", "阿青", "木木", "豆豆", "球球"]
CARDS = {"P": "police", "B": "bandit", "C": "civilian"}
DEAL = "PBCCPBCCPBC"
POLICE = [s for s, c in enumerate(DEAL) if c == "P"]
BANDITS = [s for s, c in enumerate(DEAL) if c == "B"]
CIVILIANS = [s for s, c in enumerate(DEAL) if c == "C"]
# Phase lengths in minutes: a night, then short per-speaker and per-voter slots.
DURATIONS = {"night": 600, "extra_check": 60, "last_words": 60, "speech": 30,
             "tie_speech": 30, "vote": 15, "tie_vote": 15}
ROLE_ZH = {"police": "警", "bandit": "匪", "civilian": "民"}
# Where Classic's own messages come from (makemessages writes these as the entries' locations).
CLASSIC_SOURCES = {"games/presenters/classic.py", "templates/games/panels/classic.html"}


def read_catalogue():
    """The Chinese catalogue (django.po) as a Babel catalogue."""
    return read_catalog(DJANGO_PO)


def classic_entries(catalogue):
    """The catalogue's entries that Classic's presenter or panel use (by their locations)."""
    return [m for m in catalogue if m.id and any(f in CLASSIC_SOURCES for f, _ in m.locations)]


# --- fixtures of the Classic folders (their conftest.py imports them) ----------------------

@pytest.fixture(autouse=True)
def zh_catalogue(settings):
    """Every sentence is read as the players see it: in Chinese (the catalogue is compiled
    afresh for the run: tests/conftest.py)."""
    settings.LANGUAGE_CODE = "zh-hans"
    yield


@pytest.fixture
def players(make_user):
    """The eleven players of the table above (the toy's five are their first five)."""
    return [make_user(name) for name in NAMES]


def new_game(players, gm, **options) -> object:
    config = {"fixed_roles": [CARDS[c] for c in DEAL], **options}
    game = services.create_game(name="经典局", ruleset="classic", gm=gm, seat_count=len(players),
                                config=config, durations=DURATIONS)
    return services.start_game(game_id=game.pk, users=players, seed="classic-web")


@pytest.fixture
def game(players, gm):
    return new_game(players, gm)


# --- acting and reading ---------------------------------------------------------------------

user_at = user_of  # Classic's tests say "seat": the user at seat `seat` (0-based)


def act(game, seat: int, kind: str, **params):
    return services.submit_action(game_id=game.pk, user=user_at(game, seat), kind=kind,
                                  params=params)


def pub(game) -> dict:
    return fresh(game).state["public"]


def current(game) -> int:
    """The seat whose speech or vote slot it is."""
    p = pub(game)
    return p["queue"][p["turn"]]


def time_out(game) -> None:
    """Let the current phase's deadline pass: the sweeper ends it as the clock would."""
    game = fresh(game)
    later = game.deadline + services.grace() + dt.timedelta(seconds=1)
    assert services.sweep(now=later) == 1


def night_one(game, victim: int = 2, checked: int = 5) -> None:
    """The bandits kill `victim` (two propose, one goes with the team); the police check
    `checked` (two propose, one goes with the team). Everyone answered: the night ends."""
    act(game, BANDITS[0], "kill", target=victim)
    act(game, BANDITS[1], "kill", target=victim)
    act(game, BANDITS[2], "defer")
    act(game, POLICE[0], "check", target=checked)
    act(game, POLICE[1], "check", target=checked)
    act(game, POLICE[2], "defer")


def speak_all(game, silent: tuple[int, ...] = ()) -> list[int]:
    """Every speaker of the current speech phase speaks in turn (or times out); returns the
    order in which they were called."""
    order = []
    while pub(game)["phase"] in ("speech", "tie_speech"):
        seat = current(game)
        order.append(seat)
        if seat in silent:
            time_out(game)
        else:
            act(game, seat, "speak", text=f"我是{NAMES[seat]}，我是好人。")
    return order


def vote_all(game, ballot: dict[int, int | None], silent: tuple[int, ...] = ()) -> list[int]:
    """Each voter in turn votes as `ballot` says (None: abstain; in `silent`: times out)."""
    order = []
    while pub(game)["phase"] in ("vote", "tie_vote"):
        seat = current(game)
        order.append(seat)
        if seat in silent:
            time_out(game)
        elif ballot.get(seat) is None:
            act(game, seat, "abstain")
        else:
            act(game, seat, "vote", target=ballot[seat])
    return order


def conversation(game, seat: int) -> str:
    """Everything 神的使者 told this seat, oldest first."""
    conv = game.seats.get(number=seat).conversation
    return "\n\n".join(m.body for m in Message.objects.filter(conversation=conv,
                                                             from_messenger=True))


def announcements(game) -> str:
    thread = Thread.objects.get(board=game.board, key="announcements")
    return "\n\n".join(p.body for p in thread.posts.order_by("id"))


def seat_text(seat: int) -> str:
    """How a seat is written in the Chinese sentences: "6号大黄"."""
    return f"{seat + 1}号{NAMES[seat]}"


def page(client, game, seat: int | None, name: str = "game-act") -> str:
    """The page as the seat's player (None: an anonymous visitor) reads it, unescaped."""
    client.logout()
    if seat is not None:
        client.force_login(user_at(game, seat))
    response = client.get(reverse(name, args=[game.pk]))
    assert response.status_code == 200
    return unescape(response.content.decode())


IDENTITY = re.compile(r'data-seat="(\d+)" data-role="([a-z_]+)"')


def identities(html: str) -> set[tuple[int, str]]:
    """Every (seat, role) the page shows as an identity (the panel marks each one)."""
    return {(int(s), r) for s, r in IDENTITY.findall(html)}


def reveals(text: str, seat: int, role: str) -> bool:
    """Does `text` state that `seat` holds `role`, in the ways the sentences write it
    ("6号大黄是**匪**", "6号大黄：匪")?"""
    pattern = re.escape(seat_text(seat)) + r"[是：:\s*（(]{1,4}" + re.escape(ROLE_ZH[role])
    return re.search(pattern, text) is not None


def role_of(seat: int) -> str:
    return CARDS[DEAL[seat]]


def known(seat: int, *, checks=(), revealed=()) -> set[tuple[int, str]]:
    """What `seat` may know in the plain game: its card, its team, the police's checks, and
    the identities death announcements revealed."""
    out = {(seat, role_of(seat)), *revealed}
    if seat in POLICE:
        out |= {(s, "police") for s in POLICE} | set(checks)
    if seat in BANDITS:
        out |= {(s, "bandit") for s in BANDITS}
    return out


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def assert_hides(html: str, allowed: set[tuple[int, str]]) -> None:
    """No identity outside `allowed`, marked or written, and no raw engine state."""
    shown = identities(html)
    assert shown <= allowed, shown - allowed
    text = text_of(html)
    for seat in range(11):
        if (seat, role_of(seat)) not in allowed:
            assert not reveals(text, seat, role_of(seat)), (seat, role_of(seat))
    assert '"secret"' not in html and '"roles"' not in html and '"private"' not in html
