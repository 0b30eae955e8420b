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

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def act_form(client, game: Game, seat: int) -> Form:
    client.force_login(user_of(game, seat))
    response = client.get(reverse("game-act", args=[game.pk]))
    assert response.status_code == 200
    return Form(response.content.decode(), "action-form")


def offered(form: Form, kind: str, select: str = "choice") -> list[tuple[dict, str, str]]:
    """The options of `kind`: (decoded value, value, label), in page order."""
    out = []
    for value, label in form.options[select]:
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


def test_loss_order_stores_the_core_card_picked_not_the_prefilled_one(start_ninelives, client):
    """The bug of issue 14: the prefilled order named the first option's core card and won."""
    game = start_ninelives()
    form = act_form(client, game, 0)
    orders = offered(form, "loss_order")
    assert len(orders) >= 2, "阿猫 has two killer-camp cards to choose a core from"
    data, value, _label = orders[1]
    core = data["params"]["cards"][-1]
    assert core != orders[0][0]["params"]["cards"][-1]
    assert form.fields["list_cards"] == "", "the box is optional, empty: the option stands"
    form.pick("choice", value=value)
    shown = submit(client, game, form)
    assert shown == ["已收到。神的使者已在下方确认。"], shown
    assert last_step(game) == ("loss_order", data["params"])
    assert fresh(game).state["private"][0]["loss_order"][-1] == core


def test_loss_order_keeps_the_order_typed_and_the_core_picked(start_ninelives, client):
    game = start_ninelives()
    form = act_form(client, game, 0)
    data, value, _label = offered(form, "loss_order")[1]
    core = data["params"]["cards"][-1]
    others = [c for c in data["params"]["cards"] if c != core]
    typed = [core] + list(reversed(others))  # the core typed first: the pick still wins
    form.pick("choice", value=value)
    form.fill("list_cards", "、".join(typed))
    submit(client, game, form)
    assert last_step(game) == ("loss_order", {"cards": list(reversed(others)) + [core]})


def test_use_card_stores_the_target_picked(start_ninelives, client):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    jails = [o for o in offered(form, "use_card") if o[0]["params"]["card"] == "JAIL"]
    assert len(jails) >= 3
    data, value, _label = jails[2]
    form.pick("choice", value=value)
    submit(client, game, form)
    assert last_step(game) == ("use_card", {"card": "JAIL", "target": data["params"]["target"]})


@pytest.mark.parametrize("text", ["manifesto", "story"])
def test_an_attack_stores_its_target_and_the_text_written(start_ninelives, client, text):
    game = start_ninelives()
    send_orders(game)
    form = act_form(client, game, 0)
    attacks = [o for o in offered(form, "use_card")
               if o[0]["params"]["card"] == "KILLER" and o[0].get("texts") == [text]]
    assert len(attacks) >= 2
    data, value, _label = attacks[-1]
    form.pick("choice", value=value)
    written = MANIFESTO if text == "manifesto" else "月光下，一只猫悄悄走过屋顶。"
    form.fill(f"text_{text}", written)
    # a text typed for the other kind of option must not travel with this one
    other = "story" if text == "manifesto" else "manifesto"
    form.fill(f"text_{other}", MANIFESTO + "另一段")
    submit(client, game, form)
    assert last_step(game) == ("use_card", {"card": "KILLER", "target": data["params"]["target"],
                                            text: written})


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
    response = client.post(reverse("game-vote", args=[game.pk]), form.fields, follow=True)
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


def test_a_loss_order_edited_to_another_card_is_refused(start_ninelives, client):
    game = start_ninelives()
    form = act_form(client, game, 0)
    data, value, _label = offered(form, "loss_order")[1]
    form.pick("choice", value=value)
    form.fill("list_cards", ", ".join(data["params"]["cards"]).replace("VEST", "SNIPER"))
    assert assert_refused(client, game, form) == "请列出你持有的每一张牌，每张一次，先丢的在前。"


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
