"""Win rates at creation: the simulator's figures per camp, by a Celery task on the slow
queue, cached per setup, one simulation per setup at a time, its progress shown, and a
setup the rules refuse answered with their reason and nothing queued."""

import threading

import pytest
from django.core.cache import cache

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


@pytest.fixture
def sent(monkeypatch):
    """What the broker was given (nothing reaches a worker)."""
    messages = []
    monkeypatch.setattr(winrates.current_app, "send_task",
                        lambda name, kwargs, **options: messages.append((name, kwargs)))
    return messages


def test_the_task_computes_and_caches_each_camps_rate_with_its_interval(eager, few_games):
    answer = winrates.estimate(ruleset="ninelives", seats=5, config={})
    assert answer["status"] == "ready"
    figures = answer["figures"]
    assert figures["games"] == 20
    shares = {camp: rate for camp, rate in figures["camps"].items()}
    assert set(shares) >= {"civilian", "killer", "wolf"}
    for share, low, high in shares.values():
        assert 0 <= low <= share <= high <= 1
    assert sum(share for share, _lo, _hi in shares.values()) == pytest.approx(1)
    assert cache.get(winrates.key("ninelives", 5, {})) == figures


def test_a_cached_setup_is_read_from_the_cache_and_not_simulated_again(eager, few_games,
                                                                        monkeypatch):
    first = winrates.estimate(ruleset="classic", seats=11, config=CLASSIC)
    monkeypatch.setattr(winrates, "compute", lambda **kw: pytest.fail("simulated again"))
    monkeypatch.setattr(winrates, "_play", lambda *a: pytest.fail("simulated again"))
    assert winrates.estimate(ruleset="classic", seats=11, config=CLASSIC) == first
    assert first["status"] == "ready"


def test_each_setup_has_its_own_figures(eager, few_games):
    winrates.estimate(ruleset="classic", seats=11, config=CLASSIC)
    other = {**CLASSIC, "variant_ghost_poison": False}
    assert cache.get(winrates.key("classic", 11, other)) is None
    assert cache.get(winrates.key("classic", 12, CLASSIC)) is None


def test_a_burst_of_polls_queues_the_task_once_and_says_it_is_queued(sent):
    answers = [winrates.estimate(ruleset="ninelives", seats=6, config={}) for _ in range(5)]
    assert sent == [("games.winrates", {"ruleset": "ninelives", "seats": 6, "config": {}})]
    assert {a["status"] for a in answers} == {"queued"}
    assert all(a["waited"] >= 0 for a in answers)


def test_two_requests_at_once_queue_one_task(sent, transactional_db):
    """Two GMs' polls of the same setup at the same moment, in two threads: one message."""
    barrier = threading.Barrier(2)

    def ask():
        from django.db import connection

        barrier.wait()
        winrates.estimate(ruleset="ninelives", seats=6, config={})
        connection.close()

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(sent) == 1


def test_only_one_simulation_of_a_setup_runs_at_a_time(few_games, monkeypatch, sent):
    """A second message for the setup (a redelivery, a request queued again after its wait)
    finds the first run's lock and plays nothing; once the first has stored its figures, a
    later one plays nothing either."""
    played = []
    inside = threading.Event()
    go_on = threading.Event()
    real = winrates._play

    def slow_play(*args):
        played.append(args[:3])
        args[4](0)  # the progress: "running", 0 done
        inside.set()
        assert go_on.wait(10)
        return real(*args)

    monkeypatch.setattr(winrates, "_play", slow_play)
    first = threading.Thread(target=winrates.compute,
                             kwargs={"ruleset": "ninelives", "seats": 5, "config": {}})
    first.start()
    try:
        assert inside.wait(10)
        assert winrates.compute(ruleset="ninelives", seats=5, config={}) is None  # locked out
        assert winrates.estimate(ruleset="ninelives", seats=5, config={})["status"] == "running"
        assert sent == []  # running: not queued again
    finally:
        go_on.set()
        first.join(30)
    assert len(played) == 1
    again = winrates.compute(ruleset="ninelives", seats=5, config={})
    assert again["games"] == 20 and len(played) == 1  # read from the cache


def test_the_progress_shows_games_done_and_the_time_left(few_games, monkeypatch):
    seen = []
    monkeypatch.setattr(winrates, "PROGRESS_EVERY", 5)
    real_set = cache.set

    def spy(k, value, *args, **kwargs):
        if k.endswith(":state") and value.get("status") == "running" and value["done"]:
            seen.append(winrates.estimate(ruleset="classic", seats=11, config=CLASSIC))
        return real_set(k, value, *args, **kwargs)

    monkeypatch.setattr(cache, "set", spy)
    winrates.compute(ruleset="classic", seats=11, config=CLASSIC)
    # The estimate read just before each write shows the write before it.
    assert [s["done"] for s in seen[1:]] == [5, 10]
    assert all(s["status"] == "running" and s["games"] == 20 for s in seen[1:])
    assert all(s["eta"] is not None and s["eta"] >= 0 for s in seen[1:])
    assert winrates.estimate(ruleset="classic", seats=11, config=CLASSIC)["status"] == "ready"


def test_a_failed_simulation_says_so_then_is_asked_again(few_games, monkeypatch, sent):
    def broken(*args):
        raise RuntimeError("simulator exploded")

    monkeypatch.setattr(winrates, "_play", broken)
    with pytest.raises(RuntimeError):
        winrates.compute(ruleset="ninelives", seats=5, config={})
    answer = winrates.estimate(ruleset="ninelives", seats=5, config={})
    assert answer == {"status": "failed", "error": "RuntimeError: simulator exploded"}
    assert sent == []  # not queued again while the failure is shown
    cache.delete(winrates.key("ninelives", 5, {}) + ":state")  # FAILED_TTL has passed
    assert winrates.estimate(ruleset="ninelives", seats=5, config={})["status"] == "queued"
    assert len(sent) == 1


def test_a_setup_the_rules_refuse_is_refused_and_nothing_is_queued(sent, english):
    with pytest.raises(winrates.Refused) as refused:
        winrates.estimate(ruleset="ninelives", seats=99, config={})
    assert "players" in refused.value.message
    with pytest.raises(winrates.Refused):
        winrates.estimate(ruleset="classic", seats=11, config={**CLASSIC, "guardian": "x"})
    assert sent == []
    assert cache.get(winrates.key("ninelives", 99, {}) + ":state") is None


def test_without_the_broker_nothing_is_marked_and_the_next_poll_asks_again(monkeypatch):
    from config import broker

    monkeypatch.setattr(broker, "send", lambda name, kwargs: False)
    assert winrates.estimate(ruleset="ninelives", seats=6, config={}) == {
        "status": "unavailable"}
    assert cache.get(winrates.key("ninelives", 6, {}) + ":state") is None


def test_the_celery_task_fills_the_cache(few_games):
    from games import tasks

    tasks.winrates.apply(kwargs={"ruleset": "ninelives", "seats": 6, "config": {}})
    assert cache.get(winrates.key("ninelives", 6, {}))["games"] == 20


def test_gold_has_no_camps_to_count(sent):
    assert winrates.estimate(ruleset="gold", seats=4, config={"lead": None}) == {
        "status": "none"}
    assert not winrates.supported("gold")
    assert sent == []


# --- the staff-only JSON endpoint the form polls ---------------------------------------------

def test_the_endpoint_answers_queued_running_then_the_figures(client, gm, players, few_games,
                                                              sent):
    from django.urls import reverse

    url = reverse("admin:games_game_winrates")
    query = {"ruleset": "ninelives", "seat_count": 5, "preset_ninelives": "turbo"}
    client.force_login(players[0])
    assert client.get(url, query).status_code == 302  # not staff: the admin's login page
    client.force_login(gm)
    data = client.get(url, query).json()
    assert (data["status"], data["stage"]) == ("pending", "queued")
    assert "Queued" in data["text"] or "排队" in data["text"]
    assert len(sent) == 1
    k = winrates.key("ninelives", 5, {"change_cutoff_minutes": 2})
    import time

    cache.set(k + ":state", {"status": "running", "done": 100, "games": 400,
                             "started": time.time() - 10}, 60)
    data = client.get(url, query).json()
    assert (data["status"], data["stage"], data["done"], data["games"]) == (
        "pending", "running", 100, 400)
    assert 29 <= data["eta"] <= 31
    cache.delete(k + ":state")
    winrates.compute(ruleset="ninelives", seats=5, config={"change_cutoff_minutes": 2})
    data = client.get(url, query).json()
    assert data["status"] == "ready" and data["games"] == 20
    assert all(0 <= c["low"] <= c["share"] <= c["high"] <= 1 for c in data["camps"])
    assert len(data["camps"]) >= 3
    assert len(sent) == 1


def test_the_endpoint_refuses_a_setup_with_the_reasons_and_queues_nothing(client, gm, sent):
    from django.urls import reverse

    client.force_login(gm)
    response = client.get(reverse("admin:games_game_winrates"),
                          {"ruleset": "ninelives", "seat_count": 9})
    assert response.status_code == 400
    data = response.json()
    assert data["status"] == "invalid" and data["errors"] and data["text"]
    assert sent == []


def test_the_add_form_has_the_win_rate_box(client, gm):
    from django.urls import reverse

    client.force_login(gm)
    html = client.get(reverse("admin:games_game_add")).content.decode()
    assert 'id="winrates"' in html and "game_form.js" in html and "<script>" not in html
