"""Reads for pages, tasks and services: nothing here writes.

Every secret passes through the engine's `view(state, viewer)` (`views.view_for`); events
through their stored visibility (`views.events_visible_to`). Services may call these; these
call no service. Modules by domain, like games/services/:
    seats      seat names, a user's seat, who runs a game (`is_gm`), board authority
    views      the engine's views, legal actions, public events, vote tallies
    home       the rows a game's home page reads on every visit
    console    the 天神 console: GM inbox and reports, duties, end-phase consequences,
               manifestos to review
    community  substitutes waiting, posts in the last 48 hours, activity warnings
    awards     an award's candidates and votes
    review     phase names, seat holders, the deal commitment
    calendar   a user's deadlines as calendar entries (ICS)
    archive    finished games, their filters and result lines; a seat's posts
    record     a player's record on the public profile
    rollback   the GM's undo: what can be rolled back
    links      links between pages: a board's game, my games, the lobby, a game's threads
    outbox     the development outbox: which emails a viewer may read
    watch      what a watcher sees: the AUDIENCE view some phases behind (观战); who may
               read a game's graveyard
    secrets    the one rule every writer the living read asks: an account that reads a
               running game's secrets writes nothing its living players read
Callers import from the package: `from games import selectors; selectors.view_for(...)`.
"""

from .archive import (
    filter_archive,
    finished_games,
    outcome_line,
    outcome_results,
    seat_holdings,
    seat_posts,
)
from .awards import tally
from .calendar import deadlines
from .community import (
    POSTS_WINDOW,
    SeatPosts,
    dead_seat,
    last_activity,
    open_warnings,
    posts_in_window,
    seat_post_counts,
    waiting_substitutes,
)
from .console import (
    end_phase_consequences,
    gm_choices,
    gm_inbox,
    gm_reports,
    inner_phase,
    manifesto_digest,
    manifestos_for_review,
    seat_duties,
)
from .home import game_for_home, home_row
from .links import (
    LOBBY_GAMES,
    announcement_thread,
    board_game_links,
    game_threads,
    my_current_games,
    open_games,
    reader_boards,
    vote_thread,
)
from .outbox import recent_outbox
from .record import camp_totals, player_record, ruleset_totals
from .review import (
    commitment_check,
    commitment_of,
    current_phase_name,
    phase_title,
    phase_titles,
    seat_holders,
)
from .rollback import RollbackPlan, rollback_plan, undoable
from .seats import (
    board_authority,
    draft_boards_hidden_from,
    ever_held_seat,
    ever_seated_ids,
    game_records_of,
    games_played_by,
    games_run_by,
    gm_board_slug,
    is_gm,
    names_on_board,
    player_ids,
    seat_names,
    seat_of,
    table_mates,
)
from .secrets import (
    approved_watchers,
    reads_secrets,
    rename_refusal,
    secret_games,
    write_refusal,
)
from .views import (
    events_visible_to,
    game_vote_tallies,
    gm_view,
    legal_actions_for,
    living_seats,
    phase_vote_tally,
    preview_end_phase,
    public_event_rows,
    public_events,
    seat_view,
    view_for,
)
from .watch import Watched, graveyard_budget, graveyards_hidden_from, watched, watched_phase

__all__ = [
    "LOBBY_GAMES", "POSTS_WINDOW", "RollbackPlan", "SeatPosts", "announcement_thread",
    "approved_watchers", "reads_secrets", "rename_refusal", "secret_games", "write_refusal",
    "board_authority", "board_game_links", "camp_totals", "commitment_check", "commitment_of",
    "current_phase_name", "dead_seat", "deadlines", "draft_boards_hidden_from",
    "end_phase_consequences", "inner_phase", "events_visible_to", "ever_held_seat", "ever_seated_ids",
    "filter_archive", "finished_games", "game_for_home", "game_records_of", "game_threads",
    "game_vote_tallies", "games_played_by", "games_run_by", "gm_board_slug", "gm_choices",
    "gm_inbox", "gm_reports", "gm_view", "home_row", "is_gm", "last_activity", "names_on_board",
    "legal_actions_for", "living_seats", "manifesto_digest", "manifestos_for_review",
    "my_current_games", "open_games", "open_warnings", "outcome_line", "outcome_results",
    "phase_title", "phase_titles", "phase_vote_tally", "player_ids", "player_record",
    "reader_boards",
    "posts_in_window", "preview_end_phase", "public_event_rows", "public_events",
    "recent_outbox", "rollback_plan", "ruleset_totals", "seat_duties",
    "seat_holders", "seat_holdings", "seat_names", "seat_of", "seat_post_counts", "seat_posts",
    "seat_view", "table_mates", "tally", "undoable", "view_for", "vote_thread",
    "waiting_substitutes", "Watched", "graveyard_budget", "graveyards_hidden_from", "watched", "watched_phase",
]
