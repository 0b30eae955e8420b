"""举报: a post reported to the GM with a reason. It lands with the GM of the board's game
(the console's reports, the admin's list), with the superusers for a board of no game; the
reporter is told it was sent and nothing else; rate-limited; a post the reporter may not
read is a 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import keeping, services
from messaging.models import Notification, Report, Thread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("one_rate_window")]


def _report_url(post):
    return reverse("messaging-post-report", args=[post.pk])


def test_a_report_reaches_the_superuser_for_a_board_of_no_game(
    client, discussion, alice, bob, gm, make_user
):
    host = make_user("普通主持", staff=True, superuser=False)
    post = discussion.posts.get()
    client.force_login(bob)
    assert client.get(_report_url(post)).status_code == 200
    response = client.post(_report_url(post), {"reason": "人身攻击"}, follow=True)
    assert response.status_code == 200
    assert "Your report was sent to the GM" in response.content.decode()
    report = Report.objects.get()
    assert (report.post, report.reporter, report.reason) == (post, bob, "人身攻击")
    # The superuser gets a notice and reads it in the admin; a plain host does not.
    assert Notification.objects.filter(user=gm, kind=Notification.Kind.REPORT).count() == 1
    assert not Notification.objects.filter(user=host).exists()
    assert not Notification.objects.filter(user=bob).exists()
    client.force_login(gm)
    listing = client.get(reverse("admin:messaging_report_changelist")).content.decode()
    assert "人身攻击" in listing
    client.force_login(host)
    listing = client.get(reverse("admin:messaging_report_changelist")).content.decode()
    assert "人身攻击" not in listing


def test_a_report_needs_a_reason_and_stores_nothing_without_one(client, discussion, bob):
    client.force_login(bob)
    response = client.post(_report_url(discussion.posts.get()), {"reason": "  \u200b "})
    assert response.status_code == 400
    assert "Say why you report this post" in response.content.decode()
    assert not Report.objects.exists()


def test_a_report_is_refused_in_chinese(client, discussion, make_user):
    reader = make_user("中文读者")
    client.force_login(reader)
    response = client.post(_report_url(discussion.posts.get()), {"reason": ""})
    assert response.status_code == 400 and "请说明举报的理由" in response.content.decode()


def test_a_second_report_of_the_same_post_is_refused(client, discussion, bob):
    post = discussion.posts.get()
    client.force_login(bob)
    client.post(_report_url(post), {"reason": "刷屏"})
    response = client.post(_report_url(post), {"reason": "还是刷屏"})
    assert response.status_code == 400 and Report.objects.count() == 1


def test_reports_are_rate_limited(client, lobby, alice, bob):
    posts = [
        services.start_thread(
            board=lobby,
            author=alice,
            kind=Thread.Kind.DISCUSSION,
            title=f"帖{n}",
            body="x",
            enforce_rate_limit=False,
        ).posts.get()
        for n in range(keeping.REPORTS_PER_HOUR + 1)
    ]
    client.force_login(bob)
    for post in posts[:-1]:
        assert client.post(_report_url(post), {"reason": "广告"}).status_code == 302
    response = client.post(_report_url(posts[-1]), {"reason": "广告"})
    assert response.status_code == 429 and "Retry-After" in response
    assert Report.objects.count() == keeping.REPORTS_PER_HOUR


def test_a_post_i_may_not_read_cannot_be_reported(client, lobby, gm, bob):
    hidden = services.start_thread(
        board=lobby, author=gm, kind=Thread.Kind.GM_ONLY, title="内部", body="三号是狼"
    )
    client.force_login(bob)
    url = _report_url(hidden.posts.get())
    assert client.get(url).status_code == 404
    assert client.post(url, {"reason": "x"}).status_code == 404
    assert not Report.objects.exists()


def test_a_seated_reporter_learns_nothing_of_the_gm_or_the_gm_board(client, start_ninelives):
    """A report on a running game's board goes to its GM (console and notice); what the
    reporter reads back names neither the GM, nor the GM board, nor another report."""
    game = start_ninelives()
    players = [s.user for s in game.seats.order_by("number")]
    thread = services.start_thread(
        board=game.board,
        author=players[1],
        kind=Thread.Kind.ANALYSIS,
        title="分析",
        body="我是平民",
        enforce_rate_limit=False,
    )
    post = thread.posts.get()
    client.force_login(players[2])
    client.post(_report_url(post), {"reason": "先举报"})
    client.force_login(players[0])
    page = client.get(_report_url(post)).content.decode()
    response = client.post(_report_url(post), {"reason": "泄露身份"}, follow=True)
    answer = response.content.decode()
    for text in (page, answer):
        assert "gm-" not in text and game.gm.profile.display_name not in text
        assert "先举报" not in text
    assert Notification.objects.filter(
        user=game.gm, kind=Notification.Kind.REPORT, count=2
    ).exists()
    assert not Notification.objects.filter(kind=Notification.Kind.REPORT, user__in=players).exists()
    client.force_login(game.gm)
    console = client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()
    assert "泄露身份" in console and "先举报" in console
    report = Report.objects.get(reason="泄露身份")
    client.post(
        reverse("admin:games_game_command", args=[game.pk, "report_handled"]), {"report": report.pk}
    )
    report.refresh_from_db()
    assert report.handled_by == game.gm
    console = client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()
    assert "泄露身份" not in console
