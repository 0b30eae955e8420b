"""Builders and readers the tests share, one module per rule set (the fixtures that use them
are in tests/conftest.py):

    toy.py        the toy rule set's game (tests/toy.py) played through the services
    ninelives.py  a 猫有n条命 game with a fixed deal; the msgids its presentation uses
    classic.py    an eleven-seat Classic game with a fixed deal; what a page may reveal
    gold.py       a 谁偷了我的金币 game; secrecy checks of a seat's page; engine-only play
    chinese.py    what a Chinese page may show (the admin's and the players' crawls), and
                  games of any rule set played with random legal steps and Chinese texts

Here: what every rule set's tests use (a fresh row, a seat's user, the Chinese catalogue).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DJANGO_PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def fresh(game):
    game.refresh_from_db()
    return game


def user_of(game, number: int):
    """The user in seat `number` (0-based, as the engine counts)."""
    return game.seats.get(number=number).user


def read_catalog(path: Path = DJANGO_PO):
    """A .po file as a Babel catalogue."""
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        return read_po(f, locale="zh_Hans")


def build_chinese_catalog(directory: Path) -> Path:
    """django.po compiled under `directory` (so a stale django.mo cannot change what the
    tests read); returns the directory to use as LOCALE_PATHS."""
    from babel.messages.mofile import write_mo

    catalog = read_catalog(DJANGO_PO)
    out = directory / "zh_Hans" / "LC_MESSAGES"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "django.mo", "wb") as f:
        write_mo(f, catalog)
    return directory
