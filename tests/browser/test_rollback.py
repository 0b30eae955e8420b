"""The 天神's undo in Chromium at phone width: from the console's link to the confirm page, a
typed deadline, the rollback; the players then see the dawn marked withdrawn and the public
notice of the rollback."""

import datetime as dt

import pytest
from django.utils import timezone

from games import services
from games.models import Announcement, Game
from messaging.models import Thread
from tests.browser.shots import screenshot
from tests.factories.toy import seat_user, wolf_seat

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("toy_ruleset", "chinese"),
]

PHONE = {"width": 390, "height": 844}


def test_the_gm_rolls_back_a_night_by_clicking_and_the_players_see_it_withdrawn(
    page_for, live_server, game, gm, artifacts_dir
):
    wolf = seat_user(game, "wolf")
    target = next(n for n in range(5) if n != wolf_seat(game))
    services.submit_action(game_id=game.pk, user=wolf, kind="kill", params={"target": target})
    game.refresh_from_db()
    assert game.phase_name == "day"  # the night ended early

    page = page_for(gm)
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/admin/games/game/{game.pk}/console/")
    page.click("#undo-link a")
    page.click("#rollback-choices a")  # 回滚第1夜的结束
    plan = page.inner_text("#rollback-plan")
    assert plan.startswith("回滚第1轮夜晚的结束"), plan
    assert "一则公开公告会说明天神进行了回滚" in plan
    # the emails: each sent one is followed by a "withdrawn" email, the unsent are cancelled
    emails = page.inner_text("#rollback-emails")
    assert "每个收件地址会再收到一封注明阶段的“撤回”邮件" in emails and "取消发送" in emails
    deadline = timezone.localtime(
        timezone.now() + dt.timedelta(hours=6), dt.timezone(dt.timedelta(hours=8))
    ).replace(second=0, microsecond=0)
    page.fill("input[name=deadline]", deadline.strftime("%Y-%m-%dT%H:%M"))
    screenshot(page, artifacts_dir / "rollback-confirm-390.png", full_page=True)
    page.click("#rollback-form input[type=submit]")
    page.wait_for_load_state()
    assert "/console/" in page.url

    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING and game.phase_name == "night"
    assert game.deadline == deadline
    assert game.seats.get(number=target).alive

    player = page_for(game.seats.get(number=target).user)
    player.set_viewport_size(PHONE)
    thread = Thread.objects.get(board=game.board, key="announcements")
    player.goto(f"{live_server.url}{thread.get_absolute_url()}")
    text = player.inner_text("main")
    assert text.count("已由天神撤回") == 1 and "天神已回滚" in text
    screenshot(player, artifacts_dir / "rollback-announcement-390.png", full_page=True)
    assert Announcement.objects.filter(game=game, withdrawn_at__isnull=False).count() == 1
