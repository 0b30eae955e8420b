"""The console on a 猫有n条命 game: per seat what it still owes, every GM
step the engine offers as a small form with pickers (names, Chinese card names, 1-based
seats), no JSON and no 0-based number a person reads, and "end phase now" through a page
that first says what will happen."""

import datetime as dt
import re

import pytest
from django.urls import reverse

from games.models import Action, Game
from tests.factories.ninelives import MANIFESTO, NAMES, act

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def console(client, game):
    return client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()


def step(client, game, **data):
    return client.post(reverse("admin:games_game_command", args=[game.pk, "step"]), data,
                       follow=True)


def section(html, marker):
    return html.split(marker, 1)[1].split("</fieldset>", 1)[0]


@pytest.fixture
def night(start_ninelives, nl_gm, client):
    game = start_ninelives()
    client.force_login(nl_gm)
    return game


def test_each_seat_shows_its_number_name_and_what_it_still_owes(client, night):
    act(night, 3, "use_card", card="CURSE", target=0)
    html = section(console(client, night), 'id="seats"')
    rows = re.findall(r"<tr[^>]*><td[^>]*>(\d+)号([^<]+)</td>\s*<td>([^<]+)</td></tr>", html)
    assert [(int(n), name) for n, name, _owes in rows] == list(enumerate(NAMES[:5], 1))
    owes = {int(n): text for n, _name, text in rows}
    assert "一张牌" in owes[1] and "一张牌" in owes[5]  # night 1: a card use or none
    assert owes[4] != owes[1]  # seat 4 used CURSE: it owes nothing that way any more


def test_the_header_and_steps_name_the_phase_in_chinese_only(client, night):
    act(night, 3, "use_card", card="CURSE", target=0)
    html = console(client, night)
    assert "进行中 · 第1夜 · " in html.split('id="phase-head"', 1)[1][:200]
    assert "night 1" not in html.lower()
    steps = section(html, 'id="steps"')
    assert "4号老黑" in steps and "诅咒" in steps and "CURSE" not in steps
    assert "{" not in steps and "'card'" not in steps


def test_gm_forms_pick_seats_by_number_and_name_and_post_the_engines_index(client, night):
    html = section(console(client, night), 'id="gm-steps"')
    assert "<textarea" not in html and "JSON" not in html
    foul = html.split('data-kind="foul_out"', 1)[1].split("</form>", 1)[0]
    options = re.findall(r'<option value="(\d+)">([^<]+)</option>', foul)
    assert [label for _v, label in options] == [f"{n} · {name}" for n, name in
                                                enumerate(NAMES[:5], 1)]
    assert [int(v) for v, _label in options] == [0, 1, 2, 3, 4]  # posted, never shown
    response = step(client, night, kind="foul_out", p_seat="2", t_reason="挂机")
    assert response.status_code == 200
    night.refresh_from_db()
    assert night.state["public"]["alive"][2] is False  # 3 · 小白, as picked
    assert night.state["public"]["alive"][1] is True


NOT_OFFERED = "这个选择不存在，或规则此刻不提供。"
NO_SUCH_STEP = "规则此刻不提供这一步。"


@pytest.mark.parametrize(("data", "message"), [
    ({"kind": "foul_out", "p_seat": "9", "t_reason": "x"}, NOT_OFFERED),  # no seat 10
    ({"kind": "foul_out", "p_seat": "-1", "t_reason": "x"}, NOT_OFFERED),
    ({"kind": "foul_out", "p_seat": "阿猫", "t_reason": "x"}, NOT_OFFERED),
    ({"kind": "foul_out", "p_seat": "", "t_reason": "x"}, NOT_OFFERED),
    ({"kind": "foul_out", "p_seat": "1"}, "这个字段是必填项"),  # the reason §9.1 asks for
    ({"kind": "reject_manifesto", "p_seat": "0"}, NO_SUCH_STEP),  # no manifesto yet
    ({"kind": "choose_camp_for", "p_seat": "0", "p_camp": "dragons"}, NO_SUCH_STEP),
    ({"kind": "explode"}, NO_SUCH_STEP),
    ({"kind": ""}, NO_SUCH_STEP),
])
def test_a_step_naming_a_seat_card_or_kind_that_is_not_offered_is_a_message(client, night,
                                                                            data, message):
    before = Action.objects.filter(game=night).count()
    response = step(client, night, **data)
    assert response.status_code == 200
    assert message in response.content.decode()
    night.refresh_from_db()
    assert Action.objects.filter(game=night).count() == before
    assert all(night.state["public"]["alive"])


def test_reject_a_manifesto_with_its_button(client, night):
    act(night, 0, "use_card", card="KILLER", target=3, manifesto=MANIFESTO)
    html = console(client, night)
    # Reviewed in the manifestos' own section (tests/web/test_console_manifestos.py), not
    # among the other GM steps; the step itself is still accepted from a step form.
    assert 'data-kind="reject_manifesto"' not in section(html, 'id="gm-steps"')
    reject = section(html, 'id="manifestos"').split('class="reject-manifesto"', 1)[1]
    assert '<input type="hidden" name="seat" value="1">' in reject.split("</form>", 1)[0]
    step(client, night, kind="reject_manifesto", p_seat="0", t_reason="抄来的")
    night.refresh_from_db()
    assert night.state["private"][0]["action"]["rejected"] is True


def test_end_phase_now_shows_the_consequences_then_confirms(client, start_ninelives, nl_gm):
    game = start_ninelives()
    client.force_login(nl_gm)
    for seat in range(5):
        act(game, seat, "pass")
    url = reverse("admin:games_game_command", args=[game.pk, "end_phase"])
    client.post(url, {"version": game.version})  # night 1 -> day 1
    game.refresh_from_db()
    assert game.phase_name == "day"
    act(game, 0, "vote", target=1)
    page = client.get(reverse("admin:games_game_end_phase", args=[game.pk])).content.decode()
    fouled = section(page, 'id="fouled-out"')
    for n, name in enumerate(NAMES[1:5], 2):  # seats 2-5 did not vote: out (§9.1.5)
        assert f"{n}号{name}" in fouled
    assert "1号阿猫" not in fouled
    assert "投票" in section(page, 'id="missing"')
    game.refresh_from_db()
    assert game.phase_name == "day" and all(game.state["public"]["alive"])  # nothing done
    assert 'id="confirm-end-phase"' in page
    client.post(url, {"version": game.version + 5})  # a stale dialog ends nothing
    game.refresh_from_db()
    assert game.phase_name == "day"
    client.post(url, {"version": game.version})
    game.refresh_from_db()
    assert game.state["public"]["alive"] == [True, False, False, False, False]


def test_the_console_of_a_finished_game_has_no_end_phase_button(client, night):
    night.status = Game.Status.FINISHED
    night.finished_at = dt.datetime.now(dt.UTC)
    night.save()
    html = console(client, night)
    assert 'id="end-phase-link"' not in html
    page = client.get(reverse("admin:games_game_end_phase", args=[night.pk])).content.decode()
    assert 'id="confirm-end-phase"' not in page


def test_the_night_1_consequences_name_the_drawn_loss_orders_in_chinese_only(client, night):
    page = client.get(reverse("admin:games_game_end_phase", args=[night.pk])).content.decode()
    defaults = section(page, 'id="defaults"')
    for n, name in enumerate(NAMES[:5], 1):  # nobody sent a loss order: each one is drawn
        assert f"{n}号{name} 没有提交丢牌顺序" in defaults
    assert "sent no loss order" not in page  # the engine's explanation, read in Chinese:
    assert f"1号{NAMES[0]} 没有按时提交丢牌顺序，随机抽取了一个（§5.3）。" in page
    assert "丢牌顺序" in section(page, 'id="missing"')
    night.refresh_from_db()
    assert night.phase_name == "night"


def test_the_gms_own_log_entries_read_as_chinese_sentences(client, night):
    client.post(reverse("admin:games_game_command", args=[night.pk, "extend"]),
                {"minutes": "30"})
    step(client, night, kind="foul_out", p_seat="4", t_reason="挂机")
    log = section(console(client, night), 'id="events"')
    assert "把截止时间延长了 30 分钟" in log
    assert "判5号花花犯规出局" in log
    assert "gm extend" not in log and "GM action" not in log
