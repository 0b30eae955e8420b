"""Face-down cards and secret picks reach no other seat: not on a page, not in a message.

Two kinds of check:
1. Non-interference. The same game is played twice, differing only in one seat's secret (its
   pick, or the card it lays face down); every page and message the OTHER players, an
   outsider and an anonymous visitor can reach must be identical in both runs (after
   removing CSRF tokens, random slugs and numbers). The owner's own page must differ, so
   the check can fail.
2. A whole game, page by page: after every step, no seat's pages show another seat's hidden
   card in the panel, nor any sentence of an event addressed to someone else.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from html import unescape

import pytest
import time_machine
from django.db import transaction
from django.test import Client
from django.urls import reverse

from games import selectors, services
from games.engine import registry
from games.engine.gold.rules import CARDS
from games.models import Game
from messaging.models import Message, Thread
from tests.factories.gold import (
    T0,
    act,
    after_deadline,
    assert_hides_others,
    cover_cells,
    fresh,
    pick_all,
    seed_where,
)

pytestmark = pytest.mark.django_db

VOLATILE = [
    (re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'), "csrf"),
    (re.compile(r'data-token="[^"]*"'), "live-token"),  # signed with the time it was made
    (re.compile(r"game-[0-9a-f]{12}"), "game-slug"),
    (re.compile(r"\d+"), "#"),
]


class _Rollback(Exception):
    pass


def normalized(html: str) -> str:
    for pattern, replacement in VOLATILE:
        html = pattern.sub(replacement, html)
    return html


def pages_of(game: Game, user) -> dict[str, str]:
    """Every page about this game that `user` (None: anonymous) can open, and the messages
    of their own conversation in it, normalized."""
    client = Client()
    if user is not None:
        client.force_login(user)
    announcements = Thread.objects.get(board=game.board, key="announcements")
    urls = {"home": reverse("game-home", args=[game.pk]), "board": game.board.get_absolute_url(),
            "announcements": announcements.get_absolute_url(), "list": reverse("game-list")}
    seat = game.seats.filter(user=user).first() if user is not None else None
    if seat is not None:
        urls["act"] = reverse("game-act", args=[game.pk])
        urls["conversation"] = seat.conversation.get_absolute_url()
    out = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, url
        out[name] = normalized(response.content.decode())
    if seat is not None:
        out["messages"] = normalized("\n".join(
            Message.objects.filter(conversation=seat.conversation)
            .order_by("created_at", "id").values_list("body", flat=True)))
    return out


def observed(scenario, secret: str, observers: list, owner) -> tuple[dict, dict]:
    """Run `scenario(secret)` with time frozen, take the pages of every observer and of the
    owner, then roll the whole run back so the next one starts from the same database."""
    seen: dict = {}
    with time_machine.travel(T0 + dt.timedelta(minutes=1), tick=False):
        try:
            with transaction.atomic():
                game = scenario(secret)
                seen["observers"] = {i: pages_of(game, u) for i, u in enumerate(observers)}
                seen["owner"] = pages_of(game, owner)
                raise _Rollback
        except _Rollback:
            pass
    return seen["observers"], seen["owner"]


def assert_only_the_owner_can_tell(scenario, secrets: tuple[str, str], gold_players,
                                   outsider) -> None:
    observers = [gold_players[0], gold_players[2], outsider, None]
    first, own_first = observed(scenario, secrets[0], observers, gold_players[1])
    second, own_second = observed(scenario, secrets[1], observers, gold_players[1])
    assert own_first != own_second, "the secret never reached its owner: a useless check"
    for i in first:
        for page in first[i]:
            assert first[i][page] == second[i][page], (
                f"observer {i} can tell the secret apart on {page}")


@pytest.fixture
def outsider(make_user):
    return make_user("路人")


def test_a_secret_pick_is_invisible_to_everyone_else(start_gold, gold_players, outsider):
    def scenario(card):
        game = start_gold(seed="secrecy-pick")
        act(game, 0, "pick", card="KILLER")
        act(game, 1, "pick", card=card)
        return fresh(game)

    assert_only_the_owner_can_tell(scenario, ("ASSASSIN", "THIEF"), gold_players, outsider)


def test_a_swapped_face_down_card_is_invisible_to_everyone_else(start_gold, gold_players,
                                                                  outsider):
    seed, picks = seed_where(3, lambda s: not any(s))
    others = [c for c in CARDS if c != picks[1]]

    def scenario(card):
        game = pick_all(start_gold(seed=seed), picks)
        act(game, 0, "keep")
        act(game, 1, "swap", card=card)
        game = fresh(game)
        assert game.state["public"]["turn"] == 2  # seat 3 could now flip it
        return game

    assert_only_the_owner_can_tell(scenario, tuple(others), gold_players, outsider)


def test_a_card_laid_on_a_virtual_player_is_invisible_to_everyone_else(
        start_gold, gold_players, outsider):
    seed, picks = seed_where(3, lambda s: not any(s))
    others = [c for c in CARDS if c != picks[1]]

    def scenario(card):
        game = pick_all(start_gold(seed=seed), picks)
        act(game, 0, "keep")
        act(game, 1, "replace", card=card, virtual=2)
        return fresh(game)

    assert_only_the_owner_can_tell(scenario, tuple(others), gold_players, outsider)


def check_pages_of_every_seat(game: Game, names) -> int:
    """Open every seat's pages and check each (see `assert_hides_others`); return how many
    hidden cards were checked."""
    return sum(assert_hides_others(html, game, seat.number, names)
               for seat in game.seats.all() for html in pages_raw(game, seat.user).values())


def pages_raw(game: Game, user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    seat = game.seats.get(user=user)
    thread = Thread.objects.get(board=game.board, key="announcements")
    urls = {"act": reverse("game-act", args=[game.pk]),
            "home": reverse("game-home", args=[game.pk]),
            "announcements": thread.get_absolute_url(),
            "conversation": seat.conversation.get_absolute_url()}
    return {name: unescape(client.get(url).content.decode()) for name, url in urls.items()}


def test_no_page_of_a_whole_game_shows_another_seats_hidden_card(start_gold):
    """Three rounds with random choices (swaps and replacements favoured); every seat's pages
    are checked after every step."""
    game = start_gold(seed="secrecy-whole", lead=None)
    engine = registry.get("gold")
    names = selectors.seat_names(game)
    rng = random.Random(3)
    hidden = 0
    while fresh(game).status == Game.Status.RUNNING:
        seq = game.current_phase.seq
        for number in sorted(engine.phase(game.state).awaiting):
            choices = engine.legal_actions(fresh(game).state, number)
            covering = [c for c in choices if c.kind in ("swap", "replace")]
            if rng.random() < 0.1:
                continue
            choice = rng.choice(covering if covering and rng.random() < 0.7 else choices)
            act(game, number, choice.kind, **choice.params)
            hidden += check_pages_of_every_seat(fresh(game), names)
        game = fresh(game)
        if game.status == Game.Status.RUNNING and game.current_phase.seq == seq:
            services.sweep(now=after_deadline(game))
    assert hidden >= 6, "too few face-down cards were hidden to make this check meaningful"
    # once judged, every face-down card of the last round is turned up in every panel
    game = fresh(game)
    assert game.status == Game.Status.FINISHED
    for seat in game.seats.all():
        cells = cover_cells(pages_raw(game, seat.user)["act"])
        assert all("?" not in cover for _shown, cover in cells.values())
