"""The crawler tests people, not only pages: while a game runs, whoever reads any of its
secrets writes nothing its living players can read, through any path the site offers
(games.selectors.secrets).

Every write path comes from the URL configuration (tests/proof/write_paths.py: a route that
takes a POST with neither a builder nor a reason to leave it out fails the first test by
name). At moments of a Classic game (a dead civilian owing its last words, then watching,
then revived by the GM's undo; an outsider the GM let in, staff; a replaced player) and of a
猫有n条命 game (a dead player who watches, an outsider of a game open to them, a replaced
player, a waiting substitute) each of them tries every path with unique markers; then the
anonymous visitor and a living seat look everywhere they can (pages, searches, notices,
emails, the change feed), and no marker of a writer who reads a secret may be found. The
same canary reports the last words, the revived seat's post and the rename once the
predicate is switched off; those three holes have short tests of their own at the end.

The Classic table is built once for the module (`classic_world`, in tests/conftest.py's
module_db); the canaries take 10-25 s each (slow: they lead the suite's order).
"""

from __future__ import annotations

import datetime as dt
import time
from html import unescape

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Profile
from config import feed
from games import selectors, services
from games.models import Action, Game, Signup, Watcher
from games.services import GameError
from messaging import rules
from messaging import services as forum
from messaging.models import Post, Thread
from tests.conftest import new_user
from tests.factories import classic

from .write_paths import (
    BUILDERS,
    EXCLUDED,
    Canary,
    Living,
    Scene,
    excluded,
    post_routes,
    switch_off_the_predicate,
    uncovered,
)

pytestmark = pytest.mark.django_db

OUTSIDER = "A: an outsider the GM let in, staff (the lobby's moderator)"
CIVILIAN = 2   # Classic: the bandits kill this seat on night 1 (tests/factories/classic.py)
REPLACED = 6   # Classic: a civilian whose player a substitute replaces before the night ends


@pytest.fixture
def budgets(settings):
    """Posting budgets wide enough for a writer who tries everything: a rate limit must not
    be what refuses a path (the canary checks that none answered 429)."""
    settings.POSTS_PER_MINUTE = 500
    settings.GRAVEYARD_POSTS_PER_MINUTE = 500


@pytest.fixture
def feed_events(monkeypatch):
    """The change feed's events as published (config.feed.publish, on commit)."""
    events = []
    real = feed.publish

    def publish(payload):
        events.append(payload)
        real(payload)

    monkeypatch.setattr(feed, "publish", publish)
    return events


# --- the route table --------------------------------------------------------------------------

def test_every_route_that_takes_a_post_has_a_builder_or_a_reason():
    """The write paths come from the URL configuration: a route whose view takes a POST
    with neither a builder nor a reason to leave it out fails here by name (a new writer is
    covered, or named)."""
    missing = uncovered()
    assert not missing, (
        "routes that take a POST with no builder in tests/proof/write_paths.py (add one to "
        "BUILDERS; a page that only reads: declare its view's methods (require_safe), or "
        "list it in ANSWERS_POST_AS_GET): "
        + ", ".join(f"{r.name} {r.pattern}" for r in missing))
    names = {r.name for r in post_routes()}
    assert set(BUILDERS) <= names, set(BUILDERS) - names  # no builder outlives its route
    assert {n for n in EXCLUDED if n != "admin:*"} <= names
    # The writers the rule names are among them.
    assert {"profile", "game-act", "messaging-reply", "messaging-thread-new",
            "messaging-post-report", "game-community"} <= names - {
        n for n in names if excluded(n)}


# --- the games -------------------------------------------------------------------------------

def lobby_scene(game: Game, people: dict, other: Game | None) -> Scene:
    """Someone's discussion in the lobby and on the game's board, with a reply each, posted
    before anyone reads a secret; the readers-to-be reply in the lobby (so a rename would
    show beside their words); the GM opens a thread in the graveyard."""
    first, second = people["players"][0], people["players"][3]
    lobby = forum.lobby_board()
    talk = forum.start_thread(board=lobby, author=first, kind=Thread.Kind.DISCUSSION,
                              title="闲聊", body="大家好，最近在玩什么？", enforce_rate_limit=False)
    for user in people["before"]:
        forum.reply(thread=talk, author=user, body="路过，打个招呼。", enforce_rate_limit=False)
    board = forum.start_thread(board=game.board, author=first, kind=Thread.Kind.DISCUSSION,
                               title="第一天的想法", body="我先说两句。", enforce_rate_limit=False)
    forum.reply(thread=board, author=second, body="我同意。", enforce_rate_limit=False)
    forum.start_thread(board=game.graveyard, author=people["gm"], kind=Thread.Kind.DISCUSSION,
                       title="墓地闲聊", body="观战的朋友在这里聊。", enforce_rate_limit=False)
    return Scene(game=game, user=first, lobby=lobby, lobby_thread=talk,
                 lobby_post=talk.posts.order_by("number").first(), board_thread=board,
                 board_post=board.posts.order_by("number").first(), other=other,
                 mention=first.profile.display_name)


def other_game(host) -> Game:
    """Another game of `host`'s, open for sign-ups (its board, its sign-up thread)."""
    other = services.create_game(name="别处的局", ruleset="classic", gm=host, seat_count=11,
                                 config={"fixed_roles": [classic.CARDS[c] for c in classic.DEAL]})
    return services.open_signups(game_id=other.pk, gm=host)


def watch_as(canary: Canary, game: Game, user) -> None:
    """`user` presses the watch page's button (watching, or asking the GM to)."""
    response = canary.post(user, reverse("game-watch", args=[game.pk]))
    assert response.status_code == 302, response.status_code


def approve(game: Game, gm, user) -> None:
    waiting = Watcher.objects.get(game=game, user=user, approved_at=None)
    services.answer_watch_request(game_id=game.pk, gm=gm, watcher_id=waiting.pk, approve=True)


def hand_over(game: Game, gm, number: int, substitute) -> None:
    services.sign_up(game_id=game.pk, user=substitute, role="substitute")
    services.start_substitution(game_id=game.pk, gm=gm, seat_number=number,
                                reason="a handover for the write-path canary")
    services.accept_substitution(game_id=game.pk, user=substitute)


def classic_people(user) -> dict:
    """The players of tests/factories/classic.py's table (seat 2's is staff), the GM, a
    staff account that runs no game (not a superuser: a GM watches no game, and any active
    staff account moderates the lobby) and a substitute; `user(name, staff=...,
    superuser=...)` makes each."""
    players = [user(n, staff=i == 1) for i, n in enumerate(classic.NAMES)]
    people = {"players": players, "gm": user("天神丙", staff=True),
              "host": user("别处天神", staff=True, superuser=False),
              "substitute": user("替补甲")}
    people["before"] = [people["host"], players[CIVILIAN], players[REPLACED]]
    return people


@pytest.fixture(scope="module")
def classic_world(module_db) -> dict:
    """The Classic table the canaries and the holes' tests share, built once for the module
    (tests/conftest.py module_db: each test runs in a savepoint of it): the deal of
    tests/factories/classic.py, no early end, outsiders by request. An outsider asks to
    watch and the GM lets it in (a staff account that runs no game: staff may do more, such
    as moderate the lobby; the 猫有n条命 canary has a plain outsider); the same GM runs
    another game whose sign-ups are open; seat 7's player is replaced; night 1's kill (seat 3) and check are in."""
    def user(name: str, *, staff: bool = False, superuser: bool | None = None):
        made = new_user(name, staff=staff)
        if superuser is False:
            get_user_model().objects.filter(pk=made.pk).update(is_superuser=False)
            made.is_superuser = False
        return made

    people = classic_people(user)
    gm, players = people["gm"], people["players"]
    draft = services.create_game(
        name="经典局", ruleset="classic", gm=gm, seat_count=11,
        config={"fixed_roles": [classic.CARDS[c] for c in classic.DEAL]},
        durations=classic.DURATIONS, early_end=False, outsiders=Game.Outsiders.REQUEST)
    game = services.start_game(game_id=draft.pk, users=players, seed="write-paths")
    scene = lobby_scene(game, people, other_game(gm))
    services.watch(game_id=game.pk, user=people["host"])  # what the watch button does
    approve(game, gm, people["host"])
    hand_over(game, gm, REPLACED, people["substitute"])
    classic.night_one(game, victim=CIVILIAN, checked=5)
    return {"people": people, "scene": scene}


def classic_canary(world: dict, capture, feed_events) -> tuple[Canary, dict]:
    """A canary on the shared Classic table, as this test finds it (its rows as the module
    built them; the objects read again)."""
    scene = world["scene"]
    scene.game.refresh_from_db()
    return Canary(scene, capture=capture, feed_events=feed_events), world["people"]


def end_the_night(game: Game, gm) -> None:
    """The GM ends night 1 (early end is off): the victim's last words are due."""
    services.end_phase_now(game_id=game.pk, gm=gm)
    game.refresh_from_db()
    assert game.phase_name == "last_words", game.phase_name


def undo_the_night(game: Game, gm) -> None:
    """The GM rolls back night 1's end (docs/undo.md): its victim is alive again."""
    game.refresh_from_db()
    plan = selectors.rollback_plan(game, "phase_end")
    assert not isinstance(plan, str), plan
    services.rollback(game_id=game.pk, gm=gm, kind="phase_end",
                      deadline=timezone.now() + dt.timedelta(days=1),
                      expected_version=game.version, expected_target=plan.target,
                      expected_steps=game.steps)
    game.refresh_from_db()


ANONYMOUS = Living("anonymous", None)


def classic_viewers(people: dict) -> list[Living]:
    """The anonymous visitor, and a living seat (the staff bandit of seat 2: staff read the
    lobby's reports, and see everything a plain player sees)."""
    return [ANONYMOUS, Living("a living bandit, staff (seat 2)", people["players"][1])]


def writes(canary: Canary, reads: dict, label: str, user) -> None:
    reads[label] = canary.write(label, user)


def play_classic(canary: Canary, people: dict, *, every_writer: bool = True) -> dict:
    """The Classic moments (the labels name the writers). Returns what each writer read
    (label -> whether it read the game's secrets when it wrote).
    A. Night 1 is over, the dead civilian's last words are due: it presses the watch
       button (refused while it owes words, while the predicate holds), then writes
       everything, its last words through the act page among it; so do the outsider (the
       staff host) and the replaced player (the 猫有n条命 canary has a waiting substitute
       write). The anonymous visitor looks.
    B. The civilian has spoken and watches: it writes everything as a dead watcher.
    C. The GM undoes the night's end: the civilian is alive again and writes everything;
       the living look.
    Without `every_writer` (the canary with the predicate off), only the civilian (A, C)
    and the outsider (A) write."""
    game, gm, players = canary.scene.game, people["gm"], people["players"]
    civilian = players[CIVILIAN]
    end_the_night(game, gm)
    assert canary.post(civilian, reverse("game-watch", args=[game.pk])).status_code == 302
    reads: dict = {}
    writes(canary, reads, "A: the dead civilian, last words due", civilian)
    writes(canary, reads, OUTSIDER, people["host"])
    if every_writer:
        writes(canary, reads, "A: the replaced player of seat 7", players[REPLACED])
    canary.look("A (last words due)", [ANONYMOUS])
    # Reading nothing at A, it may have signed up for another game: a watcher is signed
    # up nowhere else (games.services.watching.elsewhere_refusal).
    if Signup.objects.filter(game=canary.scene.other, user=civilian, withdrawn_at=None):
        services.withdraw_signup(game_id=canary.scene.other.pk, user=civilian)
    watch_as(canary, game, civilian)
    if every_writer:
        writes(canary, reads, "B: the dead civilian, watching", civilian)
    undo_the_night(game, gm)
    assert game.seats.get(number=CIVILIAN).alive
    writes(canary, reads, "C: the revived civilian", civilian)
    canary.look("C (night 1 undone)", classic_viewers(people) if every_writer else [ANONYMOUS],
                breadth=every_writer)
    return reads


def timed(canary: Canary, name: str, started: tuple[float, float]) -> None:
    print(f"\n{name} ({time.perf_counter() - started[0]:.1f} s, "
          f"{time.process_time() - started[1]:.1f} s of CPU)\n" + canary.report())


def clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


# Write paths the predicate does not cover yet, found by this canary and reported: (path,
# writer) -> what leaks. The canary holds each: it must still be found, so the line leaves
# with the fix.
KNOWN_LEAKS: dict[tuple[str, str], str] = {}


def unknown_leaks(canary: Canary) -> list[str]:
    return [str(leak) for leak in canary.leaks
            if (leak.path, leak.writer) not in KNOWN_LEAKS]


@pytest.mark.slow(seconds=25)
def test_no_one_who_reads_a_classic_games_secrets_writes_what_the_living_read(
        classic_world, budgets, feed_events, django_capture_on_commit_callbacks):
    started = clock()
    canary, people = classic_canary(classic_world, django_capture_on_commit_callbacks,
                                    feed_events)
    reads = play_classic(canary, people)
    timed(canary, "classic write-path canary", started)
    assert not unknown_leaks(canary), "\n".join(unknown_leaks(canary)[:30])
    assert {(leak.path, leak.writer) for leak in canary.leaks} == set(KNOWN_LEAKS), \
        "a known leak is no longer found: take it out of KNOWN_LEAKS"
    assert reads == {
        "A: the dead civilian, last words due": False,  # no watching before its last words
        OUTSIDER: True, "A: the replaced player of seat 7": True,
        "B: the dead civilian, watching": True,
        "C: the revived civilian": False,  # revival revokes
    }
    assert not [w for w in canary.written if w.status == 429], "a rate limit refused a path"
    assert not canary.kept_by_pages_that_read()
    # The checks see what the living read: what a writer who reads no secret sends is found.
    assert canary.found("A: the dead civilian, last words due", "game-act", "last_words")
    assert canary.found("C: the revived civilian", "messaging-reply", "lobby")
    assert canary.found("C: the revived civilian", "messaging-reply", "game's board")
    assert canary.found("C: the revived civilian", "messaging-reply", "lobby",
                        where="a notice (mention)")
    # What a reader may write is stored where the living never read it.
    assert "messaging.Post.body" in canary.stored_by("B: the dead civilian, watching",
                                                    "messaging-reply")
    assert "messaging.Message.body" in canary.stored_by(OUTSIDER,
                                                       "messaging-conversation-general")


@pytest.mark.slow(seconds=12)
def test_the_canary_reports_the_holes_when_the_predicate_is_switched_off(
        classic_world, budgets, feed_events, django_capture_on_commit_callbacks, monkeypatch):
    """The canary can fail: with games.selectors.secrets answering "allowed" wherever it is
    asked, a dead Classic seat watching before its last words and a revived seat still
    watching (the writers as they were before the rule), the same canary reports the last
    words, the revived seat's post on the game's board and the rename."""
    started = clock()
    canary, people = classic_canary(classic_world, django_capture_on_commit_callbacks,
                                    feed_events)
    patched = switch_off_the_predicate(monkeypatch)
    assert {"games.selectors.secrets.write_refusal", "games.services.steps.write_refusal",
            "web.profiles.rename_refusal"} <= set(patched), patched
    reads = play_classic(canary, people, every_writer=False)
    timed(canary, "the canary with the predicate off", started)
    assert reads == {"A: the dead civilian, last words due": True,
                     OUTSIDER: True, "C: the revived civilian": True}
    found = {(leak.path, leak.writer, leak.label) for leak in canary.leaks}
    assert ("game-act", "A: the dead civilian, last words due",
            "the act form: last_words") in found, found
    assert any(path in ("messaging-reply", "messaging-thread-new") and writer ==
               "C: the revived civilian" and "game's board" in label
               for path, writer, label in found), found
    assert any(path == "profile" for path, _writer, _label in found), found


def ninelives_canary(make_user, capture, feed_events) -> tuple[Canary, dict]:
    """A 猫有n条命 table of five (the FIVE deal), open to outsiders (its hands shrink: no
    risk to accept): an outsider watches, seat 4's player is replaced, a substitute waits,
    the GM fouls seat 5 out and its player watches."""
    from tests.engine.ninelives.deals import FIVE

    # Names of their own: the module's Classic table (classic_world) may still be there.
    players = [make_user(n, staff=i == 1) for i, n in enumerate(["九一", "九二", "九三",
                                                                 "九四", "九五"])]
    gm = make_user("天神丁", staff=True)
    people = {"players": players, "gm": gm, "outsider": make_user("路人乙"),
              "substitute": make_user("替补丙"), "waiting": make_user("替补丁")}
    people["before"] = [people["outsider"], players[3], players[4]]
    draft = services.create_game(name="九命局", ruleset="ninelives", gm=gm, seat_count=5,
                                 config={"players": 5, "deal": FIVE}, early_end=False,
                                 outsiders=Game.Outsiders.OPEN)
    game = services.start_game(game_id=draft.pk, users=players, seed="write-paths")
    canary = Canary(lobby_scene(game, people, None), capture=capture, feed_events=feed_events)
    watch_as(canary, game, people["outsider"])
    hand_over(game, gm, 3, people["substitute"])
    services.sign_up(game_id=game.pk, user=people["waiting"], role="substitute")
    services.gm_step(game_id=game.pk, gm=gm, kind="foul_out",
                     params={"seat": 4, "reason": "三天没有发言"})
    assert not game.seats.get(number=4).alive
    watch_as(canary, game, players[4])
    return canary, people


@pytest.mark.slow(seconds=15)
def test_no_one_who_reads_a_ninelives_games_secrets_writes_what_the_living_read(
        make_user, budgets, feed_events, django_capture_on_commit_callbacks):
    started = clock()
    canary, people = ninelives_canary(make_user, django_capture_on_commit_callbacks,
                                      feed_events)
    players, reads = people["players"], {}
    writes(canary, reads, "a dead player who watches (seat 5)", players[4])
    writes(canary, reads, "an outsider who watches", people["outsider"])
    writes(canary, reads, "the replaced player of seat 4", players[3])
    writes(canary, reads, "a waiting substitute", people["waiting"])
    canary.look("night 1", [ANONYMOUS, Living("a living player, staff (seat 2)", players[1]),
                            Living("the substitute now in seat 4", people["substitute"])],
                breadth=True)
    timed(canary, "ninelives write-path canary", started)
    assert not canary.leaks, "\n".join(str(leak) for leak in canary.leaks[:30])
    assert reads == {"a dead player who watches (seat 5)": True,
                     "an outsider who watches": True, "the replaced player of seat 4": True,
                     "a waiting substitute": False}
    assert not [w for w in canary.written if w.status == 429], "a rate limit refused a path"
    assert not canary.kept_by_pages_that_read()
    assert canary.found("a waiting substitute", "messaging-reply", "lobby")
    assert "messaging.Post.body" in canary.stored_by("a dead player who watches (seat 5)",
                                                    "messaging-reply")


# --- the three holes, one by one (no crawl) ------------------------------------------------

def in_english(world: dict) -> tuple[Game, dict]:
    """The shared Classic table (night 1's kill of seat 3 and its check are in), everyone
    reading the site in English."""
    Profile.objects.update(language="en")
    game = world["scene"].game
    game.refresh_from_db()
    return game, world["people"]


NEW_TABLE = [f"{n}新" for n in classic.NAMES]  # besides the module's Classic table


def classic_table(make_user, **options) -> tuple[Game, dict]:
    """A new Classic game (tests/factories/classic.py's deal; its players named NEW_TABLE),
    everyone reading the site in English."""
    people = {"players": [make_user(n) for n in NEW_TABLE],
              "gm": make_user("天神戊", staff=True), "outsider": make_user("路人丙")}
    Profile.objects.update(language="en")
    draft = services.create_game(
        name="经典局", ruleset="classic", gm=people["gm"], seat_count=11,
        config={"fixed_roles": [classic.CARDS[c] for c in classic.DEAL]},
        durations=classic.DURATIONS, early_end=False, **options)
    game = services.start_game(game_id=draft.pk, users=people["players"], seed="holes")
    return game, people


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def counts() -> dict:
    """The rows a refused write must leave as they were."""
    return {"posts": Post.objects.count(), "threads": Thread.objects.count(),
            "watchers": Watcher.objects.count(), "steps": Action.objects.count(),
            "names": sorted(Profile.objects.values_list("display_name", flat=True))}


def refused_page(response, sentence: str) -> None:
    """A refusal the person can read: the sentence is on the page that answers."""
    assert response.status_code in (200, 403), response.status_code
    assert sentence in unescape(response.content.decode()), sentence


def test_a_killed_civilian_gives_its_last_words_before_it_watches_and_then_writes_nothing(
        classic_world, english):
    """Classic's dead may watch, but only once their last words are said (or their time
    is up): until then the watch page and the graveyard stay shut, so nothing they could
    learn there reaches the living through their words; once they watch, even the lobby
    refuses their posts."""
    game, people = in_english(classic_world)
    end_the_night(game, people["gm"])
    civilian = people["players"][CIVILIAN]
    client = signed_in(civilian)
    before = counts()
    refusal = services.watch_refusal(game, civilian)
    assert refusal and "last words" in refusal
    with pytest.raises(GameError, match="last words"):
        services.watch(game_id=game.pk, user=civilian)
    response = client.post(reverse("game-watch", args=[game.pk]), follow=True)
    refused_page(response, "give them first")
    refused_page(client.get(reverse("game-watch", args=[game.pk])), "last words")
    assert client.get(reverse("game-graveyard", args=[game.pk])).status_code == 404
    assert not rules.can_read_board(civilian, game.graveyard)
    assert counts() == before
    services.submit_action(game_id=game.pk, user=civilian, kind="last_words",
                           params={"text": "我是好人，警察加油。"})
    game.refresh_from_db()
    assert services.watch_refusal(game, civilian) is None
    assert client.post(reverse("game-watch", args=[game.pk])).status_code == 302
    assert services.watches(game, civilian)
    assert client.get(reverse("game-graveyard", args=[game.pk])).status_code == 302
    talk = forum.start_thread(board=forum.lobby_board(), author=people["players"][0],
                              kind=Thread.Kind.DISCUSSION, title="闲聊", body="大家好。",
                              enforce_rate_limit=False)
    before = counts()
    response = client.post(reverse("messaging-reply", args=[talk.pk]), {"body": "我来说两句"})
    refused_page(response, "You can read secrets of the running game")
    response = client.post(reverse("messaging-thread-new", args=["lobby"]),
                           {"kind": "discussion", "title": "新帖", "body": "我来说两句"})
    refused_page(response, "You can read secrets of the running game")
    assert counts() == before


def test_a_watcher_revived_by_the_gms_undo_stops_watching_and_plays_again(classic_world,
                                                                          english):
    """Revival revokes: the dead civilian who watched (and wrote in the graveyard) is alive
    again after the GM undoes the night's end; the watch page and the graveyard refuse it,
    it posts on the game's board again, and what it wrote in the graveyard stays there."""
    game, people = in_english(classic_world)
    end_the_night(game, people["gm"])
    civilian = people["players"][CIVILIAN]
    services.submit_action(game_id=game.pk, user=civilian, kind="last_words",
                           params={"text": "我是好人。"})
    client = signed_in(civilian)
    assert client.post(reverse("game-watch", args=[game.pk])).status_code == 302
    response = client.post(reverse("messaging-thread-new", args=[game.graveyard.slug]),
                           {"kind": "discussion", "title": "墓地", "body": "我看到了三号的牌"})
    assert response.status_code == 302
    grave = Post.objects.get(thread__board=game.graveyard, author=civilian)
    undo_the_night(game, people["gm"])
    assert game.seats.get(number=CIVILIAN).alive
    assert not Watcher.objects.filter(game=game, user=civilian).exists()
    assert not services.watches(game, civilian)
    refused_page(client.get(reverse("game-watch", args=[game.pk])), "players watch only once")
    assert client.get(reverse("game-graveyard", args=[game.pk])).status_code == 404
    assert not rules.can_read_board(civilian, game.graveyard)
    assert selectors.write_refusal(civilian) is None
    board = forum.start_thread(board=game.board, author=people["players"][0],
                               kind=Thread.Kind.DISCUSSION, title="想法", body="我先说。",
                               enforce_rate_limit=False)
    response = client.post(reverse("messaging-reply", args=[board.pk]), {"body": "我回来了"})
    assert response.status_code == 302
    assert Post.objects.filter(thread=board, author=civilian, body="我回来了").exists()
    grave.refresh_from_db()
    assert grave.body == "我看到了三号的牌" and grave.withdrawn_at is None


def test_outsiders_watch_as_the_gm_chooses_and_a_watcher_keeps_its_name(make_user, english):
    """A new game lets no outsider watch; a Classic game open to outsiders needs its GM to
    accept the risk (the roles never change); a watcher's rename is refused, and a living
    player's rename leaves the seat list with the name from the game's start."""
    game, people = classic_table(make_user)
    outsider, gm = people["outsider"], people["gm"]
    assert game.outsiders == Game.Outsiders.OFF
    before = counts()
    assert "does not let outsiders watch" in services.watch_refusal(game, outsider)
    refused_page(signed_in(outsider).post(reverse("game-watch", args=[game.pk]), follow=True),
                 "does not let outsiders watch")
    with pytest.raises(GameError, match="roles never change"):
        services.update_settings(game_id=game.pk, changes={"outsiders": "open"})
    games = Game.objects.count()
    with pytest.raises(GameError, match="roles never change"):
        services.create_game(name="开放局", ruleset="classic", gm=gm, seat_count=11,
                             config={"fixed_roles": [classic.CARDS[c] for c in classic.DEAL]},
                             outsiders=Game.Outsiders.OPEN)
    assert Game.objects.count() == games
    game.refresh_from_db()
    assert game.outsiders == Game.Outsiders.OFF and counts() == before
    services.update_settings(game_id=game.pk, changes={"outsiders": "open",
                                                       "watch_risk_accepted": True})
    services.watch(game_id=game.pk, user=outsider)
    assert services.watches(game, outsider)

    def rename(user, name: str):
        p = Profile.objects.get(user=user)
        return signed_in(user).post(reverse("profile"), {
            "display_name": name, "timezone": p.timezone, "language": p.language,
            "reminder_hours": p.reminder_hours})

    before = counts()
    refused_page(rename(outsider, "新名字甲"), "your display name stays as it is")
    assert counts() == before
    player = people["players"][0]
    assert rename(player, "新名字乙").status_code == 302
    assert Profile.objects.get(user=player).display_name == "新名字乙"
    home = Client().get(reverse("game-home", args=[game.pk])).content.decode()
    assert NEW_TABLE[0] in home and "新名字乙" not in home
