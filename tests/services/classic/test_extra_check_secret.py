"""The police's extra check after checking the poison (seed 003 poison rules 3-4: only the
poison and the police learn the poison was checked). While it runs, the night goes on for
everyone else: every page names the phase as the night ("第1夜"), nothing public changes (no
death, no reveal, no dawn announcement, the night's deadline), every seat but the police keeps
its night form and may still change its choice, and nobody but the police and the poison is
told anything. When it ends, the dawn carries the whole night at once; the police's extra
result follows it.

Every such night keeps the extra check's time: its choices close for every seat alike that
long before the deadline, the police's check is read then, and the dawn comes at the
deadline whether the police found the poison or not (until the close, as by night, a seat
may change its choice, also in an extra check begun by an early end)."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import re

import pytest
from django.urls import reverse

from games import rulesets, services
from games.engine.base import GM, SPECTATOR
from games.models import Announcement, Event
from messaging.models import Message
from tests.factories.classic import (
    act,
    announcements,
    conversation,
    fresh,
    page,
    pub,
    seat_text,
    user_at,
)

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


def all_but_the_last_police(game):
    """The night in progress: the bandits kill seat 4, the ghost possesses nobody, the police
    propose the poison (the last of them has not answered yet)."""
    for b in BANDITS:
        act(game, b, "kill", target=3, pact=BANDITS[0])
    for p in POLICE[:-1]:
        act(game, p, "check", target=POISON)
    return fresh(game)


def check_the_poison(game):
    """The bandits kill seat 4; the police check the poison: the extra check opens."""
    all_but_the_last_police(game)
    act(game, POLICE[-1], "check", target=POISON)
    game = fresh(game)
    assert pub(game)["phase"] == "extra_check"
    return game


# Seats watched from their own point of view: a bandit, the ghost, the victim (a civilian),
# another civilian, the poison; the police and the GM are told of the check.
WATCHERS = [BANDITS[0], BANDITS[2], 3, 6, POISON]
# What a page shows that changes by itself between two readings (the clock, form tokens,
# the live script's subscription token: config/live_token.py).
NOISE = re.compile(
    r'csrfmiddlewaretoken" value="[^"]*"|data-token="[^"]*"|\d+\s*(?:分钟|小时|秒|天)|'
    r'datetime="[^"]*"|data-deadline="[^"]*"|title="[^"]*\d{4}[^"]*"'
)


def seen_by(game, client) -> dict:
    """Everything a seat not told of the check could compare, per watcher: its engine view
    (public part, own part, the events it may read), its choices, its messages, and its
    pages; and what everyone sees: the seats alive, the deadline, the announcements and
    the public events."""
    game = fresh(game)
    engine = rulesets.engine(game.ruleset)
    out = {
        "alive": list(game.seats.order_by("number").values_list("alive", flat=True)),
        "deadline": game.deadline,
        "announcements": list(Announcement.objects.filter(game=game).values_list("title", "body")),
        "public events": Event.objects.filter(game=game, public=True).count(),
        "spectator": engine.view(game.state, SPECTATOR),
        "anonymous page": NOISE.sub("", page(client, game, None, "game-home")),
        "games list": NOISE.sub("", client.get(reverse("game-list")).content.decode()),
    }
    for seat in WATCHERS:
        out[seat] = {
            "view": engine.view(game.state, seat),
            "choices": sorted(
                (c.kind, repr(c.params)) for c in engine.legal_actions(game.state, seat)
            ),
            "messages": Message.objects.filter(
                conversation=game.seats.get(number=seat).conversation
            ).count(),
            "pages": [
                NOISE.sub("", page(client, game, seat, name)) for name in ("game-home", "game-act")
            ],
        }
    client.logout()
    return out


def without_message(html: str, text: str) -> str:
    """The page less the message of 神的使者 holding `text` and the unread count it made."""
    html = re.sub(r'\s*<span class="badge" id="unread-count">\d+</span>', "", html)
    at = html.find(text)
    if at < 0:
        return html
    start = html.rfind('<li class="message', 0, at)
    end = html.index("</li>", at) + len("</li>")
    return html[:start] + html[end:].lstrip()


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
    # A bandit who changes the night's choice meanwhile learns nothing of the check: the
    # night goes on for the bandits, so the change is taken as by night.
    act(game, BANDITS[1], "kill", target=6, pact=BANDITS[0])
    # The police see the extra check in their panel and may make it.
    police_page = page(client, game, POLICE[0], "game-act")
    assert "你们验到了毒药：天亮前警察可以再验一人" in police_page
    assert f"验{seat_text(BANDITS[0])}" in police_page
    act(game, POLICE[0], "check", target=BANDITS[0])


def test_during_the_extra_check_every_other_seat_and_the_public_see_the_night_going_on(
    poison_game, client
):
    game = all_but_the_last_police(poison_game)
    seen_by(game, client)  # each seat has read its messages once
    night = seen_by(game, client)
    act(game, POLICE[-1], "check", target=POISON)  # the night would end here: everyone acted
    game = fresh(game)
    assert pub(game)["phase"] == "extra_check"
    during = seen_by(game, client)
    # The poison alone is told, in one message, that the police checked it (seed 003
    # poison rule 3); that aside, it sees what the others see.
    told = during[POISON]["view"]["log"][len(night[POISON]["view"]["log"]) :]
    assert [e["kind"] for e in told] == ["poison_checked"]
    during[POISON]["view"]["log"] = night[POISON]["view"]["log"]
    during[POISON]["messages"] -= 1
    during[POISON]["pages"] = [
        without_message(html, "警察已经验过你") for html in during[POISON]["pages"]
    ]
    for what in night:
        assert during[what] == night[what], what
    # The police read the check and the extra check, the GM sees it in the console.
    assert "你们验到了毒药：天亮前警察可以再验一人" in conversation(game, POLICE[0])
    assert rulesets.engine("classic").phase(game.state).awaiting == frozenset(POLICE)
    assert rulesets.engine("classic").view(game.state, GM)["public"]["phase"] == "extra_check"
    client.force_login(game.gm)
    console = client.get(reverse("admin:games_game_console", args=[game.pk]))
    owes = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", console.content.decode()))
    for seat in POLICE:
        assert f"{seat_text(seat)} 无（已完成）" not in owes
    for seat in WATCHERS:
        assert f"{seat_text(seat)} 无（已完成）" in owes


def test_the_dawn_after_the_extra_check_carries_the_whole_night(poison_game):
    game = check_the_poison(poison_game)
    assert list(Announcement.objects.filter(game=game).values_list("title", flat=True)) == [
        "玩家名单"
    ]
    for p in POLICE:
        act(game, p, "check", target=BANDITS[0])
    game = fresh(game)
    assert pub(game)["phase"] in ("last_words", "speech")
    titles = list(Announcement.objects.filter(game=game).values_list("title", flat=True))
    assert titles == ["玩家名单", "第1夜结束"]
    dawn = Announcement.objects.filter(game=game).order_by("id").last()
    assert seat_text(3) in dawn.body and seat_text(3) in announcements(game)
    assert not game.seats.get(number=3).alive
    assert [s.alive for s in game.seats.order_by("number")].count(False) == 1
    assert pub(game)["night_deaths"] == [3]
    # The police's extra result comes with the dawn; the poison was told at once.
    police = conversation(game, POLICE[0])
    assert police.index("你们验到了毒药") < police.index(seat_text(BANDITS[0]) + "是")
    assert "警察已经验过你" in conversation(game, POISON)


def test_a_change_of_the_night_during_the_extra_check_counts_at_dawn(poison_game):
    game = check_the_poison(poison_game)
    for b in BANDITS:
        act(game, b, "kill", target=6, pact=BANDITS[0])
    for p in POLICE:
        act(game, p, "defer")
    game = fresh(game)
    assert [s.number for s in game.seats.filter(alive=False)] == [6]


def test_the_extra_check_keeps_the_nights_deadline_while_it_leaves_the_check_its_time(
    poison_game,
):
    game = all_but_the_last_police(poison_game)
    deadline = game.deadline
    act(game, POLICE[-1], "check", target=POISON)
    assert fresh(game).deadline == deadline


# Two games alike but for the police's check, run to their deadlines (early end off, as in
# the forum preset): the police check the poison in one, a civilian in the other.
T0 = dt.datetime.now(dt.UTC).replace(microsecond=0)  # both games start at once
GRACE = dt.timedelta(seconds=1) + services.grace()


def twin(players, gm):
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
        early_end=False,
    )
    return services.start_game(game_id=game.pk, users=players, seed="poison-web", now=T0)


def night_choices(game, checked):
    """The bandits kill seat 4; two police propose `checked`, the last stays silent; the
    ghost does not possess anyone (it has not acted when the choices close)."""
    for b in BANDITS[:2]:
        act(game, b, "kill", target=3, pact=BANDITS[0])
    for p in POLICE[:-1]:
        act(game, p, "check", target=checked)
    return fresh(game)


def alike(seen: dict) -> dict:
    """`seen_by` less what names the game's own rows (the ids in its addresses) and its
    deal's commitment (a salt of its own)."""
    ids = re.compile(r'((?:href|action|src|hx-get|hx-post|data-url|data-live-game'
                     r'|data-live-phase|data-channels)="[^"]*?)\d+')

    def norm(value):
        if isinstance(value, str):
            for _ in range(3):
                value = ids.sub(r"\1", value)
            value = re.sub(r"/\d+(?=[/\"?#])", "/", value)
            value = re.sub(r"/b/game-[0-9a-z]*/", "/b/game/", value)  # the game's board
            return re.sub(r"\b[0-9a-f]{64}\b", "", value)
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [norm(v) for v in value]
        return value

    out = norm(seen)
    out.pop("games list")  # lists both games
    return out


def same(a, b, what) -> None:
    """a == b, the lines that differ shown when they do not."""

    def text(x) -> list[str]:
        if isinstance(x, str):
            return x.splitlines()
        if isinstance(x, dict) and "pages" in x:
            x = {**x, "pages": [line for page in x["pages"] for line in page.splitlines()]}
        return json.dumps(x, ensure_ascii=False, indent=1, default=str).splitlines()

    if a != b:
        lines = difflib.unified_diff(text(a), text(b), n=1)
        raise AssertionError(f"{what}:\n" + "\n".join(list(lines)[:40]))


def test_a_night_run_to_its_deadline_looks_the_same_whether_the_police_checked_the_poison(
    players, gm, client
):
    """Before the choices close, between the close and the dawn, and at the dawn, every seat
    but the police (the poison but for its one message) and the public see the same in both
    games: views, choices, messages, pages, deadlines, phases and announcements; and the
    dawn comes at the same moment, the night's deadline."""
    poisoned = night_choices(twin(players, gm), POISON)
    plain = night_choices(twin(players, gm), 6)
    deadline, close = poisoned.deadline, poisoned.choices_close_at
    assert deadline == plain.deadline == T0 + dt.timedelta(minutes=600)
    assert close == plain.choices_close_at == deadline - dt.timedelta(minutes=60)
    for game in (poisoned, plain):
        seen_by(game, client)  # each seat has read its messages once

    def both():
        return alike(seen_by(poisoned, client)), alike(seen_by(plain, client))

    def told_apart(a: dict, b: dict) -> None:
        """The poison's one message (and its event) aside, `a` and `b` are the same. (An
        event's place in the whole log, `seq`, counts the police's secret events too; it is
        left out here.)"""
        for seen in (a, b):
            for view in [seen["spectator"], *(seen[seat]["view"] for seat in WATCHERS)]:
                view["log"] = [{k: v for k, v in e.items() if k != "seq"} for e in view["log"]]
        log = a[POISON]["view"]["log"]
        assert [e["kind"] for e in log if e not in b[POISON]["view"]["log"]] == ["poison_checked"]
        a[POISON]["view"]["log"] = [e for e in log if e["kind"] != "poison_checked"]
        a[POISON]["messages"] -= 1
        a[POISON]["pages"] = [without_message(h, "警察已经验过你") for h in a[POISON]["pages"]]
        for what in b:
            same(a[what], b[what], what)

    night_a, night_b = both()
    for what in night_b:
        same(night_a[what], night_b[what], what)
    assert "今晚的选择截止于" in night_a[BANDITS[0]]["pages"][1]

    # The choices close: the police find the poison in one game, nothing shows in either.
    assert services.sweep(now=close + GRACE) == 2
    assert pub(poisoned)["phase"] == "extra_check" and pub(plain)["phase"] == "night"
    assert "你们验到了毒药：天亮前警察可以再验一人" in conversation(poisoned, POLICE[0])
    closed_a, closed_b = both()
    html = closed_b[BANDITS[0]]["pages"][1]
    assert "今晚的选择已截止" in html, html[html.find("phase-name") :][:600]
    told_apart(closed_a, closed_b)
    assert fresh(poisoned).deadline == fresh(plain).deadline == deadline
    assert services.sweep(now=close + 2 * GRACE) == 0  # the close is acted on once

    # The police make the extra check; the dawn still waits for the deadline in both.
    services.submit_action(
        game_id=poisoned.pk,
        user=user_at(poisoned, POLICE[0]),
        kind="check",
        params={"target": BANDITS[0]},
        now=close + GRACE,
    )
    assert services.sweep(now=deadline - dt.timedelta(seconds=1)) == 0
    assert pub(poisoned)["phase"] == "extra_check" and pub(plain)["phase"] == "night"

    # The dawn, at the deadline in both.
    assert services.sweep(now=deadline + GRACE) == 2
    dawn_a, dawn_b = both()
    told_apart(dawn_a, dawn_b)
    ends = [
        list(g.phases.order_by("seq").values_list("name", "ended_at", "end_reason"))
        for g in (poisoned, plain)
    ]
    assert ends[0] == ends[1]
    assert ends[0][0] == ("night", deadline + GRACE, "deadline")
    assert pub(poisoned)["night_deaths"] == pub(plain)["night_deaths"] == [3]
    titles = [
        list(Announcement.objects.filter(game=g).values_list("title", flat=True))
        for g in (poisoned, plain)
    ]
    assert titles[0] == titles[1] == ["玩家名单", "第1夜结束"]
    police = conversation(poisoned, POLICE[0])
    assert police.index("你们验到了毒药") < police.index(seat_text(BANDITS[0]) + "是")


def test_once_the_choices_close_only_the_police_in_their_extra_check_act(players, gm):
    """From the close every seat's choice is refused alike, in both games; only the police
    who found the poison make their extra check. The night does not end early then."""
    poisoned = night_choices(twin(players, gm), POISON)
    plain = night_choices(twin(players, gm), 6)
    after = poisoned.choices_close_at + dt.timedelta(seconds=1)
    for game in (poisoned, plain):
        for seat, kind, params in [
            (BANDITS[2], "kill", {"target": 3, "pact": BANDITS[0]}),
            (BANDITS[0], "kill", {"target": 6, "pact": BANDITS[0]}),
        ]:
            with pytest.raises(services.GameError, match="今晚的选择已截止"):
                services.submit_action(
                    game_id=game.pk, user=user_at(game, seat), kind=kind, params=params, now=after
                )
    with pytest.raises(services.GameError, match="今晚的选择已截止"):
        services.submit_action(
            game_id=plain.pk,
            user=user_at(plain, POLICE[2]),
            kind="check",
            params={"target": 6},
            now=after,
        )
    services.sweep(now=after + GRACE)
    for p in POLICE:
        services.submit_action(
            game_id=poisoned.pk,
            user=user_at(poisoned, p),
            kind="check",
            params={"target": BANDITS[0]},
            now=after + GRACE,
        )
    assert pub(poisoned)["phase"] == "extra_check"  # every police checked: still no dawn


def test_the_gm_ending_the_night_waits_for_the_extra_check_only_when_asked(players, gm):
    """ "End this phase now" on a night that keeps the extra check's time ends it in one
    press, unless the police found the poison: then the GM answers. Waiting closes the
    choices (the extra check begins, nothing of it shows, the deadline stays); pressed
    again, it ends the night. Ending without it ends the night at once (the console's
    tests: tests/web/classic/test_console_poison_night.py)."""
    poisoned = night_choices(twin(players, gm), POISON)
    plain = night_choices(twin(players, gm), 6)
    skipped = night_choices(twin(players, gm), POISON)
    with pytest.raises(services.GameError, match="追加验人"):
        services.end_phase_now(game_id=poisoned.pk, gm=gm)
    assert pub(poisoned)["phase"] == "night" and not fresh(poisoned).choices_closed
    services.end_phase_now(game_id=poisoned.pk, gm=gm, inner="wait")
    assert pub(poisoned)["phase"] == "extra_check"
    assert fresh(poisoned).deadline == fresh(plain).deadline
    assert Announcement.objects.filter(game=poisoned).count() == 1
    with pytest.raises(services.GameError, match="今晚的选择已截止"):
        act(poisoned, BANDITS[2], "kill", target=3, pact=BANDITS[0])
    services.end_phase_now(game_id=poisoned.pk, gm=gm)
    services.end_phase_now(game_id=plain.pk, gm=gm)
    services.end_phase_now(game_id=skipped.pk, gm=gm, inner="skip")
    for game in (poisoned, plain, skipped):
        assert pub(game)["phase"] in ("last_words", "speech")
        assert pub(game)["night_deaths"] == [3]


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


def test_a_check_settled_by_lot_stays_the_poison_when_the_night_changes_meanwhile():
    """The police's two proposals tie and the lot picks the poison: the extra check opens.
    The bandits then split their kill (a tie of their own, another lot at dawn): the dawn
    keeps the check the police were told, and draws no second lot for it."""
    from games.engine.base import action
    from games.engine.classic.rules import Classic

    rules = Classic()
    state = rules.initial_state(
        seats=11, config={"fixed_roles": ROLES, "variant_ghost_poison": True}, seed="b"
    ).state

    def do(seat, kind, **params):
        nonlocal state
        state = rules.apply(state, action(seat, kind, **params)).state

    for b in BANDITS:
        do(b, "kill", target=3, pact=BANDITS[0])
    do(POLICE[0], "check", target=POISON)
    do(POLICE[1], "check", target=3)
    state = rules.end_phase(state).state
    assert state["public"]["phase"] == "extra_check"
    lots = [e for e in state["log"] if e["kind"] == "chance"]
    assert [e["data"]["purpose"] for e in lots] == ["check_tie"]
    do(BANDITS[1], "kill", target=6, pact=BANDITS[0])
    do(BANDITS[2], "defer")  # one proposal for seat 4, one for seat 7: a tie
    do(POLICE[0], "check", target=BANDITS[0])
    state = rules.end_phase(state).state
    lots = [e["data"]["purpose"] for e in state["log"] if e["kind"] == "chance"]
    assert lots == ["check_tie", "kill_tie"]
    resolved = next(e for e in state["log"] if e["kind"] == "night_resolved")
    assert resolved["data"]["check"] == POISON
    assert [(c["seat"], c["extra"]) for c in state["private"][POLICE[0]]["checks"]] == [
        (POISON, False),
        (BANDITS[0], True),
    ]


def test_a_night_form_still_counts_and_the_record_shows_one_night(poison_game, client):
    """The extra check goes on in the night's own record: a bandit's form loaded by night
    (it names the night's phase) is taken, not refused as out of date, and the event log a
    player downloads lists the night alone, with no end yet."""
    game = all_but_the_last_police(poison_game)
    night_seq = game.current_phase.seq
    act(game, POLICE[-1], "check", target=POISON)
    game = fresh(game)
    assert game.current_phase.seq == night_seq
    services.submit_action(
        game_id=game.pk,
        user=user_at(game, BANDITS[1]),
        kind="kill",
        params={"target": 6, "pact": BANDITS[0]},
        expected_phase=night_seq,
    )
    client.force_login(user_at(game, BANDITS[1]))
    export = client.get(reverse("game-events-json", args=[game.pk])).json()
    assert [(p["name"], p["ended_at"]) for p in export["phases"]] == [("night", None)]
    assert "extra_check" not in json.dumps(export, ensure_ascii=False)


def test_reminders_aim_at_the_close_and_none_comes_after_it(
    players, gm, django_capture_on_commit_callbacks
):
    """Whoever the engine awaits once the choices close (the police alone in an extra
    check), nobody is reminded after the close; before it, the seats that owe a choice are
    reminded of the close, alike in both games."""
    from django.core import mail

    from games import reminders

    poisoned = night_choices(twin(players, gm), POISON)
    night_choices(twin(players, gm), 6)  # the other game, the police checking a civilian
    close, deadline = poisoned.choices_close_at, poisoned.deadline
    with django_capture_on_commit_callbacks(execute=True):
        services.sweep(now=close + GRACE)
        assert reminders.send_due_reminders(now=deadline - dt.timedelta(minutes=50)) == 0
    assert not mail.outbox

    early = night_choices(twin(players, gm), POISON)
    with django_capture_on_commit_callbacks(execute=True):
        sent = reminders.send_due_reminders(now=early.choices_close_at - dt.timedelta(minutes=50))
    # the bandit and the police that have not chosen, reminded of the close (50 minutes)
    assert sent == 2 and all("50" in m.subject for m in mail.outbox), mail.outbox
