"""Classic's votes read right: the public tally on the game page and in
the announcement of the vote's end, with counts and voters in the order cast, from the
engine's public events — the same for every seat and for a signed-out reader."""

from __future__ import annotations

import re

import pytest

from tests.factories.classic import (
    announcements,
    night_one,
    page,
    seat_text,
    speak_all,
    time_out,
    vote_all,
)

pytestmark = pytest.mark.django_db


def tallies(html: str) -> str:
    section = html.split('id="vote-tallies"')[1].split("</section>")[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", section)).strip()


def test_a_tied_day_and_its_runoff_show_counts_voters_and_result(game, client):
    night_one(game, victim=2)
    time_out(game)  # no last words
    speak_all(game)
    vote_all(game, {3: 1, 4: 1, 5: 3, 6: 3, 7: 3, 8: 1, 0: None})  # 2号 3, 4号 3: tie
    day = announcements(game)
    assert "**第1天 · 投票**" in day
    assert (f"{seat_text(1)}：3票（亲自投票：老黑、花花、木木）") in day
    assert (f"{seat_text(3)}：3票（亲自投票：大黄、小红、阿青）") in day
    assert f"{seat_text(0)} 弃权。" in day
    speak_all(game)
    vote_all(game, {4: 1, 5: 3, 6: 1, 7: 1, 8: 1, 9: 3, 10: 3, 0: 1})  # 2号 5 : 4号 3
    views = {tallies(page(client, game, s, "game-home")) for s in range(11)}
    views.add(tallies(page(client, game, None, "game-home")))
    assert len(views) == 1, "every viewer reads the same tally"
    text = views.pop()
    assert text.index("第1天 · 平票投票") < text.index("第1天 · 投票"), "newest first"
    assert f"{seat_text(1)}：5票（亲自投票：花花、小红、阿青、木木、阿猫）" in text
    assert f"{seat_text(1)} 得票最多。{seat_text(1)} 被投票出局。" in text
    assert f"{seat_text(1)}、{seat_text(3)} 并列最高票" in text
    assert "," not in text, "lists are joined with 、"
    runoff = announcements(game)
    assert "**第1天 · 平票投票**" in runoff and f"{seat_text(3)}：3票" in runoff
