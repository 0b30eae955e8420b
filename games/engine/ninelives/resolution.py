"""猫有n条命: the end of a night (§3, §5.5, §5.8, §8.1 pardons), in one documented order.

The order follows MafiaScum's Natural Action Resolution: an action that changes another
resolves before it. Nothing a seat does at night takes effect before the night ends (§5.5)
and a card is held until its loss is announced (§5.8), so every night action sees the hands
as they were at nightfall, and a seat that loses its last card tonight still acted tonight.

The end of night N, step by step (docs/rules/ninelives.md has the pairwise table):
    0. Night 1 only: the free agent's camp (its choice, else the GM's default, else drawn at
       random) and every missing loss order (drawn at random); core cards are fixed (§2, §6).
    1. Card uses are recorded for the one-card-per-round rule (§3.5.3). An attack whose
       manifesto the GM rejected and that was not sent again is dropped (§3.5.2).
    2. Blocks: JAIL (§3.4.3) and the night side of BOMB (§3.4.7) void the target's powers.
       A block lands unless its user is blocked by a block that lands. In a loop, JAILs land
       first (a JAIL does nothing but block, while a BOMB is chiefly an attack); a loop of
       blocks of one kind lands all at once (two JAILs on each other: both seats jailed; two
       BOMBs on each other: both explode). Every other power of a blocked seat is void.
    3. PARDON spares the seat executed yesterday (§3.4.4).
    4. Investigations answer from the hands at nightfall, taints included (§3.1.2, §3.2.2,
       §3.3.2, §3.3.3, §3.5.1).
    5. Protections are set: VEST (own seat, against KILLER), WOLFSBANE (own seat, against
       WEREWOLF), COUNTER_SNIPER (every SNIPER attack), SOULBINDER (against KILLER),
       WITCH_DOCTOR (against WEREWOLF). A seat's own VEST/WOLFSBANE acts before another seat's
       SOULBINDER/WITCH_DOCTOR, so a seat that stopped the attack itself is not "saved".
    6. SAINT is armed for day N; CURSE and BLESS wait for day N's count (§3.4.8-§3.4.10).
    7. Attacks (KILLER, WEREWOLF, SNIPER, STRIKE, BOMB) are stopped, saved or land.
    8. Protection failures: a SOULBINDER (WITCH_DOCTOR) on the same seat two nights running,
       with no KILLER (WEREWOLF) attack on it either night, costs that seat a card.
    9. Losses are announced in this order: yesterday's execution if not pardoned, then the
       attacks in the order KILLER, WEREWOLF, SNIPER, STRIKE, BOMB (seat order within a
       kind), then protection failures. The spent BOMB leaves its user's hand unannounced.
   10. Deaths, a reorder window for day N if 8 or 16 losses were reached, victory; day N.

Each step is a function of its own, called by `end_night` in this order: 0
`settle_first_night`, 1 `record_card_uses`, 2 `apply_blocks` (with `resolve_blocks`),
3 `pardoner`, 4 `answer_investigations`, 5 `set_protections`, 6 `arm_day_effects`,
7 `resolve_attacks` (one attack: `attack_result`), 8 `protection_failures`,
9 `settle_execution` and `announce_night`, 10 `start_day`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..base import State, draw_random, emit, gm_only, make_event, public, seats
from .cards import ATTACK_CARDS, FREE_AGENT, camp_of
from .common import (
    DAY,
    NIGHT,
    alive_seats,
    camp_options,
    check_victory,
    lose_card,
    open_reorder_window,
    spend_used_cards,
)
from .reasons import R, phase_of, ref, use

BLOCKS = ("JAIL", "BOMB")
ATTACK_ORDER = ("KILLER", "WEREWOLF", "SNIPER", "STRIKE", "BOMB")
# card -> (what it looks for, the taint that also answers yes, sections)
QUESTIONS = {
    "DEMON": ("DIVINER", None, ["3.1.2"]),
    "SORCERER": ("PROPHET", None, ["3.2.2"]),
    "DIVINER": ("KILLER", "killer", ["3.3.2", "3.5.1"]),
    "PROPHET": ("WEREWOLF", "wolf", ["3.3.3", "3.5.1"]),
}
# protection card -> (the attack it stops, section)
GUARDS = {"SOULBINDER": ("KILLER", "3.3.4"), "WITCH_DOCTOR": ("WEREWOLF", "3.3.5")}
SELF_GUARDS = {"VEST": ("KILLER", "3.4.1"), "WOLFSBANE": ("WEREWOLF", "3.4.2")}
SECTIONS = {"KILLER": "3.1.1", "WEREWOLF": "3.2.1", "SNIPER": "3.3.1", "STRIKE": "3.4.6",
            "BOMB": "3.4.7", "JAIL": "3.4.3"}


def describe(seat: int, action: dict) -> dict:
    """A card use as the GM's chains name it (a USE argument: "WEREWOLF of seat 2 on
    seat 4")."""
    return use(seat, action["card"], action.get("target"))


def resolve_blocks(blocks: list[tuple[int, int, str]]) -> dict[int, bool]:
    """Which blocks land: {user seat: landed} for (user, target, card) blocks (step 2).

    1. A block whose user is targeted by no undecided block is decided: it lands unless
       one of the blocks on its user landed.
    2. When nothing can be decided (a loop), every undecided JAIL lands at once, or, with no
       JAIL left, every undecided BOMB; then go back to 1.
    Each seat uses one card a night, so the blocks form chains ending in at most one loop.
    """
    landed: dict[int, bool] = {}
    pending = {user: (user, target, card) for user, target, card in blocks}
    while pending:
        progress = False
        for user in sorted(pending):
            incoming = [b for b in blocks if b[1] == user]
            if all(b[0] in landed for b in incoming):
                landed[user] = not any(landed[b[0]] for b in incoming)
                del pending[user]
                progress = True
        if not progress:
            kind = "JAIL" if any(b[2] == "JAIL" for b in pending.values()) else "BOMB"
            for user in sorted(pending):
                if pending[user][2] == kind:
                    landed[user] = True
                    del pending[user]
    return landed


def settle_first_night(state: State, events: list) -> None:
    """Step 0: the free agent's camp, then missing loss orders; core cards fixed (§2, §6)."""
    secret = state["secret"]
    for seat in alive_seats(state):
        priv = state["private"][seat]
        if priv["camp"] != FREE_AGENT:
            continue
        options = camp_options(priv["hand"])
        default = secret["free_agent_default"]
        if default in options:
            camp, why = default, "default_camp_applies"
        else:
            camp = draw_random(state, f"free agent camp/{seat}").choice(options)
            why = "camp_drawn_at_random"
            emit(state, events, make_event("chance", gm_only(), because=[
                R("free_agent_camp_drawn", seat=seat, camps=list(options))],
                purpose="free_agent_camp", seat=seat, result=camp))
        priv["camp"] = camp
        emit(state, events, make_event("camp_chosen", seats(seat), because=[
            R(why, seat=seat, camp=camp, ref=ref("2"))], seat=seat, camp=camp, by="default"))
    for seat in alive_seats(state):
        priv = state["private"][seat]
        if priv["loss_order"] is None:
            own = [c for c in priv["hand"] if camp_of(c) == priv["camp"]] or list(priv["hand"])
            rng = draw_random(state, f"loss order/{seat}")
            core = rng.choice(own)
            rest = [c for c in priv["hand"] if c != core]
            rng.shuffle(rest)
            priv["loss_order"] = rest + [core]
            emit(state, events, make_event("chance", gm_only(), because=[
                R("loss_order_drawn", seat=seat, ref=ref("5.3"))],
                purpose="loss_order", seat=seat, result=list(priv["loss_order"])))
            emit(state, events, make_event("loss_order_set", seats(seat), because=[
                R("your_loss_order_drawn", order=list(priv["loss_order"]),
                  ref=ref("5.3", "6.2"))],
                seat=seat, cards=list(priv["loss_order"]), by="random"))
        priv["core_card"] = priv["loss_order"][-1]


def end_night(state: State, events: list) -> None:
    """Resolve night N (steps 0-10 of the module docstring) and open day N.

    Precondition: `state` is the caller's own copy and its phase is a night. Each step is a
    function of its own below, called in this order.
    """
    close_night(state, events)
    if state["public"]["phase"]["number"] == 1:
        settle_first_night(state, events)
    acts = record_card_uses(state, events)                          # 1
    eff = apply_blocks(state, events, acts)                         # 2
    pardoned_by = pardoner(state, eff)                              # 3
    answer_investigations(state, events, eff)                       # 4
    guards = set_protections(eff)                                   # 5
    arm_day_effects(state, events, eff)                             # 6
    attacks = resolve_attacks(state, events, eff, guards)           # 7
    losses = attacks.losses + protection_failures(state, eff, attacks.attacked)  # 8
    losses = settle_execution(state, events, eff, pardoned_by) + losses          # 9
    announce_night(state, events, eff, attacks.announcements, losses)
    start_day(state, events, attacks.saved)                         # 10


def night_of(state: State) -> dict:
    """The night now ending, as a PHASE argument."""
    return phase_of(state["public"]["phase"])


def cards_used(eff: dict[int, dict], card: str) -> list[int]:
    """The seats whose effective use tonight is `card`, in seat order.

    Precondition: `eff` lists its seats in seat order (`apply_blocks` builds it so)."""
    return [s for s, a in eff.items() if a["card"] == card]


def close_night(state: State, events: list) -> None:
    """The night's reorder window (if any) closes; the night is announced as over."""
    pub = state["public"]
    if pub["reorder"] and pub["reorder"]["phase"] == pub["phase"]:
        pub["reorder"] = None
    emit(state, events, make_event("phase_ended", public(), because=[
        R("night_over", phase=night_of(state), ref=ref("5.5"))],
        phase=dict(pub["phase"])))


def record_card_uses(state: State, events: list) -> dict[int, dict]:
    """Step 1: {seat: card use} of the night, recorded for §3.5.3 (and JAIL's §3.4.3); an
    attack whose manifesto was rejected and not sent again is dropped (§3.5.2)."""
    n = state["public"]["phase"]["number"]
    acts: dict[int, dict] = {}
    for seat in alive_seats(state):
        priv = state["private"][seat]
        action = priv["action"]
        if not action or "card" not in action:
            continue
        if action.get("rejected"):
            emit(state, events, make_event("attack_dropped", seats(seat), because=[
                R("manifesto_not_resent", use=describe(seat, action), ref=ref("3.5.2"))],
                seat=seat, card=action["card"], target=action["target"]))
            continue
        acts[seat] = action
        priv["uses"].setdefault(str(n), []).append(NIGHT)
        if action["card"] == "JAIL":
            priv["last_jail"] = {"night": n, "target": action["target"]}
    return acts


def apply_blocks(state: State, events: list, acts: dict[int, dict]) -> dict[int, dict]:
    """Step 2: the card uses that still work once JAIL and BOMB blocks are applied
    (`resolve_blocks`); the void ones are told to their users and explained to the GM."""
    night = night_of(state)
    blocks = [(s, a["target"], a["card"]) for s, a in sorted(acts.items())
              if a["card"] in BLOCKS]
    landed = resolve_blocks(blocks)
    blocked_by: dict[int, list[int]] = {}
    for user, target, _ in blocks:
        if landed[user]:
            blocked_by.setdefault(target, []).append(user)
    eff: dict[int, dict] = {}
    for seat, action in sorted(acts.items()):
        works = landed[seat] if action["card"] in BLOCKS else seat not in blocked_by
        if works:
            eff[seat] = action
            continue
        chain = [R("voided_powers", use=describe(b, acts[b]), seat=seat,
                   ref=ref(SECTIONS[acts[b]["card"]])) for b in blocked_by.get(seat, [])]
        emit(state, events, make_event("power_voided", seats(seat), because=[
            R("your_powers_voided", card=action["card"], phase=night, card2="JAIL",
              card3="BOMB", ref=ref("3.4.3", "3.4.7"))], seat=seat, card=action["card"]))
        emit(state, events, make_event("action_resolved", gm_only(), because=[
            R("use_void", use=describe(seat, action))] + chain,
            seat=seat, card=action["card"], target=action.get("target"), result="void"))
    for user, target, card in blocks:
        if landed[user] and card == "JAIL":
            emit(state, events, make_event("action_resolved", gm_only(), because=[
                R("jail_landed", use=describe(user, acts[user]), seat=target,
                  ref=ref("3.4.3"))], seat=user, card=card, target=target, result="blocked"))
    return eff


def pardoner(state: State, eff: dict[int, dict]) -> int | None:
    """Step 3: the seat whose PARDON spares yesterday's execution, if one is pending."""
    pardoners = cards_used(eff, "PARDON")
    return pardoners[0] if pardoners and state["secret"]["execution"] else None


def answer_investigations(state: State, events: list, eff: dict[int, dict]) -> None:
    """Step 4: each investigation answers from the hands at nightfall (no loss is announced
    yet, §5.8), taints included (§3.5.1)."""
    secret, night = state["secret"], night_of(state)
    for seat in [s for s, a in sorted(eff.items()) if a["card"] in QUESTIONS]:
        card, target = eff[seat]["card"], eff[seat]["target"]
        wanted, taint, section = QUESTIONS[card]
        hand = state["private"][target]["hand"]
        tainted = [c for c in hand if taint and c in secret["taints"][taint]]
        found = wanted in hand or bool(tainted)
        emit(state, events, make_event("investigation", seats(seat), because=[
            R("answered_yes" if found else "answered_no", card=card, seat=target,
              card2=wanted, phase=night, ref=list(section))],
            seat=seat, card=card, target=target, asked=wanted, found=found))
        asked = describe(seat, eff[seat])
        if wanted in hand:
            truth = R("holds_card", use=asked, card=wanted, card2=wanted)
        elif tainted:
            truth = R("holds_tainted", use=asked, card=wanted, cards=tainted, camp=taint,
                      ref=ref("3.5.1"))
        elif taint:
            truth = R("holds_no_tainted", use=asked, card=wanted, card2=wanted, camp=taint)
        else:
            truth = R("holds_no_card", use=asked, card=wanted, card2=wanted)
        emit(state, events, make_event("action_resolved", gm_only(), because=[truth],
            seat=seat, card=card, target=target, result="yes" if found else "no"))


@dataclass
class Protections:
    """Step 5: who is protected tonight, and by what."""

    self_guarded: dict[str, set[int]]   # VEST / WOLFSBANE -> seats guarding themselves
    counter: list[int]                  # seats using COUNTER_SNIPER
    guards: dict[str, dict[int, int]]   # SOULBINDER / WITCH_DOCTOR -> {target: guardian}


def set_protections(eff: dict[int, dict]) -> Protections:
    """Step 5: the night's protections, from the card uses that work."""
    return Protections(
        self_guarded={card: set(cards_used(eff, card)) for card in SELF_GUARDS},
        counter=cards_used(eff, "COUNTER_SNIPER"),
        guards={card: {eff[s]["target"]: s for s in cards_used(eff, card)} for card in GUARDS})


def arm_day_effects(state: State, events: list, eff: dict[int, dict]) -> None:
    """Step 6: SAINT is armed for day N; CURSE and BLESS wait for day N's count."""
    secret, n = state["secret"], state["public"]["phase"]["number"]
    for seat in cards_used(eff, "SAINT"):
        secret["saint"] = {"seat": seat, "day": n}
        emit(state, events, make_event("saint_armed", seats(seat), because=[
            R("saint_armed", card="SAINT", n=n, ref=ref("3.4.10"))], seat=seat, day=n))
    for card in ("CURSE", "BLESS"):
        for seat in cards_used(eff, card):
            secret["count_effects"].append(
                {"card": card, "seat": seat, "target": eff[seat]["target"], "day": n})
            emit(state, events, make_event("action_resolved", gm_only(), because=[
                R("counts_at_vote", use=describe(seat, eff[seat]), n=n,
                  ref=ref("3.4.8", "3.4.9"))],
                seat=seat, card=card, target=eff[seat]["target"], result="waiting"))


# A loss waiting to be announced: (seat, cause, public because, GM chain), reasons both.
Loss = tuple[int, str, list[dict], list[dict]]


@dataclass
class Attacks:
    """Step 7's result: the losses the attacks cause, the public announcements (manifestos,
    saves, failed attacks), the seats KILLER and WEREWOLF attacked, and the seats saved."""

    losses: list[Loss] = field(default_factory=list)
    announcements: list[tuple[str, dict, list[dict]]] = field(default_factory=list)
    attacked: dict[str, set[int]] = field(
        default_factory=lambda: {"KILLER": set(), "WEREWOLF": set()})
    saved: set[int] = field(default_factory=set)


def attack_result(card: str, target: int, guards: Protections, n: int,
                  chain: list[dict]) -> str:
    """Step 7 for one attack: "stopped" (by the target's own card or a COUNTER_SNIPER),
    "saved" (by another seat's protection) or "lost"; the reasons go onto `chain`."""
    result = "lost"
    for guard, (stops, section) in SELF_GUARDS.items():
        if stops == card and target in guards.self_guarded[guard]:
            result = "stopped"
            chain.append(R("stopped_by", use=use(target, guard), ref=ref(section)))
    for guard, (stops, section) in GUARDS.items():
        if stops == card and result == "lost" and target in guards.guards[guard]:
            result = "saved"
            chain.append(R("protected_by", use=use(guards.guards[guard][target], guard),
                           seat=target, n=n, ref=ref(section)))
    if card == "SNIPER" and guards.counter:
        result = "stopped"
        chain.append(R("counter_sniper", card="COUNTER_SNIPER", seats=list(guards.counter),
                       card2="SNIPER", ref=ref("3.4.5")))
    return result


def resolve_attacks(state: State, events: list, eff: dict[int, dict],
                    guards: Protections) -> Attacks:
    """Step 7: every attack, in ATTACK_ORDER and seat order, is stopped, saved or lands."""
    n, night = state["public"]["phase"]["number"], night_of(state)
    out = Attacks()
    for card in ATTACK_ORDER:
        for seat in cards_used(eff, card):
            target = eff[seat]["target"]
            chain = [R("attacked_with", use=describe(seat, eff[seat]), ref=ref(SECTIONS[card]))]
            if card in out.attacked:
                out.attacked[card].add(target)
            result = attack_result(card, target, guards, n, chain)
            if result == "saved":
                out.saved.add(target)
            emit(state, events, make_event(
                "action_resolved", gm_only(), because=chain + [
                    R("target_loses", seat=target) if result == "lost" else R("no_loss")],
                seat=seat, card=card, target=target, result=result))
            if card in ATTACK_CARDS:
                text = eff[seat]
                out.announcements.append(("manifesto", {
                    "target": target, "text": text["text"], "story": text["story"]},
                    [R("story_published" if text["story"] else "manifesto_published",
                       seat=target, phase=night, ref=ref("3.5.2"))]))
            if result == "lost":
                out.losses.append((target, card.lower() if card in ("STRIKE", "BOMB") else
                                   "attack", attack_public_because(card, target, night), chain))
            elif result == "saved":
                out.announcements.append(("protected", {"seat": target}, [
                    R("saved", seat=target, phase=night, n=n, ref=ref("3.3.4", "3.3.5"))]))
            else:
                out.announcements.append(("attack_failed", {"seat": target}, [
                    R("attacked_no_loss", seat=target, phase=night)]))
    return out


def protection_failures(state: State, eff: dict[int, dict],
                        attacked: dict[str, set[int]]) -> list[Loss]:
    """Step 8: a SOULBINDER (WITCH_DOCTOR) on the same seat two nights running, with no
    KILLER (WEREWOLF) attack on it either night, costs that seat a card. Updates the
    protection history for tomorrow night."""
    n = state["public"]["phase"]["number"]
    history = state["secret"]["protect_history"]
    losses: list[Loss] = []
    for guard, (stops, section) in GUARDS.items():
        for seat in cards_used(eff, guard):
            target = eff[seat]["target"]
            hit_now = target in attacked[stops]
            prev = history.get(guard)
            if (prev and prev["night"] == n - 1 and prev["target"] == target
                    and not prev["attacked"] and not hit_now):
                losses.append((target, "failed_protection", [
                    R("failed_protection", seat=target, ref=ref("3.3.4", "3.3.5"))], [
                    R("protected_twice", use=use(seat, guard), seat=target, n=n - 1, n2=n,
                      card=stops, ref=ref(section))]))
            history[guard] = {"seat": seat, "night": n, "target": target, "attacked": hit_now}
    return losses


def settle_execution(state: State, events: list, eff: dict[int, dict],
                     pardoned_by: int | None) -> list[Loss]:
    """Step 9, first part: yesterday's execution is pardoned (announced, no loss) or
    announced with the loss it costs (returned, to come first, §8.1)."""
    pub, secret, night = state["public"], state["secret"], night_of(state)
    ex = secret["execution"]
    if not ex:
        pardoners = cards_used(eff, "PARDON")
        if pardoners:
            emit(state, events, make_event("action_resolved", gm_only(), because=[
                R("nobody_to_pardon", use=describe(pardoners[0], eff[pardoners[0]]))],
                seat=pardoners[0], card="PARDON", result="nothing"))
        return []
    seat = ex["seat"]
    losses: list[Loss] = []
    if pardoned_by is not None and pub["alive"][seat]:
        pub["pardoned"].append(seat)
        emit(state, events, make_event("pardoned", public(), because=[
            R("pardoned_at_night", seat=seat, n=ex["day"], phase=night,
              ref=ref("3.4.4", "8.1"))], seat=seat, day=ex["day"], tally=ex["tally"]))
        emit(state, events, make_event("action_resolved", gm_only(), because=[
            R("spared", use=describe(pardoned_by, eff[pardoned_by]), seat=seat, n=ex["day"],
              ref=ref("3.4.4"))], seat=pardoned_by, card="PARDON",
            target=seat, result="pardoned"))
        holder = state["private"][pardoned_by]
        if set(pub["pardoned"]) >= set(range(len(state["private"]))):
            holder["dead_cards"].append("PARDON")
    else:
        emit(state, events, make_event("execution", public(), because=[
            R("executed_unpardoned", seat=seat, n=ex["day"], ref=ref("8.1"))],
            seat=seat, day=ex["day"], tally=ex["tally"]))
        losses.append((seat, "execution", [
            R("executed_on_day", seat=seat, n=ex["day"], ref=ref("8.1"))], ex["chain"]))
    secret["execution"] = None
    pub["pending_execution"] = None
    return losses


def announce_night(state: State, events: list, eff: dict[int, dict],
                   announcements: list[tuple[str, dict, list[dict]]],
                   losses: list[Loss]) -> None:
    """Step 9, the rest: the public announcements, the spent STRIKEs and BOMBs, then every
    loss in order (deaths happen in `lose_card`)."""
    for kind, data, because in announcements:
        emit(state, events, make_event(kind, public(), because=because, **data))
    spend_used_cards(state, events, strikers=cards_used(eff, "STRIKE"),
                     bombers=cards_used(eff, "BOMB"))
    for target, cause, public_because, chain in losses:
        lose_card(state, events, target, cause=cause, public_because=public_because,
                  gm_because=chain)


def attack_public_because(card: str, target: int, phase: dict) -> list[dict]:
    """What everyone is told of a loss to an attack during `phase` (a PHASE argument): a
    STRIKE or a BOMB is named (the bomber is not), an attack card is not (§3.5.2)."""
    if card == "STRIKE":
        return [R("hit_by", seat=target, card=card, phase=phase, ref=ref("3.4.6"))]
    if card == "BOMB":
        return [R("hit_by_bomb", seat=target, card=card, phase=phase, ref=ref("3.4.7"))]
    return [R("attacked", seat=target, phase=phase, ref=ref("3.5.2"))]


def start_day(state: State, events: list, saved: set[int]) -> None:
    """Open day N after night N, unless the game is over (§5.6)."""
    pub = state["public"]
    n = pub["phase"]["number"]
    next_phase = {"name": DAY, "number": n}
    open_reorder_window(state, events, next_phase)
    if check_victory(state, events):
        return
    for priv in state["private"]:
        priv["action"] = None
        priv["proxy"] = None
    pub.update(phase=next_phase, phase_alive=alive_seats(state), votes={}, candidates=[],
               no_vote=sorted(s for s in saved if pub["alive"][s]))
    emit(state, events, make_event("phase_started", public(), because=[
        R("day_begins", n=n, ref=ref("8.1"))]
        + ([R("saved_may_not_vote", seats=list(pub["no_vote"]), ref=ref("3.3.4", "3.3.5"))]
           if pub["no_vote"] else []),
        phase=next_phase, no_vote=list(pub["no_vote"])))
