"""谁偷了我的金币 in a real Chromium: three players, three browser contexts, one full round
through the pages (secret picks, a priority choice, a swap, a replacement, a flip), the rest
of the game through the services; every page a player opens is checked for other seats'
hidden cards."""

from __future__ import annotations

from html import unescape

import pytest
from django.urls import reverse
from django.utils import translation

from games import selectors, services
from games.models import Event, Game
from tests.browser.act_form import choose as choose_step
from tests.factories import build_chinese_catalog, fresh
from tests.factories.gold import DURATIONS, assert_hides_others, seed_where

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_three_players_play_a_round_in_the_browser(page_for, live_server, gold_players, gold_gm,
                                                   artifacts_dir, settings, tmp_path):
    settings.LOCALE_PATHS = [build_chinese_catalog(tmp_path)]  # django.po, compiled now
    users, gm = gold_players, gold_gm
    # a first-round table where seat 1 alone would win coins: it gets the priority token
    seed, picks = seed_where(3, lambda s: s[0] > 0 and s[1] == 0 and s[2] == 0)
    game = services.create_game(name="浏览器金币局", ruleset="gold", gm=gm, seat_count=3,
                                config={"lead": 0}, durations=dict(DURATIONS))
    game = services.start_game(game_id=game.pk, users=users, seed=seed)
    names = selectors.seat_names(game)
    act_url = live_server.url + reverse("game-act", args=[game.pk])

    pages = [page_for(user) for user in users]  # a signed-in context each
    checked = 0

    def visit(number: int, url: str = act_url) -> str:
        """Seat `number` opens a page; check it hides every other seat's secret."""
        nonlocal checked
        pages[number].goto(url)
        html = unescape(pages[number].content())
        checked += assert_hides_others(html, fresh(game), number, names)
        return html

    def choose(number: int, kind: str, **params) -> str:
        """Seat `number` opens its page, picks the choice in the form and sends it."""
        html = visit(number)
        assert 'id="action-form"' in html, f"seat {number + 1} has no form for {kind}"
        page = pages[number]
        choose_step(page, kind, params)  # a replacement: the card and the virtual player
        page.click("#act-submit")
        page.wait_for_load_state()
        html = unescape(page.content())
        assert page.locator(".messages li.success").count() == 1, page.inner_text("main")
        return html

    # 1. the secret picks: nobody sees another's pick until all are in
    for number, card in enumerate(picks):
        choose(number, "pick", card=card)
        if number < 2:
            assert fresh(game).phase_name == "pick"
    game = fresh(game)
    assert game.phase_name == "priority" and game.state["public"]["turn"] == 0

    # 2. seat 1 trades its priority token; seat 2 is not asked anything yet
    assert 'id="no-actions"' in visit(1)
    choose(0, "take_double")
    assert fresh(game).state["public"]["tokens"][0] == "double"

    # 3. the operations, from the lead: a swap, a replacement, a flip
    hand0 = fresh(game).state["private"][0]["hand"]
    choose(0, "swap", card=hand0[0])
    hand1 = fresh(game).state["private"][1]["hand"]
    html = choose(1, "replace", card=hand1[0], virtual=0)
    assert "只有我知道" in html  # its own face-down card is shown to it alone
    html = visit(2)
    assert html.count('class="gold-card face-down">?</span>') == 2
    choose(2, "flip", virtual=0)
    game = fresh(game)
    flipped = Event.objects.get(game=game, kind="flipped")
    assert flipped.public and flipped.data["card"] == hand1[0]
    assert game.state["public"]["results"][0]["virtual"][0] == hand1[0]
    assert game.state["public"]["round"] == 2, "the round was judged and the next one dealt"
    for number in range(3):
        html = visit(number)
        assert "第 1 轮最终判定" in html or "已完成的轮次" in html
    assert checked >= 4

    # 4. the other two rounds through the services: everyone lets the clock decide
    while fresh(game).status == Game.Status.RUNNING:
        game = fresh(game)
        services.advance_phase(game_id=game.pk, reason="gm", by=gm)
    game = fresh(game)
    assert game.status == Game.Status.FINISHED and game.outcome["winners"]
    for number in range(3):
        html = visit(number, live_server.url + reverse("game-home", args=[game.pk]))
        view, _seat = selectors.view_for(game, users[number])
        with translation.override("zh-hans"):
            result = selectors.outcome_line(game, selectors.seat_names(game), view)
        assert "游戏结束" in result and result in unescape(html)  # the result, in Chinese
        assert game.outcome["summary"] not in html  # never the engine's English
    visit(0)
    pages[0].screenshot(path=str(artifacts_dir / "gold-game.png"), full_page=True)
    assert (artifacts_dir / "gold-game.png").stat().st_size > 1000
