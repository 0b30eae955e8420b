"""Every refusal the rules can give a player, sent through the act page's form (a crafted
POST, as a stale page or a hand-edited form would send it): a readable Chinese sentence in
the page's messages, and nothing stored. The GM's refusals through the console's service.

The game (deal FIVE, seat i = NAMES[i]) goes through the stages that make each refusal
possible:
    night 1  no order yet; 花花 passes twice; 阿猫 jails 老黑; 阿狗's SOULBINDER saves 花花
             from 小白's KILLER; 老黑's jailed WEREWOLF is void (but counts as a use)
    day 1    花花 (saved) may not vote; 老黑 uses STRIKE on 花花, 花花 BLESS on 小白;
             阿猫 and 阿狗 tie 2-2
    runoff   老黑's STRIKE is dead, CURSE is not for a runoff, 花花 already used a day card
    night 2  老黑 is banned this round; 阿猫 may not jail 老黑 twice; the GM puts 小白 out
and a 6-player game for the free agent's refusals.
"""

from __future__ import annotations

import copy
import json

import pytest
from django.urls import reverse
from django.utils import translation

from games import services
from games.engine.base import Refusal, action
from games.models import Action, Event, Game
from games.presenters import refusal_text
from messaging.models import Message
from tests.factories.ninelives import (
    MANIFESTO,
    SIX,
    act,
    fresh,
    is_chinese_sentence,
    refusal_codes,
    user_of,
)
from tests.services.ninelives.test_play import ORDERS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese", "response_context")]

# Codes no seat can reach through the form: the service always builds a well-formed step for
# the seat that holds the page (bad_step, bad_actor), refuses a finished game itself
# (game_over), and core_fixed needs a reorder window (8 losses); the presenter tests give
# each of them its sentence.
NOT_THROUGH_THE_FORM = {"bad_step", "bad_actor", "game_over", "core_fixed"}


class Form:
    """Posts crafted choices through the act page and checks the refusal each gets."""

    def __init__(self, client, game: Game):
        self.client, self.game_id = client, game.pk
        self.codes: set[str] = set()

    def refuse(self, seat: int, kind: str, code: str, **params) -> str:
        """Post `kind`/`params` as seat `seat`; the rules must refuse it with `code`.

        1. Ask the engine directly what it says (the code must be `code`).
        2. Post it through the form; the page must show exactly the translated sentence.
        3. Nothing stored: same state, no new action, event or message.
        """
        game = Game.objects.get(pk=self.game_id)
        engine = services.ruleset_of(game)
        refused = engine.apply(game.state, action(seat, kind, **params))
        assert isinstance(refused, Refusal) and refused.code == code, (code, refused)
        with translation.override("zh-hans"):
            expected = refusal_text("ninelives", refused)
        assert is_chinese_sentence(expected), (code, expected)
        state = copy.deepcopy(game.state)
        counts = (Action.objects.filter(game=game).count(),
                  Event.objects.filter(game=game).count(), Message.objects.count())
        self.client.force_login(user_of(game, seat))
        # Texts travel in their own fields, as the form sends them (the step's JSON is
        # bounded in size by config.inputs); an empty text stays in the step.
        texts = {k: v for k, v in params.items() if k in ("manifesto", "story") and v}
        step = {k: v for k, v in params.items() if k not in texts}
        response = self.client.post(reverse("game-act", args=[game.pk]), {
            "choice": json.dumps({"kind": kind, "params": step}, ensure_ascii=False),
            "phase": str(game.current_phase.seq),
            **{f"text_{k}": v for k, v in texts.items()}}, follow=True)
        shown = [str(m) for m in response.context["messages"]]
        assert shown == [expected], (code, shown)
        game = fresh(game)
        assert game.state == state, f"{code} changed the state"
        assert counts == (Action.objects.filter(game=game).count(),
                          Event.objects.filter(game=game).count(), Message.objects.count())
        self.codes.add(code)
        return expected


def gm_refused(game: Game, gm, kind: str, **params) -> tuple[str, str]:
    """A GM step through the service that must be refused: (its message, its code)."""
    with translation.override("zh-hans"), pytest.raises(services.GameError) as refused:
        services.gm_step(game_id=game.pk, gm=gm, kind=kind, params=params)
    return str(refused.value.message), refused.value.code


def test_every_refusal_through_the_form_is_a_chinese_sentence_and_changes_nothing(
        start_ninelives, nl_gm, client, settings):
    settings.RATELIMIT_ENABLE = False  # one seat sends every refusal; the limit has its tests
    game = start_ninelives()
    form = Form(client, game)

    # night 1, before any loss order
    form.refuse(0, "use_card", "unknown_card", card="NOPE")
    assert form.refuse(0, "use_card", "not_in_hand", card="SNIPER", target=1) == \
        "你手里没有狙击手。"
    form.refuse(0, "use_card", "no_target", card="VEST", target=1)
    form.refuse(0, "use_card", "not_self", card="DEMON", target=0)
    form.refuse(1, "use_card", "nothing_to_pardon", card="PARDON")
    assert "100" in form.refuse(0, "use_card", "manifesto_too_short", card="KILLER", target=2,
                                manifesto="太短了")
    form.refuse(0, "use_card", "two_texts", card="KILLER", target=2, manifesto=MANIFESTO,
                story="一段剧情")
    form.refuse(0, "use_card", "empty_story", card="KILLER", target=2, story="")
    form.refuse(0, "use_card", "no_text", card="DEMON", target=1, manifesto=MANIFESTO)
    form.refuse(0, "use_card", "bad_text", card="KILLER", target=2, story="猫" * 20_001)
    form.refuse(0, "use_card", "bad_target", card="KILLER", target=9, manifesto=MANIFESTO)
    form.refuse(0, "withdraw", "nothing_to_withdraw")
    form.refuse(0, "vote", "no_vote_now", target=1)
    form.refuse(0, "loss_order", "bad_order", cards=["KILLER", "DEMON"])
    form.refuse(0, "loss_order", "core_camp",
                cards=["KILLER", "DEMON", "WITCH_DOCTOR", "JAIL", "VEST"])
    form.refuse(0, "choose_camp", "not_free_agent", camp="killer")
    form.refuse(0, "fly", "unknown_kind")
    form.refuse(0, "use_card", "bad_params", card="JAIL", target=3, colour="红")
    for seat, order in ORDERS.items():
        act(game, seat, "loss_order", cards=order)
    act(game, 4, "pass")
    form.refuse(4, "pass", "already_passed")
    act(game, 0, "use_card", card="JAIL", target=3)
    act(game, 1, "use_card", card="SOULBINDER", target=4)
    act(game, 2, "use_card", card="KILLER", target=4, manifesto=MANIFESTO)
    act(game, 3, "use_card", card="WEREWOLF", target=4, manifesto=MANIFESTO)
    game = fresh(game)
    assert (game.phase_name, game.state["public"]["no_vote"]) == ("day", [4])

    # day 1
    form.refuse(4, "vote", "may_not_vote", target=0)
    form.refuse(0, "use_card", "night_only", card="DEMON", target=1)
    form.refuse(0, "pass", "wrong_phase")
    form.refuse(0, "loss_order", "order_closed", cards=ORDERS[0])
    act(game, 3, "use_card", card="STRIKE", target=4)
    act(game, 4, "use_card", card="BLESS", target=2)
    act(game, 1, "proxy_vote", target=0)
    form.refuse(1, "proxy_vote", "proxy_unchanged", target=0)
    act(game, 0, "vote", target=1)
    form.refuse(0, "vote", "vote_final", target=2)
    for voter, target in ((1, 0), (2, 1), (3, 0)):
        act(game, voter, "vote", target=target)
    game = fresh(game)
    assert game.phase_name == "runoff" and game.state["public"]["candidates"] == [0, 1]

    # the runoff
    form.refuse(3, "use_card", "dead_card", card="STRIKE", target=4)
    form.refuse(3, "use_card", "not_in_runoff", card="CURSE", target=0)
    form.refuse(4, "use_card", "one_day_card", card="BOMB", target=0)
    assert form.refuse(0, "vote", "vote_among_tied", target=2) == "请投给平票的座位之一。"
    for voter in range(4):
        act(game, voter, "vote", target=1)
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("night", 2)

    # night 2
    form.refuse(3, "use_card", "banned_round", card="DIVINER", target=0)
    form.refuse(0, "use_card", "jail_twice", card="JAIL", target=3)
    form.refuse(0, "choose_camp", "camp_closed", camp="killer")
    services.gm_step(game_id=game.pk, gm=nl_gm, kind="foul_out",
                     params={"seat": 2, "reason": "长时间未发言"})
    form.refuse(2, "pass", "dead")

    # the GM's own refusals (the console calls the same service)
    for kind, params, code in (("foul_out", {"seat": 2, "reason": "再一次"}, "bad_seat"),
                               ("foul_out", {"seat": 3}, "reason_needed"),
                               ("reject_manifesto", {"seat": 0}, "no_manifesto")):
        message, got = gm_refused(game, nl_gm, kind, **params)
        assert got == code and is_chinese_sentence(message), (code, message)
        form.codes.add(code)

    # the free agent, in a 6-player game
    six = start_ninelives(deal=SIX)
    free = Form(client, six)
    free.refuse(5, "loss_order", "camp_first", cards=SIX["seats"][5]["cards"])
    free.refuse(5, "choose_camp", "camp_not_held", camp="civilian")

    reached = form.codes | free.codes
    assert reached | NOT_THROUGH_THE_FORM == refusal_codes(), sorted(
        refusal_codes() - reached - NOT_THROUGH_THE_FORM)
