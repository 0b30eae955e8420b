"""The result of a vote, posted by 神的使者 in the vote's thread.

When a phase ends, the events just stored may settle a vote: close it (a result, a tie and
its runoff, nobody), or publish a count that was kept back (猫有n条命: the execution revealed
when the next night ends, interpretation I9). For each vote thread of the last few phases
whose tally (games.selectors.phase_vote_tally, built by the rule set's presenter from public
events only) was settled by one of these events, 神的使者 replies in the thread with the
final tally and the result. Rule sets without vote threads (classic) add the tally to the
phase's announcement instead (`tally_lines_for`).

Precondition of everything here: the caller holds the game lock (inside advance_locked).
"""

from __future__ import annotations

from accounts.models import messenger_user
from messaging import services as forum
from messaging.models import Thread

from ..models import Game, Phase
from ..presenters import tally_markdown
from ..selectors import game_vote_tallies, phase_vote_tally
from .kernel import link_step_post, ruleset_of

# A vote's count is published at the latest when the night after it ends: day, runoff,
# night -> the vote threads of the three phases before the one opening now.
LOOK_BACK = 3


def post_vote_results(game: Game, events: list[dict]) -> int:
    """Reply in each vote thread whose vote `events` settled; returns how many replies."""
    if game.board is None:
        return 0
    seqs = {e.get("seq") for e in events if e["visibility"]["public"]}
    current = game.current_phase.seq if game.current_phase_id else 0
    phases = Phase.objects.filter(game=game, seq__gte=current - LOOK_BACK,
                                  name__in=ruleset_of(game).vote_phases)
    threads = {t.key: t for t in Thread.objects.filter(
        board=game.board, key__in=[f"vote-{p.seq}" for p in phases])}
    posted = 0
    for phase in phases:
        thread = threads.get(f"vote-{phase.seq}")
        tally = phase_vote_tally(game, phase) if thread is not None else None
        if tally is None or tally.settled_seq not in seqs:
            continue
        link_step_post(game, forum.reply(thread=thread, author=messenger_user(),
                                         body=tally_markdown(tally), enforce_rate_limit=False))
        posted += 1
    return posted


def tally_text_for(game: Game, events: list[dict]) -> str:
    """For a rule set without vote threads: the tallies `events` settled, as Markdown for the
    phase's announcement ("" when none)."""
    if ruleset_of(game).vote_phases:
        return ""
    seqs = {e.get("seq") for e in events if e["visibility"]["public"]}
    if not seqs:
        return ""
    start = max(0, (game.current_phase.seq if game.current_phase_id else 0) - 60)
    settled = [t for t in game_vote_tallies(game, from_phase_seq=start)
               if t.settled_seq in seqs]
    return "\n\n".join(tally_markdown(t) for t in settled)
