"""A short 11-player Classic game in a real Chromium: two bandits agree on the victim and a
police officer checks a seat through their pages, a civilian votes when its turn comes; the
rest is played through the services. Every page a player visits is checked: it shows that
player's own knowledge and no other seat's hidden identity."""

from html import unescape

import pytest

from tests.factories.classic import (
    BANDITS,
    POLICE,
    act,
    assert_hides,
    current,
    fresh,
    identities,
    known,
    pub,
    role_of,
    speak_all,
    time_out,
    vote_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Player:
    """One seat's browser: its own context (cookies), signed in (tests/browser/conftest.py)."""

    def __init__(self, page_for, base_url: str, game, seat: int):
        self.seat, self.game = seat, game
        self.page = page_for(game.seats.get(number=seat).user)
        self.context = self.page.context
        self.url = f"{base_url}/games/{game.pk}/act/"

    def open(self, allowed: set) -> str:
        """Load the seat's page and check it hides every identity outside `allowed`."""
        self.page.goto(self.url)
        html = unescape(self.page.content())
        assert_hides(html, allowed)
        return html

    def choose(self, label: str) -> str:
        """Pick an offered action by its label and send it to 神的使者."""
        self.page.select_option("#choice", label=label)
        with self.page.expect_navigation():
            self.page.click("#act-submit")
        return unescape(self.page.content())


def test_a_short_classic_game_in_the_browser(page_for, live_server, artifacts_dir, game):
    base = live_server.url
    checked = [(5, "bandit")]

    # Night 1: the bandits 2号 and 6号 choose 3号 together, each in its own browser.
    first = Player(page_for, base, game, BANDITS[0])
    html = first.open(known(BANDITS[0]))
    assert {(s, "bandit") for s in BANDITS} <= identities(html)
    html = first.choose("杀3号小白")
    assert "提议杀3号小白" in html  # 神的使者 confirmed it
    second = Player(page_for, base, game, BANDITS[1])
    html = second.open(known(BANDITS[1]))
    assert "2号阿狗提议杀3号小白" in html  # the teammate's proposal is in its conversation
    second.choose("杀3号小白")
    act(game, BANDITS[2], "defer")

    # The police 1号 checks 6号 in its browser; the others through the service.
    police = Player(page_for, base, game, POLICE[0])
    html = police.open(known(POLICE[0]))
    assert "提议杀" not in html  # nothing of the bandits' talk
    police.choose("验6号大黄")
    act(game, POLICE[1], "check", target=5)
    act(game, POLICE[2], "defer")
    assert fresh(game).phase_name == "last_words"  # everyone answered: dawn came early
    html = police.open(known(POLICE[0], checks=checked, revealed=[(2, "civilian")]))
    assert "验人结果：6号大黄是匪" in html.replace("<strong>", "").replace("</strong>", "")
    assert (5, "bandit") in identities(html)

    # Day 1: last words and speeches through the service; 4号 (a civilian) votes first.
    act(game, 2, "last_words", text="我是民，请警察带队。")
    speak_all(game)
    assert current(game) == 3
    voter = Player(page_for, base, game, 3)
    html = voter.open(known(3, revealed=[(2, "civilian")]))
    assert "轮到我投票" in html
    html = voter.choose("投票给6号大黄")
    assert current(game) == 4
    vote_all(game, {s: 5 for s in range(11) if s not in (2, 5)})
    time_out(game)  # 6号 leaves no last words

    # Night 2 and day 2 through the service: the bandits lose their last two.
    act(game, BANDITS[0], "kill", target=BANDITS[0])
    act(game, BANDITS[2], "defer")
    for p in POLICE:
        act(game, p, "defer")
    time_out(game)
    speak_all(game)
    vote_all(game, {s: BANDITS[2] for s in range(11) if s not in (1, 2, 5, 9)})
    assert pub(game)["outcome"]["result"] == "police"

    # The end: every card is shown, to the civilian as to everyone.
    every = {(s, role_of(s)) for s in range(11)}
    html = voter.open(every)
    assert identities(html) >= every and "警察与平民获胜。" in html
    voter.page.screenshot(path=str(artifacts_dir / "classic-game.png"), full_page=True)
    assert (artifacts_dir / "classic-game.png").stat().st_size > 1000
    for player in (first, second, police, voter):
        player.context.close()
