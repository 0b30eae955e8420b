"""Who may read, start and reply where: the forum's posting rules in one place.

The services enforce these rules (`messaging.services`); views and templates call the same
functions only to decide what to show. Each refusal is a readable, translatable sentence.

Choices made where the rule texts are silent (seed 002 numbering):
- §5.6: the GM posts the day's vote thread, so only a GM starts a vote thread; players reply
  in it (the vote form of a later issue replaces free replies).
- §7.1: every living player opens their own analysis thread, so anyone may start one; the
  games app adds the "living, seated player" check through `register_posting_check`.
- §11.1: players may write the story together with the GM, so anyone may start a story
  thread or reply to one.
- Announcements and GM-only threads are written by the GM only; GM-only threads and GM
  boards are hidden from everyone else (a 404, so their existence does not leak).
- A locked thread or board refuses players but not the GM, who may still add a closing note.
- "GM" means a staff user or the 神的使者 account itself (services post in its name).
- Boards another app hides (games: a draft game's board, until its sign-ups open) do not
  exist for anyone but their GMs: not listed, not searched, their threads 404, nobody else
  posts there (`register_hidden_boards`).
- Who answers as 神的使者 (`answer_refusal`): a seat's conversation, only its game's GM and
  co-GMs; a general conversation, only a superuser who holds no seat in a running game of
  the owner (`register_table_mates`); nobody their own conversation. Each answer records
  its writer (`Message.written_by`, shown in the admin only).
- The admin's boards, threads and posts (`console_boards_q`): those of the games the user
  runs, and for a superuser the boards that belong to no game; never anything of a game
  the user plays in, superusers included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.utils.translation import gettext as _

from .models import Board, Conversation, Post, Thread

GM = "gm"
ANYONE = "anyone"

# Who may start a thread of each kind, and who may reply in it.
STARTERS = {
    Thread.Kind.ANNOUNCEMENT: GM,
    Thread.Kind.VOTE: GM,
    Thread.Kind.ANALYSIS: ANYONE,
    Thread.Kind.STORY: ANYONE,
    Thread.Kind.DISCUSSION: ANYONE,
    Thread.Kind.GM_ONLY: GM,
}
REPLIERS = {
    Thread.Kind.ANNOUNCEMENT: GM,
    Thread.Kind.VOTE: ANYONE,
    Thread.Kind.ANALYSIS: ANYONE,
    Thread.Kind.STORY: ANYONE,
    Thread.Kind.DISCUSSION: ANYONE,
    Thread.Kind.GM_ONLY: GM,
}
# Thread kinds that make sense on each kind of board: votes, analyses and stories belong to
# a game.
KINDS_ON_BOARD = {
    Board.Kind.LOBBY: (Thread.Kind.ANNOUNCEMENT, Thread.Kind.DISCUSSION, Thread.Kind.GM_ONLY),
    Board.Kind.GAME: tuple(Thread.Kind),
    Board.Kind.GM: tuple(Thread.Kind),
}

# Extra checks other apps register (games: "whoever reads a running game's secrets writes
# nothing its living read"; "only seated, living players post in a running game's board").
# Each is called with keyword arguments user, board, thread (None when a thread is being
# started, or for a report or an edit), kind (a thread kind, "report" or "edit") and body,
# and returns a
# refusal sentence or None.
PostingCheck = Callable[..., "str | None"]
_extra_checks: list[PostingCheck] = []


def register_posting_check(check: PostingCheck) -> PostingCheck:
    """Add `check` to the rules every new thread and reply must pass (usable as a decorator).

    Precondition: called once per check, typically from an AppConfig.ready().
    """
    if check not in _extra_checks:
        _extra_checks.append(check)
    return check


def unregister_posting_check(check: PostingCheck) -> None:
    if check in _extra_checks:
        _extra_checks.remove(check)


def is_messenger(user) -> bool:
    return bool(user is not None and user.pk is not None
                and user.get_username() == settings.MESSENGER_USERNAME)


BoardAuthority = Callable[[Any], "tuple[set[int], set[int]]"]
_authority: list[BoardAuthority] = []


def register_board_authority(resolver: BoardAuthority) -> BoardAuthority:
    """Let another app say who governs its boards: `resolver(user)` answers (the boards
    `user` governs, the boards the app owns). Messaging never imports games; games registers
    its resolver in its AppConfig.ready().
    """
    if resolver not in _authority:
        _authority.append(resolver)
    return resolver


BoardNames = Callable[[Board], "dict[int, str]"]
_board_names: list[BoardNames] = []  # at most one: a declared interface, not a list of hooks


def declare_board_names(names: BoardNames) -> BoardNames:
    """The one answer to "what is each author called on `board`": `names(board)` gives
    {user id: name} for the authors whose name there is not their current one (games: a
    running game's board shows each seat's name from the game's start). Declared once, in
    an AppConfig.ready(); a second declaration replaces the first."""
    _board_names[:] = [names]
    return names


def board_names(board: Board) -> dict[int, str]:
    """{user id: name} of the authors named otherwise on `board` (`declare_board_names`);
    empty where nobody is."""
    return _board_names[0](board) if _board_names else {}


HiddenBoards = Callable[[Any], Any]
_hiders: list[HiddenBoards] = []


def register_hidden_boards(hider: HiddenBoards) -> HiddenBoards:
    """Let another app hide some of its boards: `hider(user)` answers a query of the ids of
    the boards `user` may not see at all (a `values("board_id")` queryset, used as a
    subquery). Games hides a draft game's board from everyone but its GMs."""
    if hider not in _hiders:
        _hiders.append(hider)
    return hider


def unregister_hidden_boards(hider: HiddenBoards) -> None:
    if hider in _hiders:
        _hiders.remove(hider)


def hidden_boards_q(user, field: str = "pk") -> Q:
    """The boards (`field` names the board's id) hidden from `user`, as a query (matches
    nothing when no app hides any, and for the 神的使者 account)."""
    hidden = Q(pk__in=[])
    if is_messenger(user):
        return hidden
    for hider in list(_hiders):
        hidden |= Q(**{f"{field}__in": hider(user)})
    return hidden


TableMates = Callable[[Any], Any]
_table_mates: list[TableMates] = []


def register_table_mates(resolver: TableMates) -> TableMates:
    """Let another app say whose general conversation `user` may not answer: `resolver(user)`
    answers a query of the ids of the users who play beside `user` (a `values("pk")`
    queryset, used as a subquery; games: a running game's other seat holders). Registered
    in an AppConfig.ready()."""
    if resolver not in _table_mates:
        _table_mates.append(resolver)
    return resolver


def _mates_q(user, field: str) -> Q:
    """The users (`field` names a user id) who play beside `user`, as a query."""
    mates = Q(pk__in=[])
    for resolver in list(_table_mates):
        mates |= Q(**{f"{field}__in": resolver(user)})
    return mates


def _boards_of(user) -> tuple[set[int], set[int]]:
    governed: set[int] = set()
    owned: set[int] = set()
    for resolver in list(_authority):
        g, o = resolver(user)
        governed |= g
        owned |= o
    return governed, owned


def _active_staff(user) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False)
                and user.is_staff and user.is_active)


def is_gm(user, board: Board | int | None = None) -> bool:
    """May `user` act as the GM on `board` (None: outside any board, e.g. the lobby's site
    matters and general conversations)?

    1. the 神的使者 account: everywhere;
    2. a board that belongs to a game (its board or its GM board): only that game's GM and
       co-GMs who never held a seat in it (the registered authority says which);
    3. any other board, or none: an active staff account.
    """
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if is_messenger(user):
        return True
    if not _active_staff(user):
        return False
    if board is None:
        return True
    board_id = board if isinstance(board, int) else board.pk
    governed, owned = _boards_of(user)
    return board_id in governed or board_id not in owned


def gm_boards_q(user, field: str = "pk") -> Q:
    """The boards (`field` names the board's id) on which `user` is the GM, as a query."""
    if is_messenger(user):
        return Q()
    if not _active_staff(user):
        return Q(pk__in=[])
    governed, owned = _boards_of(user)
    return Q(**{f"{field}__in": governed}) | ~Q(**{f"{field}__in": owned})


def console_boards_q(user, field: str = "pk") -> Q:
    """The boards (`field` names the board's id) whose threads and posts `user` manages in
    the admin, as a query: the boards of the games `user` runs (the registered authority:
    GM or co-GM, never a seat holder), and for a superuser the boards that belong to no
    game. A game `user` plays in stays out, superusers included."""
    if not _active_staff(user):
        return Q(pk__in=[])
    governed, owned = _boards_of(user)
    q = Q(**{f"{field}__in": governed})
    if user.is_superuser:
        q |= ~Q(**{f"{field}__in": owned})
    return q


def game_boards() -> set[int]:
    """The ids of the boards that belong to a game (its board or its GM board)."""
    return _boards_of(None)[1]


# Games name a game's GM board "gm-<the game's board slug>" and find it by that name
# (games.selectors.gm_board_slug), so only they may give a board such a slug: a board
# renamed into it would become that game's GM board.
GM_BOARD_PREFIX = "gm-"


def gm_conversations(user, conversations: QuerySet | None = None) -> QuerySet:
    """The conversations with 神的使者 that `user` reads and answers as the GM (the same
    rule as `answer_refusal`): the seats' conversations of the games `user` runs, and for a
    superuser the general ones, except their own and those of the people who play beside
    them in a running game."""
    conversations = Conversation.objects.all() if conversations is None else conversations
    if is_messenger(user):
        return conversations
    if not _active_staff(user):
        return conversations.none()
    governed, owned = _boards_of(user)
    q = Q(board_id__in=governed)
    if user.is_superuser:
        q |= ((Q(board=None) | ~Q(board_id__in=owned))
              & ~Q(owner_id=user.pk) & ~_mates_q(user, "owner_id"))
    return conversations.filter(q)


def answer_refusal(user, conversation: Conversation) -> str | None:
    """Why `user` may not answer `conversation` in the name of 神的使者, or None if they may.

    1. a staff account that is active, and not the messenger account itself;
    2. never one's own conversation;
    3. a seat's conversation (its board belongs to a game): a GM or co-GM of that game who
       never held a seat in it;
    4. a general conversation: a superuser who holds no seat in a running game of the
       owner (a staff member seated beside a player could otherwise tell them anything in
       the messenger's name).
    """
    if is_messenger(user) or not _active_staff(user):
        return _("Only the GM may answer as the messenger.")
    if conversation.owner_id == user.pk:
        return _("Nobody answers their own conversation as the messenger.")
    governed, owned = _boards_of(user)
    if conversation.board_id is not None and conversation.board_id in owned:
        if conversation.board_id in governed:
            return None
        return _("Only this game's GM and co-GMs answer the conversations of its players.")
    if not user.is_superuser:
        return _("Only a superuser answers a general conversation as the messenger.")
    if get_user_model().objects.filter(_mates_q(user, "pk"),
                                       pk=conversation.owner_id).exists():
        return _("You play in a running game with this player, so you may not answer "
                 "their general conversation as the messenger.")
    return None


# --- reading ------------------------------------------------------------------------------

def can_read_board(user, board: Board) -> bool:
    if board.kind == Board.Kind.GM:
        return is_gm(user, board)
    if board.kind == Board.Kind.GAME and _hiders and not is_messenger(user):
        return not Board.objects.filter(hidden_boards_q(user), pk=board.pk).exists()
    return True


def can_read_thread(user, thread: Thread) -> bool:
    if not can_read_board(user, thread.board):
        return False
    return thread.kind != Thread.Kind.GM_ONLY or is_gm(user, thread.board)


def readers_among(thread: Thread, users) -> set[int]:
    """The ids of those of `users` who may read `thread` (`can_read_thread` for each), in
    one query whatever their number (one column per user, the rule of `readable_threads`),
    and one more for each active staff account among them (the boards it governs)."""
    found = {user.pk for user in users if is_messenger(user)}
    rest = [user for user in users if user.pk not in found]
    if rest:
        columns = {f"r{i}": ExpressionWrapper(~_hidden_from(user), output_field=BooleanField())
                   for i, user in enumerate(rest)}
        row = Thread.objects.filter(pk=thread.pk).values(**columns).first()
        if row is not None:
            found |= {user.pk for i, user in enumerate(rest) if row[f"r{i}"]}
    return found


def readable_boards(user, boards: QuerySet | None = None) -> QuerySet:
    boards = Board.objects.all() if boards is None else boards
    if is_messenger(user):
        return boards
    return boards.exclude((Q(kind=Board.Kind.GM) & ~gm_boards_q(user)) | hidden_boards_q(user))


def _hidden_from(user, prefix: str = "") -> Q:
    """Threads `user` may not read (`prefix` "thread__" for posts): the same rule as
    `can_read_thread`, as a query."""
    hidden = (Q(**{f"{prefix}board__kind": Board.Kind.GM})
              | Q(**{f"{prefix}kind": Thread.Kind.GM_ONLY}))
    return (hidden & ~gm_boards_q(user, f"{prefix}board_id")) | hidden_boards_q(
        user, f"{prefix}board_id")


def readable_threads(user, threads: QuerySet | None = None) -> QuerySet:
    threads = Thread.objects.all() if threads is None else threads
    if is_messenger(user):
        return threads
    return threads.exclude(_hidden_from(user))


def readable_posts(user, posts: QuerySet | None = None) -> QuerySet:
    """The posts of threads `user` may read (search, profiles): never GM-only content."""
    posts = Post.objects.all() if posts is None else posts
    if is_messenger(user):
        return posts
    return posts.exclude(_hidden_from(user, "thread__"))


# --- writing ------------------------------------------------------------------------------

def writer_refusal(user) -> str | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return _("Sign in to post.")
    if not user.is_active and not is_messenger(user):
        return _("This account is disabled.")
    return None


def _extra_refusal(**kwargs) -> str | None:
    for check in list(_extra_checks):
        reason = check(**kwargs)
        if reason:
            return reason
    return None


def start_refusal(user, board: Board, kind: str, body: str = "") -> str | None:
    """Why `user` may not start a thread of `kind` on `board`, or None if they may."""
    reason = writer_refusal(user)
    if reason:
        return reason
    gm = is_gm(user, board)
    if not can_read_board(user, board):
        return _("This board does not exist.")
    if kind not in STARTERS:
        return _("Unknown thread kind.")
    if kind not in KINDS_ON_BOARD[board.kind]:
        return _("This kind of thread does not belong on this board.")
    if board.is_locked and not gm:
        return _("This board is locked.")
    if STARTERS[kind] == GM and not gm:
        return _("Only the GM may start this kind of thread.")
    return _extra_refusal(user=user, board=board, thread=None, kind=kind, body=body)


def reply_refusal(user, thread: Thread, body: str = "") -> str | None:
    """Why `user` may not reply in `thread`, or None if they may.

    Precondition: `thread.board` is loaded (or loadable) and reflects the current row.
    """
    reason = writer_refusal(user)
    if reason:
        return reason
    gm = is_gm(user, thread.board)
    if not can_read_thread(user, thread):
        return _("This thread does not exist.")
    if (thread.is_locked or thread.board.is_locked) and not gm:
        return _("This thread is locked.")
    if REPLIERS.get(thread.kind, GM) == GM and not gm:
        return _("Only the GM may post in this thread.")
    return _extra_refusal(user=user, board=thread.board, thread=thread, kind=thread.kind,
                          body=body)


def report_refusal(user, board: Board, reason: str = "") -> str | None:
    """Why `user` may not report a post of `board` with `reason`, or None: a report is read
    by people who may play, so the other apps' checks see it too (kind "report")."""
    return _extra_refusal(user=user, board=board, thread=None, kind="report", body=reason)


def edit_refusal(user, board: Board, body: str = "") -> str | None:
    """Why `user` (a moderator: `is_gm`) may not edit a post of `board` to `body`, or None:
    an edit is a write where the board's readers read, so the other apps' checks see it
    too (kind "edit")."""
    return _extra_refusal(user=user, board=board, thread=None, kind="edit", body=body)


def startable_kinds(user, board: Board) -> list[tuple[str, str]]:
    """(value, label) pairs of the thread kinds `user` may start on `board` (for forms)."""
    return [(kind.value, kind.label) for kind in Thread.Kind
            if start_refusal(user, board, kind) is None]
