"""Golden playthroughs of 猫有n条命, checked in under tests/engine/golden/ninelives/.

1. five_civilian_win: a hand-written 5-player game (the FIVE deal) to a civilian win: a
   rejected manifesto, a story, a proxy vote, CURSE, a banned round, JAIL, BOMB, a pardon,
   both reorder windows and executions announced late and at once.
2. six_free_agent_killer_win: a 6-player game (the SIX deal) played by the simulator's
   informed policy, where the free agent joins the killer camp and ends alone.
3. five_draw: a 5-player game (the FIVE deal) by the same policy, ending with every seat dead.

The one harness (tests/engine/golden.py, tests/engine/test_golden.py) writes each step in
Chinese through the presenters: the step, its events with who saw them and why, the public
view, and each seat's and the GM's own part wherever it changed (`own`, `secret` and
`public` below: what the viewer holds, its loss order, its card use this phase, what the GM
keeps until it is announced). Everything is read through `view()`, so the files double as
a record of what each seat may know. The harness diffs them and replays the steps.

Kill statements and stories are real sentences (games/engine/prose.py), the simulator's
drawn from its seed.
"""

from __future__ import annotations

import random

from games.engine.base import GM, action, end_phase
from games.engine.ninelives.rules import MANIFESTO_MIN
from games.engine.ninelives.simulate import play
from games.engine.prose import prose
from games.presenters import ninelives as NL
from games.presenters import review_facts, review_secret
from games.presenters.labels import labelled

from ..golden import GoldenGame, Played, Reader, facts_line, write
from .deals import FIVE, SIX
from .helpers import MANIFESTO, RULES

STORY = "雨夜，猫从屋檐跳下，灯灭了。"
# Each attacker writes its own kill statement (real sentences, games/engine/prose.py).
WOLF = prose(random.Random("golden wolf"), MANIFESTO_MIN)
SNIPER = prose(random.Random("golden sniper"), MANIFESTO_MIN)


def civilian_win_steps() -> list[dict]:
    """The hand-written 5-player game. Seats are 0-based; see test_cards.py for the hands."""
    a, e = action, end_phase
    orders = {
        0: ["DEMON", "WITCH_DOCTOR", "VEST", "JAIL", "KILLER"],
        1: ["SORCERER", "SOULBINDER", "WOLFSBANE", "PARDON", "WEREWOLF"],
        2: ["DIVINER", "KILLER", "SORCERER", "SAINT", "SNIPER"],
        3: ["PROPHET", "WEREWOLF", "STRIKE", "CURSE", "DIVINER"],
    }  # seat 5 sends none: the GM draws one
    steps = [a(s, "loss_order", cards=o) for s, o in orders.items()]
    steps += [
        # night 1
        a(0, "use_card", card="KILLER", target=3, manifesto=MANIFESTO),
        a(1, "use_card", card="WEREWOLF", target=2, story="月黑风高。"),
        a(GM, "reject_manifesto", seat=1, reason="一句话算不上剧情，请写完整的故事。"),
        a(1, "use_card", card="WEREWOLF", target=2, manifesto=WOLF),
        a(2, "use_card", card="DIVINER", target=0),
        a(3, "use_card", card="PROPHET", target=1),
        a(4, "pass"),
        e(),
        # day 1: the diviner's answer leads the civilians to the killer
        a(3, "use_card", card="CURSE", target=1),
        a(4, "proxy_vote", target=0),
        a(2, "vote", target=0), a(3, "vote", target=0), a(0, "vote", target=2),
        a(1, "vote", target=3),
        e(),
        # night 2: seat 4 used a card at night and by day, so it sits this round out
        a(0, "use_card", card="KILLER", target=4, manifesto=MANIFESTO),
        a(1, "use_card", card="WEREWOLF", target=3, story=STORY),
        a(2, "use_card", card="SNIPER", target=1, manifesto=SNIPER),
        a(4, "use_card", card="BOMB", target=0),
        e(),
        # day 2
        a(2, "vote", target=1), a(3, "vote", target=1), a(4, "vote", target=1),
        a(0, "vote", target=4), a(1, "vote", target=2),
        e(),
        # night 3: the wolf pardons itself; the sniper and a strike hit the killer
        a(1, "use_card", card="PARDON"),
        a(0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO),
        a(2, "use_card", card="SNIPER", target=0, manifesto=SNIPER),
        a(3, "use_card", card="STRIKE", target=0),
        a(4, "pass"),
        e(),
        # day 3: the first reorder window
        a(2, "loss_order", cards=["SAINT", "SORCERER", "SNIPER"]),
        a(2, "vote", target=0), a(3, "vote", target=0), a(4, "vote", target=0),
        a(1, "vote", target=0), a(0, "vote", target=2),
        e(),
        # night 4: the killer's last night
        a(0, "use_card", card="KILLER", target=4, manifesto=MANIFESTO),
        a(1, "use_card", card="WEREWOLF", target=2, manifesto=WOLF),
        a(2, "use_card", card="SNIPER", target=1, manifesto=SNIPER),
        a(4, "use_card", card="PROPHET", target=1),
        a(3, "pass"),
        e(),
        # day 4: the wolf was pardoned once, so its loss is announced at once
        a(2, "vote", target=1), a(3, "vote", target=1), a(4, "vote", target=1),
        a(1, "vote", target=3),
        e(),
        # night 5
        a(1, "use_card", card="WEREWOLF", target=3, manifesto=WOLF),
        a(2, "use_card", card="SNIPER", target=1, manifesto=SNIPER),
        a(3, "pass"), a(4, "pass"),
        e(),
        # day 5: the second reorder window; the last wolf card goes
        a(2, "vote", target=1), a(3, "vote", target=1), a(4, "vote", target=1),
        a(1, "vote", target=2),
        e(),
    ]
    return steps


GAMES = {
    "five_civilian_win": lambda: ({"seats": 5, "config": {"deal": FIVE}, "seed": "golden-1"},
                                  civilian_win_steps(), "civilian"),
    "six_free_agent_killer_win": lambda: simulated(6, 21, SIX, "killer"),
    "five_draw": lambda: simulated(5, 5, FIVE, "draw"),
}


def simulated(players: int, seed: int, deal: dict, result: str):
    played = play(players, seed, policy="informed", deal=deal)
    return played.setup, played.steps, result


# --- reading the views ---------------------------------------------------------------------

def own(view: dict, names: dict[int, str]) -> list[str]:
    """A seat's own part: its camp, hand, loss order, core card, dead and used cards, proxy
    vote (`review_facts`), then this phase's card use as its panel shows it, and how many
    choices its view offers."""
    me = view["me"]
    now = NL.panel(view, names)["pending"]
    return [facts_line(review_facts("ninelives", me, me["seat"], names)),
            *([f"用牌：{now}"] if now else []),
            f"可选操作：{len(view['legal_actions'])} 项"]


def secret(view: dict, names: dict[int, str]) -> list[str]:
    """The GM's own part: the deal and the taints (`review_secret`), then what the GM keeps
    until it is announced: a pending execution with its count, the CURSE and BLESS effects
    on today's count, a SAINT that will fire, the protections of the nights before, the free
    agent's default camp."""
    sec = view["secret"]
    lines = [labelled(label, text) for label, text in review_secret("ninelives", sec, names)]
    ex = sec.get("execution")
    if ex:
        lines.append(f"待公布的处决：{NL.phase_text({'name': 'day', 'number': ex['day']})}"
                     f"处决{NL.who(names, ex['seat'])}（计票：{NL.tally_text(ex, names)}）")
    for effect in sec.get("count_effects") or []:
        lines.append(f"计票效果：{NL.who(names, effect['seat'])}对{NL.who(names, effect['target'])}"
                     f"使用了{NL.card_name(effect['card'])}"
                     f"（{NL.phase_text({'name': 'day', 'number': effect['day']})}）")
    if sec.get("saint"):
        saint = sec["saint"]
        lines.append(f"圣人：{NL.who(names, saint['seat'])}"
                     f"（{NL.phase_text({'name': 'day', 'number': saint['day']})}）")
    for card, guard in sorted((sec.get("protect_history") or {}).items()):
        lines.append(f"上次保护：{NL.who(names, guard['seat'])}的{NL.card_name(card)}在"
                     f"{NL.phase_text({'name': 'night', 'number': guard['night']})}保护了"
                     f"{NL.who(names, guard['target'])}"
                     f"（{'遭到攻击' if guard['attacked'] else '未遭攻击'}）")
    if sec.get("free_agent_default"):
        lines.append(f"自选立场者的默认阵营：{NL.camp_name(sec['free_agent_default'])}")
    return lines


def public(view: dict, names: dict[int, str]) -> list[str]:
    """An execution whose announcement waits for the night after (interpretation I9)."""
    pending = view["public"].get("pending_execution")
    if not pending:
        return []
    day = NL.phase_text({"name": "day", "number": pending["day"]})
    night = NL.phase_text({"name": "night", "number": pending["day"] + 1})
    return [f"待公布的处决：{day}的处决结果在{night}结束时公布"]


READER = Reader(own=own, secret=secret, public=public)


def render(name: str) -> Played:
    """Game `name` played and written out through the views at every step."""
    setup, steps, result = GAMES[name]()
    played = write("ninelives", name, setup, steps, READER)
    assert RULES.outcome(played.final).result == result
    return played


GOLDEN = [GoldenGame("ninelives", name, lambda name=name: render(name)) for name in sorted(GAMES)]
