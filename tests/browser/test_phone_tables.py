"""Tables on a phone (Chromium, 390 px, Chinese): gold's rounds played (a six-seat game's seat
panel), a player's games on their profile, and Classic's table of seats (the seat panel and
the game's home page). Every table either fits the phone or scrolls sideways in its own
wrapper; no cell is squeezed until its text stands one character per line (a Chinese
column name or "阿猫" broken into a column of single characters, "1/0" into two lines).
Screenshots in the artifacts folder (phone-tables-*.png)."""

from __future__ import annotations

import datetime as dt

import pytest

from games import selectors, services
from tests.browser.shots import screenshot
from tests.factories import classic as classic_factory
from tests.factories import fresh, user_of
from tests.factories.gold import DURATIONS, T0
from tests.factories.toy import finish

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("toy_ruleset"),
]
PHONE = {"width": 390, "height": 844}

# For every cell of the tables matched by `selector`: its text, its width, the lines its text
# takes (content height / line height), and whether the table's wrapper scrolls sideways.
MEASURE = r"""(selector) => {
const canvas = document.createElement('canvas').getContext('2d');
return [...document.querySelectorAll(selector)].flatMap(table => {
  const wrapper = table.closest('.table-scroll');
  const scrolls = wrapper ? wrapper.scrollWidth > wrapper.clientWidth : false;
  return [...table.querySelectorAll('th, td')].filter(cell => cell.offsetParent !== null)
    .map(cell => {
      // the text's own box (a cell is as tall as its row): its lines and the cell's room
      const style = getComputedStyle(cell);
      const size = parseFloat(style.fontSize);
      const line = parseFloat(style.lineHeight) || size * 1.25;
      const range = document.createRange();
      range.selectNodeContents(cell);
      const box = range.getBoundingClientRect();
      const width = cell.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = cell.innerText.trim();
      // the room its first two characters take on one line ("10", "阿猫")
      const two = canvas.measureText(text.replace(/\s+/g, ' ').slice(0, 2)).width;
      return {table: table.id, text, width, two, size, line,
              lines: Math.max(1, Math.round(box.height / line)), scrolls,
              // a heading row kept for screen readers only (table.stack on a phone)
              hidden: !!cell.closest('thead') && cell.closest('thead').clientHeight <= 1};
    });
});
}"""


def squeezed(cells: list[dict]) -> list[dict]:
    """The cells whose text is broken into lines of about one character, or whose room is
    narrower than the first two characters of their text."""
    bad = []
    for cell in cells:
        text = cell["text"].replace("\n", "")
        if not text or cell["hidden"]:
            continue
        too_narrow = len(text) >= 2 and cell["width"] + 1 < cell["two"]
        one_per_line = cell["lines"] >= 2 and len(text) / cell["lines"] < 2.5
        if too_narrow or one_per_line:
            bad.append(cell)
    return bad


def check(page, selector: str, artifacts_dir, name: str) -> list[dict]:
    page.set_viewport_size(PHONE)
    page.wait_for_load_state()
    cells = page.evaluate(MEASURE, selector)
    screenshot(page, artifacts_dir / f"phone-tables-{name}.png", full_page=True)
    assert cells, f"no table {selector} on the page"
    assert not squeezed(cells), squeezed(cells)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page itself scrolls sideways: {width}px"
    return cells


def play_gold_rounds(game, rounds: int):
    """Every seat takes its first legal step once a phase, in turn, until `rounds` rounds
    are played (a phase whose seats have all acted is ended by the sweep)."""
    acted = set()
    for _step in range(400):
        game = fresh(game)
        if game.status != "running" or len(game.state["public"].get("results") or []) >= rounds:
            return game
        for number in range(game.seat_count):
            choices = selectors.legal_actions_for(game, number)
            if choices and (game.current_phase_id, number) not in acted:
                acted.add((game.current_phase_id, number))
                services.submit_action(
                    game_id=game.pk,
                    user=user_of(game, number),
                    kind=choices[0].kind,
                    params=choices[0].params,
                    now=game.current_phase.started_at + dt.timedelta(seconds=1),
                )
                break
        else:
            services.sweep(now=game.deadline + services.grace() + dt.timedelta(seconds=1))
    raise AssertionError("the rounds did not end")


def test_gold_rounds_played_fit_or_scroll_at_390_px(
    page_for, live_server, make_user, gm, artifacts_dir
):
    users = [make_user(name) for name in ("金子", "银子铜子", "铁子", "锡子", "铅子大王", "阿猫")]
    g = services.create_game(
        name="六人金币局",
        ruleset="gold",
        gm=gm,
        seat_count=6,
        config={"lead": 0},
        durations=dict(DURATIONS),
    )
    game = services.start_game(game_id=g.pk, users=users, seed="gold-phone", now=T0)
    game = play_gold_rounds(game, 2)
    page = page_for(users[0])
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/act/")
    cells = check(page, "#gold-results", artifacts_dir, "gold")
    assert any(c["text"] == "1" for c in cells)  # the first round's row is there


def test_the_profile_games_table_fits_or_scrolls_at_390_px(
    page_for, live_server, players, gm, artifacts_dir
):
    for i in range(2):
        g = services.create_game(
            name=f"第{i + 1}局：很长很长的游戏名称",
            ruleset="toy",
            gm=gm,
            seat_count=5,
            durations={"night": 60, "day": 60},
        )
        finish(services.start_game(game_id=g.pk, users=players, seed=f"phone-{i}"))
    page = page_for(players[1])
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/u/{players[0].pk}/")
    check(page, "#games-played", artifacts_dir, "profile")


def test_the_classic_seat_tables_fit_or_scroll_at_390_px(
    page_for, live_server, make_user, gm, artifacts_dir
):
    users = [make_user(name) for name in classic_factory.NAMES]
    game = classic_factory.new_game(users, gm)
    classic_factory.night_one(game)
    game = fresh(game)
    page = page_for(users[0])
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/act/")
    check(page, "#classic-table", artifacts_dir, "classic-panel")
    page.goto(f"{live_server.url}{game.get_absolute_url()}")
    check(page, "#seats", artifacts_dir, "classic-home")
