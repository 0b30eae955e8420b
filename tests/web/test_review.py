"""The post-game review and the event log export: nothing before the end (except the GM's
preview), everything after it."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from games import services
from games.engine.base import replay
from games.models import Event, Game
from games.web import review
from tests.factories.toy import finish, night_kill, seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]


def page(client, user, name, game, *args):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(reverse(name, args=[game.pk, *args]))


def event_seqs_on(html: str) -> list[str]:
    return re.findall(r'<li class="event" data-seq="(\d*)"', html)


@pytest.fixture
def outsider(make_user):
    return make_user("路人")


@pytest.fixture
def running(game, gm):
    """The toy game after night 1 (a private kill plan, a public death) with a GM-only act."""
    game = night_kill(game)
    services.extend_deadline(game_id=game.pk, gm=gm, minutes=30)
    return game


# --- the review page --------------------------------------------------------------------

def test_before_the_end_the_review_is_404_for_players_outsiders_and_visitors(
        running, outsider, client):
    wolf = seat_user(running, "wolf")
    villager = seat_user(running, "villager")
    for user in (wolf, villager, outsider, None):
        assert page(client, user, "game-review", running).status_code == 404
        assert page(client, user, "game-review-seat", running, 1).status_code == 404


def test_the_gm_may_preview_the_review_before_the_end(running, gm, client):
    response = page(client, gm, "game-review", running)
    assert response.status_code == 200
    assert 'id="preview"' in response.content.decode()


def test_after_the_end_the_timeline_shows_every_event_to_anyone(game, gm, client):
    services.extend_deadline(game_id=game.pk, gm=gm, minutes=30)  # a GM-only act
    game = finish(game)
    html = page(client, None, "game-review", game).content.decode()
    shown = event_seqs_on(html)
    stored = Event.objects.filter(game=game)
    assert len(shown) == stored.count()
    engine_seqs = stored.exclude(seq=None).values_list("seq", flat=True)
    assert set(shown) == {str(s) for s in engine_seqs} | {""}, "\"\": GM acts outside the engine"
    visibilities = set(re.findall(r'data-visibility="(\w+)"', html))
    assert visibilities == {"public", "seats", "gm"}, "private, public and GM-only all shown"
    assert "the wolf attacked " in unescape(html), "the because chain is shown"


def test_after_the_end_every_seat_s_role_and_the_secret_are_revealed(game, client):
    game = finish(game)
    html = unescape(page(client, None, "game-review", game).content.decode())
    rows = re.findall(r'<tr data-seat="(\d+)">(.*?)</tr>', html, re.S)
    assert len(rows) == 5
    for number, row in rows:
        role = "wolf" if int(number) == wolf_seat(game) else "villager"
        assert f"<dt>role</dt><dd>{role}</dd>" in row
    secret = re.search(r'<dl class="card facts" id="secret">(.*?)</dl>', html, re.S).group(1)
    assert f"<dt>wolf</dt><dd>{wolf_seat(game)}</dd>" in secret


def test_the_seat_page_shows_what_that_seat_alone_was_told(game, client):
    game = finish(game)
    wolf = wolf_seat(game)
    other = (wolf + 1) % 5
    for number, role in ((wolf, "wolf"), (other, "villager")):
        html = unescape(page(client, None, "game-review-seat", game, number + 1)
                        .content.decode())
        told = re.search(r'<div id="told">(.*?)</div>\s*<h2>', html, re.S).group(1)
        kinds = re.findall(r'data-kind="(\w+)"', told)
        assert kinds.count("role") == 1 and f"role: {role}" in told
        assert ("kill_planned" in kinds) == (number == wolf), "the kill plan is the wolf's"
        steps = re.findall(r'<ol id="steps">(.*?)</ol>', html, re.S)[0]
        assert ("kill" in steps) == (number == wolf)


def test_long_timelines_are_paginated_by_phase(game, client, monkeypatch):
    monkeypatch.setattr(review, "PHASES_PER_PAGE", 1)
    game = finish(game)
    first = page(client, None, "game-review", game).content.decode()
    second = client.get(reverse("game-review", args=[game.pk]) + "?page=2").content.decode()
    assert re.findall(r'<section class="phase card" data-seq="(\d+)"', first) == ["1"]
    assert re.findall(r'<section class="phase card" data-seq="(\d+)"', second) == ["2"]
    assert len(event_seqs_on(first)) + len(event_seqs_on(second)) == Event.objects.filter(
        game=game).count()


def test_a_draft_game_has_no_review(players, gm, client):
    draft = services.create_game(name="草稿", ruleset="toy", gm=gm, seat_count=5)
    assert page(client, players[0], "game-review", draft).status_code == 404
    assert page(client, None, "game-events-json", draft).status_code == 404


# --- the JSON export --------------------------------------------------------------------

def test_before_the_end_the_export_holds_what_the_viewer_may_see(running, outsider, client):
    engine = services.ruleset_of(running)
    for seat in running.seats.order_by("number"):
        data = page(client, seat.user, "game-events-json", running).json()
        expected = [e["kind"] for e in engine.view(running.state, seat.number)["log"]]
        assert [e["kind"] for e in data["events"]] == expected, seat.number
        # numbered 1, 2, 3… in the reader's own export: a gap would count hidden events
        assert [e["seq"] for e in data["events"]] == list(range(1, len(expected) + 1))
        assert "setup" not in data and "steps" not in data and not data["complete"]
    public = list(Event.objects.filter(game=running, public=True).order_by("id")
                  .values_list("kind", flat=True))
    for user in (outsider, None):
        data = page(client, user, "game-events-json", running).json()
        assert [e["kind"] for e in data["events"]] == public
        assert [e["seq"] for e in data["events"]] == list(range(1, len(public) + 1))
        assert all(e["public"] for e in data["events"])
    assert running.seed not in page(client, seat_user(running, "wolf"), "game-events-json",
                                    running).content.decode()


def test_after_the_end_the_export_holds_everything_and_replays_the_game(game, gm, client):
    services.extend_deadline(game_id=game.pk, gm=gm, minutes=30)
    game = finish(game)
    data = page(client, None, "game-events-json", game).json()
    assert data["complete"] and len(data["events"]) == Event.objects.filter(game=game).count()
    assert any(e["kind"] == "gm_extend_deadline" for e in data["events"])
    assert [e["kind"] for e in data["events"]] == list(
        Event.objects.filter(game=game).order_by("id").values_list("kind", flat=True))
    assert [e["seq"] for e in data["events"]] == list(range(1, len(data["events"]) + 1))
    state = replay(services.ruleset_of(game), data["setup"], data["steps"])
    assert state == game.state


# --- a short 猫有n条命 game -------------------------------------------------------------------

def short_ninelives(start_ninelives, nl_gm):
    """Night 1: 阿猫 sends a loss order, 小白 chooses DIVINER on 阿猫; the GM fouls out the
    killer and the wolf (and ends the night if the game goes on): the civilians win."""
    from tests.factories.ninelives import act

    game = start_ninelives()
    act(game, 0, "loss_order", cards=["JAIL", "VEST", "WITCH_DOCTOR", "DEMON", "KILLER"])
    act(game, 2, "use_card", card="DIVINER", target=0)
    for seat in (0, 1):
        services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                         params={"seat": seat, "reason": "测试"})
    game.refresh_from_db()
    if game.status == Game.Status.RUNNING:  # the engine may already have ended it
        services.end_phase_now(game_id=game.pk, gm=nl_gm)
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def test_the_ninelives_review_verifies_the_deal_and_reveals_every_hand(
        start_ninelives, nl_gm, client):
    from tests.engine.ninelives.deals import FIVE

    game = short_ninelives(start_ninelives, nl_gm)
    html = unescape(page(client, None, "game-review", game).content.decode())
    assert 'data-matches="yes"' in html
    rows = dict(re.findall(r'<tr data-seat="(\d+)">(.*?)</tr>', html, re.S))
    secret = re.search(r'id="secret">(.*?)</dl>', html, re.S).group(1)
    deal = re.search(r'<table id="deal".*?</table>', html, re.S).group(0)
    from django.utils import translation

    from games.presenters.ninelives import camp_name, card_name, cards_text

    with translation.override("zh-hans"):  # the page's language: names, never codes
        for number, entry in enumerate(FIVE["seats"]):
            assert cards_text(entry["cards"]) in deal, "the deal table names every hand"
            dealt = f"{camp_name(entry['camp'])}阵营：{cards_text(entry['cards'])}"
            assert dealt in secret, "the dealt hand, in the GM's secrets"
            if number >= 2:  # the living seats still hold their hands at the end
                assert all(card_name(c) in rows[str(number)] for c in entry["cards"]), number
            assert f"<dt>阵营</dt><dd>{camp_name(entry['camp'])}" in rows[str(number)]
            assert not any(c in rows[str(number)] for c in entry["cards"]), "no card code"
        assert f"验为杀手阵营：{cards_text(['STRIKE', 'BLESS'])}" in secret
        assert f"验为狼人阵营：{cards_text(['JAIL', 'SAINT'])}" in secret
    assert len(event_seqs_on(html)) == Event.objects.filter(game=game).count()


def test_the_ninelives_seat_page_shows_its_own_panel_and_private_steps_only(
        start_ninelives, nl_gm, client):
    game = short_ninelives(start_ninelives, nl_gm)
    seat3 = unescape(page(client, None, "game-review-seat", game, 3).content.decode())
    assert re.findall(r'<li class="card[^"]*" data-card="(\w+)"', seat3) == [
        "SNIPER", "DIVINER", "KILLER", "SORCERER", "SAINT"]
    assert 'data-kind="card_chosen"' in seat3 and 'data-kind="loss_order_set"' not in seat3
    seat1 = unescape(page(client, None, "game-review-seat", game, 1).content.decode())
    assert 'data-kind="loss_order_set"' in seat1 and 'data-kind="card_chosen"' not in seat1
    told = re.search(r'<div id="told">(.*?)</div>\s*<h2>', seat1, re.S).group(1)
    assert told.count('data-kind="hand_dealt"') == 1, "its own hand only"


def test_a_game_aborted_before_its_deal_has_an_empty_review(players, gm, client):
    stopped = services.create_game(name="流局", ruleset="toy", gm=gm, seat_count=5)
    services.abort_game(game_id=stopped.pk, gm=gm, reason="人不够")
    stopped.refresh_from_db()
    html = page(client, players[0], "game-review", stopped).content.decode()
    assert "人不够" in html and event_seqs_on(html) == [""], "the GM's act alone"
    data = page(client, None, "game-events-json", stopped).json()
    assert [e["kind"] for e in data["events"]] == ["gm_abort"] and data["steps"] == []
