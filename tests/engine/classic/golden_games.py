"""Golden playthroughs of Classic 杀人游戏, written out step by step.

Four scripted games with fixed deals (the GM's `fixed_roles`):
1. classic_12: a 12-player classic game to a police win, with a three-stage tie;
2. ghost_poison: a 2.0 game where the ghost possesses the poison;
3. guardian_dereliction: a guardian that skips twice and dies of dereliction;
4. dual_guardians_lapse: the bandits kill the bandit guardian, the police guardian lapses.

The one harness (tests/engine/golden.py, tests/engine/test_golden.py) writes each step in
Chinese through the presenters (its events, who saw them and why, the public view, each
seat's and the GM's own part when it changes: `own` and `secret` below), diffs the text
against tests/engine/golden/classic/ and replays the steps.
"""

from __future__ import annotations

from functools import cache

from games.engine.base import Choice
from games.presenters import choice_label, phase_name, review_facts, review_secret
from games.presenters import classic as CP
from games.presenters.labels import labelled

from ..golden import GoldenGame, Played, Reader, facts_line, write
from .helpers import Table


class Script(Table):
    """A Table that records its steps and its setup, for the golden file and the replay."""

    def __init__(self, name: str, letters: str, **config):
        super().__init__(letters, seed=f"golden-{name}", **config)
        self.setup = {"seats": len(letters), "config": self.state["config"],
                      "seed": f"golden-{name}"}
        self.steps: list[dict] = []

    def act(self, seat, kind, **params):
        events = super().act(seat, kind, **params)
        self.steps.append({"actor": seat, "kind": kind, "params": params})
        return events

    def end(self):
        events = super().end()
        self.steps.append({"actor": "clock", "kind": "end_phase", "params": {}})
        return events


# --- reading the views ---------------------------------------------------------------------

def choice_text(kind: str, target, names: dict[int, str], pact=None) -> str:
    """A night's submission as the action form offered it ("杀8号阿青 —— 生死状：2号阿狗")."""
    if kind == "check" and target == "defer":
        return choice_label("classic", Choice("defer", {}), names)
    if kind == "protect" and target in (None, "skip"):
        return choice_label("classic", Choice("skip_protection", {}), names)
    params = {"target": target} if pact is None else {"target": target, "pact": pact}
    return choice_label("classic", Choice(kind, params), names)


def tonight(choice: dict, names: dict[int, str]) -> str:
    """A seat's own submission tonight (view["me"]["choice"])."""
    if choice.get("defer"):
        return choice_text("check", "defer", names)
    for kind in ("kill", "check", "protect"):
        if kind in choice:
            return choice_text(kind, choice[kind], names, choice.get("pact"))
    return "—"


def own(view: dict, names: dict[int, str]) -> list[str]:
    """A seat's own part: its card (`review_facts`), its team and ghost, its possession,
    its checks, its protections, a lapse, tonight's submission."""
    me = view["me"]
    rows = list(review_facts("classic", me, me["seat"], names))
    if me.get("possessed"):
        rows.append(("附体", "被鬼匪附体"))
    if "team" in me:
        rows.append(("队友", CP.seat_list(me["team"], names)))
    if me.get("ghost_seat") is not None:
        rows.append(("鬼匪", CP.who(names, me["ghost_seat"])))
    if me.get("ghost"):
        pending = me.get("possession_pending")
        rows.append(("附体", "已用" if me.get("possession_used") else
                     f"今晚附体{CP.who(names, pending)}" if pending is not None else "未用"))
    if me.get("checks"):
        rows.append(("验人结果", "、".join(
            f"{phase_name('classic', 'night', c['number'])}{'（追加）' if c['extra'] else ''}"
            f"{CP.who(names, c['seat'])}是{CP.role_text(c['result'])}" for c in me["checks"])))
    if "protected" in me:
        rows.append(("守护过", CP.seat_list(me["protected"], names)))
        rows.append(("弃守", f"{me['skips']}次"))
        if me.get("stranded"):
            rows.append(("无人可守", f"{me['stranded']}轮"))
    if me.get("lapsed"):
        rows.append(("失效", "按平民计"))
    if me.get("choice"):
        rows.append(("今晚", tonight(me["choice"], names)))
    return [facts_line(rows)]


def secret(view: dict, names: dict[int, str]) -> list[str]:
    """The GM's own part: every card, the ghost, the possessed, the lapsed
    (`review_secret`), the guardians' protégés and tonight's submissions."""
    sec = view["secret"]
    rows = review_secret("classic", sec, names)
    lines = [facts_line(rows[:len(sec["roles"])])]
    lines += [labelled(label, text) for label, text in rows[len(sec["roles"]):]]
    guarding = [f"{CP.who(names, g)} → {CP.who(names, t)}"
                for g, t in enumerate(sec.get("protecting") or []) if t is not None]
    if guarding:
        lines.append(labelled("守护", "、".join(guarding)))
    night = sec["night"]
    sent = []
    for s, kill in enumerate(night["kill"]):
        if kill is not None:
            sent.append(f"{CP.who(names, s)} {choice_text('kill', kill[0], names, kill[1])}")
    for key in ("check", "extra", "protect"):
        for s, target in enumerate(night.get(key) or []):
            if target is not None:
                kind = "protect" if key == "protect" else "check"
                sent.append(f"{CP.who(names, s)} {choice_text(kind, target, names)}")
    if night.get("possess") is not None:
        sent.append(choice_label("classic", Choice("possess", {"target": night["possess"]}),
                                 names))
    if sent:
        lines.append(labelled("今晚已提交", "；".join(sent)))
    return lines


READER = Reader(own=own, secret=secret)


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
    last_words(g, {3: "我是平民；3号昨天一直不说话，太安静了。过"})
    speak_all(g, {4: "3号和9号的说法都有些奇怪。过", 2: "我是平民。过",
                  8: "不是我。过"})
    # day 1: a tie between seats 3 and 9, again among the tied, then a third time
    vote_all(g, {4: 2, 5: 2, 6: 8, 7: 8, 9: 8, 10: 2, 0: None})
    speak_all(g, {2: "再说一遍：我是平民。过", 8: "我也是平民。过"})
    vote_all(g, {4: 2, 5: 2, 6: 8, 7: 8})
    speak_all(g, {1: "大家别浪费选票。过"})
    vote_all(g, {4: 8, 5: 2, 6: 8, 10: 2})
    # night 2: the bandits kill police seat 6; the police check seat 7
    g.act(6, "kill", target=5)
    g.act(1, "check", target=6)
    g.end()
    day(g, words={5: "3号和7号是匪。过"},
        speeches={6: "6号在说谎。过", 10: "先投3号。过"},
        votes={s: 2 for s in (6, 7, 8, 9, 10, 11, 0, 1, 3, 4)})
    # night 3: seat 12 dies; the police check seat 10
    g.act(9, "kill", target=11)
    g.act(1, "check", target=9)
    g.end()
    day(g, votes={0: 6, 1: 6, 4: 6, 7: 6, 8: 6, 10: 6})
    # night 4: seat 9 dies; the last bandit is voted out
    g.act(9, "kill", target=8)
    g.end()
    day(g, speeches={1: "10号是最后一个匪。过"},
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
    day(g, words={3: "我是毒药；鬼匪上钩了。过",
                  7: "我是警察，请相信我。过"},
        speeches={0: "9号是匪，我验过了。过"},
        votes={0: 8, 4: 8, 10: 8, 2: 8, 6: 8, 9: 8, 11: 8})
    # night 2: a police officer dies; the police check seat 2
    g.act(1, "kill", target=10, pact=1)
    g.act(0, "check", target=1)
    g.end()
    day(g, speeches={0: "2号是最后一个匪。过"}, votes={0: 1, 4: 1, 2: 1, 6: 1, 9: 1})
    return g


def guardian_dereliction() -> Script:
    """Police 1 2 3, bandits 4 5 6, guardian 7 (0-based 0-2, 3-5, 6)."""
    g = Script("guardian_dereliction", "PPPBBBUCCCCC")
    # night 1: the guardian submits nothing, its one allowed skip
    g.act(3, "kill", target=8)
    g.act(0, "check", target=3)
    g.end()
    day(g, speeches={6: "我想守护谁就守护谁。过"},
        votes={0: 3, 1: 3, 2: 3, 7: 3, 9: 3, 10: 3}, after={3: "打得好。过"})
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
    day(g, words={7: "匪徒们，我本来是站在你们这边的。过"},
        speeches={6: "10号交给我。过"},
        votes={0: 9, 1: 9, 2: 9, 4: 9, 8: 9}, after={9: "守护神没能保护我。过"})
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
    return write("classic", name, game.setup, game.steps, READER)


GOLDEN = [GoldenGame("classic", name, lambda name=name: golden(name)) for name in sorted(GAMES)]
