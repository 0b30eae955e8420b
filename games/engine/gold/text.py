"""Plain-text rendering of 谁偷了我的金币 views: for golden playthroughs, logs and the GM.

Everything here reads a view (the output of `Gold.view`), never a raw state, so a text
written for a seat can only hold what that seat may know. Seats and virtual players are
numbered from 1.
"""

from __future__ import annotations

from ..base import GM, SPECTATOR

HIDDEN = "??"


def viewer_name(viewer) -> str:
    if viewer == GM:
        return "GM"
    if viewer == SPECTATOR:
        return "spectator"
    return f"seat {viewer + 1}"


def _spot(spot: dict | None) -> str:
    """One place on the table: its shown card, and the face-down card on it if any."""
    if spot is None:
        return HIDDEN
    if not spot["covered"]:
        return spot["shown"]
    return f"{spot['shown']}/{spot['cover'] or HIDDEN}"


def _place(place: dict) -> str:
    if "seat" in place:
        return f"seat {place['seat'] + 1}"
    return f"virtual {place['virtual'] + 1}"


def render_public(pub: dict) -> list[str]:
    """The lines every viewer shares: round, phase, table, tokens and coins.

    A covered place reads "SHOWN/COVER", with ?? for a face-down card still hidden.
    """
    if pub["phase"] in ("pick",):
        waiting = [i + 1 for i, done in enumerate(pub["picked"]) if not done]
        status = "waiting for seats " + ", ".join(map(str, waiting)) if waiting else "all in"
    elif pub["phase"] == "finished":
        status = "game over"
    else:
        status = f"seat {pub['turn'] + 1}'s turn" + (" (done)" if pub["acted"] else "")
        if pub["queue"]:
            status += ", then " + ", ".join(str(i + 1) for i in pub["queue"])
    lines = [f"round {pub['round']}/{pub['rounds']} · lead seat {pub['lead'] + 1} · "
             f"phase {pub['phase']} #{pub['phase_number']} · {status}"]
    seats = " ".join(f"{i + 1}:{_spot(s)}" for i, s in enumerate(pub["table"]))
    virtual = " ".join(f"{v + 1}:{_spot(s)}" for v, s in enumerate(pub["virtual"]))
    lines.append(f"table: seats {seats} · virtual {virtual}")
    tokens = [f"{i + 1}:{'×2' if t == 'double' else t}"
              for i, t in enumerate(pub["tokens"]) if t]
    used = []
    if pub["replace_used_by"] is not None:
        used.append(f"replace used by seat {pub['replace_used_by'] + 1}")
    if pub["flip_used_by"] is not None:
        used.append(f"flip used by seat {pub['flip_used_by'] + 1}")
    lines.append("tokens: " + (" ".join(tokens) or "none")
                 + ("" if not used else " · " + ", ".join(used)))
    lines.append("coins: " + " ".join(f"{i + 1}:{c}" for i, c in enumerate(pub["coins"]))
                 + f" · supply {pub['supply']}")
    return lines


def render_private(me: dict) -> str:
    """A seat's own part: its hand, its secret pick and the face-down card it laid."""
    parts = ["hand " + (", ".join(me["hand"]) or "empty"),
             "pick " + (me["pick"] or "none")]
    if me["face_down"]:
        parts.append(f"laid {me['face_down']['card']} face down on {_place(me['face_down'])}")
    return " · ".join(parts)


def render_truth(cards: dict) -> str:
    """The GM's line: the true card at every place."""
    seats = " ".join(f"{i + 1}:{c or HIDDEN}" for i, c in enumerate(cards["seats"]))
    virtual = " ".join(f"{v + 1}:{c}" for v, c in enumerate(cards["virtual"]))
    return f"truth: seats {seats} · virtual {virtual}"


def visibility_name(visibility: dict) -> str:
    if visibility["public"]:
        return "public"
    if not visibility["seats"]:
        return "GM only"
    return "seat " + ", ".join(str(i + 1) for i in visibility["seats"])


def render_event(event: dict) -> list[str]:
    """An event's kind, visibility and its chain of causes, one sentence a line."""
    lines = [f"#{event['seq']} {event['kind']} [{visibility_name(event['visibility'])}]"]
    lines += [f"    {sentence}" for sentence in event["because"]]
    return lines


def render_view(view: dict) -> list[str]:
    """A whole view as text: the shared part, then what only this viewer sees."""
    lines = render_public(view["public"])
    if "me" in view:
        lines.append("me: " + render_private(view["me"]))
    if "secret" in view:
        lines.append(render_truth(view["secret"]["cards"]))
    return lines
