"""Classic and 谁偷了我的金币: every kind of choice the act page offers stores exactly what was
picked. A walk through a game by the act page only: at each step a seat that may act opens
its page, fills the form as a browser does (tests/factories/forms.py), picks an option that is
not the first (one of a kind not tried yet when there is one), writes the texts it asks for,
sends it, and the stored step (the last Action row) must equal the option picked."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse

from games import rulesets, services
from games.models import Action, Game
from tests.factories import fresh, user_of
from tests.factories.classic import NAMES as CLASSIC_NAMES
from tests.factories.classic import new_game
from tests.factories.forms import Form
from tests.factories.gold import DURATIONS as GOLD_DURATIONS
from tests.factories.gold import seed_where

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese", "response_context")]

TEXT = "我是好人，请相信我，今晚我什么也没有看见。过"


def acting_seats(game: Game) -> list[int]:
    engine = rulesets.engine(game.ruleset)
    return [s for s in range(game.seat_count) if engine.legal_actions(game.state, s)]


def walk(client, game: Game, steps: int, seed: int) -> set[str]:
    """Up to `steps` steps through the act page; the kinds stored, each checked."""
    rng = random.Random(seed)
    tried: set[str] = set()
    for _ in range(steps):
        game = fresh(game)
        if game.status != Game.Status.RUNNING:
            break
        seats = acting_seats(game)
        assert seats, f"nobody may act in {game.phase_name}"
        seat = rng.choice(seats)
        client.force_login(user_of(game, seat))
        form = Form(client.get(reverse("game-act", args=[game.pk])).content.decode(),
                    "action-form")
        options = [o for o in form.options["choice"] if o[0]]  # not "choose an action"
        # not the first option; a grouped one (separate pickers) may be first, since its
        # non-first entries are picked in its pickers
        later = options[1:] + [o for o in options[:1] if "picks" in json.loads(o[0])] \
            or options
        fresh_kinds = [o for o in later if json.loads(o[0])["kind"] not in tried
                       and json.loads(o[0])["kind"] != "team_message"]
        value, _label = rng.choice(fresh_kinds or [o for o in later if "team_message" not in
                                                   o[0]] or later)
        form.pick("choice", value=value)
        chosen = json.loads(value)
        expected = dict(chosen["params"])
        texts = chosen.get("texts", ())
        if "picks" in chosen:  # separate pickers: a combination offered, not the first one
            attrs = form.option_attrs["choice"][
                [v for v, _l in form.options["choice"]].index(value)]
            combos = json.loads(attrs["data-combos"])
            combo = rng.choice(combos[1:] or combos)
            for key in chosen["picks"]:
                form.pick(f"pick_{key}", value=str(combo["params"][key]))
            expected = dict(combo["params"])
            texts = combo["texts"][:1]  # a combination taking one text of several: the first
        for name in texts:
            form.fill(f"text_{name}", TEXT)
            expected[name] = TEXT
        before = Action.objects.filter(game=game).count()
        response = client.post(reverse("game-act", args=[game.pk]), form.fields, follow=True)
        if b'id="confirm-form"' in response.content:  # a vote: confirmed on the next page
            assert chosen["kind"] == "vote", chosen
            fields = dict(Form(response.content.decode(), "confirm-form").fields, confirmed="1")
            response = client.post(reverse("game-act", args=[game.pk]), fields, follow=True)
        shown = [str(m) for m in response.context["messages"]]
        assert shown == ["已收到。神的使者已在下方确认。"], (chosen, shown)
        row = Action.objects.filter(game=game, seq__gt=before, actor=str(seat)).get()
        assert (row.kind, row.params) == (chosen["kind"], expected)
        tried.add(chosen["kind"])
    return tried


@pytest.fixture
def eleven(make_user):
    return [make_user(name) for name in CLASSIC_NAMES]


def test_classic_night_and_day_choices_store_what_was_picked(eleven, gm, client):
    game = new_game(eleven, gm)
    tried = walk(client, game, steps=60, seed=3)
    assert {"kill", "check", "speak", "vote"} <= tried, tried


def test_classic_night_kill_with_a_death_pact_stores_both_picks(eleven, gm, client):
    game = new_game(eleven, gm, variant_ghost_poison=True, fixed_roles=[
        "police", "bandit", "civilian", "civilian", "police", "bandit", "civilian", "poison",
        "police", "ghost", "civilian"])
    tried = walk(client, game, steps=12, seed=5)
    kills = Action.objects.filter(game=game, kind="kill")
    assert "kill" in tried and all("pact" in a.params for a in kills)


def test_gold_picks_and_turns_store_what_was_picked(make_user, gm, client):
    users = [make_user(name) for name in ("金子", "银子", "铜子")]
    seed, _picks = seed_where(3, lambda s: s[0] > 0 and s[1] == 0 and s[2] == 0)
    game = services.create_game(name="金币局", ruleset="gold", gm=gm, seat_count=3,
                                config={"lead": 0}, durations=dict(GOLD_DURATIONS))
    game = services.start_game(game_id=game.pk, users=users, seed=seed)
    tried = walk(client, game, steps=40, seed=7)
    assert {"pick", "swap", "replace", "flip"} & tried and "pick" in tried, tried
    assert len(tried) >= 4, tried
