"""Classic walked by eleven players in Chromium, from the home page, only clicking: a day
whose vote ties, read from the announcements and the tally, then the tie's speeches and vote.

The deal is fixed (tests/factories/classic.py): police 1号阿猫 5号花花 9号木木, bandits 2号阿狗
6号大黄 10号豆豆, the others civilians. Night 1: two bandits choose 3号小白, the third goes with
them; two police check 6号大黄, the third goes with them. Day 1: 小白's last words; ten
speeches in seat order from 4号老黑, two of them left silent (the GM ends their slots from
the console); ten votes, 5:5 between 2号阿狗 and 6号大黄. The players read who tied, with
counts, on the game page and in the announcement; the tied two speak again and the other
eight vote 5:3: 6号大黄 is voted out. Every step stored is the one clicked.
"""

from __future__ import annotations

import json

import pytest

from games.models import Game
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    end_phase,
    fits_a_phone,
    flash,
    follow,
    last_step,
    open_console,
    read_in_chinese,
    to_game,
    visible_text,
    watch,
)
from tests.factories.classic import NAMES, new_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.slow(seconds=90)]

GAME = "经典局"  # tests/factories/classic.new_game's name
SEAT = [f"{n + 1}号{name}" for n, name in enumerate(NAMES)]  # "6号大黄", as the pages write
A_MAO, A_GOU, XIAO_BAI, LAO_HEI, HUA_HUA, DA_HUANG, XIAO_HONG, A_QING, MU_MU, DOU_DOU, \
    QIU_QIU = range(11)
SILENT = (XIAO_HONG, QIU_QIU)  # their speech slots end by the GM's click
DAY_VOTE = {  # 5:5
    LAO_HEI: A_GOU, HUA_HUA: DA_HUANG, DA_HUANG: A_GOU, XIAO_HONG: DA_HUANG, A_QING: A_GOU,
    MU_MU: DA_HUANG, DOU_DOU: A_GOU, QIU_QIU: A_GOU, A_MAO: DA_HUANG, A_GOU: DA_HUANG}
TIE_VOTE = {  # 5:3
    LAO_HEI: DA_HUANG, HUA_HUA: DA_HUANG, XIAO_HONG: DA_HUANG, A_QING: A_GOU, MU_MU: DA_HUANG,
    DOU_DOU: A_GOU, QIU_QIU: A_GOU, A_MAO: DA_HUANG}


# --- the act form: every interaction with its choice is in `choose` -------------------------

def choose(page, label: str, *, text: str | None = None) -> dict:
    """On the act page, select the option labelled `label`, write `text` in the text box,
    send it to 神的使者; return the option (kind, params) as the form offered it. The only
    function that touches the form's choice."""
    labels = page.locator("#choice option").all_inner_texts()
    values = page.eval_on_selector_all("#choice option", "os => os.map(o => o.value)")
    hits = [v for v, shown in zip(values, labels, strict=True) if shown == label]
    assert len(hits) == 1, f"{label} among:\n" + "\n".join(labels)
    page.select_option("#choice", value=hits[0])
    if text is not None:
        page.fill("#text_text", text)
    with page.expect_navigation():
        page.click("#act-submit")
    assert page.locator(".messages li.success").count() == 1, flash(page)
    return json.loads(hits[0])


class Table:
    """The eleven players' pages and the game, with the checks every step shares."""

    def __init__(self, game, pages, live_server):
        self.game, self.pages, self.live_server = game, pages, live_server
        self.arrived: set[int] = set()

    def act(self, seat: int, label: str, *, text: str | None = None, turn: str = "") -> None:
        """Seat `seat` opens its act page (its first time from the home page, then from the
        game page), reads `turn` there if given, picks `label`; the stored step is the
        option picked (with the text written)."""
        page = self.pages[seat]
        if seat not in self.arrived:
            self.arrived.add(seat)
            arrive(page, self.live_server)
            follow(page, "#my-games a.act-link")
        else:
            to_game(page, GAME)
            follow(page, "#act-link")
        if turn:
            assert turn in visible_text(page, "main"), (SEAT[seat], turn)
        chosen = choose(page, label, text=text)
        step = last_step(self.game, seat)
        expected = {**chosen["params"], **({"text": text} if text else {})}
        assert (step.kind, step.params) == (chosen["kind"], expected), SEAT[seat]
        newest = page.locator("#conversation li .post-body").all_inner_texts()[:3]
        assert any(m.startswith("已收到：") for m in newest), newest  # 神的使者 confirmed it

    def public(self) -> dict:
        self.game.refresh_from_db()
        return self.game.state["public"]

    def up(self) -> int:
        """The seat whose speech or vote slot it is."""
        pub = self.public()
        return pub["queue"][pub["turn"]]


def test_eleven_players_walk_a_classic_tie_by_clicking(page_for, live_server, make_user, gm,
                                                      shots):
    game = new_game([make_user(name) for name in NAMES], gm)
    pages = [page_for(seat.user) for seat in game.seats.order_by("number")]
    for page in pages:
        watch(page, read_in_chinese)
    table = Table(game, pages, live_server)

    # Night 1: the bandits choose 3号小白, the police check 6号大黄.
    for seat in (A_GOU, DA_HUANG):
        table.act(seat, "杀3号小白")
    table.act(DOU_DOU, "听从队友的决定（自己不提名）")
    for seat in (A_MAO, HUA_HUA):
        table.act(seat, "验6号大黄")
    table.act(MU_MU, "听从队友的决定（自己不提名）")
    assert table.public()["phase"] == "last_words"
    assert "验人结果：6号大黄是匪" in visible_text(pages[MU_MU], "#conversation")

    # Day 1: 小白's last words, then the speeches in seat order from 4号老黑.
    table.act(XIAO_BAI, "留遗言（在下方填写）", text="我是民，昨晚被杀。请警察带队。")
    gm_page = page_for(gm)
    open_console(gm_page, live_server, GAME)
    order = []
    while table.public()["phase"] == "speech":
        seat = table.up()
        order.append(seat)
        if seat in SILENT:
            end_phase(gm_page)
        else:
            table.act(seat, "发言（在下方填写；提交即表示“过”）", turn="轮到我发言",
                      text=f"我是{NAMES[seat]}，{SEAT[seat]}是好人，过。")
    assert order == [LAO_HEI, HUA_HUA, DA_HUANG, XIAO_HONG, A_QING, MU_MU, DOU_DOU, QIU_QIU,
                     A_MAO, A_GOU]

    # The vote, in the same order: 5 for 2号阿狗, 5 for 6号大黄.
    while table.public()["phase"] == "vote":
        seat = table.up()
        table.act(seat, f"投票给{SEAT[DAY_VOTE[seat]]}", turn="轮到我投票")
    assert table.public()["phase"] == "tie_speech"

    # 4号老黑 reads the tie on the game page and in the announcement.
    reader = pages[LAO_HEI]
    reader.set_viewport_size(PHONE)
    to_game(reader, GAME)
    day_vote = [
        "2号阿狗：5票（亲自投票：老黑、大黄、阿青、豆豆、球球）",
        "6号大黄：5票（亲自投票：花花、小红、木木、阿猫、阿狗）",
    ]
    tie = "2号阿狗、6号大黄 并列最高票：他们再次发言，然后其他人在他们之中投票。"
    card = reader.locator("#vote-tallies .tally").first
    assert card.locator("h3").inner_text() == "第1天 · 投票"
    assert card.locator("li").all_inner_texts() == day_vote
    assert tie in card.inner_text()
    assert fits_a_phone(reader)
    shots(reader, "classic-01-game-home-tie-390")
    follow(reader, "#announcements-link")
    post = reader.locator("ol.posts > li.post").last
    said = [line for line in post.locator(".post-body").inner_text().splitlines() if line]
    assert said[said.index("第1天 · 投票"):] == ["第1天 · 投票", *day_vote, tie], said
    assert "2号阿狗、6号大黄平票最高。" in said
    shots(reader, "classic-02-announcement-tie-390", part="ol.posts > li.post:last-child")

    # The tie: the tied two speak again, then the other eight vote between them.
    while table.public()["phase"] == "tie_speech":
        seat = table.up()
        assert seat in (A_GOU, DA_HUANG)
        table.act(seat, "发言（在下方填写；提交即表示“过”）", turn="轮到我发言",
                  text=f"平票了。我是{NAMES[seat]}，请投对面。过。")
    voters = []
    while table.public()["phase"] == "tie_vote":
        seat = table.up()
        voters.append(seat)
        table.act(seat, f"投票给{SEAT[TIE_VOTE[seat]]}", turn="轮到我投票")
    assert sorted(voters) == sorted(TIE_VOTE)
    assert not table.public()["alive"][DA_HUANG] if "alive" in table.public() else True

    # 4号老黑 reads the tie's result on the game page.
    to_game(reader, GAME)
    card = reader.locator("#vote-tallies .tally").first
    assert card.locator("h3").inner_text() == "第1天 · 平票投票"
    assert card.locator("li").all_inner_texts() == [
        "6号大黄：5票（亲自投票：老黑、花花、小红、木木、阿猫）",
        "2号阿狗：3票（亲自投票：阿青、豆豆、球球）",
    ]
    result = card.locator("p").last.inner_text()
    assert "6号大黄" in result, result
    shots(reader, "classic-03-game-home-tie-vote-390")
    assert game.seats.get(number=DA_HUANG).alive is False
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING
