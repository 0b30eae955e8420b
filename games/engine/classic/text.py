"""Plain-text renderings of a Classic state, for golden playthroughs and the GM console.

Seats are numbered from 1 here, as in every readable text. Each function reads only what
its viewer may read: `render_public` the public part, `render_private` one seat's own part
(`view(state, seat)["me"]`), `render_truth` the GM's secret part.
"""

from __future__ import annotations

import json

from . import roles as R

SHORT = {R.POLICE: "P", R.BANDIT: "B", R.CIVILIAN: "C", R.POISON: "X", R.GUARDIAN: "U",
         R.POLICE_GUARDIAN: "PG", R.BANDIT_GUARDIAN: "BG", R.GHOST: "GHOST",
         R.POSSESSED_BANDIT: "B*"}

# Event data fields that hold seat numbers (0-based in the data, 1-based when shown).
SEAT_KEYS = {"seat", "target", "pact", "voter", "team", "order", "candidates", "tied",
             "eliminated", "winners", "seats", "ghost", "victim", "check", "possess",
             "among", "protecting", "dereliction"}


def n1(seat) -> str:
    return "—" if seat is None else str(seat + 1)


def seats_text(seats) -> str:
    return " ".join(n1(s) for s in seats) if seats else "—"


def humanize(key: str, value):
    """Event data with seat numbers shown from 1 (recursively, by field name)."""
    if isinstance(value, dict):
        return {k: humanize(k, v) for k, v in value.items()}
    if isinstance(value, list):
        if key == "deaths":
            return [humanize("death", v) for v in value]
        if key == "roles":
            return " ".join(f"{i + 1}:{SHORT.get(r, r)}" for i, r in enumerate(value))
        if key == "drawn" and value and isinstance(value[0], str):
            return " ".join(f"{i + 1}:{SHORT.get(r, r)}" for i, r in enumerate(value))
        return [humanize(key, v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and (
            key in SEAT_KEYS or key == "drawn"):
        return value + 1
    return value


def visibility_text(visibility: dict) -> str:
    if visibility["public"]:
        return "public"
    if not visibility["seats"]:
        return "GM only"
    return "seats " + seats_text(visibility["seats"])


def render_event(event: dict) -> list[str]:
    data = humanize("", event["data"])
    shown = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in data.items())
    lines = [f"#{event['seq']} {event['kind']} [{visibility_text(event['visibility'])}]"
             + (f" {shown}" if shown else "")]
    lines += ["    " + line for line in event["because"]]
    return lines


def render_public(pub: dict) -> list[str]:
    """The public part: phase, who is alive, what the dead revealed, the day's queue."""
    lines = [f"{pub['phase']} · round {pub['number']} · slot {pub['slot']}"]
    dead = [f"{n1(s)} ({R.label_text(pub['revealed'][s])})" for s in pub["death_order"]]
    alive = [s for s, a in enumerate(pub["alive"]) if a]
    lines.append(f"alive: {seats_text(alive)} · dead in order: {', '.join(dead) or '—'}")
    ph = pub["phase"]
    if ph in ("speech", "tie_speech", "vote", "tie_vote"):
        queue = pub["queue"]
        now = n1(queue[pub["turn"]]) if pub["turn"] < len(queue) else "—"
        line = (f"{ph} stage {pub['stage']}: queue {seats_text(queue)} · now {now}"
                f"{' (done)' if pub['done'] else ''}")
        if ph in ("vote", "tie_vote"):
            votes = ", ".join(f"{n1(v)}→{n1(t) if t is not None else 'abstain'}"
                              for v, t in pub["votes"])
            line += f" · candidates {seats_text(pub['candidates'])} · votes {votes or '—'}"
        if pub["tied"]:
            line += f" · tied {seats_text(pub['tied'])}"
        lines.append(line)
    if ph == "last_words":
        lines.append(f"last words due {seats_text(pub['last_words_due'])} · given "
                     f"{seats_text(pub['last_words_given'])}")
    if pub["outcome"]:
        o = pub["outcome"]
        lines.append(f"outcome: {o['result']} · winners {seats_text(o['winners'])} · "
                     + " ".join(f"{i + 1}:{SHORT[r]}" for i, r in enumerate(pub["final_roles"])))
    return lines


def render_private(me: dict) -> str:
    """One seat's own knowledge on one line."""
    parts = [f"role {me['role']}" + (" (possessed)" if me.get("possessed") else "")]
    if "team" in me:
        parts.append(f"team {seats_text(me['team'])}")
    if me.get("ghost_seat") is not None:
        parts.append(f"ghost {n1(me['ghost_seat'])}")
    if me.get("ghost"):
        pending = me.get("possession_pending")
        parts.append("possession " + ("used" if me.get("possession_used") else
                                      f"pending {n1(pending)}" if pending is not None
                                      else "unused"))
    if me.get("checks"):
        parts.append("checks " + ", ".join(
            f"r{c['number']}{'+' if c['extra'] else ''} {n1(c['seat'])}={c['result']}"
            for c in me["checks"]))
    if "protected" in me:
        parts.append(f"protected so far {seats_text(me['protected'])} · skips {me['skips']}"
                     f" · stranded {me['stranded']}")
    if me.get("lapsed"):
        parts.append("lapsed (plays as a civilian)")
    choice = me.get("choice")
    if choice:
        items = []
        for k, v in choice.items():
            if k == "pact" and v is None:
                continue
            shown = ("nobody" if v is None else n1(v)
                     if isinstance(v, int) and not isinstance(v, bool) else v)
            items.append(f"{k} {shown}")
        parts.append("tonight " + ", ".join(items))
    return " · ".join(parts)


def render_truth(secret: dict) -> str:
    """The GM's secret part on one line: true roles and tonight's submissions."""
    roles = " ".join(f"{i + 1}:{SHORT[r]}" for i, r in enumerate(secret["roles"]))
    parts = [f"roles {roles}"]
    if secret["ghost"] is not None:
        parts.append(f"ghost {n1(secret['ghost'])}"
                     + (" (possession used)" if secret["possession_used"] else ""))
    if secret["possessed"]:
        parts.append(f"possessed {seats_text(secret['possessed'])}")
    if secret["lapsed"]:
        parts.append(f"lapsed {seats_text(secret['lapsed'])}")
    guarding = [f"{n1(g)}→{n1(t)}" for g, t in enumerate(secret["protecting"]) if t is not None]
    if guarding:
        parts.append("protecting " + " ".join(guarding))
    nt = secret["night"]
    subs = []
    for key in ("kill", "check", "protect", "extra"):
        for s, v in enumerate(nt[key]):
            if v is None:
                continue
            shown = (f"{n1(v[0])}" + (f" pact {n1(v[1])}" if v[1] is not None else "")
                     if isinstance(v, list) else n1(v) if isinstance(v, int) else v)
            subs.append(f"{key} {n1(s)}:{shown}")
    if nt["possess"] is not None:
        subs.append(f"possess {n1(nt['possess'])}")
    if subs:
        parts.append("submitted " + ", ".join(subs))
    return " · ".join(parts)
