"""Win rates at creation: the simulator's figures per camp, by a Celery task, cached per setup."""

import pytest

from games.services import winrates

pytestmark = [pytest.mark.django_db]

CLASSIC = {"variant_ghost_poison": True, "guardian": False, "dual_guardians": False,
           "all_civilians_dead": "seed", "fixed_roles": None}


@pytest.fixture
def eager(eager_email):
    """Celery runs tasks at once (conftest's eager_email sets task_always_eager)."""


@pytest.fixture
def few_games(monkeypatch):
    monkeypatch.setattr(winrates, "GAMES", 20)
    monkeypatch.setattr(winrates.compute, "__kwdefaults__", {"games": 20})


def test_the_task_computes_and_caches_each_camps_rate_with_its_interval(eager, few_games):
    figures = winrates.request(ruleset="ninelives", seats=5, config={})
    assert figures["games"] == 20
    shares = {camp: rate for camp, rate in figures["camps"].items()}
    assert set(shares) >= {"civilian", "killer", "wolf"}
    for share, low, high in shares.values():
        assert 0 <= low <= share <= high <= 1
    assert sum(share for share, _lo, _hi in shares.values()) == pytest.approx(1)
    from django.core.cache import cache
    assert cache.get(winrates.key("ninelives", 5, {})) == figures


def test_a_cached_setup_is_not_simulated_again(eager, few_games, monkeypatch):
    first = winrates.request(ruleset="classic", seats=11, config=CLASSIC)
    monkeypatch.setattr(winrates, "compute", lambda **kw: pytest.fail("simulated again"))
    assert winrates.request(ruleset="classic", seats=11, config=CLASSIC) == first


def test_each_setup_has_its_own_figures(eager, few_games):
    winrates.request(ruleset="classic", seats=11, config=CLASSIC)
    other = {**CLASSIC, "variant_ghost_poison": False}
    from django.core.cache import cache
    assert cache.get(winrates.key("classic", 11, other)) is None
    assert cache.get(winrates.key("classic", 12, CLASSIC)) is None


def test_without_eager_celery_the_task_is_queued_once_and_the_answer_is_pending(monkeypatch):
    sent = []
    monkeypatch.setattr(winrates.current_app, "send_task",
                        lambda name, kwargs, **options: sent.append((name, kwargs)))
    assert winrates.request(ruleset="ninelives", seats=6, config={}) is None
    assert winrates.request(ruleset="ninelives", seats=6, config={}) is None
    assert sent == [("games.winrates", {"ruleset": "ninelives", "seats": 6, "config": {}})]


def test_the_celery_task_fills_the_cache(few_games):
    from games import tasks

    tasks.winrates.apply(kwargs={"ruleset": "ninelives", "seats": 6, "config": {}})
    from django.core.cache import cache
    assert cache.get(winrates.key("ninelives", 6, {}))["games"] == 20


def test_gold_has_no_camps_to_count():
    assert winrates.request(ruleset="gold", seats=4, config={"lead": None}) is None
    assert not winrates.supported("gold")


# --- the staff-only JSON endpoint the form polls ---------------------------------------------

def test_the_endpoint_answers_pending_then_the_figures(client, gm, players, few_games,
                                                       monkeypatch):
    from django.urls import reverse

    url = reverse("admin:games_game_winrates")
    query = {"ruleset": "ninelives", "seat_count": 5, "preset_ninelives": "turbo"}
    client.force_login(players[0])
    assert client.get(url, query).status_code == 302  # not staff: the admin's login page
    client.force_login(gm)
    monkeypatch.setattr(winrates.current_app, "send_task", lambda name, kwargs, **o: None)
    assert client.get(url, query).json()["status"] == "pending"
    winrates.compute(ruleset="ninelives", seats=5, config={"change_cutoff_minutes": 2})
    data = client.get(url, query).json()
    assert data["status"] == "ready" and data["games"] == 20
    assert all(0 <= c["low"] <= c["share"] <= c["high"] <= 1 for c in data["camps"])
    assert len(data["camps"]) >= 3
    assert client.get(url, {"ruleset": "ninelives", "seat_count": 9}).status_code == 400


def test_the_add_form_has_the_win_rate_box(client, gm):
    from django.urls import reverse

    client.force_login(gm)
    html = client.get(reverse("admin:games_game_add")).content.decode()
    assert 'id="winrates"' in html and "game_form.js" in html and "<script>" not in html
