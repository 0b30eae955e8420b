"""Each rule set's act form in Chromium: the player clicks a non-first option (the prefilled
fields left as the page gave them) and the stored step is the option clicked."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import services
from games.models import Action, Game
from tests.factories import user_of
from tests.factories.classic import NAMES as CLASSIC_NAMES
from tests.factories.classic import new_game
from tests.factories.gold import DURATIONS as GOLD_DURATIONS
from tests.factories.gold import seed_where
from tests.factories.ninelives import start as start_ninelives

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("chinese")]


def click_option(page_for, live_server, game: Game, seat: int, kind: str, nth: int,
                 artifacts_dir=None, shot: str | None = None, **where) -> dict:
    """Seat `seat` opens its act page, selects the `nth` option of `kind`, clicks send;
    returns the option's decoded value after checking the stored step is that option."""
    page = page_for(user_of(game, seat))
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    values = page.eval_on_selector_all("#choice option", "os => os.map(o => o.value)")
    of_kind = [v for v in values if json.loads(v)["kind"] == kind and all(
        json.loads(v)["params"].get(k) == w for k, w in where.items())]
    value = of_kind[nth]
    assert value != values[0], "the test must click a non-first option"
    page.select_option("#choice", value=value)
    if shot:
        page.set_viewport_size({"width": 390, "height": 900})
        page.screenshot(path=str(artifacts_dir / shot), full_page=True)
    before = Action.objects.filter(game=game).count()
    page.click("#act-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    chosen = json.loads(value)
    row = Action.objects.filter(game=game, seq__gt=before, actor=str(seat)).first()
    assert (row.kind, row.params) == (chosen["kind"], chosen["params"])
    page.context.close()
    return chosen


def test_ninelives_loss_order_and_card_by_clicking(page_for, live_server, nl_players, nl_gm,
                                                   artifacts_dir):
    game = start_ninelives(nl_players, nl_gm)
    chosen = click_option(page_for, live_server, game, 0, "loss_order", 1, artifacts_dir,
                          "ninelives-act-390.png")
    game.refresh_from_db()
    assert game.state["private"][0]["loss_order"][-1] == chosen["params"]["cards"][-1]
    click_option(page_for, live_server, game, 0, "use_card", 2, card="JAIL")


def test_classic_night_kill_by_clicking(page_for, live_server, make_user, gm):
    game = new_game([make_user(n) for n in CLASSIC_NAMES], gm)
    click_option(page_for, live_server, game, 1, "kill", 2)
    click_option(page_for, live_server, game, 0, "check", 3)


def test_gold_pick_by_clicking(page_for, live_server, make_user, gm):
    users = [make_user(name) for name in ("金子", "银子", "铜子")]
    seed, _picks = seed_where(3, lambda s: True)
    game = services.create_game(name="金币局", ruleset="gold", gm=gm, seat_count=3,
                                config={"lead": 0}, durations=dict(GOLD_DURATIONS))
    game = services.start_game(game_id=game.pk, users=users, seed=seed)
    click_option(page_for, live_server, game, 1, "pick", 1)


def test_ninelives_vote_by_clicking_a_non_first_seat(page_for, live_server, nl_players, nl_gm,
                                                     artifacts_dir):
    from messaging.models import Thread
    from tests.services.ninelives.test_play import play_night_1

    game = play_night_1(start_ninelives(nl_players, nl_gm))
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    page = page_for(user_of(game, 0))
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(live_server.url + reverse("messaging-thread", args=[thread.pk]))
    radios = page.eval_on_selector_all("#vote-form input[name=target]",
                                       "rs => rs.map(r => r.value)")
    page.check(f"#vote-form input[name=target][value='{radios[-1]}']")
    page.locator("#vote-panel").screenshot(path=str(artifacts_dir / "ninelives-vote-390.png"))
    page.click("#vote-submit")
    page.wait_for_load_state()
    row = Action.objects.filter(game=game, actor="0", kind="vote").get()
    assert row.params == {"target": int(radios[-1])} and radios[-1] != radios[0]
    page.context.close()
