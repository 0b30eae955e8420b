"""The reminders sent, as the game's 天神 reads them in the admin on a phone (390 px, Chinese):
each seat reminded, the mark that rang the bell and the nearest mark sent."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from games import reminders, services
from games.models import ReminderSent
from tests.browser.shots import screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("toy_ruleset", "chinese"),
]


def test_the_gm_reads_the_bell_s_mark_and_the_nearest_one_on_a_phone(
    players, gm, page_for, live_server, artifacts_dir
):
    game = services.start_game(
        game_id=services.create_game(
            name="长局",
            ruleset="toy",
            gm=gm,
            seat_count=5,
            durations={"night": 24 * 60, "day": 24 * 60},
        ).pk,
        users=players,
    )
    reminders.send_due_reminders(now=game.deadline - dt.timedelta(hours=5))
    reminders.send_due_reminders(now=game.deadline - dt.timedelta(minutes=30))
    [row] = ReminderSent.objects.all()
    page = page_for(gm)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + reverse("admin:games_remindersent_changelist"))
    heads = page.locator("#result_list thead th").all_inner_texts()
    assert [h.strip() for h in heads][1:] == [
        "游戏",
        "阶段",
        "用户",
        "首次提醒",
        "截止前小时数",
        "最近提醒时间",
    ]
    game_cell = page.locator("#result_list tbody tr").first.locator("th").inner_text()
    cells = page.locator("#result_list tbody tr").first.locator("td").all_inner_texts()
    assert game_cell.strip() == "长局"
    assert cells[1] == "第1轮夜晚"  # the phase's Chinese name, not the engine's "night 1"
    assert cells[3:5] == ["6", "1"]
    # the player as people know them (their display name), not the account's username
    assert cells[2].strip() == row.user.profile.display_name and str(row.user) not in cells[2]
    screenshot(page, artifacts_dir / "reminders-admin-390.png", full_page=True)
