"""Leave requests and action submissions are rate limited
through config.ratelimit; beyond the budget the answer is 429 with a sentence, nothing stored."""

import json

import pytest
from django.urls import reverse

from games.models import Action, LeaveRequest
from games.web.community import RATES
from tests.factories import user_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "one_rate_window")]


def test_25_leave_requests_reach_the_gm_only_as_often_as_allowed(client, game):
    client.force_login(user_of(game, 0))
    url = reverse("game-community", args=[game.pk, "leave"])
    codes = [client.post(url, {"message": "明天出差"}).status_code for _ in range(25)]
    allowed = int(RATES["leave"].split("/")[0])
    assert codes == [302] * allowed + [429] * (25 - allowed)
    assert LeaveRequest.objects.filter(game=game).count() == allowed
    conversation = game.seats.get(number=0).conversation
    assert conversation.messages.filter(body__contains="明天出差").count() == allowed
    assert "此类请求太多了" in client.post(url, {"message": "x"}).content.decode()


def test_25_identical_steps_store_only_the_allowed_number(client, game):
    from games import rulesets
    from games.web.play import ACTION_RATE

    seat = next(n for n in range(game.seat_count)
                if rulesets.engine(game.ruleset).legal_actions(game.state, n))
    step = rulesets.engine(game.ruleset).legal_actions(game.state, seat)[0]
    client.force_login(user_of(game, seat))
    url = reverse("game-act", args=[game.pk])
    data = {"choice": json.dumps({"kind": step.kind, "params": step.params})}
    codes = [client.post(url, data).status_code for _ in range(25)]
    allowed = int(ACTION_RATE.split("/")[0])
    # The budget is per seat and phase (the toy game may move on once everyone acted); a
    # step the rules refuse shows the form again (200), one they take redirects (302).
    assert set(codes[:allowed]) <= {200, 302} and codes[-1] == 429
    per_phase = {}
    for phase in Action.objects.filter(game=game, seat__number=seat).values_list("phase",
                                                                               flat=True):
        per_phase[phase] = per_phase.get(phase, 0) + 1
    assert per_phase and max(per_phase.values()) <= allowed
