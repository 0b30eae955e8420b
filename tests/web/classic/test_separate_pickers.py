"""Multi-part choices are separate pickers: in the ghost variant the
bandits' night kill names a victim and a death-pact bandit. The act page offers one "kill"
option with a victim picker and a bandit picker (not one option per pair); what is stored
is what was picked; a pair the rules do not offer, or a missing pick, is refused in Chinese
and stores nothing."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games.models import Action
from tests.factories import fresh, user_of
from tests.factories.classic import new_game
from tests.factories.forms import Form

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("response_context")]

ROLES = ["police", "bandit", "civilian", "civilian", "police", "bandit", "civilian", "poison",
         "police", "ghost", "civilian"]


@pytest.fixture
def ghost_game(players, gm):
    return new_game(players, gm, variant_ghost_poison=True, fixed_roles=ROLES)


def kill_form(client, game, seat=1) -> tuple[Form, str]:
    client.force_login(user_of(game, seat))
    form = Form(client.get(reverse("game-act", args=[game.pk])).content.decode(), "action-form")
    kills = [v for v, _l in form.options["choice"] if v and json.loads(v)["kind"] == "kill"]
    assert len(kills) == 1, "one kill option, not one per (victim, bandit) pair"
    return form, kills[0]


def post(client, game, form):
    response = client.post(reverse("game-act", args=[game.pk]), form.fields, follow=True)
    return response.status_code, [str(m) for m in response.context["messages"]]


def test_the_victim_and_the_bandit_are_picked_separately_and_stored(ghost_game, client):
    game = ghost_game
    form, kill = kill_form(client, game)
    victims = [v for v, _l in form.options["pick_target"] if v]
    bandits = [v for v, _l in form.options["pick_pact"] if v]
    assert len(victims) > 3 and len(bandits) >= 2
    assert len(form.options["choice"]) < len(victims) * len(bandits)
    form.pick("choice", value=kill)
    form.pick("pick_target", value=victims[2])
    form.pick("pick_pact", value=bandits[1])
    status, shown = post(client, game, form)
    assert (status, shown) == (200, ["已收到。神的使者已在下方确认。"])
    row = Action.objects.filter(game=game, actor="1").order_by("-seq").first()
    assert (row.kind, row.params) == ("kill", {"target": int(victims[2]),
                                               "pact": int(bandits[1])})


def test_a_missing_pick_or_a_pair_not_offered_is_refused(ghost_game, client):
    game = ghost_game
    form, kill = kill_form(client, game)
    before = Action.objects.filter(game=game).count()
    form.pick("choice", value=kill)
    status, shown = post(client, game, form)  # the pickers left on "—"
    assert status == 400 and shown == ["请选择目标。"], shown
    form.fields["pick_target"] = "3"
    form.fields["pick_pact"] = "2"  # a civilian: not a death-pact bandit
    status, shown = post(client, game, form)
    assert status == 400 and shown == ["所选的生死状上的匪徒不在列出的选项之中，请从列表中选择。"], shown
    form.fields["pick_target"] = "²"  # "²".isdigit() is true: still no seat
    status, shown = post(client, game, form)
    assert status == 400 and shown == ["所选的目标不在列出的选项之中，请从列表中选择。"], shown
    assert Action.objects.filter(game=game).count() == before
    assert fresh(game).state["private"][1].get("choice") in (None, {})
