"""Classic 杀人游戏 (seed 001) with its 2.0 variants (seed 003): the rule set.

Sections implemented:
- seed 001 §1 (players and teams), §2 (sides), §3 (the flow of a night and a day: the kill
  with the bandits' majority, the police check, dawn, last words for the first N deaths,
  speeches closed with 过, the vote in order), §4 (victory; §4.5 ties);
- seed 003, each a per-game option: ghost bandit and poison (possession, death pact,
  repeated checks, the poison's extra check, what announcements hide, victory A-D), the
  single guardian, the dual guardians.

Every interpretation where the seeds are silent is listed, with its section, in
docs/rules/classic.md; the main ones:
- a tie between the bandits' (or the police's) most-proposed seats is broken by lot; no
  proposal at all means no kill (no check) that night;
- every death reveals the dead seat's identity unless seed 003 says it stays hidden;
- the speeches start after the lowest-numbered seat that died in the night (seat 1 if
  nobody died); a self-vote is not allowed; a day with no vote at all, or a third tie,
  eliminates nobody;
- two different results at once (e.g. the last bandit and the last police die together)
  are a draw (seed 003 5D generalised).

Modules: this one holds the setup, the phase machine and `apply`; `actions.py` the one
table of action kinds (who may act, when, on whom, with which checks: both the offered
choices and the refusals come from it); `night.py` the night and its resolution at dawn;
`day.py` last words, speeches and the vote; `common.py` what they share (seats, deaths,
reveals, victory, the night's frame).

Phases (`public["phase"]`): night -> [extra_check] -> [last_words] -> speech -> vote ->
[tie_speech -> tie_vote (up to twice)] -> [last_words] -> night ... -> over. Players act
with `apply`; only the clock's `end_phase` moves from one phase (or one speaker's or
voter's slot) to the next.
"""

from __future__ import annotations

import copy

from ..base import (
    CLOCK,
    GM,
    Choice,
    Outcome,
    PhaseInfo,
    Refusal,
    RuleSet,
    State,
    Transition,
    clone,
    draw_random,
    fresh_state,
)
from ..base import seats as to_seats
from . import actions, day, kinds, night
from . import roles as R
from .actions import is_seat
from .common import (
    active_guardians,
    enter_night,
    gm_note,
    living_with_role,
    new_night,
    note,
)
from .reasons import R as why

ALL_CIVILIANS_DEAD = ("seed", R.DRAW, R.BANDIT_WIN)
FIXED_CARDS = (*R.ROLES, R.GHOST)


def _refuse(code: str, **params) -> Refusal:
    """A refusal: a code of the rule set's reason table (reasons.py) and its arguments."""
    why(code, **params)  # a code or an argument the table does not declare fails here
    return Refusal(code, params=params)


def copy_state(state: State) -> State:
    """A copy of `state` the caller may change. Log events are never changed once written,
    so the new log is a new list holding the same event dicts."""
    new = clone({k: v for k, v in state.items() if k != "log"})
    new["log"] = list(state["log"])
    return new


def seed_rule(config: dict) -> str:
    """The result when every civilian is dead: the seed's own rule unless the game chose.
    Seed 001 §4.3 makes it a draw; seed 003 (5B) a bandit win, so any 2.0 variant defaults
    to it."""
    rule = config["all_civilians_dead"]
    if rule != "seed":
        return rule
    any_variant = (config["variant_ghost_poison"] or config["guardian"]
                   or config["dual_guardians"])
    return R.BANDIT_WIN if any_variant else R.DRAW


def open_state(state: State, comp: dict[str, int]) -> None:
    """Setup: the public and secret parts of a game before the deal."""
    n, cfg = len(state["private"]), state["config"]
    state["public"] = {
        "phase": "setup", "number": 0, "slot": 0, "seats": n, "alive": [True] * n,
        "revealed": [None] * n, "death_order": [], "last_words_limit": R.team_size(n),
        "composition": comp, "all_civilians_dead": seed_rule(cfg),
        "order": [], "queue": [], "turn": 0, "done": False, "stage": 0,
        "candidates": [], "votes": [], "tied": [], "night_deaths": [],
        "last_words_due": [], "last_words_given": [], "last_words_then": None,
        "outcome": None, "final_roles": None,
    }
    state["secret"].update(
        roles=[], ghost=None, possessed=[], lapsed=[], possession_used=False,
        protected=[[] for _ in range(n)], skips=[0] * n, stranded=[0] * n,
        protecting=[None] * n, deaths=[], night=new_night(n))


def deal_roles(state: State, events: list, comp: dict[str, int]) -> tuple[list[str], int | None]:
    """Setup step 2: (the role of each seat, the ghost's seat or None). The GM's fixed deal,
    or a shuffled deck by lot (seed 001 §3.1), the ghost then drawn among the bandits."""
    cfg = state["config"]
    if cfg["fixed_roles"] is not None:
        cards = list(cfg["fixed_roles"])
        ghost = cards.index(R.GHOST) if R.GHOST in cards else None
        roles = [R.BANDIT if c == R.GHOST else c for c in cards]
        gm_note(state, events, "deal", [why("dealt_by_hand")], roles=cards)
        return roles, ghost
    deck = [role for role, k in comp.items() for _ in range(k)]
    deck = [R.BANDIT if c == R.GHOST else c for c in deck]
    draw_random(state, "deal").shuffle(deck)
    roles = deck
    gm_note(state, events, "chance", [why("dealt_by_lot", ref=["3.1"])],
            purpose="deal", drawn=roles)
    ghost = None
    if cfg["variant_ghost_poison"]:
        bandits = [s for s, r in enumerate(roles) if r == R.BANDIT]
        ghost = draw_random(state, "ghost").choice(bandits)
        gm_note(state, events, "chance", [why("ghost_drawn", ref=["ghost"])],
                purpose="ghost", drawn=ghost)
    return roles, ghost


def tell_roles(state: State, events: list, roles: list[str], ghost: int | None) -> None:
    """Setup step 3: each seat learns its role; the police and the bandits their teammates,
    the bandits who their ghost is."""
    variant = state["config"]["variant_ghost_poison"]
    police = [s for s, r in enumerate(roles) if r == R.POLICE]
    bandits = [s for s, r in enumerate(roles) if r == R.BANDIT]
    for s, role in enumerate(roles):
        mine = {"seat": s, "role": role, "choice": None}
        if role == R.POLICE:
            mine.update(team=police, checks=[])
        elif role == R.BANDIT:
            mine.update(team=bandits)
            if variant:
                mine["ghost_seat"] = ghost
            if s == ghost:
                mine.update(ghost=True, possession_used=False, possession_pending=None)
        elif role in R.GUARDIANS:
            mine.update(protected=[], skips=0, stranded=0)
            if role == R.POLICE_GUARDIAN:
                mine["lapsed"] = False
        state["private"][s] = mine
        card = R.GHOST if s == ghost else role
        note(state, events, "role", to_seats(s), [why("drew_card", role=card)],
             seat=s, role=card)
    note(state, events, "teammates", to_seats(*police),
         [why("police_team", seats=police, ref=["3.9"])], team=police)
    because = [why("bandit_team", seats=bandits, ref=["3.5"])]
    if ghost is not None:
        because.append(why("their_ghost", seat=ghost, ref=["ghost"]))
    note(state, events, "teammates", to_seats(*bandits), because, team=bandits, ghost=ghost)


class Classic(RuleSet):
    name = "classic"
    min_seats = 11
    max_seats = 16
    schema = kinds.SCHEMA
    # Each voter has its own slot (its own phase), so a thread per vote phase would open
    # one thread per voter; the votes are public events instead.
    vote_phases: frozenset[str] = frozenset()
    # The police's extra check after checking the poison is the night going on (seed 003
    # poison rules 3-4: nobody else may learn of it): it keeps the night's deadline.
    within_previous: frozenset[str] = frozenset({"extra_check"})

    # --- 1. setup ------------------------------------------------------------------------

    def default_config(self) -> dict:
        return {
            "variant_ghost_poison": False,   # seed 003: ghost bandit and poison
            "guardian": False,               # seed 003: one guardian, free stance
            "dual_guardians": False,         # seed 003: a police and a bandit guardian
            "all_civilians_dead": "seed",    # "draw", "bandit", or each seed's own rule
            "fixed_roles": None,             # the GM's deal, one card per seat (else by lot)
        }

    def validate_config(self, seats_count: int, config: dict | None) -> dict:
        """The full config for a game, or ValueError with a reason the GM can read."""
        if not isinstance(seats_count, int) or isinstance(seats_count, bool) or not (
                self.min_seats <= seats_count <= self.max_seats):
            raise ValueError("Classic is played by 11 to 16 players (seed 001 §1).")
        if config is None:
            config = {}
        if not isinstance(config, dict):
            raise ValueError("The config must be a dict of options.")
        defaults = self.default_config()
        unknown = sorted(set(config) - set(defaults))
        if unknown:
            raise ValueError(f"Unknown option(s) for Classic: {', '.join(map(str, unknown))}.")
        cfg = {**defaults, **copy.deepcopy(config)}
        for key in ("variant_ghost_poison", "guardian", "dual_guardians"):
            if not isinstance(cfg[key], bool):
                raise ValueError(f"The option {key} must be true or false.")
        if cfg["guardian"] and cfg["dual_guardians"]:
            raise ValueError("Choose either the single guardian or the dual guardians, not "
                             "both: dual guardians replace the single one (seed 003).")
        if cfg["all_civilians_dead"] not in ALL_CIVILIANS_DEAD:
            raise ValueError("all_civilians_dead must be one of: seed, draw, bandit.")
        fixed = cfg["fixed_roles"]
        if fixed is not None:
            if not isinstance(fixed, list) or len(fixed) != seats_count or any(
                    card not in FIXED_CARDS for card in fixed):
                raise ValueError(f"fixed_roles must list one card per seat ({seats_count}), "
                                 f"each one of: {', '.join(FIXED_CARDS)}.")
            want = self.composition(seats_count, cfg)
            have = {card: fixed.count(card) for card in set(fixed)}
            if have != want:
                raise ValueError(f"fixed_roles must hold exactly {want} for this game.")
        return cfg

    def composition(self, seats_count: int, cfg: dict) -> dict[str, int]:
        return R.composition(seats_count, ghost_poison=cfg["variant_ghost_poison"],
                             guardian=cfg["guardian"], dual_guardians=cfg["dual_guardians"])

    def initial_state(self, *, seats: int, config: dict | None = None,
                      seed: str) -> Transition:
        """Deal the roles and open night 1.

        1. Validate the config (ValueError on an invalid game).
        2. Deal: the GM's fixed deal, or a shuffled deck by lot (seed 001 §3.1); with the
           ghost variant, the ghost is drawn among the bandits after the deal (seed 003).
        3. Tell each seat its role, and the police and the bandits their teammates (and the
           bandits who their ghost is).
        4. Night 1 begins.
        """
        cfg = self.validate_config(seats, config)
        state = fresh_state(self.name, seats=seats, config=cfg, seed=seed)
        comp = self.composition(seats, cfg)
        open_state(state, comp)
        events: list[dict] = []
        roles, ghost = deal_roles(state, events, comp)
        state["secret"]["roles"] = roles
        state["secret"]["ghost"] = ghost
        state["secret"]["deal"] = [R.GHOST if s == ghost else r for s, r in enumerate(roles)]
        tell_roles(state, events, roles, ghost)
        enter_night(state, events, 1)
        return Transition(state, events)

    def commitment_text(self, state: State) -> str:
        """The deal as dealt (the ghost named), one line per seat from seat 1: the service
        publishes a commitment to it at the start and reveals it at the end."""
        return "\n".join(f"seat {s + 1}: {card}"
                         for s, card in enumerate(state["secret"]["deal"]))

    # --- 2. what may be done now -----------------------------------------------------------

    def phase(self, state: State) -> PhaseInfo:
        pub = state["public"]
        if pub["phase"] == "over":
            return PhaseInfo("over", pub["number"], frozenset(), finished=True)
        return PhaseInfo(pub["phase"], pub["number"], frozenset(self._awaiting(state)))

    def _awaiting(self, state: State) -> list[int]:
        """Seats that still owe a move. At night a silent member is awaited although its
        silence would count as agreeing: the night ends early only once everyone answered."""
        pub, secret = state["public"], state["secret"]
        ph = pub["phase"]
        if ph == "night":
            nt = secret["night"]
            out = [s for s in living_with_role(state, R.BANDIT) if nt["kill"][s] is None]
            out += [s for s in living_with_role(state, R.POLICE) if nt["check"][s] is None]
            out += [g for g in active_guardians(state) if nt["protect"][g] is None
                    and night.protect_targets(state, g)]
            return sorted(out)
        if ph == "extra_check":
            nt = secret["night"]
            return [s for s in living_with_role(state, R.POLICE) if nt["extra"][s] is None]
        if ph == "last_words":
            return [s for s in pub["last_words_due"] if s not in pub["last_words_given"]]
        if ph in ("speech", "tie_speech", "vote", "tie_vote"):
            if not pub["done"] and pub["turn"] < len(pub["queue"]):
                return [pub["queue"][pub["turn"]]]
        return []

    def owes_words(self, state: State, seat: int) -> bool:
        """A seat among the night's or the vote's due last words (§3.19) that has not given
        them: from the death until the `last_words` phase ends (an extra check may come
        between), so it is never shown the game's secrets before it speaks."""
        pub = state["public"]
        return seat in pub["last_words_due"] and seat not in pub["last_words_given"]

    def legal_actions(self, state: State, actor) -> list[Choice]:
        """Every action `actor` may take now, read from the one table of action kinds
        (`actions.ACTIONS`) that `apply` checks too, so an offered choice is always
        accepted."""
        if not is_seat(state, actor) or state["public"]["phase"] == "over":
            return []
        return [Choice(kind, params, (row.text,) if row.text else (),
                       label=actions.label(row, params))
                for kind, params, row in actions.choices(state, actor)]

    # --- 3. doing it ----------------------------------------------------------------------

    def apply(self, state: State, step: dict) -> Transition | Refusal:
        """Accept a seat's action or refuse it. Never raises and never mutates `state`."""
        checked = self._check_step(state, step)
        if isinstance(checked, Refusal):
            return checked
        new = copy_state(state)
        events: list[dict] = []
        actions.ACTIONS[step["kind"]].do(new, step["actor"], step["params"], events)
        return Transition(new, events)

    def apply_in_place(self, state: State, step: dict) -> list[dict] | Refusal:
        """`apply` on a state the caller owns, without the copy (the simulation's fast path).
        A refused step leaves the state untouched: every check runs before any change."""
        checked = self._check_step(state, step)
        if isinstance(checked, Refusal):
            return checked
        events: list[dict] = []
        actions.ACTIONS[step["kind"]].do(state, step["actor"], step["params"], events)
        return events

    def _check_step(self, state: State, step) -> Refusal | None:
        """1. The step's shape; 2. the actor; 3. the kind; 4. any free text; 5. the kind's
        own checks, from the table (`actions.refusal`)."""
        if not isinstance(step, dict) or not isinstance(step.get("params"), dict) \
                or not isinstance(step.get("kind"), str):
            return _refuse("bad_step")
        actor, kind, params = step.get("actor"), step["kind"], step["params"]
        if state["public"]["phase"] == "over":
            return _refuse("game_over")
        if actor == GM:
            return _refuse("gm_has_no_moves")
        if actor == CLOCK:
            return _refuse("clock_step")
        if not is_seat(state, actor):
            return _refuse("bad_actor")
        if kind not in actions.ACTIONS:
            return _refuse("unknown_action")
        field = actions.ACTIONS[kind].text
        plain = dict(params)
        if field is not None:
            text = plain.pop(field.name, None)
            if not isinstance(text, str):
                return _refuse("bad_text")
            if not (field.min_chars <= len(text.strip()) and len(text) <= field.max_chars):
                return _refuse("bad_text_length", min=field.min_chars, max=field.max_chars)
        return actions.refusal(state, actor, kind, plain)

    def end_phase(self, state: State) -> Transition:
        new = copy_state(state)
        events: list[dict] = []
        self.end_phase_in_place(new, events)
        return Transition(new, events)

    def end_phase_in_place(self, state: State, events: list) -> None:
        """The clock closes the current phase or slot (see the module docstring)."""
        ph = state["public"]["phase"]
        if ph == "night":
            night.resolve_night(state, events)
        elif ph == "extra_check":
            night.resolve_extra_check(state, events)
        elif ph == "last_words":
            day.end_last_words(state, events)
        elif ph in ("speech", "tie_speech"):
            day.end_speech_slot(state, events)
        elif ph in ("vote", "tie_vote"):
            day.end_vote_slot(state, events)
        # "over": nothing left to end

    def reserved_for(self, state: State) -> str | None:
        """With the poison (seed 003), the night keeps the extra check's time at its end:
        its choices close then for everyone, and the extra check, when the police checked
        the poison, runs until the night's deadline (docs/rules/classic.md)."""
        if state["config"]["variant_ghost_poison"] and \
                state["public"]["phase"] in ("night", "extra_check"):
            return "extra_check"
        return None

    def view(self, state: State, viewer) -> dict:
        """The common view, with the police's extra check named as the night going on
        ("night") for every viewer but the police it concerns and the GM (seed 003 poison
        rules 3-4: nobody else may learn that the poison was checked)."""
        out = super().view(state, viewer)
        mine = out.get("me") or {}  # the viewer's own card: a view reads nothing secret
        if out["public"]["phase"] == "extra_check" and viewer != GM and \
                mine.get("role") != R.POLICE:
            out["public"]["phase"] = "night"
        return out

    def outcome(self, state: State) -> Outcome | None:
        found = state["public"]["outcome"]
        if not found:
            return None
        return Outcome(found["result"], tuple(found["winners"]), reason=found.get("reason"))
