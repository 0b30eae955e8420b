"""Each rule set's act form in Chromium: the player clicks a non-first option (the prefilled
fields left as the page gave them) and the stored step is the option clicked."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import services
from games.models import Action, Game
from tests.browser.act_form import OPTIONS, choose, offered_steps, option_values, select
from tests.browser.shots import screenshot
from tests.factories import user_of
from tests.factories.classic import NAMES as CLASSIC_NAMES
from tests.factories.classic import new_game
from tests.factories.gold import DURATIONS as GOLD_DURATIONS
from tests.factories.gold import seed_where
from tests.factories.ninelives import MANIFESTO
from tests.factories.ninelives import start as start_ninelives
from tests.services.ninelives.test_play import send_orders

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("chinese")]


def click_option(page_for, live_server, game: Game, seat: int, kind: str, nth: int,
                 artifacts_dir=None, shot: str | None = None, **where) -> dict:
    """Seat `seat` opens its act page, selects the `nth` option of `kind`, clicks send;
    returns the option's decoded value after checking the stored step is that option."""
    page = page_for(user_of(game, seat))
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    values = page.eval_on_selector_all(OPTIONS, "os => os.map(o => o.value)")
    assert page.input_value("#choice") == "" and page.locator("#act-submit").is_disabled()
    of_kind = [v for v in values if json.loads(v)["kind"] == kind and all(
        json.loads(v)["params"].get(k) == w for k, w in where.items())]
    value = of_kind[nth]
    assert value != values[0], "the test must click a non-first option"
    page.select_option("#choice", value=value)
    if shot:
        page.set_viewport_size({"width": 390, "height": 900})
        screenshot(page, artifacts_dir / shot, full_page=True)
    before = Action.objects.filter(game=game).count()
    page.click("#act-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    chosen = json.loads(value)
    row = Action.objects.filter(game=game, seq__gt=before, actor=str(seat)).first()
    assert (row.kind, row.params) == (chosen["kind"], chosen["params"])
    page.context.close()
    return chosen


def test_ninelives_loss_order_by_clicking(page_for, live_server, nl_players, nl_gm,
                                          artifacts_dir):
    """The core card that is not the first offered, the first card moved down once: the
    order stored is the one on screen (the walk in tests/browser/walks/test_play_forms_walk.py
    moves more)."""
    game = start_ninelives(nl_players, nl_gm)
    page = page_for(user_of(game, 0))
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    cores = page.eval_on_selector_all("#id_core option", "os => os.map(o => o.value)")
    page.select_option("#id_core", value=cores[1])
    page.locator("#order-rows .order-row").first.locator(".order-down").click()
    screenshot(page, artifacts_dir / "ninelives-act-390.png", full_page=True)
    shown = page.eval_on_selector_all("#order-rows select", "ss => ss.map(s => s.value)")
    names = page.locator("#order-rows .order-card").all_inner_texts()
    assert len(shown) == 5 and shown[-1] == cores[1] and len(names) == 4
    page.click("#loss-order-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    row = Action.objects.filter(game=game, actor="0").order_by("-seq").first()
    assert (row.kind, row.params) == ("loss_order", {"cards": shown})
    page.context.close()


def stored_step(game: Game, seat: int, before: int) -> tuple[str, dict]:
    row = Action.objects.filter(game=game, seq__gt=before, actor=str(seat)).get()
    return row.kind, row.params


def visible(page, selector: str) -> bool:
    return page.locator(selector).is_visible()


def test_ninelives_card_and_target_by_clicking(page_for, live_server, nl_players, nl_gm,
                                               artifacts_dir):
    """阿猫 clicks "use a card", a card that is not the first (JAIL) and a target that is
    not the first; the page's script offers only JAIL's targets and no text box. 小白 attacks
    with KILLER (its third card) on its last target and writes the manifesto the script
    shows. Each stored step is exactly what was clicked."""
    game = start_ninelives(nl_players, nl_gm)
    send_orders(game)
    page = page_for(user_of(game, 0))
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    grouped = [d for d in option_values(page) if d.get("picks")]
    assert grouped == [{"kind": "use_card", "params": {}, "picks": ["card", "target"]}]
    pass_option = next(d for d in option_values(page) if d["kind"] == "pass")
    select(page, pass_option)
    assert not visible(page, "#pickers") and not visible(page, "#text_manifesto")
    select(page, grouped[0])
    assert visible(page, "#pick_card") and visible(page, "#pick_target")
    assert not visible(page, "#text_manifesto"), "no text box before a card is chosen"
    page.select_option("#pick_card", value="KILLER")
    assert visible(page, "#text_manifesto") and visible(page, "#text_story")
    assert visible(page, "#texts-hint")
    page.select_option("#pick_target", value="0")  # KILLER may target any seat
    cards = page.eval_on_selector_all("#pick_card option", "os => os.map(o => o.value)")
    assert cards.index("JAIL") > 1, "JAIL is not the first card"
    page.select_option("#pick_card", value="JAIL")
    assert page.input_value("#pick_target") == "", "阿猫 is no JAIL target: the pick is reset"
    offered = page.eval_on_selector_all("#pick_target option:not([disabled])",
                                        "os => os.map(o => o.value)")
    assert offered == ["", "1", "2", "3", "4"], offered
    assert not visible(page, "#text_manifesto") and not visible(page, "#texts-hint")
    page.select_option("#pick_target", value="3")
    screenshot(page, artifacts_dir / "ninelives-card-pickers-390.png", full_page=True)
    screenshot(page.locator("#action-form"), artifacts_dir / "ninelives-card-pickers-form-390.png")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, width
    before = Action.objects.filter(game=game).count()
    page.click("#act-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    assert stored_step(game, 0, before) == ("use_card", {"card": "JAIL", "target": 3})
    page.context.close()

    page = page_for(user_of(game, 2))
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    targets = [c["params"]["target"] for c in offered_steps(page)
               if c["kind"] == "use_card" and c["params"].get("card") == "KILLER"]
    choose(page, "use_card", {"card": "KILLER", "target": targets[-1]},
           {"manifesto": MANIFESTO})
    screenshot(page.locator("#action-form"), artifacts_dir / "ninelives-attack-pickers.png")
    before = Action.objects.filter(game=game).count()
    page.click("#act-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    assert stored_step(game, 2, before) == (
        "use_card", {"card": "KILLER", "target": targets[-1], "manifesto": MANIFESTO})
    page.context.close()


def test_classic_kill_and_death_pact_by_clicking(page_for, live_server, make_user, gm):
    """The ghost variant's kill: the victim and the pact bandit, each in its own picker."""
    roles = ["police", "bandit", "civilian", "civilian", "police", "bandit", "civilian",
             "poison", "police", "ghost", "civilian"]
    game = new_game([make_user(n) for n in CLASSIC_NAMES], gm, variant_ghost_poison=True,
                    fixed_roles=roles)
    page = page_for(user_of(game, 1))
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    combos = [c["params"] for c in offered_steps(page) if c["kind"] == "kill"]
    pick = next(c for c in combos[1:] if c["pact"] != combos[0]["pact"]
                and c["target"] != combos[0]["target"])
    choose(page, "kill", pick)
    before = Action.objects.filter(game=game).count()
    page.click("#act-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    assert stored_step(game, 1, before) == ("kill", pick)
    page.context.close()


def test_gold_replacement_by_clicking(page_for, live_server, make_user, gm):
    """An operation turn: a card of the hand that is not the first, on the last virtual
    player, through the card and virtual-player pickers."""
    users = [make_user(name) for name in ("金子", "银子", "铜子")]
    seed, picks = seed_where(3, lambda s: not any(s))
    game = services.create_game(name="金币局", ruleset="gold", gm=gm, seat_count=3,
                                config={"lead": 0}, durations=dict(GOLD_DURATIONS))
    game = services.start_game(game_id=game.pk, users=users, seed=seed)
    for number, card in enumerate(picks):
        services.submit_action(game_id=game.pk, user=users[number], kind="pick",
                               params={"card": card})
    game.refresh_from_db()
    assert game.phase_name == "operation" and game.state["public"]["turn"] == 0
    page = page_for(users[0])
    page.goto(live_server.url + reverse("game-act", args=[game.pk]))
    combos = [c["params"] for c in offered_steps(page) if c["kind"] == "replace"]
    hand = list(dict.fromkeys(c["card"] for c in combos))
    assert len(hand) >= 2 and len(combos) >= 4
    pick = {"card": hand[-1], "virtual": max(c["virtual"] for c in combos)}
    choose(page, "replace", pick)
    before = Action.objects.filter(game=game).count()
    page.click("#act-submit")
    page.wait_for_load_state()
    assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
    assert stored_step(game, 0, before) == ("replace", pick)
    page.context.close()


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
    screenshot(page.locator("#vote-panel"), artifacts_dir / "ninelives-vote-390.png")
    page.click("#vote-submit")
    page.wait_for_load_state()
    assert not Action.objects.filter(game=game, actor="0", kind="vote").exists()
    page.click("#vote-confirm-submit")  # the confirmation page names the target
    page.wait_for_load_state()
    row = Action.objects.filter(game=game, actor="0", kind="vote").get()
    assert row.params == {"target": int(radios[-1])} and radios[-1] != radios[0]
    page.context.close()
