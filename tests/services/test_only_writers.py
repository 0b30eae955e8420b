"""The services are the only writers: what follows from a change (the game's page version,
its change-feed event, the reminder sweep's next look) is written by the service that made
the change, in its transaction, never by the database or by a model's side effect.

1. The database has no triggers of the games app (games 0024 dropped those of games 0015
   and 0017).
2. No model of games/ or messaging/ overrides save() or delete() (a save that writes other
   rows is a writer nobody sees).
3. No project receiver listens to a model's save or delete signals.
4. Each service entry point that changes what a game's pages show moves its page version
   and publishes it on the change feed once its transaction commits (config/feed.py),
   with `what="phase"` when the phase or the status changed.
"""

from __future__ import annotations

import ast
import datetime as dt
import pathlib
import weakref

import pytest
from django.conf import settings
from django.db import connection
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.urls import reverse

from config import feed
from games import services
from games.models import Announcement, Game, ReminderLook
from games.web.pages import parts_key
from tests.factories.toy import seat_user

ROOT = pathlib.Path(settings.BASE_DIR)
PROJECT = ("games", "messaging", "accounts", "config")


# --- 1. no triggers ----------------------------------------------------------------------------

def triggers() -> list[tuple[str, str, str]]:
    """(table, trigger, function) of every trigger not made by PostgreSQL itself (foreign
    keys' are internal)."""
    with connection.cursor() as cursor:
        cursor.execute("""
            SELECT c.relname, t.tgname, p.proname FROM pg_trigger t
              JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
             WHERE NOT t.tgisinternal ORDER BY 1, 2""")
        return cursor.fetchall()


@pytest.mark.django_db
def test_the_database_has_no_triggers_of_the_games():
    """Neither on the games' tables nor a games_ function on anyone's (the page version's
    triggers sat on messaging's threads and boards, profiles and users too). The forum's
    own triggers (messaging 0007-0009) are the forum's writers' to replace."""
    found = [t for t in triggers() if t[0].startswith("games_") or t[2].startswith("games_")]
    assert found == []


@pytest.mark.django_db
def test_the_trigger_check_sees_a_trigger():
    with connection.cursor() as cursor:
        cursor.execute("""
            CREATE FUNCTION games_canary() RETURNS trigger AS $$
            BEGIN RETURN NEW; END $$ LANGUAGE plpgsql;
            CREATE TRIGGER games_canary BEFORE UPDATE ON games_game
                FOR EACH ROW EXECUTE FUNCTION games_canary();""")
    assert ("games_game", "games_canary", "games_canary") in triggers()


# --- 2. no save() that writes ------------------------------------------------------------------

def overrides(path: pathlib.Path) -> list[str]:
    """Class.method for each save() or delete() a class of `path` defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(ROOT)}:{node.name}.{item.name}"
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            for item in node.body
            if isinstance(item, ast.FunctionDef) and item.name in ("save", "delete")]


def model_files() -> list[pathlib.Path]:
    return sorted([*(ROOT / "games" / "models").glob("*.py"), ROOT / "messaging" / "models.py"])


def test_no_model_of_the_games_or_the_forum_overrides_save_or_delete():
    assert len(model_files()) > 3
    assert [o for path in model_files() for o in overrides(path)] == []


def test_the_override_check_sees_one(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    path = tmp_path / "models.py"
    path.write_text("class Game:\n    def save(self):\n        Look.objects.create()\n")
    assert overrides(path) == ["models.py:Game.save"]


# --- 3. no receivers of save or delete ------------------------------------------------------------

def project_receivers() -> list[str]:
    """module.name of every receiver of a model's save or delete defined in the project."""
    out = []
    for signal in (pre_save, post_save, pre_delete, post_delete):
        for entry in signal.receivers:
            ref = entry[1]  # a weak reference (WeakMethod too), or the receiver itself
            target = ref() if isinstance(ref, weakref.ReferenceType) else ref
            module = getattr(target, "__module__", "") or ""
            if module.split(".")[0] in PROJECT:
                out.append(f"{module}.{getattr(target, '__qualname__', target)}")
    return out


@pytest.mark.django_db
def test_no_project_module_receives_a_model_s_save_or_delete():
    """GamesConfig.ready() has run (the test runner set Django up): what it registers are
    hooks the writers call (messaging.hooks), not receivers."""
    assert project_receivers() == []


def test_the_receiver_check_sees_one():
    def moved_thread(sender, instance, **kwargs):
        pass

    moved_thread.__module__ = "games.canary"
    post_save.connect(moved_thread, dispatch_uid="games-canary")
    try:
        assert project_receivers() == ["games.canary.test_the_receiver_check_sees_one."
                                       "<locals>.moved_thread"]
    finally:
        post_save.disconnect(dispatch_uid="games-canary")


# --- 4. each entry point moves the version and publishes it ------------------------------------

T0 = dt.datetime(2026, 3, 1, 20, 0, tzinfo=dt.UTC)


@pytest.fixture
def published(monkeypatch):
    """The feed's events, as they would leave for Redis."""
    sent: list[dict] = []
    monkeypatch.setattr(feed, "publish", sent.append)
    return sent


@pytest.fixture
def night(players, gm, toy_ruleset):
    game = services.create_game(name="夜局", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 24 * 60, "day": 24 * 60}, early_end=False)
    return services.start_game(game_id=game.pk, users=players, now=T0)


def _kill(game):
    wolf = seat_user(game, "wolf")
    target = next(s.number for s in game.seats.all() if s.user != wolf)
    services.submit_action(game_id=game.pk, user=wolf, kind="kill", params={"target": target},
                           now=T0 + dt.timedelta(minutes=5))


def _day(game):
    services.end_phase_now(game_id=game.pk, gm=game.gm, now=T0 + dt.timedelta(minutes=10))


def _vote(game):
    game.refresh_from_db()
    alive = [s for s in game.seats.order_by("number") if s.alive]
    services.submit_action(game_id=game.pk, user=alive[0].user, kind="vote",
                           params={"target": alive[1].number},
                           now=T0 + dt.timedelta(minutes=15))


def _draft(game):
    Game.objects.filter(pk=game.pk).update(hold_announcements=True)
    _kill(game)
    services.end_phase_now(game_id=game.pk, gm=game.gm, now=T0 + dt.timedelta(minutes=10))
    return Announcement.objects.filter(game=game, published_at=None).latest("id")


def _rollback(game):
    services.end_phase_now(game_id=game.pk, gm=game.gm, now=T0 + dt.timedelta(minutes=10))
    game.refresh_from_db()
    plan = services_plan(game)
    return lambda: services.rollback(
        game_id=game.pk, gm=game.gm, kind="phase_end", deadline=T0 + dt.timedelta(days=2),
        expected_version=game.version, expected_target=plan.target,
        expected_steps=game.steps, now=T0 + dt.timedelta(minutes=20))


def services_plan(game):
    from games import selectors

    return selectors.rollback_plan(game, "phase_end")


def _paused(game):
    services.pause_game(game_id=game.pk, gm=game.gm, now=T0 + dt.timedelta(minutes=1))


# name: (setup(game) -> callable or None, the call, the `what` expected)
CALLS = {
    "a player's vote (public)": (_day, _vote, ""),
    "the clock's advance": (None, lambda g: services.advance_phase(
        game_id=g.pk, now=g.deadline + dt.timedelta(minutes=1)), "phase"),
    "the GM ends the phase": (None, lambda g: services.end_phase_now(
        game_id=g.pk, gm=g.gm, now=T0 + dt.timedelta(minutes=10)), "phase"),
    "the GM extends the deadline": (None, lambda g: services.extend_deadline(
        game_id=g.pk, gm=g.gm, minutes=60), "deadline"),
    "the GM pauses": (None, _paused, "phase"),
    "the GM resumes": (_paused, lambda g: services.resume_game(
        game_id=g.pk, gm=g.gm, now=T0 + dt.timedelta(minutes=30)), "phase"),
    "the GM aborts": (None, lambda g: services.abort_game(game_id=g.pk, gm=g.gm,
                                                          reason="测试"), "phase"),
    "the GM renames the game": (None, lambda g: services.update_settings(
        game_id=g.pk, changes={"name": "新名"}), ""),
    "the GM publishes a draft": (_draft, None, ""),
    "the GM rolls back a phase end": (_rollback, None, "phase"),
    "a handover opens": (None, lambda g: services.start_substitution(
        game_id=g.pk, gm=g.gm, seat_number=0, now=T0 + dt.timedelta(minutes=1)), "deadline"),
    "a player renames themself": (None, lambda g: services.profile_saved(
        user_id=g.seats.get(number=0).user_id, renamed=True, new_hours=False), ""),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(CALLS))
def test_each_service_moves_the_page_version_and_publishes_it_on_commit(
        name, night, published, django_capture_on_commit_callbacks):
    setup, call, what = CALLS[name]
    prepared = setup(night) if setup is not None else None
    if call is None:
        call = (lambda g: services.publish_announcement(announcement_id=prepared.pk, gm=g.gm)) \
            if isinstance(prepared, Announcement) else (lambda g: prepared())
    before = Game.objects.get(pk=night.pk).page_version
    published.clear()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        call(night)
    after = Game.objects.get(pk=night.pk).page_version
    assert after > before
    assert published == []  # nothing leaves before the commit
    for callback in callbacks:
        callback()
    mine = [e for e in published if e["t"] == "game" and e["id"] == night.pk]
    assert mine and mine[-1]["v"] == after
    assert {e.get("what", "") for e in mine} == {what}


@pytest.mark.django_db
def test_a_refused_step_moves_nothing_and_publishes_nothing(night, published,
                                                            django_capture_on_commit_callbacks):
    before = Game.objects.get(pk=night.pk).page_version
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.GameError):
        services.extend_deadline(game_id=night.pk, gm=night.gm, minutes=0)
    assert Game.objects.get(pk=night.pk).page_version == before and published == []


@pytest.mark.django_db
def test_a_new_phase_schedules_the_reminder_look(night, django_capture_on_commit_callbacks):
    assert ReminderLook.objects.get(game=night).at == night.deadline - dt.timedelta(hours=48)
    services.extend_deadline(game_id=night.pk, gm=night.gm, minutes=60)
    night.refresh_from_db()
    assert ReminderLook.objects.get(game=night).at == night.deadline - dt.timedelta(hours=48)
    services.abort_game(game_id=night.pk, gm=night.gm, reason="测试")
    assert ReminderLook.objects.get(game=night).at is None


@pytest.mark.django_db
def test_a_secret_step_moves_no_public_version_and_publishes_no_game_event(
        night, published, django_capture_on_commit_callbacks, client):
    """A card chosen at night changes only its own seat's view: a public version or a game
    event moving now would tell every reader when the seat acted. The seat's own page still
    shows the step at once (its kept parts are keyed by the step count too)."""
    wolf = seat_user(night, "wolf")
    client.force_login(wolf)
    url = reverse("game-home", args=[night.pk])
    client.get(url)  # the wolf's parts are kept before the step
    before = Game.objects.get(pk=night.pk).page_version
    published.clear()
    with django_capture_on_commit_callbacks(execute=True):
        _kill(night)
    assert Game.objects.get(pk=night.pk).page_version == before
    assert [e for e in published if e["t"] == "game"] == []
    assert Game.objects.get(pk=night.pk).steps == night.steps + 1
    fresh = Game.objects.get(pk=night.pk)
    assert parts_key(fresh.pk, fresh.page_version, 0, fresh.steps) != \
        parts_key(night.pk, before, 0, night.steps)
