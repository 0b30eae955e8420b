"""The 天神 console on a night with the poison (Classic 2.0, ghost and poison): "现在结束本阶段"
ends the night in one press unless the police's extra check is actually due (they checked
the poison); then the console says so in words and offers both answers, wait for it or end
the night without it, and the GM's log says which was done (docs/rules/classic.md, "The
extra check stays the police's"; docs/gm-guide.md)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from games.models import Announcement, Event
from tests.factories.classic import fresh, pub
from tests.services.classic.test_extra_check_secret import POISON, POLICE, night_choices, twin

pytestmark = pytest.mark.django_db

NIGHT_ENDS = ("last_words", "speech")  # what follows a night whose victim died


def console(client, game) -> str:
    return client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()


def end_now(client, game, **data) -> str:
    """The console's end button (the version the page showed), then the console it shows."""
    data.setdefault("version", fresh(game).version)
    return client.post(reverse("admin:games_game_command", args=[game.pk, "end_phase"]), data,
                       follow=True).content.decode()


def text(html: str) -> str:
    """The words of `html` (an inline tag joins its words to the sentence's)."""
    html = re.sub(r"</?(?:strong|em|b|span|code|a)\b[^>]*>", "", html)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def part(html: str, element_id: str) -> str:
    """The text of the element with `element_id` (to its own closing tag)."""
    start = html.index(f'id="{element_id}"')
    start = html.rindex("<", 0, start)
    tag = re.match(r"<(\w+)", html[start:]).group(1)
    depth, at = 0, start
    for m in re.finditer(fr"<(/?){tag}\b", html[start:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            at = start + m.end()
            break
    return text(html[start:at])


def gm_log(game) -> list[dict]:
    return list(Event.objects.filter(game=game, kind="gm_end_phase_now").values_list(
        "data", flat=True))


@pytest.fixture
def plain(players, gm, client):
    client.force_login(gm)
    return night_choices(twin(players, gm), 6)  # the police check a civilian


@pytest.fixture
def poisoned(players, gm, client):
    client.force_login(gm)
    return night_choices(twin(players, gm), POISON)


def test_one_press_ends_the_night_when_the_police_did_not_check_the_poison(client, plain):
    html = console(client, plain)
    assert 'id="inner-phase"' not in html and 'id="end-skip-inner"' not in html
    after = end_now(client, plain)
    assert pub(plain)["phase"] in NIGHT_ENDS
    assert "第1夜结束" in Announcement.objects.filter(game=plain).values_list(
        "title", flat=True)
    assert gm_log(plain) == [{"gm": "天神甲"}]
    assert "天神甲 在截止前结束了本阶段。" in part(after, "events")


def test_the_console_says_the_extra_check_is_due_and_offers_both_answers(client, poisoned):
    html = console(client, poisoned)
    notice = part(html, "inner-phase")
    assert "现在结束本阶段不会马上结束：还有一次追加验人。" in notice
    assert "警察验到了毒药，天亮前可以再验一人" in notice
    assert "等待追加验人：" in notice and "不等追加验人：" in notice
    assert 'id="end-wait-inner"' in html and 'id="end-skip-inner"' in html
    # The preview is the night's end without the extra check: the dawn, the victim.
    assert "如果现在不等追加验人就结束本阶段" in text(html)
    assert "4号老黑" in part(html, "preview")
    end_page = client.get(reverse("admin:games_game_end_phase", args=[poisoned.pk]))
    page = end_page.content.decode()
    assert 'id="end-wait-inner"' in page and 'id="end-skip-inner"' in page
    assert 'id="confirm-end-phase"' not in page  # no third, silent answer


@pytest.mark.parametrize("answer", ["", "bogus", "WAIT", "skip "])
def test_ending_a_night_with_the_extra_check_due_needs_an_answer(client, poisoned, answer):
    before = fresh(poisoned)
    after = end_now(client, poisoned, inner=answer)
    game = fresh(poisoned)
    assert (game.version, game.choices_closed, pub(game)["phase"]) == (
        before.version, False, "night")
    assert gm_log(game) == []
    assert ("请选择" in text(after)) and "天神甲 在截止前" not in text(after)


def test_waiting_for_the_extra_check_closes_the_choices_and_says_so(client, poisoned):
    deadline = poisoned.deadline
    after = end_now(client, poisoned, inner="wait")
    game = fresh(poisoned)
    assert pub(game)["phase"] == "extra_check" and game.choices_closed
    assert game.deadline == deadline  # the dawn still comes at the deadline
    assert Announcement.objects.filter(game=game).count() == 1  # nothing public yet
    assert gm_log(game) == [{"gm": "天神甲", "inner": "wait", "phase": "extra_check"}]
    assert "天神甲 在截止前截止了本阶段的选择：追加验人开始，进行到截止时间。" in part(after, "events")
    # The console names the extra check and says what ending now does; only the police owe.
    assert "第1夜 · 追加验人" in part(after, "phase-head")
    assert "追加验人正在进行" in part(after, "inner-phase")
    rows = re.findall(r'<td style="white-space:nowrap">(\d+)号[^<]*</td>\s*<td>(.*?)</td>',
                      after, re.S)
    assert len(rows) == 11
    owing = {int(n) - 1 for n, owes in rows if owes != "无（已完成）"}
    assert owing and owing <= set(POLICE), rows
    # Pressed again (one answer needed no more), the night ends: the dawn now.
    again = end_now(client, game)
    assert pub(game)["phase"] in NIGHT_ENDS
    assert gm_log(game)[-1] == {"gm": "天神甲", "inner": "running", "phase": "extra_check"}
    assert "天神甲 在截止前结束了本阶段，追加验人随之结束。" in part(again, "events")


def test_ending_without_the_extra_check_ends_the_night_at_once(client, poisoned):
    after = end_now(client, poisoned, inner="skip")
    game = fresh(poisoned)
    assert pub(game)["phase"] in NIGHT_ENDS and pub(game)["night_deaths"] == [3]
    assert gm_log(game) == [{"gm": "天神甲", "inner": "skip", "phase": "extra_check"}]
    assert "天神甲 在截止前结束了本阶段，没有等待追加验人。" in part(after, "events")
    assert 'id="inner-phase"' not in after


def test_an_answer_the_night_no_longer_needs_is_refused(client, plain, poisoned):
    """The console was out of date (no version posted): the police checked a civilian, or
    the extra check is under way already. Nothing changes."""
    for game, answer in ((plain, "wait"), (plain, "skip")):
        after = client.post(reverse("admin:games_game_command", args=[game.pk, "end_phase"]),
                            {"inner": answer}, follow=True).content.decode()
        assert "本阶段之内已经没有要等待的步骤了" in text(after)
        assert pub(game)["phase"] == "night" and gm_log(game) == []
