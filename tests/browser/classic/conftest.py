"""Classic's eleven named players and its game replace the toy's five here; every sentence
is read in Chinese (tests/factories/classic.py)."""

from tests.factories.classic import game, players, zh_catalogue  # noqa: F401
