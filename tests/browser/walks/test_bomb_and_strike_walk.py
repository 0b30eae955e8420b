"""猫有n条命, a BOMB and a STRIKE on the same day (§3.4.6, §3.4.7), clicked in Chromium.

The game is built through the services up to day 3 with the steps of the engine's own test of
that day (tests/engine/ninelives/test_bomb_and_strike.py): seat 2 阿狗 (the wolf) holds BOMB
and COUNTER_SNIPER, its loss order PARDON, BOMB, SORCERER, COUNTER_SNIPER, WEREWOLF; night 1
costs it the PARDON; days 1 and 2 end with nobody executed. Day 3, by clicking: 阿狗 uses 炸弹
on 3号小白, 老黑 uses 必杀 on 2号阿狗; everyone votes for 阿狗 and the GM ends the day from the
console. 阿狗's page then shows the BOMB spent once and the SORCERER lost to the STRIKE (the
BOMB is gone once used, so it is never lost a second time), and its hand holds the two cards
the rules leave it: 反狙击手 and 狼人.
"""

from __future__ import annotations

import pytest

from games import services
from games.engine.base import CLOCK
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    end_phase,
    fits_a_phone,
    follow,
    last_step,
    open_console,
    read_in_chinese,
)
from tests.browser.walks.test_ninelives_walk import use_card
from tests.engine.ninelives.test_bomb_and_strike import (
    BOMBER,
    DEAL,
    STRIKER,
    TARGET,
    game_at_day_3,
)
from tests.factories.ninelives import NAMES, conversation, fresh, user_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAME = "炸弹与必杀"
SEAT = [f"{n + 1}号{name}" for n, name in enumerate(NAMES[:5])]
SPENT = "你的炸弹已经引爆，从你手中移除"
SORCERER_LOST = "你丢了巫师"
STRUCK = "你丢了巫师（狼人阵营），即你丢牌顺序中的第一张：被必杀击中"


def game_at_day_3_through_the_services(players, gm):
    """The engine test's game to day 3, step by step through the services: each seat's step
    as its player submits it, each end of phase as the GM's "end this phase now" (phases do
    not end early here, so each ends where the engine's test ends it)."""
    engine = game_at_day_3()
    game = services.create_game(
        name=GAME,
        ruleset="ninelives",
        gm=gm,
        seat_count=5,
        config={"players": 5, "deal": DEAL},
        durations={"night": 24 * 60, "day": 24 * 60, "runoff": 12 * 60},
        early_end=False,
    )
    game = services.start_game(game_id=game.pk, users=players[:5], seed="test")
    for step in engine.steps:
        if step["actor"] == CLOCK:
            assert services.advance_phase(game_id=game.pk, reason="gm", by=gm)
        else:
            services.submit_action(
                game_id=game.pk,
                user=user_of(game, step["actor"]),
                kind=step["kind"],
                params=step["params"],
            )
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("day", 3)
    assert game.state["private"][BOMBER]["hand"] == engine.hand(BOMBER)
    return game


def hand_on_page(page) -> list[str]:
    """The cards the act page shows in the seat's hand, as the player reads them."""
    return sorted(page.locator("#hand [data-card]").all_inner_texts())


@pytest.mark.slow(seconds=15)
def test_a_bomber_struck_the_same_day_loses_the_sorcerer_after_its_spent_bomb(
    page_for, live_server, nl_players, nl_gm, shots
):
    game = game_at_day_3_through_the_services(nl_players, nl_gm)

    # 阿狗 throws the BOMB at 小白; 老黑 answers with the STRIKE on 阿狗.
    bomber, striker = page_for(nl_players[BOMBER]), page_for(nl_players[STRIKER])
    for page in (bomber, striker):
        page.set_viewport_size(PHONE)
        arrive(page, live_server)
        follow(page, "#my-games a.act-link")
    use_card(bomber, "炸弹", SEAT[TARGET])
    assert last_step(game, BOMBER).params == {"card": "BOMB", "target": TARGET}
    use_card(striker, "必杀", SEAT[BOMBER])
    assert last_step(game, STRIKER).params == {"card": "STRIKE", "target": BOMBER}
    # Nothing is lost before the day ends (§3.4.7): the BOMB is still in the hand shown.
    bomber.reload()
    assert "炸弹" in hand_on_page(bomber)

    # Everyone votes for 阿狗; the GM ends the day from the console.
    for seat in range(5):
        services.submit_action(
            game_id=game.pk, user=user_of(game, seat), kind="vote", params={"target": BOMBER}
        )
    gm = page_for(nl_gm)
    open_console(gm, live_server, GAME)
    end_phase(gm)
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("night", 4)

    # 阿狗 reads its page: the BOMB spent once, the SORCERER lost to the STRIKE, two cards.
    bomber.reload()
    told = read_in_chinese(bomber, "#conversation")
    assert told.count(SPENT) == 1, told
    assert SORCERER_LOST in told and "你丢了炸弹" not in told, told
    # One message of 神的使者, in this order: the BOMB went off, then the STRIKE took the
    # SORCERER, the first card of the loss order left.
    assert told.index(SPENT) < told.index(STRUCK)
    assert hand_on_page(bomber) == sorted(["反狙击手", "狼人"]), hand_on_page(bomber)
    assert game.state["private"][BOMBER]["hand"] == ["WEREWOLF", "COUNTER_SNIPER"]
    assert game.state["private"][BOMBER]["loss_order"] == ["COUNTER_SNIPER", "WEREWOLF"]
    messages = conversation(game, BOMBER)
    assert messages.count(SPENT) == 1 and "你丢了炸弹" not in messages
    assert fits_a_phone(bomber)
    shots(bomber, "ninelives-bomb-and-strike-390")
