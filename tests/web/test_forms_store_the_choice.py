"""猫有n条命: every kind of choice the act page and the vote box offer stores exactly what the
player picked. Each test renders the page, fills the form as a browser does (prefilled fields
keep their values: tests/factories/forms.py), picks an option that is NOT the first and checks
the stored step (the last Action row). Tampered forms get a Chinese refusal and store nothing.

Deal FIVE (seat i = NAMES[i]); seat 1 阿猫 holds KILLER DEMON WITCH_DOCTOR VEST JAIL.
"""

from __future__ import annotations

import functools
import json

import pytest
from django.urls import reverse

from games.models import Action, Event, Game, Vote
from messaging.models import Message, Thread
from tests.factories.forms import Form
from tests.factories.ninelives import MANIFESTO, fresh, user_of
from tests.services.ninelives.test_play import play_night_1, send_orders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese", "response_context")]


def act_form(client, game: Game, seat: int) -> Form:
    client.force_login(user_of(game, seat))
    response = client.get(reverse("game-act", args=[game.pk]))
    assert response.status_code == 200
    return Form(response.content.decode(), "action-form")


def offered(form: Form, kind: str, select: str = "choice") -> list[tuple[dict, str, str]]:
    """The options of `kind`: (decoded value, value, label), in page order."""
    out = []
    for value, label in form.options[select]:
        if value == "":  # the "choose an action" entry the form opens on
            continue
        data = json.loads(value)
        if data["kind"] == kind:
            out.append((data, value, label))
    return out


def counts(game: Game) -> tuple[int, int, int, int]:
    return (Action.objects.filter(game=game).count(), Event.objects.filter(game=game).count(),
            Vote.objects.filter(game=game).count(), Message.objects.count())


def submit(client, game: Game, form: Form, *, status: int = 200) -> list[str]:
    """Post the form as the browser would; the page's flash messages. A form that cannot be
    read at all (broken JSON) is answered with the page again and status 400."""
    response = client.post(reverse("game-act", args=[game.pk]), form.fields, follow=True)
    assert response.status_code == status
    return [str(m) for m in response.context["messages"]]


def last_step(game: Game) -> tuple[str, dict]:
    """The last seat's step (not the clock's end of phase that a last vote may trigger)."""
    row = Action.objects.filter(game=game, actor__regex=r"^\d+$").order_by("-seq").first()
    return row.kind, row.params


def test_loss_order_stores_the_order_and_the_core_card_chosen(start_ninelives, client):
    """The old bug: the prefilled order named the first option's core card and won.
    The ordering form (one select per position, the core card among those allowed) sends
    the order chosen, exactly (tests/web/test_play_forms.py has the rest)."""
    game = start_ninelives()
    client.force_login(user_of(game, 0))
    page = client.get(reverse("game-act", args=[game.pk])).content.decode()
    form = Form(page, "loss-order-form")
    cores = [v for v, _l in form.options["core"]]
    assert len(cores) >= 2, "阿猫 has two killer-camp cards to choose a core from"
    core = cores[1]
    assert form.fields["core"] == cores[0] != core
    others = [v for v, _l in form.options["order_1"] if v != core]
    form.pick("core", value=core)
    for n, card in enumerate(reversed(others), start=1):
        form.pick(f"order_{n}", value=card)
    response = client.post(reverse("game-act", args=[game.pk]), form.fields, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["已收到。神的使者已在下方确认。"]
    assert last_step(game) == ("loss_order", {"cards": list(reversed(others)) + [core]})
    assert fresh(game).state["private"][0]["loss_order"][-1] == core


def card_use(form: Form) -> tuple[str, list[dict]]:
    """The act form's one "use a card on a seat" option (its value) and the combinations it
    offers (its data-combos: what the page's script narrows the pickers with)."""
    found = [(value, attrs) for (value, _label), attrs in
             zip(form.options["choice"], form.option_attrs["choice"], strict=True)
             if value and json.loads(value)["kind"] == "use_card" and "picks" in json.loads(value)]
    assert len(found) == 1, "one option for every targeted card use"
    value, attrs = found[0]
    assert json.loads(value) == {"kind": "use_card", "params": {}, "picks": ["card", "target"]}
    return value, json.loads(attrs["data-combos"])


def use_card(form: Form, card: str, target_index: int = -1) -> dict:
    """Choose "use a card", pick `card` (which must not be the first card offered) and the
    `target_index`-th target offered for it (never the first); the params to expect."""
    value, combos = card_use(form)
    form.pick("choice", value=value)
    cards = [v for v, _l in form.options["pick_card"] if v]
    assert card in cards and cards.index(card) > 0, (card, cards)
    form.pick("pick_card", value=card)
    targets = [c["params"]["target"] for c in combos if c["params"]["card"] == card]
    assert len(targets) >= 2
    target = targets[target_index]
    assert target != targets[0] and str(target) != form.options["pick_target"][1][0]
    form.pick("pick_target", value=str(target))
    return {"card": card, "target": target}


def test_every_targeted_card_use_is_one_option_with_a_card_and_a_target_picker(
        start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    value, combos = card_use(form)
    uses = offered(form, "use_card")
    assert [data for data, _v, _l in uses] == [json.loads(value), {
        "kind": "use_card", "params": {"card": "VEST"}}], "VEST takes no target: an option"
    assert uses[0][2] == "对一个座位用牌：在下面选择牌和目标"
    assert form.options["pick_card"] == [("", "—"), ("KILLER", "杀手"), ("DEMON", "恶魔"),
                                         ("WITCH_DOCTOR", "巫医"), ("JAIL", "禁锢")]
    assert form.options["pick_target"] == [("", "—")] + [
        (str(n), f"{n + 1} · {name}") for n, name in enumerate(["阿猫", "阿狗", "小白", "老黑",
                                                                 "花花"])]
    assert form.fields["pick_card"] == form.fields["pick_target"] == "", "nothing preselected"
    jail = sorted(c["params"]["target"] for c in combos if c["params"]["card"] == "JAIL")
    assert jail == [1, 2, 3, 4], "JAIL is not used on oneself"
    killer = [c["texts"] for c in combos if c["params"]["card"] == "KILLER"]
    assert killer and all(t == ["manifesto", "story"] for t in killer)
    page = client.get(reverse("game-act", args=[game.pk])).content.decode()
    assert '<fieldset id="pickers" class="pickers">' in page and "<legend>选择牌、目标</legend>" in page
    assert "使用杀手时，只写以下其中一项：杀人宣言、剧情。" in page
    assert 'src="/static/js/act-form.js"' in page


def test_use_card_stores_the_card_and_the_target_picked(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    expected = use_card(form, "JAIL", 2)
    assert submit(client, game, form) == ["已收到。神的使者已在下方确认。"]
    assert last_step(game) == ("use_card", expected) == ("use_card", {"card": "JAIL",
                                                                      "target": 3})


def test_a_text_written_for_another_card_does_not_travel(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    expected = use_card(form, "WITCH_DOCTOR", 1)
    form.fill("text_manifesto", MANIFESTO)  # written for KILLER, then WITCH_DOCTOR was chosen
    submit(client, game, form)
    assert last_step(game) == ("use_card", expected)


@pytest.mark.parametrize("text", ["manifesto", "story"])
def test_an_attack_stores_its_target_and_the_text_written(start_ninelives, client, text):
    """小白 (seat 3) holds SNIPER first and KILLER third: KILLER on the last target offered."""
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 2)
    expected = use_card(form, "KILLER")
    written = MANIFESTO if text == "manifesto" else "月光下，一只猫悄悄走过屋顶。"
    form.fill(f"text_{text}", written)
    assert submit(client, game, form) == ["已收到。神的使者已在下方确认。"]
    assert last_step(game) == ("use_card", {**expected, text: written})


def test_a_targeted_night_card_of_another_seat(start_ninelives, client):
    """老黑 (seat 4): DIVINER PROPHET WEREWOLF STRIKE CURSE; PROPHET on a later target."""
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 3)
    expected = use_card(form, "PROPHET", 1)
    submit(client, game, form)
    assert last_step(game) == ("use_card", expected)


def test_a_day_card_stores_the_card_and_the_target_picked(start_ninelives, client):
    """By day 老黑 may use STRIKE or CURSE: CURSE (the second) on the last target offered."""
    game = play_night_1(start_ninelives())
    form = act_form(client, game, 3)
    assert [v for v, _l in form.options["pick_card"] if v] == ["STRIKE", "CURSE"]
    expected = use_card(form, "CURSE")
    # 老黑 used a card last night: the form is confirmed on a page that says what it costs
    # (tests/web/test_play_forms.py), with the same fields.
    page = client.post(reverse("game-act", args=[game.pk]), form.fields).content.decode()
    confirm = Form(page, "confirm-form")
    confirm.fields["confirmed"] = "1"
    assert submit(client, game, confirm) == ["已收到。神的使者已在下方确认。"]
    assert last_step(game) == ("use_card", expected)


def test_a_card_without_a_target_is_an_option_of_its_own(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    (data, value, label), = [o for o in offered(form, "use_card") if "picks" not in o[0]]
    assert label == "使用 防弹衣" and value != form.options["choice"][0][0]
    form.pick("choice", value=value)
    form.fill("pick_card", "JAIL")  # a picker left set does not matter to this option
    submit(client, game, form)
    assert last_step(game) == ("use_card", {"card": "VEST"})


def test_proxy_vote_stores_the_seat_picked(start_ninelives, client):
    game = play_night_1(start_ninelives())
    form = act_form(client, game, 3)
    proxies = offered(form, "proxy_vote")
    assert len(proxies) >= 2
    data, value, _label = proxies[1]
    form.pick("choice", value=value)
    submit(client, game, form)
    assert last_step(game) == ("proxy_vote", {"target": data["params"]["target"]})


def vote_form(client, game: Game, seat: int) -> Form:
    game = fresh(game)
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    client.force_login(user_of(game, seat))
    response = client.get(reverse("messaging-thread", args=[thread.pk]))
    assert response.status_code == 200
    return Form(response.content.decode(), "vote-form")


def cast(client, game: Game, form: Form) -> list[str]:
    """Send the vote box, then confirm on the page that names the target (when the rules
    offer that vote; otherwise the refusal comes at once)."""
    response = client.post(reverse("game-vote", args=[game.pk]), form.fields, follow=True)
    assert response.status_code == 200
    if b'id="vote-confirm-form"' in response.content:
        confirm = Form(response.content.decode(), "vote-confirm-form")
        response = client.post(reverse("game-vote", args=[game.pk]), confirm.fields,
                               follow=True)
        assert response.status_code == 200
    return [str(m) for m in response.context["messages"]]


def test_day_and_runoff_votes_store_the_seat_picked(start_ninelives, client):
    game = play_night_1(start_ninelives())
    ballot = {0: 1, 1: 0, 3: 1, 4: 0}  # 阿猫 and 阿狗 tie: a runoff
    for voter, target in ballot.items():
        form = vote_form(client, game, voter)
        assert form.radios["target"][0] == "0", "seat 2 (阿狗) is not the first choice"
        form.check("target", str(target))
        assert cast(client, game, form) == ["你的票已计入。"]
        assert last_step(game) == ("vote", {"target": target})
    game = fresh(game)
    assert game.phase_name == "runoff"
    form = vote_form(client, game, 3)
    assert form.radios["target"] == ["0", "1"]
    form.check("target", "1")
    cast(client, game, form)
    assert last_step(game) == ("vote", {"target": 1})


# --- tampered forms: a Chinese refusal, nothing stored ------------------------------------------

def assert_refused(client, game: Game, form: Form, *, submit_to=submit) -> str:
    before, state = counts(game), fresh(game).state
    shown = submit_to(client, game, form)
    assert len(shown) == 1 and not shown[0].startswith("已收到"), shown
    assert any("\u4e00" <= ch <= "\u9fff" for ch in shown[0]), shown
    assert counts(game) == before and fresh(game).state == state
    return shown[0]


def test_an_empty_loss_order_is_refused(start_ninelives, client):
    game = start_ninelives()
    form = act_form(client, game, 0)
    form.fields["choice"] = json.dumps({"kind": "loss_order", "params": {"cards": []}})
    assert assert_refused(client, game, form) == "请列出你持有的每一张牌，每张一次，先丢的在前。"


def test_a_choice_not_offered_is_refused(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    form.options["choice"].append(("x", "x"))
    form.fields["choice"] = json.dumps({"kind": "use_card",
                                        "params": {"card": "SNIPER", "target": 2}})
    assert assert_refused(client, game, form) == "你手里没有狙击手。"
    form.fields["choice"] = "{not json"
    unreadable = functools.partial(submit, status=400)
    assert assert_refused(client, game, form, submit_to=unreadable) == "请从列出的操作中选一项。"


def test_a_second_vote_is_refused(start_ninelives, client):
    game = play_night_1(start_ninelives())
    form = vote_form(client, game, 0)
    form.check("target", "1")
    cast(client, game, form)
    form.check("target", "3")
    assert_refused(client, game, form, submit_to=cast)


def test_the_vote_box_heading_names_the_phase_in_chinese(start_ninelives, client):
    game = play_night_1(start_ninelives())
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    client.force_login(user_of(game, 0))
    page = client.get(reverse("messaging-thread", args=[thread.pk])).content.decode()
    heading = page[page.index('id="vote-panel"'):]
    heading = heading[heading.index("<h2>"):heading.index("</h2>")]
    assert heading == "<h2>第1天投票", heading


# --- tampered pickers: a Chinese refusal, nothing stored, never a 500 --------------------------

def picker_form(client, game: Game, card: str, target: str) -> Form:
    form = act_form(client, game, 0)
    value, _combos = card_use(form)
    form.pick("choice", value=value)
    form.fields["pick_card"], form.fields["pick_target"] = card, target
    return form


@pytest.mark.parametrize(("card", "target", "refusal"), [
    ("SNIPER", "2", "所选的牌不在列出的选项之中，请从列表中选择。"),   # not in 阿猫's hand
    ("VEST", "2", "所选的牌不在列出的选项之中，请从列表中选择。"),     # takes no target
    ("jail", "2", "所选的牌不在列出的选项之中，请从列表中选择。"),     # codes are exact strings
    ("JAIL", "0", "所选的目标不能与牌「禁锢」一起选择，请重新选择。"),  # JAIL is not used on oneself
    ("DEMON", "0", "所选的目标不能与牌「恶魔」一起选择，请重新选择。"),
    ("JAIL", "²", "所选的目标不在列出的选项之中，请从列表中选择。"),   # "²".isdigit() is true
    ("JAIL", "２", "所选的目标不在列出的选项之中，请从列表中选择。"),  # int("２") == 2
    ("JAIL", " 2", "所选的目标不在列出的选项之中，请从列表中选择。"),
    ("JAIL", "9", "所选的目标不在列出的选项之中，请从列表中选择。"),
    ("JAIL", "", "请选择目标。"),
    ("", "2", "请选择牌。"),
])
def test_a_card_or_target_not_offered_is_refused(start_ninelives, client, card, target, refusal):
    game = start_ninelives()
    send_orders(game)
    form = picker_form(client, game, card, target)
    assert assert_refused(client, game, form, submit_to=functools.partial(
        submit, status=400)) == refusal


def test_a_missing_picker_is_refused(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = picker_form(client, game, "JAIL", "2")
    del form.fields["pick_target"]
    unreadable = functools.partial(submit, status=400)
    assert assert_refused(client, game, form, submit_to=unreadable) == "请选择目标。"


def test_both_texts_written_for_an_attack_are_refused(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 2)
    use_card(form, "KILLER")
    form.fill("text_manifesto", MANIFESTO)
    form.fill("text_story", "月光下，一只猫悄悄走过屋顶。")
    unreadable = functools.partial(submit, status=400)
    assert assert_refused(client, game, form, submit_to=unreadable) == \
        "只写以下其中一项：杀人宣言、剧情。"


def test_an_attack_without_its_text_is_refused_by_the_rules(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 2)
    use_card(form, "KILLER")
    shown = assert_refused(client, game, form)
    assert "100" in shown, shown


@pytest.mark.parametrize("forged", [
    {"kind": "use_card", "params": {}, "picks": ["card", "actor"]},
    {"kind": "use_card", "params": {}, "picks": ["card", "card"]},
    {"kind": "use_card", "params": {}, "picks": ["target"]},
    {"kind": "use_card", "params": {"card": "JAIL"}, "picks": ["card", "target"]},
    {"kind": "use_card", "params": {"card": "SNIPER"}, "picks": ["target"]},
    {"kind": "vote", "params": {}, "picks": ["card", "target"]},
    {"kind": "use_card", "params": {}, "picks": "card"},
    {"kind": "use_card", "params": {}, "picks": [["card"]]},
    {"kind": "use_card", "params": {}, "picks": ["card", "target"], "extra": 1},
])
def test_a_forged_grouped_option_is_refused(start_ninelives, client, forged):
    game = start_ninelives()
    send_orders(game)
    form = picker_form(client, game, "JAIL", "2")
    form.fields["choice"] = json.dumps(forged)
    unreadable = functools.partial(submit, status=400)
    assert assert_refused(client, game, form, submit_to=unreadable) == "请从列出的操作中选一项。"


def test_an_option_with_no_picks_is_a_step_the_rules_refuse(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = picker_form(client, game, "JAIL", "2")
    form.fields["choice"] = json.dumps({"kind": "use_card", "params": {}, "picks": []})
    assert assert_refused(client, game, form) == "没有这张牌。"


def test_a_fixed_card_with_a_picked_target_is_still_only_what_was_offered(start_ninelives,
                                                                          client):
    """A hand-made option fixing the card and picking the target can only send an offered
    combination too: JAIL on 小白 is one, so it is stored as it was chosen."""
    game = start_ninelives()
    send_orders(game)
    form = picker_form(client, game, "", "2")
    form.fields["choice"] = json.dumps({"kind": "use_card", "params": {"card": "JAIL"},
                                        "picks": ["target"]})
    assert submit(client, game, form, status=200) == ["已收到。神的使者已在下方确认。"]
    assert last_step(game) == ("use_card", {"card": "JAIL", "target": 2})
