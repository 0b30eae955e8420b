"""The admin's add-game form: typed settings from the rule-set table, every mistake a field
error, nothing stored; a started game's setup read-only and its saves under the game lock."""

import datetime as dt

import pytest
from django.urls import reverse

from accounts.models import messenger_user
from games import rulesets, services
from games.models import Game
from tests.factories.forms import Form

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("response_context")]

ADD = reverse("admin:games_game_add")


def form_data(user, **over):
    data = {"name": "周末局", "ruleset": "ninelives", "seat_count": 5, "gm": user.pk,
            "early_end": "on", "preset_ninelives": "turbo", "preset_classic": "standard",
            "preset_gold": "standard", "change_cutoff_minutes": 10,
            "opt_classic_guardians": "none", "opt_classic_all_civilians_dead": "seed",
            "watch_delay": 1}
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def post(client, user, **over):
    client.force_login(user)
    return client.post(ADD, form_data(user, **over))


def errors(response):
    form = response.context["adminform"].form
    return form.errors


def test_the_add_form_is_in_chinese_and_offers_each_rule_set_with_its_seat_range(
        client, gm, chinese):
    client.force_login(gm)
    html = client.get(ADD).content.decode()
    assert "玩法" in html and "阶段时长" in html
    for entry in rulesets.TABLE.values():
        assert f'value="{entry.name}"' in html
        assert f"{entry.engine.min_seats}–{entry.engine.max_seats}" in html
    assert "猫有n条命" in html
    assert "<textarea" not in html  # no raw JSON box anywhere
    form = client.get(ADD).context["adminform"].form
    assert form["gm"].initial == gm.pk


def test_turbo_preset_stores_its_lengths_and_a_cutoff_that_fits(client, gm):
    response = post(client, gm)
    assert response.status_code == 302, errors(response)
    game = Game.objects.get()
    assert game.ruleset == "ninelives" and game.seat_count == 5 and game.gm == gm
    assert game.durations == {"night": 10, "day": 10, "runoff": 5}
    assert game.change_cutoff_minutes < min(game.durations.values())
    assert game.config["change_cutoff_minutes"] == game.change_cutoff_minutes
    assert game.board is not None and game.status == Game.Status.DRAFT


def test_the_gm_chooses_how_far_behind_watchers_follow(client, gm, chinese):
    client.force_login(gm)
    html = client.get(ADD).content.decode()
    assert "观战进度" in html and "落后两个阶段" in html
    form = client.get(ADD).context["adminform"].form
    assert form["watch_delay"].initial == Game.WatchDelay.ONE  # prefilled: one phase behind
    response = post(client, gm, watch_delay=Game.WatchDelay.TWO)
    assert response.status_code == 302, errors(response)
    assert Game.objects.get().watch_delay == Game.WatchDelay.TWO


RISK = "我明白：本规则中身份始终不变，公开观战的人可能是仍在游戏中的玩家的小号，能看到所有人的手牌"


def test_the_gm_chooses_whether_outsiders_watch(client, gm, chinese):
    client.force_login(gm)
    response = client.get(ADD)
    html = response.content.decode()
    assert "局外人观战" in html and "局外人申请，由天神逐一批准" in html and RISK in html
    # the page filled as a browser does: off is the first option and the one selected
    page = Form(html, "game_form")
    assert [v for v, _label in page.options["outsiders"]] == ["off", "request", "open"]
    assert page.fields["outsiders"] == "off" and "watch_risk_accepted" not in page.fields
    page.fill("name", "申请观战局")
    assert page.pick("outsiders", label_has="由天神逐一批准")[0] == "request"
    response = client.post(ADD, page.fields)
    assert response.status_code == 302, errors(response)
    game = Game.objects.get()
    assert game.outsiders == Game.Outsiders.REQUEST and not game.watch_risk_accepted


def test_open_watching_where_roles_never_change_needs_the_risk_ticked(client, gm, chinese):
    classic = {"ruleset": "classic", "seat_count": 12, "outsiders": Game.Outsiders.OPEN}
    response = post(client, gm, **classic)
    assert response.status_code == 200
    assert errors(response)["watch_risk_accepted"] == [
        "本规则中身份始终不变：要让任何局外人都能观战，必须勾选“我明白……”，确认你知道观战的人"
        "可能是仍在游戏中的玩家的小号，能看到所有人的手牌；或者改为由局外人申请、你逐一批准。"]
    assert not Game.objects.exists()
    with pytest.raises(services.GameError):
        services.create_game(name="x", ruleset="gold", gm=gm, seat_count=4,
                             outsiders=Game.Outsiders.OPEN)
    assert not Game.objects.exists()
    response = post(client, gm, **classic, watch_risk_accepted="on")
    assert response.status_code == 302, errors(response)
    game = Game.objects.get()
    assert (game.outsiders, game.watch_risk_accepted) == (Game.Outsiders.OPEN, True)


def test_open_watching_in_ninelives_needs_no_risk_ticked(client, gm):
    response = post(client, gm, outsiders=Game.Outsiders.OPEN)
    assert response.status_code == 302, errors(response)
    assert Game.objects.get().outsiders == Game.Outsiders.OPEN


def test_every_preset_cutoff_is_shorter_than_its_shortest_phase():
    for entry in rulesets.TABLE.values():
        for preset in entry.presets:
            assert set(preset.durations) == set(entry.phases), (entry.name, preset.key)
            assert preset.cutoff < min(preset.durations.values()), (entry.name, preset.key)
        assert [p.key for p in entry.presets] == ["standard", "fast", "turbo"]
        assert entry.presets[0].durations == {p: entry.presets[0].durations[p]
                                              for p in entry.phases}
        assert min(entry.presets[0].durations.values()) >= 60


def test_custom_lengths_one_field_per_phase(client, gm):
    response = post(client, gm, preset_ninelives="custom", change_cutoff_minutes=3,
                    dur_ninelives_night=30, dur_ninelives_day=20, dur_ninelives_runoff=5)
    assert response.status_code == 302, errors(response)
    game = Game.objects.get()
    assert game.durations == {"night": 30, "day": 20, "runoff": 5}
    assert game.change_cutoff_minutes == 3


def test_classic_options_are_typed_fields_and_stored_as_the_engine_reads_them(client, gm,
                                                                              make_user):
    response = post(client, gm, ruleset="classic", seat_count=12,
                    opt_classic_variant_ghost_poison="on", opt_classic_guardians="single",
                    opt_classic_all_civilians_dead="draw", preset_classic="fast")
    assert response.status_code == 302, errors(response)
    game = Game.objects.get()
    assert game.config["variant_ghost_poison"] is True
    assert game.config["guardian"] is True and game.config["dual_guardians"] is False
    assert game.config["all_civilians_dead"] == "draw"
    assert game.durations == rulesets.get("classic").presets[1].durations


def test_gold_lead_is_a_seat_number_shown_one_based(client, gm):
    response = post(client, gm, ruleset="gold", seat_count=4, opt_gold_lead=2)
    assert response.status_code == 302, errors(response)
    assert Game.objects.get().config["lead"] == 1


@pytest.mark.parametrize(("over", "field"), [
    ({"ruleset": "猫有n条命"}, "ruleset"),
    ({"ruleset": "nosuch"}, "ruleset"),
    ({"seat_count": 7}, "seat_count"),
    ({"seat_count": 4}, "seat_count"),
    ({"seat_count": "five"}, "seat_count"),
    ({"preset_ninelives": "custom", "change_cutoff_minutes": 10, "dur_ninelives_night": 0,
      "dur_ninelives_day": 60, "dur_ninelives_runoff": 60}, "dur_ninelives_night"),
    ({"preset_ninelives": "custom", "change_cutoff_minutes": 10, "dur_ninelives_night": -5,
      "dur_ninelives_day": 60, "dur_ninelives_runoff": 60}, "dur_ninelives_night"),
    ({"preset_ninelives": "custom", "change_cutoff_minutes": 10, "dur_ninelives_night": 60,
      "dur_ninelives_day": 3, "dur_ninelives_runoff": 60}, "dur_ninelives_day"),
    ({"preset_ninelives": "custom", "change_cutoff_minutes": 10, "dur_ninelives_night": 60,
      "dur_ninelives_day": 60}, "dur_ninelives_runoff"),
    ({"preset_ninelives": "custom", "change_cutoff_minutes": 10, "dur_ninelives_night": "x",
      "dur_ninelives_day": 60, "dur_ninelives_runoff": 60}, "dur_ninelives_night"),
    ({"preset_ninelives": "hourly"}, "preset_ninelives"),
    ({"ruleset": "classic", "seat_count": 12, "opt_classic_guardians": "both"},
     "opt_classic_guardians"),
    ({"ruleset": "gold", "seat_count": 4, "opt_gold_lead": "first"}, "opt_gold_lead"),
    ({"ruleset": "gold", "seat_count": 4, "opt_gold_lead": 5}, "opt_gold_lead"),
    ({"ruleset": "gold", "seat_count": 4, "opt_gold_lead": 0}, "opt_gold_lead"),
    ({"name": ""}, "name"),
    ({"watch_delay": 3}, "watch_delay"),
    ({"watch_delay": None}, "watch_delay"),
    ({"outsiders": "everyone"}, "outsiders"),
])
def test_bad_input_is_a_field_error_and_stores_nothing(client, gm, over, field):
    response = post(client, gm, **over)
    assert response.status_code == 200
    assert field in errors(response), errors(response)
    assert not Game.objects.exists()


def test_the_messenger_can_never_be_the_gm(client, gm):
    messenger = messenger_user()
    response = post(client, gm, gm=messenger.pk)
    assert response.status_code == 200 and "gm" in errors(response)
    assert not Game.objects.exists()
    with pytest.raises(services.GameError):
        services.create_game(name="x", ruleset="ninelives", gm=messenger, seat_count=5)
    assert not Game.objects.exists()


def test_create_game_refuses_durations_the_rule_set_does_not_have(gm):
    with pytest.raises(services.GameError):
        services.create_game(name="x", ruleset="ninelives", gm=gm, seat_count=5,
                             durations={"夜晚": 3})
    with pytest.raises(services.GameError):
        services.create_game(name="x", ruleset="ninelives", gm=gm, seat_count=5,
                             durations={"night": 5}, change_cutoff_minutes=10)
    assert not Game.objects.exists()


def test_a_draft_game_can_be_edited_with_the_same_form(client, gm):
    game = services.create_game(name="草稿", ruleset="ninelives", gm=gm, seat_count=5,
                                durations={"night": 10, "day": 10, "runoff": 5},
                                change_cutoff_minutes=2)
    client.force_login(gm)
    url = reverse("admin:games_game_change", args=[game.pk])
    form = client.get(url).context["adminform"].form
    assert form["preset_ninelives"].initial == "turbo"
    response = client.post(url, form_data(gm, name="改名", seat_count=6,
                                          preset_ninelives="fast"))
    assert response.status_code == 302, errors(response)
    game.refresh_from_db()
    assert game.name == "改名" and game.seat_count == 6
    assert game.durations == rulesets.get("ninelives").presets[1].durations


# --- a started game: setup read-only, saves under the game lock ------------------------------

def change_url(game):
    return reverse("admin:games_game_change", args=[game.pk])


def test_a_started_games_setup_is_read_only(client, toy_ruleset, game, gm):
    client.force_login(gm)
    form = client.get(change_url(game)).context["adminform"].form
    assert set(form.fields) == set(services.RUNNING_SETTINGS)
    before = (game.ruleset, game.seat_count, dict(game.config), dict(game.durations),
              game.change_cutoff_minutes)
    response = client.post(change_url(game), {
        "name": "新名字", "gm": gm.pk, "early_end": "on", "ruleset": "ninelives",
        "seat_count": 6, "durations": '{"night": 1}', "change_cutoff_minutes": 0})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.name == "新名字"
    assert (game.ruleset, game.seat_count, game.config, game.durations,
            game.change_cutoff_minutes) == before


def test_update_settings_refuses_setup_changes_once_started(toy_ruleset, game):
    with pytest.raises(services.GameError):
        services.update_settings(game_id=game.pk, changes={"seat_count": 6})
    game.refresh_from_db()
    assert game.seat_count == 5


def test_a_stale_admin_save_keeps_what_the_sweeper_wrote(client, toy_ruleset, game, gm):
    client.force_login(gm)
    client.get(change_url(game))  # the form is read ...
    later = game.deadline + services.grace() + dt.timedelta(seconds=5)
    assert services.sweep(now=later) == 1  # ... the sweeper advances the game ...
    swept = Game.objects.get(pk=game.pk)
    response = client.post(change_url(game), {"name": "改", "gm": gm.pk})  # ... then saved
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.name == "改"
    assert (game.version, game.phase_name, game.deadline, game.state) == (
        swept.version, swept.phase_name, swept.deadline, swept.state)


def test_a_started_games_settings_page_shows_the_watch_setting(client, toy_ruleset, game, gm,
                                                                chinese):
    from tests.web.test_chinese_pages import visible

    client.force_login(gm)
    response = client.get(change_url(game))
    text = visible(response.content.decode())
    assert "观战进度" in text and "落后一个阶段（开局后不能再改）" in text
    assert "局外人观战" in text and "局外人不能观战" in text and RISK in text
    assert "已经在观战的人继续观战" in text  # turning it off lets nobody new in, no more
    form = response.context["adminform"].form
    assert "watch_delay" not in form.fields


def running_form(gm, **over):
    return {"name": "测试局", "gm": gm.pk, "early_end": "on", **over}


def test_outsiders_may_change_while_the_game_runs_but_not_the_delay(client, toy_ruleset, game,
                                                                    gm):
    client.force_login(gm)
    response = client.post(change_url(game), running_form(
        gm, outsiders=Game.Outsiders.REQUEST, watch_delay=Game.WatchDelay.TWO))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.outsiders == Game.Outsiders.REQUEST
    assert game.watch_delay == Game.WatchDelay.ONE
    with pytest.raises(services.GameError):
        services.update_settings(game_id=game.pk, changes={"watch_delay": 2})


def test_a_running_game_opened_to_outsiders_needs_the_risk_ticked(client, toy_ruleset, game,
                                                                  gm, chinese):
    client.force_login(gm)
    response = client.post(change_url(game), running_form(gm, outsiders=Game.Outsiders.OPEN))
    assert response.status_code == 200
    assert "本规则中身份始终不变" in errors(response)["watch_risk_accepted"][0]
    game.refresh_from_db()
    assert game.outsiders == Game.Outsiders.OFF
    with pytest.raises(services.GameError):
        services.update_settings(game_id=game.pk, changes={"outsiders": Game.Outsiders.OPEN})
    response = client.post(change_url(game), running_form(
        gm, outsiders=Game.Outsiders.OPEN, watch_risk_accepted="on"))
    assert response.status_code == 302
    game.refresh_from_db()
    assert (game.outsiders, game.watch_risk_accepted) == (Game.Outsiders.OPEN, True)


def test_turning_outsiders_off_keeps_who_already_watches(client, toy_ruleset, game, gm,
                                                         make_user):
    from games.models import Watcher

    game = services.update_settings(game_id=game.pk, changes={
        "outsiders": Game.Outsiders.OPEN, "watch_risk_accepted": True})
    outsider = make_user("看客")
    services.watch(game_id=game.pk, user=outsider)
    client.force_login(gm)
    response = client.post(change_url(game), running_form(gm, outsiders=Game.Outsiders.OFF))
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.outsiders == Game.Outsiders.OFF
    assert services.watches(game, outsider) and Watcher.objects.count() == 1
    with pytest.raises(services.GameError):  # but nobody new comes in
        services.watch(game_id=game.pk, user=make_user("新看客"))


def test_where_roles_change_a_running_game_opens_to_outsiders_without_the_risk_box(
        client, start_ninelives, nl_gm, chinese):
    game = start_ninelives()
    client.force_login(nl_gm)
    response = client.get(change_url(game))
    assert "watch_risk_accepted" not in response.context["adminform"].form.fields
    assert RISK not in response.content.decode()
    response = client.post(change_url(game), running_form(nl_gm, name=game.name,
                                                          outsiders=Game.Outsiders.OPEN))
    assert response.status_code == 302, errors(response)
    game.refresh_from_db()
    assert game.outsiders == Game.Outsiders.OPEN and not game.watch_risk_accepted


def test_the_win_rates_do_not_wait_for_the_risk_box(client, gm, monkeypatch):
    from games.services import winrates

    monkeypatch.setattr(winrates.current_app, "send_task", lambda name, kwargs, **o: None)
    client.force_login(gm)
    query = {"ruleset": "classic", "seat_count": 12, "preset_classic": "standard",
             "opt_classic_guardians": "none", "opt_classic_all_civilians_dead": "seed",
             "outsiders": Game.Outsiders.OPEN}  # the whole form, the box not ticked yet
    response = client.get(reverse("admin:games_game_winrates"), query)
    assert response.status_code == 200 and response.json()["status"] == "pending"
