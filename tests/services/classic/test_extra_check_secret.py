"""The police's extra check after checking the poison (seed 003 poison rules 3-4: only the
poison and the police learn the poison was checked). While it runs, every page names the
phase as the night going on ("第1夜"), for every seat, the games list and the anonymous
visitor; a bandit who tries to act is refused without a word about it; the police find the
extra check in their own panel."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from tests.factories.classic import act, fresh, page, pub, seat_text, user_at

pytestmark = pytest.mark.django_db

# 1-based: police 1 5 9, bandits 2 6 10 (10 the ghost), the poison 3.
ROLES = [
    "police",
    "bandit",
    "poison",
    "civilian",
    "police",
    "bandit",
    "civilian",
    "civilian",
    "police",
    "ghost",
    "civilian",
]
POLICE, BANDITS, POISON = [0, 4, 8], [1, 5, 9], 2
LEAKS = ("追加验人", "extra check")


@pytest.fixture
def poison_game(players, gm):
    game = services.create_game(
        name="毒药局",
        ruleset="classic",
        gm=gm,
        seat_count=11,
        config={"fixed_roles": ROLES, "variant_ghost_poison": True},
        durations={
            "night": 600,
            "extra_check": 60,
            "last_words": 60,
            "speech": 30,
            "tie_speech": 30,
            "vote": 15,
            "tie_vote": 15,
        },
    )
    return services.start_game(game_id=game.pk, users=players, seed="poison-web")


def check_the_poison(game):
    """The bandits kill seat 4; the police check the poison: the extra check opens."""
    for b in BANDITS:
        act(game, b, "kill", target=3, pact=BANDITS[0])
    for p in POLICE:
        act(game, p, "check", target=POISON)
    for s in range(11):
        if pub(game)["phase"] != "night":
            break
        try:
            act(game, s, "defer")
        except services.GameError:
            pass
    game = fresh(game)
    assert pub(game)["phase"] == "extra_check"
    return game


def test_the_extra_check_is_named_as_the_night_on_every_page_but_the_police_panel(
    poison_game, client
):
    game = check_the_poison(poison_game)
    for seat in [*BANDITS, POISON, 3, None]:
        for name in ("game-home", "game-act") if seat is not None else ("game-home",):
            html = page(client, game, seat, name)
            assert "第1夜" in html
            assert not [w for w in LEAKS if w in html], (seat, name)
    client.logout()
    listing = client.get(reverse("game-list")).content.decode()
    assert "第1夜" in listing and "追加验人" not in listing
    # A bandit who tries to change the night's choice learns nothing of the check.
    with pytest.raises(services.GameError) as refused:
        act(game, BANDITS[1], "kill", target=6, pact=BANDITS[0])
    assert "追加验人" not in str(refused.value) and "警察" not in str(refused.value)
    # The police see the extra check in their panel and may make it.
    police_page = page(client, game, POLICE[0], "game-act")
    assert "你们验到了毒药：天亮前警察可以再验一人" in police_page
    assert f"验{seat_text(BANDITS[0])}" in police_page
    act(game, POLICE[0], "check", target=BANDITS[0])


def test_the_leak_crawler_holds_the_extra_checks_name_secret_from_all_but_the_police(poison_game):
    from tests.proof import crawl

    game = check_the_poison(poison_game)
    secrets = crawl.Secrets(game, {})

    def phase_secrets(seat):
        viewer = crawl.Viewer(f"seat {seat}", user_at(game, seat), seat)
        return {s.text for s in secrets.for_viewer(viewer, "", "") if "phase" in s.what}

    hidden = {crawl.squash("第1夜 · 追加验人"), crawl.squash("Night 1 · extra check")}
    for seat in [*BANDITS, POISON, 3]:
        assert phase_secrets(seat) == hidden, seat
    assert phase_secrets(POLICE[0]) == set()
