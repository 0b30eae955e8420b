"""Golden playthroughs of 猫有n条命, checked in under tests/engine/golden/ninelives/.

1. five_civilian_win: a hand-written 5-player game (the FIVE deal) to a civilian win: a
   rejected manifesto, a story, a proxy vote, CURSE, a banned round, JAIL, BOMB, a pardon,
   both reorder windows and executions announced late and at once.
2. six_free_agent_killer_win: a 6-player game (the SIX deal) played by the simulator's
   informed policy, where the free agent joins the killer camp and ends alone.
3. five_draw: a 5-player game (the FIVE deal) by the same policy, ending with every seat dead.

For every step the file shows the step, the new events with who sees them, then each
viewer's view (every seat, the spectator, the GM) wherever it changed: what the viewer
holds, its loss order, its awaited moves. Everything is read through `view()`, so the files
double as a record of what each seat may know. The one harness (tests/engine/golden.py,
tests/engine/test_golden.py) diffs them and replays the steps.
"""

from __future__ import annotations

import json

from games.engine.base import GM, SPECTATOR, action, end_phase
from games.engine.ninelives.simulate import play

from ..golden import GoldenGame, Played
from .deals import FIVE, SIX
from .helpers import MANIFESTO, RULES

STORY = "雨夜，猫从屋檐跳下，灯灭了。"


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
        a(GM, "reject_manifesto", seat=1, reason="one line is not a story"),
        a(1, "use_card", card="WEREWOLF", target=2, manifesto=MANIFESTO),
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
        a(2, "use_card", card="SNIPER", target=1, manifesto=MANIFESTO),
        a(4, "use_card", card="BOMB", target=0),
        e(),
        # day 2
        a(2, "vote", target=1), a(3, "vote", target=1), a(4, "vote", target=1),
        a(0, "vote", target=4), a(1, "vote", target=2),
        e(),
        # night 3: the wolf pardons itself; the sniper and a strike hit the killer
        a(1, "use_card", card="PARDON"),
        a(0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO),
        a(2, "use_card", card="SNIPER", target=0, manifesto=MANIFESTO),
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
        a(1, "use_card", card="WEREWOLF", target=2, manifesto=MANIFESTO),
        a(2, "use_card", card="SNIPER", target=1, manifesto=MANIFESTO),
        a(4, "use_card", card="PROPHET", target=1),
        a(3, "pass"),
        e(),
        # day 4: the wolf was pardoned once, so its loss is announced at once
        a(2, "vote", target=1), a(3, "vote", target=1), a(4, "vote", target=1),
        a(1, "vote", target=3),
        e(),
        # night 5
        a(1, "use_card", card="WEREWOLF", target=3, manifesto=MANIFESTO),
        a(2, "use_card", card="SNIPER", target=1, manifesto=MANIFESTO),
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


# --- rendering ---------------------------------------------------------------------------

def who(viewer) -> str:
    return "GM" if viewer == GM else "spectator" if viewer == SPECTATOR else f"seat {viewer + 1}"


def describe(step: dict) -> str:
    actor = step["actor"]
    name = "clock" if actor == "clock" else "GM" if actor == GM else f"seat {actor + 1}"
    parts = []
    for k, v in step["params"].items():
        if k in ("target", "seat") and isinstance(v, int):
            v = f"seat {v + 1}"
        elif k in ("manifesto", "story"):
            v = f"<{len(v)} characters>"
        parts.append(f"{k}={v}")
    return f"{name} {step['kind']} {' '.join(parts)}".rstrip()


def compact(data) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def view_lines(view: dict) -> list[str]:
    """The parts of a view worth following step by step, one line each."""
    lines = []
    if "me" in view:
        me = view["me"]
        lines.append(f"camp {me['camp']}; hand {me['hand']}; order {me['loss_order']}; "
                     f"dead {me['dead_cards']}")
        lines.append(f"this phase: action {compact(me['action'])}; proxy {compact(me['proxy'])}; "
                     f"{len(view['legal_actions'])} legal actions")
    if "secret" in view:
        secret = {k: v for k, v in view["secret"].items() if k not in ("deal", "seed")}
        lines.append(f"secret {compact(secret)}")
        lines.append(f"awaiting {[s + 1 for s in view['awaiting']]}")
    return lines


def render(name: str) -> Played:
    """Game `name` played, its golden text read through the views at every step."""
    setup, steps, result = GAMES[name]()
    viewers = [*range(setup["seats"]), SPECTATOR, GM]
    state = RULES.initial_state(seats=setup["seats"], config=setup["config"],
                                seed=setup["seed"]).state
    out = [f"# 猫有n条命 golden playthrough: {name}", f"# setup {compact(setup)}", ""]
    seen = {v: set() for v in viewers}
    last = {v: [] for v in viewers}
    last_public = None
    for number, step in enumerate([None, *steps]):
        if step is not None:
            result_ = RULES.step(state, step)
            assert hasattr(result_, "state"), f"step {number} refused: {result_}"
            state = result_.state
            out.append(f"== step {number}: {describe(step)}")
        else:
            out.append("== setup")
        views = {v: RULES.view(state, v) for v in viewers}
        public = compact(views[SPECTATOR]["public"])
        if public != last_public:
            out.append(f"  public: {public}")
            last_public = public
        for event in views[GM]["log"]:
            if event["seq"] in seen[GM]:
                continue
            audience = [v for v in viewers if any(e["seq"] == event["seq"]
                                                 for e in views[v]["log"])]
            label = ("everyone" if SPECTATOR in audience
                     else ", ".join(who(v) for v in audience))
            out.append(f"  [{label}] {event['kind']} {compact(event['data'])}")
            for line in event["because"]:
                out.append(f"      because: {line}")
        for v in viewers:
            seen[v] = {e["seq"] for e in views[v]["log"]}
            lines = view_lines(views[v])
            if lines != last[v]:
                out += [f"  {who(v)} view: {line}" for line in lines]
                last[v] = lines
    outcome = RULES.outcome(state)
    out.append(f"== outcome: {outcome.result}, winners "
               f"{[s + 1 for s in outcome.winners]}: {outcome.summary}")
    assert outcome.result == result
    return Played("\n".join(out) + "\n", setup, steps, state)


GOLDEN = [GoldenGame("ninelives", name, lambda name=name: render(name)) for name in sorted(GAMES)]
