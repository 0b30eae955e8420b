"""Every rule set's finished game opens on the review pages: a seeded random game played
through the services (the GM ends phases now and then), then the review, each seat's page
and the export, with a bounded number of queries whatever the length of the game."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games import services
from games.engine import registry
from games.engine.prose import fill
from games.models import Event, Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]

MAX_STEPS = 150


def random_game(ruleset: str, users, gm, seed: int) -> tuple[Game, int, list]:
    """Seeded random legal play through the services, its texts in real sentences
    (games/engine/prose.py); aborted if it runs too long. Returns
    the game, the number of steps the service accepted, and the (kind, reason) of each step
    it refused."""
    engine = registry.get(ruleset)
    seats = max(engine.min_seats, min(len(users), engine.max_seats))
    game = services.create_game(name=f"{ruleset}-review", ruleset=ruleset, gm=gm,
                                seat_count=seats)
    game = services.start_game(game_id=game.pk, users=users[:seats], seed=f"review-{seed}")
    rng = random.Random(seed)
    accepted, refused = 0, []
    for _ in range(MAX_STEPS):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        movers = [s for s in game.seats.order_by("number")
                  if engine.legal_actions(game.state, s.number)]
        if not movers or rng.random() < 0.2:
            services.end_phase_now(game_id=game.pk, gm=gm)
            continue
        seat = rng.choice(movers)
        step = fill(rng.choice(engine.legal_actions(game.state, seat.number)), seat.number, rng)
        try:
            services.submit_action(game_id=game.pk, user=seat.user, kind=step["kind"],
                                   params=step["params"])
        except services.GameError as exc:
            # The service's own checks (a vote already cast...) may refuse an offered step;
            # counted, so that a service refusing every step fails the test.
            refused.append((step["kind"], str(exc.message)))
        else:
            accepted += 1
    game.refresh_from_db()
    if not game.is_over:
        services.abort_game(game_id=game.pk, gm=gm, reason="long enough for the test")
        game.refresh_from_db()
    return game, accepted, refused


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["ninelives", "classic", "gold"])
def test_the_review_of_a_random_game_opens_for_every_rule_set(
        ruleset, make_user, client, django_assert_max_num_queries):
    users = [make_user(f"玩家{i}") for i in range(12)]
    gm = make_user("天神乙", staff=True)
    game, accepted, refused = random_game(ruleset, users, gm, seed=7)
    # The steps were the engine's own offers: the service takes most of them (a refusal is a
    # service-only check such as a vote already cast), so the game reviewed was really played.
    assert accepted > len(refused), (accepted, refused[:5])
    with django_assert_max_num_queries(15):
        html = client.get(reverse("game-review", args=[game.pk]) + "?page=1").content.decode()
    assert 'id="timeline"' in html
    for seat in game.seats.all():
        assert client.get(reverse("game-review-seat", args=[game.pk, seat.label])
                          ).status_code == 200
    data = client.get(reverse("game-events-json", args=[game.pk])).json()
    assert len(data["events"]) == Event.objects.filter(game=game).count()
