"""The only writers of games: views, Celery tasks and the admin all call these functions.

Modules by domain, over one shared kernel (lock, re-check, write, notify on commit):
    kernel     GameError, now, lock_game, require_gm, log_gm, announce, deliver_private
    record     the replay log, events and state snapshot of an accepted step
    lifecycle  create, start, the clock (advance_phase, sweep), the end of a game
    steps      players' steps and votes (submit_action)
    gm         the GM's powers (gm_step, end_phase_now, extend, pause, resume, abort)
    community  sign-ups, the draw, check-in, substitutes, leave, activity warnings
    ghosts     dead players' threads and replies (§7.2)
    awards     post-game awards (§11.2)
    rollback   the GM's undo of a phase end or of a seat's last step
    manifestos the GM's review of manifestos: approve, or reject with a reason
    people     what a player's saved profile changes in their games (names, reminder looks)
    watching   who may watch a game some phases behind (观战), and choosing to
Callers import from the package: `from games import services; services.submit_action(...)`.
"""

from .awards import add_candidate, cast_vote, close_awards, close_due_awards, nominate
from .community import (
    accept_substitution,
    add_co_gm,
    cancel_substitution,
    check_activity,
    check_in,
    draw_players,
    expire_substitutions,
    open_signups,
    pick_players,
    request_leave,
    sign_up,
    start_from_signups,
    start_substitution,
    sweep_community,
    withdraw_signup,
)
from .ghosts import dead_post_refusal, gm_board, move_ghost_thread, restore_ghost_threads
from .gm import abort_game, end_phase_now, extend_deadline, gm_step, pause_game, resume_game
from .kernel import GameError, publish_announcement, ruleset_of
from .lifecycle import (
    REVIEW_MINUTES_MAX,
    RUNNING_SETTINGS,
    advance_phase,
    check_settings,
    create_game,
    ensure_board,
    grace,
    start_game,
    sweep,
    update_settings,
)
from .manifestos import approve_manifesto, reject_manifesto, review_open
from .people import profile_saved
from .rollback import rollback
from .steps import VOTE_KINDS, submit_action
from .watching import (
    answer_watch_request,
    end_watching,
    gives_up_dead_talk,
    owes_words,
    waits_to_watch,
    watch,
    watch_refusal,
    watches,
)

__all__ = [
    "REVIEW_MINUTES_MAX", "RUNNING_SETTINGS", "VOTE_KINDS", "check_settings", "update_settings", "GameError", "abort_game", "accept_substitution", "add_candidate",
    "add_co_gm", "advance_phase", "approve_manifesto", "cancel_substitution", "cast_vote", "check_activity", "check_in",
    "close_awards", "close_due_awards", "create_game", "draw_players", "end_phase_now",
    "ensure_board", "expire_substitutions", "extend_deadline", "dead_post_refusal",
    "gm_board", "gm_step", "grace", "move_ghost_thread", "nominate", "open_signups",
    "pause_game", "pick_players", "profile_saved", "publish_announcement", "reject_manifesto", "request_leave", "review_open",
    "restore_ghost_threads", "resume_game", "rollback", "ruleset_of", "sign_up", "start_from_signups",
    "start_game", "start_substitution", "submit_action", "sweep", "sweep_community",
    "withdraw_signup", "gives_up_dead_talk", "watch", "watch_refusal", "watches",
    "answer_watch_request", "end_watching", "waits_to_watch", "owes_words",
]
