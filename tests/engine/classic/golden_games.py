"""Golden playthroughs of Classic 杀人游戏, written out step by step.

Four scripted games with fixed deals (the GM's `fixed_roles`):
1. classic_12: a 12-player classic game to a police win, with a three-stage tie;
2. ghost_poison: a 2.0 game where the ghost possesses the poison;
3. guardian_dereliction: a guardian that skips twice and dies of dereliction;
4. dual_guardians_lapse: the bandits kill the bandit guardian, the police guardian lapses.

Every step shows its events (visibility and causes), the shared public view, and what each
seat, the spectator and the GM see (their own part when it changes, and the numbers of the
events they can read). The one harness (tests/engine/golden.py, tests/engine/test_golden.py)
diffs them against tests/engine/golden/classic/ and replays the steps.
"""

from __future__ import annotations

from functools import cache

from games.engine.base import GM, SPECTATOR
from games.engine.classic.text import render_event, render_private, render_public, render_truth

from ..golden import GoldenGame, Played
from .helpers import RULES, Table


class Script(Table):
    """A Table that writes every step into the golden text as it goes."""

    def __init__(self, name: str, letters: str, **config):
        super().__init__(letters, seed=f"golden-{name}", **config)
        self.setup = {"seats": len(letters), "config": self.state["config"],
                      "seed": f"golden-{name}"}
        self.steps: list[dict] = []
        self.viewers = [*range(len(letters)), SPECTATOR, GM]
        self.seen = {v: 0 for v in self.viewers}
        self.own = {v: None for v in self.viewers}
        options = {k: v for k, v in self.state["config"].items() if k != "fixed_roles" and v}
        self.lines = [f"# Classic golden playthrough: {name}, {len(letters)} players, "
                      f"options {options}",
                      f"# deal (seat 1 first): {letters}  (P police, B bandit, G ghost, "
                      "C civilian, X poison, U guardian, Q police guardian, K bandit "
                      "guardian)",
                      "# Regenerate with UPDATE_GOLDEN=1.", ""]
        self.block("setup")

    def act(self, seat, kind, **params):
        events = super().act(seat, kind, **params)
        self.steps.append({"actor": seat, "kind": kind, "params": params})
        shown = " ".join(f"{k} {v + 1}" if isinstance(v, int) else f"{k} {v!r}"
                         for k, v in params.items())
        self.block(f"seat {seat + 1} {kind}" + (f" {shown}" if shown else ""))
        return events

    def end(self):
        events = super().end()
        self.steps.append({"actor": "clock", "kind": "end_phase", "params": {}})
        self.block("clock end_phase")
        return events

    def block(self, title: str) -> None:
        lines = [f"== {len(self.steps)}. {title} =="]
        new = self.state["log"][self.seen[GM]:]
        if new:
            lines.append("events:")
            for event in new:
                lines += ["  " + line for line in render_event(event)]
        views = {v: RULES.view(self.state, v) for v in self.viewers}
        shared = views[SPECTATOR]["public"]
        assert all(views[v]["public"] == shared for v in self.viewers)
        lines.append("shared view:")
        lines += ["  " + line for line in render_public(shared)]
        info = RULES.phase(self.state)
        lines.append("  awaiting: " + (" ".join(str(s + 1) for s in sorted(info.awaiting))
                                      or "nobody"))
        lines.append("own views:")
        quiet = []
        grouped: dict[str, list[str]] = {}
        for v in self.viewers:
            visible = [e["seq"] for e in views[v]["log"][self.seen[v]:]]
            self.seen[v] = len(views[v]["log"])
            own = (render_truth(views[v]["secret"]) if v == GM else
                   "" if v == SPECTATOR else render_private(views[v]["me"]))
            changed = own != self.own[v]
            self.own[v] = own
            name = "GM" if v == GM else "spectator" if v == SPECTATOR else f"seat {v + 1}"
            if not changed and not visible:
                quiet.append(name.replace("seat ", ""))
                continue
            parts = [own] if changed and own else []
            parts.append("new events " + (" ".join(f"#{n}" for n in visible) or "none"))
            grouped.setdefault(" · ".join(parts), []).append(name)
        for text, names in grouped.items():
            lines.append(f"  {', '.join(names)}: {text}")
        if quiet:
            lines.append(f"  no change: {', '.join(quiet)}")
        self.lines += lines + [""]

    def text(self) -> str:
        outcome = self.outcome()
        assert outcome is not None, "a golden game must reach its end"
        tail = [f"outcome: {outcome.result}, winners "
                f"{', '.join(str(w + 1) for w in outcome.winners) or 'none'}: {outcome.summary}"]
        return "\n".join(self.lines + tail) + "\n"


def last_words(g: Script, texts: dict) -> None:
    """If last words are due: seats in `texts` leave them, the others stay silent."""
    if g.phase != "last_words":
        return
    for seat in g.pub["last_words_due"]:
        if seat in texts:
            g.act(seat, "last_words", text=texts[seat])
    g.end()


def speak_all(g: Script, texts: dict) -> None:
    """Run the current speech queue: seats in `texts` speak, the others stay silent."""
    while g.phase in ("speech", "tie_speech"):
        seat = g.pub["queue"][g.pub["turn"]]
        if seat in texts:
            g.act(seat, "speak", text=texts[seat])
        g.end()


def vote_all(g: Script, plan: dict) -> None:
    """Run the current vote queue: seats in `plan` vote (None abstains), the others are
    silent until their time runs out."""
    while g.phase in ("vote", "tie_vote"):
        seat = g.pub["queue"][g.pub["turn"]]
        if seat in plan:
            if plan[seat] is None:
                g.act(seat, "abstain")
            else:
                g.act(seat, "vote", target=plan[seat])
        g.end()


def day(g: Script, *, words: dict | None = None, speeches: dict | None = None,
        votes: dict | None = None, after: dict | None = None) -> None:
    """One ordinary day: last words, speeches, the vote, the last words of the voted out."""
    last_words(g, words or {})
    speak_all(g, speeches or {})
    vote_all(g, votes or {})
    last_words(g, after or {})


def classic_12() -> Script:
    """Police 2 6 11, bandits 3 7 10 (0-based 1 5 10 and 2 6 9)."""
    g = Script("classic_12", "CPBCCPBCCBPC")
    # night 1: two bandits name seat 4, the third stays silent; the police check seat 3
    g.act(2, "team_message", text="先刀4号，他像警。")
    g.act(2, "kill", target=3)
    g.act(6, "kill", target=3)
    g.act(1, "check", target=2)
    g.act(5, "check", target=2)
    g.act(10, "defer")
    g.end()
    last_words(g, {3: "I am a civilian; seat 3 was too quiet. 过"})
    speak_all(g, {4: "Seat 3 and seat 9 both look odd. 过", 2: "I am a civilian. 过",
                  8: "Not me. 过"})
    # day 1: a tie between seats 3 and 9, again among the tied, then a third time
    vote_all(g, {4: 2, 5: 2, 6: 8, 7: 8, 9: 8, 10: 2, 0: None})
    speak_all(g, {2: "Again: civilian. 过", 8: "Civilian too. 过"})
    vote_all(g, {4: 2, 5: 2, 6: 8, 7: 8})
    speak_all(g, {1: "Let us not waste a vote. 过"})
    vote_all(g, {4: 8, 5: 2, 6: 8, 10: 2})
    # night 2: the bandits kill police seat 6; the police check seat 7
    g.act(6, "kill", target=5)
    g.act(1, "check", target=6)
    g.end()
    day(g, words={5: "Seat 3 and seat 7 are bandits. 过"},
        speeches={6: "Seat 6 lied. 过", 10: "Seat 3 first. 过"},
        votes={s: 2 for s in (6, 7, 8, 9, 10, 11, 0, 1, 3, 4)})
    # night 3: seat 12 dies; the police check seat 10
    g.act(9, "kill", target=11)
    g.act(1, "check", target=9)
    g.end()
    day(g, votes={0: 6, 1: 6, 4: 6, 7: 6, 8: 6, 10: 6})
    # night 4: seat 9 dies; the last bandit is voted out
    g.act(9, "kill", target=8)
    g.end()
    day(g, speeches={1: "Seat 10 is the last bandit. 过"},
        votes={0: 9, 1: 9, 4: 9, 7: 9, 10: 9})
    return g


def ghost_poison() -> Script:
    """Police 1 5 11, bandits 2 9, ghost 6, poison 4 (0-based 0 4 10; 1 8; 5; 3)."""
    g = Script("ghost_poison", "PBCXPGCCBCPC")
    # night 1: the bandits kill seat 8 while the ghost possesses seat 4, the poison
    g.act(5, "team_message", text="我附4号，看着像民。")
    g.act(1, "kill", target=7, pact=1)
    g.act(8, "kill", target=7, pact=8)
    g.act(5, "kill", target=7, pact=1)
    g.act(5, "possess", target=3)
    g.act(0, "check", target=8)
    g.end()
    day(g, words={3: "I was the poison; the ghost took the bait. 过",
                  7: "I was police, trust me. 过"},
        speeches={0: "Seat 9 is a bandit, I checked. 过"},
        votes={0: 8, 4: 8, 10: 8, 2: 8, 6: 8, 9: 8, 11: 8})
    # night 2: a police officer dies; the police check seat 2
    g.act(1, "kill", target=10, pact=1)
    g.act(0, "check", target=1)
    g.end()
    day(g, speeches={0: "Seat 2 is the last bandit. 过"}, votes={0: 1, 4: 1, 2: 1, 6: 1, 9: 1})
    return g


def guardian_dereliction() -> Script:
    """Police 1 2 3, bandits 4 5 6, guardian 7 (0-based 0-2, 3-5, 6)."""
    g = Script("guardian_dereliction", "PPPBBBUCCCCC")
    # night 1: the guardian submits nothing, its one allowed skip
    g.act(3, "kill", target=8)
    g.act(0, "check", target=3)
    g.end()
    day(g, speeches={6: "I protect whom I please. 过"},
        votes={0: 3, 1: 3, 2: 3, 7: 3, 9: 3, 10: 3}, after={3: "Well played. 过"})
    # night 2: the guardian protects seat 11
    g.act(4, "kill", target=9)
    g.act(6, "protect", target=10)
    g.act(1, "check", target=4)
    g.end()
    day(g, words={9: "过"}, votes={0: 4, 1: 4, 2: 4, 10: 4, 6: 4})
    # night 3: the guardian skips again and dies of dereliction
    g.act(5, "kill", target=11)
    g.act(6, "skip_protection")
    g.end()
    day(g, votes={0: 5, 1: 5, 2: 5, 10: 5})
    return g


def dual_guardians_lapse() -> Script:
    """Police 1 2 3, bandits 4 5 6, police guardian 7, bandit guardian 8 (0-based 6, 7)."""
    g = Script("dual_guardians_lapse", "PPPBBBQKCCCC")
    # night 1: the bandits kill their own guardian unaware; the police guardian lapses
    g.act(3, "kill", target=7)
    g.act(6, "protect", target=9)
    g.act(7, "protect", target=3)
    g.act(0, "check", target=6)
    g.end()
    # day 1: seat 10 is voted out; the police guardian's protection is void
    day(g, words={7: "I was on your side, bandits. 过"},
        speeches={6: "Trust me with seat 10. 过"},
        votes={0: 9, 1: 9, 2: 9, 4: 9, 8: 9}, after={9: "The guardian failed me. 过"})
    g.act(4, "kill", target=8)
    g.act(0, "check", target=4)
    g.end()
    day(g, votes={0: 4, 1: 4, 2: 4, 6: 4, 10: 4})
    g.act(3, "kill", target=10)
    g.end()
    day(g, votes={0: 3, 1: 3, 2: 3, 6: 3, 11: 3})
    g.act(5, "kill", target=11)
    g.end()
    day(g, votes={0: 5, 1: 5, 2: 5, 6: 5})
    return g


GAMES = {"classic_12": classic_12, "ghost_poison": ghost_poison,
         "guardian_dereliction": guardian_dereliction,
         "dual_guardians_lapse": dual_guardians_lapse}


@cache
def played(name: str) -> Script:
    """Each scripted game is played once per test run; tests only read it."""
    return GAMES[name]()


def golden(name: str) -> Played:
    game = played(name)
    return Played(game.text(), game.setup, game.steps, game.state)


GOLDEN = [GoldenGame("classic", name, lambda name=name: golden(name)) for name in sorted(GAMES)]
