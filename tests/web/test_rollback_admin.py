"""The 天神's undo page in the admin (games/admin/rollback.py): the choices, a confirm page that
says what will be undone, the POST; refusals for everyone and everything else; what the
players see afterwards (the withdrawn mark), from every seat's point of view."""

import datetime as dt
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import selectors, services
from games.models import Action, Announcement, Game, Rollback
from messaging.models import Message, Thread
from tests.factories.toy import seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]


def url(game, **query):
    base = reverse("admin:games_game_rollback", args=[game.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def local(value: dt.datetime) -> str:
    return timezone.localtime(value).strftime("%Y-%m-%dT%H:%M")


def kill(game):
    target = next(n for n in range(game.seat_count) if n != wolf_seat(game))
    services.submit_action(game_id=game.pk, user=seat_user(game, "wolf"), kind="kill",
                           params={"target": target})
    game.refresh_from_db()
    return target


def confirm_data(game, kind="phase_end", seat=None, deadline=None):
    game.refresh_from_db()
    plan = selectors.rollback_plan(game, kind, seat - 1 if seat else None)
    data = {"kind": kind, "version": game.version, "target": plan.target,
            "steps": game.steps,
            "deadline": local(deadline or timezone.now() + dt.timedelta(hours=3))}
    if seat:
        data["seat"] = seat
    return data


def stored(game):
    game.refresh_from_db()
    return (game.state, game.steps, game.version, game.deadline, Action.objects.count(),
            Announcement.objects.count(), Message.objects.count(), Rollback.objects.count())


def text(response) -> str:
    return unescape(response.content.decode())


@pytest.fixture
def early_game(game):
    game.early_end = False
    game.save()
    return game


def test_the_console_links_the_undo_page_and_the_choices_list_what_can_be_undone(
        client, game, gm, chinese):
    client.force_login(gm)
    console = text(client.get(reverse("admin:games_game_console", args=[game.pk])))
    assert url(game) in console
    page = text(client.get(url(game)))
    assert "还没有任何阶段结束" in page  # nothing yet: said so, no link
    kill(game)  # the night ends early
    page = text(client.get(url(game)))
    assert url(game, kind="phase_end") in page
    game.early_end = False  # a step in the day: the seat's last step is offered too
    game.save()
    voter = game.seats.filter(alive=True).order_by("-number").first()
    services.submit_action(game_id=game.pk, user=voter.user, kind="vote",
                           params={"target": wolf_seat(game)})
    page = text(client.get(url(game)))
    assert url(game, kind="step", seat=voter.number + 1) in page.replace("&amp;", "&")
    assert voter.user.profile.display_name in page


def test_the_confirm_page_says_in_chinese_exactly_what_will_be_undone(
        client, game, gm, chinese):
    victim = kill(game)
    name = game.seats.get(number=victim).user.profile.display_name
    client.force_login(gm)
    response = client.get(url(game, kind="phase_end"))
    assert response.status_code == 200
    page = text(response)
    assert "回滚" in page and "撤回" in page  # Chinese by default
    assert "#2" in page  # the end_phase step, by number
    assert name in page  # seat back in the game
    # what happens to the emails about it, and the day's vote thread the end opened
    assert "已发出0封：每个收件地址会再收到一封注明阶段的“撤回”邮件" in page
    assert "标为已撤回并取消置顶的主题" in page
    assert 'type="datetime-local"' in page


def test_rolling_back_from_the_page_marks_the_announcement_withdrawn_where_it_renders(
        client, game, gm, players, chinese):
    kill(game)
    dawn = Announcement.objects.get(game=game, title__contains="1")
    client.force_login(gm)
    response = client.post(url(game), confirm_data(game))
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:games_game_console", args=[game.pk])
    game.refresh_from_db()
    assert game.phase_name == "night" and Rollback.objects.count() == 1
    history = text(client.get(url(game)))  # the choices page lists it for the GM
    assert "以往的回滚" in history and "阶段结束" in history
    thread = Thread.objects.get(board=game.board, key="announcements")
    client.force_login(players[0])
    page = text(client.get(thread.get_absolute_url()))
    dawn.refresh_from_db()
    assert dawn.withdrawn_at is not None
    assert page.count("已由天神撤回") == 1  # the dawn, not the player list or the notice
    assert "天神已回滚" in page  # the public notice of the rollback


def test_a_withdrawn_private_result_stays_visible_only_to_its_seat_marked(
        client, early_game, gm, players, chinese):
    game = early_game
    kill(game)
    wolf = game.seats.get(number=wolf_seat(game))
    result = Message.objects.filter(conversation=wolf.conversation).order_by("id")[1]
    client.force_login(gm)
    assert client.post(url(game), confirm_data(game, "step", wolf.number + 1)).status_code == 302
    result.refresh_from_db()
    assert result.withdrawn_at is not None
    # The wolf sees it, marked, on the conversation page and the act page.
    client.force_login(wolf.user)
    conversation = client.get(reverse("messaging-conversation", args=[wolf.conversation.pk]))
    raw = conversation.content.decode()
    assert result.html in raw
    at = raw.index(f'id="m{result.pk}"')
    opening = raw[raw.rindex("<li", 0, at):at]
    item = raw[at:raw.index("</li>", at)]
    assert "withdrawn" in opening and "已由天神撤回" in item
    act = client.get(reverse("game-act", args=[game.pk])).content.decode()
    assert result.html in act and "已由天神撤回" in act
    # No other seat (one of them staff), no spectator sees it anywhere.
    staff_seat = game.seats.exclude(pk=wolf.pk).order_by("number").first()
    staff_seat.user.is_staff = True
    staff_seat.user.save()
    for seat in game.seats.exclude(pk=wolf.pk):
        client.force_login(seat.user)
        own = client.get(reverse("messaging-conversation", args=[seat.conversation.pk]))
        assert "已由天神撤回" not in text(own) and result.html not in own.content.decode()
        act = client.get(reverse("game-act", args=[game.pk])).content.decode()
        assert "已由天神撤回" not in unescape(act) and result.html not in act
        other = client.get(reverse("messaging-conversation", args=[wolf.conversation.pk]))
        assert other.status_code in (403, 404), seat.number
    client.logout()
    home = client.get(reverse("game-home", args=[game.pk])).content.decode()
    assert result.html not in home
    notice = Announcement.objects.filter(game=game).last()
    assert notice.title == "天神已回滚"
    assert wolf.user.profile.display_name not in notice.body


# --- refusals: readable, nothing stored, never a 500 ------------------------------------------

@pytest.mark.parametrize("who", ["player", "other_staff", "staff_player"])
def test_nobody_but_the_gm_gets_the_page_or_the_post(client, game, gm, make_user, who):
    kill(game)
    if who == "staff_player":
        user = game.seats.get(number=0).user
        user.is_staff = True
        user.save()
        game.co_gms.add(user)  # named co-GM, but seated: no GM power
    elif who == "player":
        user = game.seats.get(number=1).user
    else:
        user = make_user("别局天神", staff=True)
    data = confirm_data(game)
    before = stored(game)
    client.force_login(user)
    get = client.get(url(game, kind="phase_end"))
    post = client.post(url(game), data)
    assert get.status_code in (302, 404) and post.status_code in (302, 404)
    if who == "player":
        assert "login" in post["Location"]  # not staff: the admin's login page
    assert stored(game) == before


def test_a_forged_post_without_the_csrf_token_is_refused(game, gm):
    kill(game)
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(gm)
    before = stored(game)
    response = csrf_client.post(url(game), confirm_data(game))
    assert response.status_code == 403
    assert stored(game) == before


@pytest.mark.parametrize("change", [
    {"version": "abc"}, {"target": ""}, {"kind": "everything"}, {"deadline": "tomorrow"},
    {"seat": "-3", "kind": "step"}, {"kind": "step"}, {"steps": "9" * 30}])
def test_garbage_in_the_form_is_a_readable_400(client, game, gm, change, chinese):
    kill(game)
    client.force_login(gm)
    data = {**confirm_data(game), **change}
    if change == {"kind": "step"}:
        data.pop("seat", None)
    before = stored(game)
    response = client.post(url(game), data)
    assert response.status_code == 400
    assert 'class="errornote"' in response.content.decode() or "errorlist" in \
        response.content.decode()
    assert stored(game) == before


def test_a_stale_page_is_refused_with_409_and_a_fresh_form(client, early_game, gm, chinese):
    game = early_game
    kill(game)
    services.end_phase_now(game_id=game.pk, gm=gm)
    client.force_login(gm)
    old = confirm_data(game)
    voter = next(s for s in game.seats.filter(alive=True).order_by("number"))
    services.submit_action(game_id=game.pk, user=voter.user, kind="vote",
                           params={"target": wolf_seat(game)})
    before = stored(game)
    response = client.post(url(game), old)
    assert response.status_code == 409
    page = text(response)
    assert "打开此页面之后游戏已有进展" in page
    game.refresh_from_db()
    assert f'name="steps" value="{game.steps}"' in page  # the fresh form carries the new count
    assert stored(game) == before


def test_nothing_to_roll_back_is_a_readable_refusal(client, game, gm, chinese):
    client.force_login(gm)
    before = stored(game)
    response = client.get(url(game, kind="phase_end"))
    assert response.status_code == 400
    assert "还没有任何阶段结束" in text(response)
    post = client.post(url(game), {"kind": "phase_end", "version": 0, "target": 1,
                                   "steps": 0, "deadline": local(
                                       timezone.now() + dt.timedelta(hours=1))})
    assert post.status_code == 400 and "还没有任何阶段结束" in text(post)
    step = client.get(url(game, kind="step", seat=2))
    assert step.status_code == 400 and "没有可撤销的已接受步骤" in text(step)
    assert stored(game) == before


def test_a_deadline_in_the_past_is_a_form_error(client, game, gm, chinese):
    kill(game)
    client.force_login(gm)
    before = stored(game)
    data = confirm_data(game, deadline=timezone.now() - dt.timedelta(hours=1))
    response = client.post(url(game), data)
    assert response.status_code == 400
    assert "新的截止时间必须在将来" in text(response)
    assert stored(game) == before


def test_a_finished_game_offers_nothing(client, game, gm, chinese):
    from tests.factories.toy import finish

    game = finish(game)
    assert game.status == Game.Status.FINISHED
    client.force_login(gm)
    response = client.get(url(game, kind="phase_end"))
    assert response.status_code == 400
    assert "只有进行中或暂停中的游戏可以回滚" in text(response)


def test_a_draft_withdrawn_by_a_rollback_leaves_the_consoles_held_announcements(
        client, game, gm):
    game.hold_announcements = True
    game.save()
    kill(game)
    draft = Announcement.objects.get(game=game, published_at=None)
    client.force_login(gm)
    console = reverse("admin:games_game_console", args=[game.pk])
    field = f'name="announcement" value="{draft.pk}"'
    assert field in text(client.get(console))  # held, offered for publishing
    response = client.post(url(game), confirm_data(game))
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.withdrawn_at is not None
    assert field not in text(client.get(console))  # withdrawn: no longer offered
