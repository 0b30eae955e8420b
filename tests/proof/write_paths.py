"""The write paths of the site, and the canary that tries every one of them as the people who
read a running game's secrets (tests/proof/test_write_paths.py).

The rule (games.selectors.secrets): while a game runs, an account that can read any of its
secrets writes nothing the game's living players can read, through any path the site
offers. The page crawl (tests/proof/test_leak_crawler.py) proves what each page shows each
viewer; a page cannot see a secret carried by a person. The canary tests the people:

1. The write paths come from the URL configuration (`post_routes`): every view that accepts
   a POST. Its method decorators say which (require_POST, require_http_methods, read through
   the wrappers' closures); a view with none accepts every method, POST included (it answers
   a POST as it answers a GET, or reads the POST itself: profile, the act page). Each such
   route has a builder in `BUILDERS` (the form posts a browser sends, filled with a unique
   marker and the ids of the game: its board, its threads, the lobby, posts to report, the
   act page's forms, the profile's display name, the conversations with 神的使者...) or an
   exclusion with its reason in `EXCLUDED`; `uncovered()` names the others, and the test
   fails on them: a new writer is covered, or the test says which one is not.
2. Each writer (`Canary.write`) first shows whether it reads the game's secrets, by what
   the site lets it read and not by the predicate under test (`reads_secrets_now`: the
   graveyard opens to it, the watch page shows it the hidden play, or it left a seat a
   substitute holds now); then it tries every path, the watch button last. Every marker of
   a writer who reads secrets is checked; a marker of one who does not (a waiting
   substitute, a revived seat, a dead seat still owing its last words) may reach the
   living, and shows that the checks find a marker where the living can read it.
3. The living look (`Canary.look`, `sightings`): the anonymous visitor and a living seat
   fetch the lobby, the game's pages, events.json, the notifications page, a search for the
   run's markers and every thread page, board, profile and conversation where a marker is
   stored (`stored_markers`: every text column of every model), and follow the links of the
   home pages (one page of each type); then every living player's notices (Notification
   rows and what they link to), every email to a living player (django.core.mail.outbox and
   the project's outbox, OutboxEmail) and the change feed's events are read. A marker of a
   reader found in any of them is a `Leak`.
4. `switch_off_the_predicate` puts the writers back as they were before the rule, so the
   test shows that the canary reports the holes the rule closed.
"""

from __future__ import annotations

import json
import re
import secrets as token
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.apps import apps
from django.core import mail
from django.db import models
from django.db.models import Q
from django.db.models.functions import Cast
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from games.models import Game, OutboxEmail, Seat, Substitution
from messaging import services as forum
from messaging.models import Board, Conversation, Notification, Post, Thread

from .crawl import Tally, fetch_all

# --- the routes -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    name: str                             # the URL name, "admin:…" for the admin's
    pattern: str                          # "/t/<id:pk>/reply/"
    methods: tuple[str, ...] | None       # None: no method decorator (every method)

    @property
    def takes_post(self) -> bool:
        return self.methods is None or "POST" in self.methods


def view_methods(view) -> tuple[str, ...] | None:
    """The methods a view's decorators allow (require_http_methods and its shortcuts keep
    the list in their wrapper's closure as `request_method_list`), looked for through every
    wrapper (`__wrapped__`: login_required, never_cache...); None when none restricts them."""
    seen = set()
    f = view
    while f is not None and id(f) not in seen:
        seen.add(id(f))
        code = getattr(f, "__code__", None)
        cells = getattr(f, "__closure__", None) or ()  # a partial has none
        for name, cell in zip(code.co_freevars if code else (), cells, strict=False):
            if name == "request_method_list":
                return tuple(cell.cell_contents)
        f = getattr(f, "__wrapped__", None)
    return None


def routes() -> list[Route]:
    """Every named route of the site, with its full pattern and the methods its view takes."""
    out = []

    def walk(patterns, prefix: str, namespace: str):
        for p in patterns:
            if isinstance(p, URLResolver):
                ns = p.namespace or namespace
                walk(p.url_patterns, prefix + str(p.pattern), ns)
            elif isinstance(p, URLPattern) and p.name:
                name = f"{namespace}:{p.name}" if namespace else p.name
                out.append(Route(name, prefix + str(p.pattern), view_methods(p.callback)))

    walk(get_resolver().url_patterns, "/", "")
    return out


def post_routes() -> list[Route]:
    return [r for r in routes() if r.takes_post]


# Routes that take a POST but are no path for a secret to the living, each with its reason.
# "admin:*" stands for every route of the admin's namespace.
EXCLUDED: dict[str, str] = {
    "admin:*": "the 天神 console: staff only, and a game's GM and co-GMs only for their own "
               "games, whose secrets they read by office and for which they speak (the rule "
               "binds everyone else). Left out by design; but a GM who watches ANOTHER "
               "running game still writes through it where that game's living read (its "
               "sign-up note, posted in the lobby by games.services.open_signups): reported",
    "account_login": "signing in writes a session, read by nobody else",
    "account_logout": "signing out deletes a session",
    "account_inactive": "a page about the account's own state",
    "account_signup": "a new account, not a write of a signed-in one (allauth sends a "
                      "signed-in user away); its display name is checked like any at sign-up",
    "account_reauthenticate": "the account's password, asked again: read by nobody",
    "account_request_reauthentication_code": "a code mailed to the account's own address",
    "account_confirm_reauthentication_code": "the account's own code",
    "account_email": "email addresses are private (the account and the site's operators)",
    "account_email_verification_sent": "a page about the account's own address",
    "account_confirm_email": "confirms the account's own address",
    "account_change_password": "the account's password: read by nobody",
    "account_set_password": "the account's password: read by nobody",
    "account_reset_password": "a reset link mailed to the account's own address",
    "account_reset_password_done": "a page about the account's own reset",
    "account_reset_password_from_key": "the account's password, from its mailed link",
    "account_reset_password_from_key_done": "a page about the account's own reset",
    "account_confirm_login_code": "the account's own sign-in code",
}


def excluded(name: str) -> str | None:
    """The reason `name` is no write path for a secret, or None."""
    if name.startswith("admin:"):
        return EXCLUDED["admin:*"]
    return EXCLUDED.get(name)


# --- what builders fill forms with ------------------------------------------------------------

@dataclass
class Scene:
    """The objects a writer's forms name, at one moment of one game."""

    game: Game
    user: object
    lobby: Board
    lobby_thread: Thread           # a discussion in the lobby
    lobby_post: Post               # someone's post there (to report, bookmark, edit)
    board_thread: Thread           # a discussion on the game's board
    board_post: Post
    other: Game | None = None      # a game open for sign-ups (its board; its GM may be the writer)
    mention: str = ""              # a living player's display name, @-mentioned in every text

    def say(self, marker: str, *, chars: int = 0) -> str:
        """A text a player might write, holding `marker` and mentioning a living player (a
        notice to them, where the post may notify), at least `chars` long (a manifesto's
        100, §3.5.2), ending as a Classic speech ends (过)."""
        mention = f"@{self.mention} " if self.mention else ""
        text = f"{marker} {mention}我知道一些事情，你们听我说。"
        while len(text) < chars:
            text += "昨晚的事情我想了很久，现在说给大家听。"
        return text + "过"

    @property
    def seat(self):
        return self.game.seats.filter(user=self.user).first()

    @property
    def vote_thread(self) -> Thread | None:
        return Thread.objects.filter(board=self.game.board, key__startswith="vote-") \
            .order_by("-pk").first()

    @property
    def graveyard_thread(self) -> Thread | None:
        if self.game.graveyard_id is None:
            return None
        return Thread.objects.filter(board_id=self.game.graveyard_id).order_by("pk").first()

    @property
    def conversation(self) -> Conversation:
        """The writer's conversation with 神的使者 in this game (a seat's), else its general one."""
        seat = self.seat
        if seat is not None and seat.conversation_id:
            return seat.conversation
        return forum.conversation_for(owner=self.user)

    def threads(self) -> list[tuple[str, Thread]]:
        """(what it is, thread) for the replies: a discussion in the lobby and on the game's
        board, the game's vote thread, the graveyard's. (The announcements take the GM's
        replies only, whoever asks: messaging.rules.REPLIERS.)"""
        out = [("a lobby discussion", self.lobby_thread),
               ("a discussion on the game's board", self.board_thread)]
        if self.vote_thread is not None:
            out.append(("the game's vote thread", self.vote_thread))
        if self.graveyard_thread is not None:
            out.append(("the graveyard", self.graveyard_thread))
        return out

    def boards(self) -> list[tuple[str, str, Board]]:
        """(kind, where, board) for the new threads: a discussion in the lobby, on the game's
        board and in its graveyard; a site announcement in the lobby and a discussion on the
        board of a game the writer runs, for staff (others are refused those before any
        rule about secrets)."""
        out = [("discussion", "the lobby", self.lobby),
               ("discussion", "the game's board", self.game.board)]
        if self.game.graveyard_id is not None:
            out.append(("discussion", "the graveyard", self.game.graveyard))
        if self.user.is_staff:
            out.append(("announcement", "the lobby, as a site announcement", self.lobby))
            if self.other is not None and self.other.gm_id == self.user.pk:
                out.append(("discussion", "the board of a game the writer runs",
                            self.other.board))
        return out


@dataclass
class Attempt:
    path: str      # the route's name
    label: str     # what it tries
    url: str
    data: dict
    marker: str    # in every free field the form has (a form without one carries it anyway)


Mark = Callable[[], str]


def build_profile(scene: Scene, mark: Mark) -> list[Attempt]:
    """The profile form as the page fills it, the display name changed to a marker."""
    from accounts.models import Profile

    p = Profile.objects.get(user=scene.user)
    m = mark()
    data = {"display_name": m, "timezone": p.timezone, "language": p.language,
            "reminder_hours": p.reminder_hours}
    data.update({f: "on" for f in ("email_results", "email_announcements", "email_replies")
                 if getattr(p, f)})
    return [Attempt("profile", "rename (the display name)", reverse("profile"), data, m)]


def build_language(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("profile-language", "the header's language menu",
                    reverse("profile-language"),
                    {"language": "zh-hans", "next": "/", "note": m}, m)]


def build_django_language(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("set_language", "Django's language switch", reverse("set_language"),
                    {"language": "zh-hans", "next": "/", "note": m}, m)]


def build_timezone(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("profile-timezone", "the browser's timezone", reverse("profile-timezone"),
                    {"timezone": m}, m)]


def build_calendar(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("profile-calendar", "a new calendar link", reverse("profile-calendar"),
                    {"do": "new", "note": m}, m)]


def build_unsubscribe(scene: Scene, mark: Mark) -> list[Attempt]:
    from accounts.unsubscribe import unsubscribe_url

    m = mark()
    url = unsubscribe_url(scene.user, "replies").split("://", 1)[-1]
    url = url[url.index("/"):]
    return [Attempt("unsubscribe", "a one-click unsubscribe", url, {"note": m}, m)]


# Steps with free text a seat might send whether or not the rules offer it now, forged as the
# act form would send them (kind, text field), by rule set: Classic's last words, speech and
# team message; 猫有n条命's card used with a manifesto or a story.
FORGED_STEPS = {
    "classic": (("last_words", "text"), ("speak", "text"), ("team_message", "text")),
    "ninelives": (("use_card", "manifesto"), ("use_card", "story")),
}


def build_act(scene: Scene, mark: Mark) -> list[Attempt]:
    """The act page (game-act): each option it offers that carries free text (last words, a
    speech, a manifesto...), with its pickers' first entries; the same steps forged where
    the page does not offer them; a message to 神的使者 (free_text)."""
    from games.web.play import ActPage

    game, url = scene.game, reverse("game-act", args=[scene.game.pk])
    phase = str(game.current_phase.seq) if game.current_phase_id else ""
    out, offered = [], set()
    seat = scene.seat
    if seat is not None:
        page = ActPage(game, seat, scene.user)
        for option in page.options:
            value = json.loads(option.value)
            texts = value.get("texts") or []
            if not texts:
                continue
            m = mark()
            data = {"choice": option.value, "phase": phase, "confirmed": "1"}
            for picker in page.pickers:
                if picker.key in (value.get("picks") or []) and picker.entries:
                    data[f"pick_{picker.key}"] = picker.entries[0][0]
            for name in texts:
                data[f"text_{name}"] = scene.say(m, chars=120)
            offered.add(value["kind"])
            out.append(Attempt("game-act", f"the act form: {value['kind']}", url, data, m))
    for kind, text in FORGED_STEPS.get(game.ruleset, ()):
        if kind in offered:
            continue
        m = mark()
        choice = json.dumps({"kind": kind, "params": {}, "texts": [text]}, sort_keys=True)
        out.append(Attempt("game-act", f"the act form, forged: {kind} ({text})", url,
                           {"choice": choice, "phase": phase, "confirmed": "1",
                            f"text_{text}": scene.say(m, chars=120)}, m))
    m = mark()
    out.append(Attempt("game-act", "the act page: a message to 神的使者", url,
                       {"free_text": scene.say(m)}, m))
    return out


def build_vote(scene: Scene, mark: Mark) -> list[Attempt]:
    thread = scene.vote_thread
    m = mark()
    data = {"kind": "vote", "target": "0", "confirmed": "1", "note": m}
    if thread is not None:
        data["thread"] = str(thread.pk)
    return [Attempt("game-vote", "a vote", reverse("game-vote", args=[scene.game.pk]), data, m)]


def build_community(scene: Scene, mark: Mark) -> list[Attempt]:
    """The game page's buttons: sign up (as a substitute here; as a player in a game open
    for sign-ups), withdraw, check in, take over a seat, ask the GM for leave."""
    out = []

    def one(game, what, label, **data):
        m = mark()
        out.append(Attempt("game-community", label,
                           reverse("game-community", args=[game.pk, what]),
                           {**data, "message": scene.say(m)}, m))

    one(scene.game, "signup", "sign up as a substitute", role="substitute")
    if scene.other is not None:
        one(scene.other, "signup", "sign up for another game", role="player")
    one(scene.game, "withdraw", "withdraw a sign-up")
    one(scene.game, "checkin", "check in")
    one(scene.game, "substitute", "take over a seat")
    one(scene.game, "leave", "ask the GM for leave")
    return out


def build_watch(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("game-watch", "watch the game", reverse("game-watch", args=[scene.game.pk]),
                    {"note": m}, m)]


def build_award(scene: Scene, mark: Mark) -> list[Attempt]:
    """An award's candidate (a finished game's only: no free text, a nominee by id)."""
    m = mark()
    return [Attempt("game-award-post", "add an award candidate",
                    reverse("game-award-post", args=[scene.game.pk]),
                    {"do": "add", "kind": "fair_play", "nominee": str(scene.user.pk), "note": m},
                    m)]


def build_board_read(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-board-read", "mark the lobby read",
                    reverse("messaging-board-read", args=[scene.lobby.slug]), {"note": m}, m)]


def build_thread_new(scene: Scene, mark: Mark) -> list[Attempt]:
    """A new thread (title and first post) on every board the writer reaches
    (`Scene.boards`)."""
    out = []
    for kind, label, board in scene.boards():
        m = mark()
        out.append(Attempt("messaging-thread-new", f"a new thread: {label}",
                           reverse("messaging-thread-new", args=[board.slug]),
                           {"kind": kind, "title": f"{m} 标题", "body": scene.say(m)}, m))
    return out


def build_board_draft(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-draft-board", "a new thread's draft (the lobby)",
                    reverse("messaging-draft-board", args=[scene.lobby.slug]),
                    {"kind": "discussion", "title": m, "body": scene.say(m), "js": "1"}, m)]


def build_reply(scene: Scene, mark: Mark) -> list[Attempt]:
    out = []
    for label, thread in scene.threads():
        m = mark()
        out.append(Attempt("messaging-reply", f"a reply: {label}",
                           reverse("messaging-reply", args=[thread.pk]), {"body": scene.say(m)}, m))
    return out


def build_thread_draft(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-draft", "a reply's draft (a lobby discussion)",
                    reverse("messaging-draft", args=[scene.lobby_thread.pk]),
                    {"body": scene.say(m), "js": "1"}, m)]


def build_post_edit(scene: Scene, mark: Mark) -> list[Attempt]:
    """A moderator's edit (staff, on a board it moderates: the lobby for any staff)."""
    out = []
    for label, post in (("a lobby post", scene.lobby_post), ("a post on the game's board",
                                                             scene.board_post)):
        m = mark()
        out.append(Attempt("messaging-post-edit", f"edit {label}",
                           reverse("messaging-post-edit", args=[post.pk]),
                           {"body": scene.say(m)}, m))
    return out


def build_bookmark(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-post-bookmark", "bookmark a lobby post",
                    reverse("messaging-post-bookmark", args=[scene.lobby_post.pk]),
                    {"action": "add", "note": m}, m)]


def build_report(scene: Scene, mark: Mark) -> list[Attempt]:
    out = []
    for label, post in (("a lobby post", scene.lobby_post), ("a post on the game's board",
                                                             scene.board_post)):
        m = mark()
        out.append(Attempt("messaging-post-report", f"report {label}",
                           reverse("messaging-post-report", args=[post.pk]),
                           {"reason": scene.say(m)}, m))
    return out


def build_thread_watch(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-thread-watch", "watch a lobby thread",
                    reverse("messaging-thread-watch", args=[scene.lobby_thread.pk]),
                    {"level": "watching", "note": m}, m)]


def build_preview(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-preview", "a post's preview", reverse("messaging-preview"),
                    {"body": scene.say(m)}, m)]


def build_notifications_read(scene: Scene, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt("messaging-notifications-read-all", "mark every notice read",
                    reverse("messaging-notifications-read-all"), {"note": m}, m)]


def build_notification_read(scene: Scene, mark: Mark) -> list[Attempt]:
    notice = Notification.objects.filter(user=scene.user).order_by("-pk").first()
    m = mark()
    return [Attempt("messaging-notification-read", "mark one notice read",
                    reverse("messaging-notification-read", args=[notice.pk if notice else 1]),
                    {"note": m}, m)]


def _message(scene: Scene, path: str, label: str, url: str, mark: Mark) -> list[Attempt]:
    m = mark()
    return [Attempt(path, f"a message to 神的使者: {label}", url, {"body": scene.say(m)}, m)]


def build_messenger_home(scene: Scene, mark: Mark) -> list[Attempt]:
    """The conversations with 神的使者 are read by the GMs only: allowed, never the living's."""
    return _message(scene, "messaging-conversation-home", "the header's 神的使者 link",
                    reverse("messaging-conversation-home"), mark)


def build_messenger_general(scene: Scene, mark: Mark) -> list[Attempt]:
    return _message(scene, "messaging-conversation-general", "the general conversation",
                    reverse("messaging-conversation-general"), mark)


def build_messenger_own(scene: Scene, mark: Mark) -> list[Attempt]:
    return _message(scene, "messaging-conversation",
                    "the writer's conversation in the game (or its general one)",
                    reverse("messaging-conversation", args=[scene.conversation.pk]), mark)


# A view with no method decorator that answers a POST as it answers a GET: its POST is
# tried once per canary (by its first writer), with a marker in every field a form of the
# site names, and none of those markers may be stored anywhere (`Canary.kept_by_pages_that_read`).
ANSWERS_POST_AS_GET = (
    "healthz", "live", "profile-public", "game-list", "game-archive", "rules-index",
    "rules-detail", "game-home", "game-seat-posts", "game-commitment", "dev-outbox",
    "game-review", "game-review-seat", "game-events-json", "game-graveyard", "game-awards",
    "calendar-feed", "lobby", "messaging-board", "messaging-thread", "messaging-thread-unread",
    "messaging-post", "messaging-post-quote", "messaging-post-revisions",
    "messaging-bookmarks", "messaging-search", "messaging-notifications",
    "messaging-conversation-list",
)
FREE_FIELDS = ("body", "title", "reason", "message", "text", "free_text", "display_name", "q")


def filled(pattern: str, scene: Scene) -> str:
    """`pattern` with each parameter replaced by the scene's object of that kind (by the
    route's first segment, as the crawl reads them: crawl.PARAM_KINDS)."""
    head = pattern.strip("/").split("/", 1)[0]
    first = {"games": scene.game.pk, "t": scene.lobby_thread.pk, "p": scene.lobby_post.pk,
             "u": scene.user.pk, "b": scene.lobby.slug, "messenger": scene.conversation.pk,
             "notifications": 1, "calendar": "x", "unsubscribe": "x"}.get(head, 1)

    def value(match: re.Match) -> str:
        name = match.group(2)
        if name == "number":
            return "1"
        if name == "ruleset":
            return scene.game.ruleset
        return str(first)

    return re.sub(r"<(?:(\w+):)?(\w+)>", value, pattern)


def as_a_get(route: Route) -> Callable[[Scene, Mark], list[Attempt]]:
    def build(scene: Scene, mark: Mark) -> list[Attempt]:
        m = mark()
        return [Attempt(route.name, "a POST to a page that only reads",
                        filled(route.pattern, scene),
                        dict.fromkeys(FREE_FIELDS, scene.say(m)), m)]
    return build


@dataclass(frozen=True)
class Builder:
    build: Callable[[Scene, Mark], list[Attempt]]
    every_writer: bool = True  # False: tried once per canary (a page that only reads)


BUILDERS: dict[str, Builder] = {
    "profile": Builder(build_profile),
    "profile-language": Builder(build_language),
    "set_language": Builder(build_django_language),
    "profile-timezone": Builder(build_timezone),
    "profile-calendar": Builder(build_calendar),
    "unsubscribe": Builder(build_unsubscribe),
    "game-act": Builder(build_act),
    "game-vote": Builder(build_vote),
    "game-community": Builder(build_community),
    "game-watch": Builder(build_watch),
    "game-award-post": Builder(build_award),
    "messaging-board-read": Builder(build_board_read),
    "messaging-thread-new": Builder(build_thread_new),
    "messaging-draft-board": Builder(build_board_draft),
    "messaging-reply": Builder(build_reply),
    "messaging-draft": Builder(build_thread_draft),
    "messaging-post-edit": Builder(build_post_edit),
    "messaging-post-bookmark": Builder(build_bookmark),
    "messaging-post-report": Builder(build_report),
    "messaging-thread-watch": Builder(build_thread_watch),
    "messaging-preview": Builder(build_preview),
    "messaging-notifications-read-all": Builder(build_notifications_read),
    "messaging-notification-read": Builder(build_notification_read),
    "messaging-conversation-home": Builder(build_messenger_home),
    "messaging-conversation-general": Builder(build_messenger_general),
    "messaging-conversation": Builder(build_messenger_own),
}


def builder_of(route: Route) -> Builder | None:
    if route.name in BUILDERS:
        return BUILDERS[route.name]
    if route.name in ANSWERS_POST_AS_GET:
        return Builder(as_a_get(route), every_writer=False)
    return None


def uncovered() -> list[Route]:
    """The routes that take a POST with neither a builder nor a reason to be left out."""
    return [r for r in post_routes() if builder_of(r) is None and excluded(r.name) is None]


def attempts(scene: Scene, mark: Mark, *, once: bool) -> list[Attempt]:
    """Every write path's attempts for one writer (`once`: the pages that only read too),
    the watch button last: pressing it may make the writer a reader of the game's secrets,
    and every other attempt is made as what the writer was when it began."""
    out = []
    for route in sorted(post_routes(), key=lambda r: r.name == "game-watch"):
        builder = builder_of(route)
        if builder is None or (not builder.every_writer and not once):
            continue
        out += builder.build(scene, mark)
    return out


# --- who reads the game's secrets, by what the site lets them read ----------------------------

def reads_secrets_now(client: Client, game: Game, user) -> bool:
    """Whether `user` reads secrets of `game` now, by what the site gives it and not by the
    predicate under test: the graveyard opens to it (its watchers'; games/web/watch.py
    answers 404 to anyone else), the watch page shows it the hidden play, or it left a seat
    that a substitute holds while the game runs (it knew that hand)."""
    if game.is_live and Substitution.objects.filter(
            game=game, outgoing=user, status=Substitution.Status.ACCEPTED).exclude(
            game__seats__user=user).exists():
        return True
    if client.get(reverse("game-graveyard", args=[game.pk])).status_code == 302:
        return True
    page = client.get(reverse("game-watch", args=[game.pk]))
    return page.status_code == 200 and b'id="watch" data-live-game' in page.content


# --- the canary -----------------------------------------------------------------------------

@dataclass
class Written:
    writer: str
    attempt: Attempt
    status: int
    reads_secrets: bool   # the writer read the game's secrets when it sent it
    seconds: float = 0.0


@dataclass
class Leak:
    writer: str
    path: str
    label: str
    marker: str
    where: str

    def __str__(self):
        return f"{self.writer} wrote through {self.path} ({self.label}): {self.where}"


class Markers:
    """Unique marker strings of one canary run: MARK, the run's hex, N and a number."""

    def __init__(self):
        self.prefix = f"MARK{token.token_hex(3)}"
        self.count = 0

    def new(self) -> str:
        self.count += 1
        return f"{self.prefix}N{self.count:04d}"

    def find(self, text: str) -> set[str]:
        return set(re.findall(re.escape(self.prefix) + r"N\d{4}", text))


def _text_columns(model) -> list[str]:
    return [f.name for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField | models.JSONField)]


def stored_markers(markers: Markers) -> dict[str, list[tuple[str, int]]]:
    """{marker: [(model label.column, row id)]}: every row of every model holding a marker of
    this run in a text column (JSON read as text)."""
    out: dict[str, list[tuple[str, int]]] = {}
    for model in apps.get_models():
        columns = _text_columns(model)
        if not columns or model._meta.label == "sessions.Session":
            continue
        annotations = {f"_t_{c}": Cast(c, models.TextField()) for c in columns}
        q = Q()
        for c in columns:
            q |= Q(**{f"_t_{c}__contains": markers.prefix})
        for row in model.objects.annotate(**annotations).filter(q).values("pk", *annotations):
            for c in columns:
                for m in markers.find(row[f"_t_{c}"] or ""):
                    out.setdefault(m, []).append((f"{model._meta.label}.{c}", row["pk"]))
    return out


def urls_of_rows(stored: dict[str, list[tuple[str, int]]]) -> set[str]:
    """Where the living would read each stored row: a post's page of its thread (where its
    permalink leads), a thread and its board, a profile, a conversation, a seat's game
    (what else the games store shows on the game's pages, which every look reads)."""
    from accounts.models import Profile
    from messaging.models import Message
    from messaging.views import post_page_url

    out = set()
    for rows in stored.values():
        for column, pk in rows:
            label = column.rsplit(".", 1)[0]
            if label == "messaging.Post":
                out.add(post_page_url(Post.objects.get(pk=pk)).split("#", 1)[0])
            elif label == "messaging.Thread":
                thread = Thread.objects.select_related("board").get(pk=pk)
                out |= {thread.get_absolute_url(), thread.board.get_absolute_url()}
            elif label == "accounts.Profile":
                out.add(reverse("profile-public", args=[Profile.objects.get(pk=pk).user_id]))
            elif label == "messaging.Message":
                out.add(reverse("messaging-conversation",
                                args=[Message.objects.get(pk=pk).conversation_id]))
            elif label == "games.Seat":  # its name, on its game's pages
                out.add(reverse("game-home", args=[Seat.objects.get(pk=pk).game_id]))
    return out


@dataclass
class Living:
    label: str
    user: object | None  # None: the anonymous visitor


def sightings(game: Game, markers: Markers, viewers: list[Living], living_users: list,
              people: list, feed_events: list, tally: Tally, *, searched: set[str],
              breadth: bool) -> tuple[dict[str, list[str]], dict[str, list[tuple[str, int]]]]:
    """Every marker of this run that the living or the anonymous visitor can read now, with
    where ({marker: [where]}), and what the database stores ({marker: [(column, id)]}).

    1. The pages, for each viewer: the lobby, the game's home, board, events.json and
       graveyard address, the posts of the seats `people` hold, the notifications page, the
       act page (a seat's), a search for the run's prefix, and every thread page, board,
       profile and conversation where a marker is stored (`urls_of_rows`); the first
       living seat searches for each stored marker of `searched` (by all of it but its
       last digit, so the search box's echo is no sighting); with `breadth` the anonymous
       visitor follows the links of the home pages too (one page of each type:
       crawl.fetch_all).
    2. The notices of every living player (their text, link, post, thread and actor's name).
    3. The emails to living players (django.core.mail.outbox, OutboxEmail).
    4. The change feed's events (`feed_events`)."""
    stored = stored_markers(markers)
    seen: dict[str, list[str]] = {}

    def found(text: str, where: str):
        for m in markers.find(text):
            seen.setdefault(m, []).append(where)

    pk = game.pk
    search = reverse("messaging-search") + "?q="
    seats = set(game.seats.filter(user__in=people).values_list("number", flat=True))
    urls = ["/", reverse("game-home", args=[pk]), game.board.get_absolute_url(),
            reverse("game-events-json", args=[pk]), reverse("game-graveyard", args=[pk]),
            reverse("messaging-notifications"), search + markers.prefix]
    urls += [reverse("game-seat-posts", args=[pk, n + 1]) for n in sorted(seats)]
    urls += sorted(urls_of_rows(stored))
    first_seat = next((i for i, v in enumerate(viewers) if v.user is not None), None)
    for i, viewer in enumerate(viewers):
        client = Client()
        mine = list(urls)
        if viewer.user is not None:
            client.force_login(viewer.user)
            mine.append(reverse("game-act", args=[pk]))
        if i == first_seat:
            mine += [search + m[:-1] for m in sorted(set(stored) & searched)]
        for url in dict.fromkeys(mine):
            response = client.get(url, follow=True)
            tally.requests += 1
            assert response.status_code < 500, (viewer.label, url, response.status_code)
            found(response.content.decode("utf-8", "replace"), f"{viewer.label} on {url}")
        if breadth and viewer.user is None:
            for page in fetch_all(client, ["/", reverse("game-home", args=[pk])], [], tally,
                                  classes={}):
                found(page.raw, f"{viewer.label} on {page.url}")
    for notice in Notification.objects.filter(user__in=living_users).select_related(
            "post", "thread", "actor__profile", "user__profile"):
        actor = getattr(notice.actor, "profile", None)
        found(" ".join((notice.text, notice.url, notice.post.body if notice.post else "",
                        notice.thread.title if notice.thread else "",
                        actor.display_name if actor else "")),
              f"a notice ({notice.kind}) to {notice.user.profile.display_name}, alive")
    emails = {u.email for u in living_users}
    for message in mail.outbox:
        if set(message.to) & emails:
            found(message.subject + message.body + "".join(
                str(c) for c, _type in getattr(message, "alternatives", [])),
                f"an email to {message.to}, alive")
    for row in OutboxEmail.objects.filter(to__in=emails):
        found(row.subject + row.body + row.html + json.dumps(row.context, ensure_ascii=False),
              f"the outbox's email to {row.to}, alive")
    for event in feed_events:
        found(json.dumps(event, ensure_ascii=False), "the change feed")
    return seen, stored


class Canary:
    """One game under the canary: each writer tries every write path with markers
    (`write`), then the living look (`look`); a marker of a writer who read the game's
    secrets, found by the living, is a leak.

    `scene`: the objects the forms name (its user is replaced by each writer's);
    `capture`: pytest-django's django_capture_on_commit_callbacks, so what a write queues
    on commit (the search index, notices' emails, the change feed) happens as in production;
    `feed_events`: the list the test's recorder of config.feed.publish fills."""

    def __init__(self, scene: Scene, *, capture, feed_events: list):
        self.scene = scene
        self.capture = capture
        self.feed_events = feed_events
        self.markers = Markers()
        self.written: list[Written] = []
        self.leaks: list[Leak] = []
        self.seen: dict[str, list[str]] = {}
        self.stored: dict[str, list[tuple[str, int]]] = {}
        self.writers: dict[str, object] = {}
        self.tally = Tally()
        self.tried_once = False

    def client(self, user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    def post(self, user, url: str, data: dict | None = None):
        """One POST as `user`, its on-commit work done."""
        with self.capture(execute=True):
            return self.client(user).post(url, data or {})

    def write(self, label: str, user) -> bool:
        """`user` (called `label` in the report) tries every write path, each with a marker;
        returns whether it read the game's secrets as it wrote (the watch button, pressed
        last, may change that for what it writes next)."""
        from tests.conftest import clear_cache

        game = self.scene.game
        game.refresh_from_db()
        client = self.client(user)
        reads = reads_secrets_now(client, game, user)
        scene = replace(self.scene, user=user, game=game)
        for attempt in attempts(scene, self.markers.new, once=not self.tried_once):
            began = time.perf_counter()
            with self.capture(execute=True):
                response = client.post(attempt.url, attempt.data)
            self.written.append(Written(label, attempt, response.status_code, reads,
                                        time.perf_counter() - began))
        self.tried_once = True
        self.writers[label] = user
        # The rate limits: each writer starts with its budgets whole. Only this worker's keys
        # (a flush of the shared Redis db would wipe another xdist worker's mid-test).
        clear_cache()
        return reads

    def look(self, moment: str, viewers: list[Living], *, breadth: bool = False) -> None:
        """The living and the anonymous visitor look (`sightings`) at `moment`."""
        game = self.scene.game
        game.refresh_from_db()
        living = [s.user for s in game.seats.filter(alive=True).select_related("user")]
        people = list(self.writers.values()) + [v.user for v in viewers if v.user]
        checked = {w.attempt.marker: w for w in self.written if w.reads_secrets}
        seen, self.stored = sightings(game, self.markers, viewers, living, people,
                                      self.feed_events, self.tally, searched=set(checked),
                                      breadth=breadth)
        for m, wheres in seen.items():
            self.seen.setdefault(m, []).extend(wheres)
            w = checked.get(m)
            if w is not None:
                self.leaks += [Leak(w.writer, w.attempt.path, w.attempt.label, m,
                                    f"at {moment}, {where}") for where in wheres[:3]]

    def found(self, writer: str, path: str, label: str = "", where: str = "") -> bool:
        """Whether the living read a marker `writer` sent through `path` (`label`: part of
        the attempt's label; `where`: part of where it was read)."""
        return any(where in seen for w in self.written
                   if w.writer == writer and w.attempt.path == path
                   and label in w.attempt.label for seen in self.seen.get(w.attempt.marker, []))

    def kept_by_pages_that_read(self) -> list[str]:
        """The pages that only read (ANSWERS_POST_AS_GET) whose POST stored its marker
        somewhere, with where: none may."""
        return [f"{w.attempt.path}: {self.stored[w.attempt.marker]}" for w in self.written
                if w.attempt.path in ANSWERS_POST_AS_GET and w.attempt.marker in self.stored]

    def stored_by(self, writer: str, path: str) -> list[str]:
        """Where the markers `writer` sent through `path` are stored."""
        return [column for w in self.written if w.writer == writer and w.attempt.path == path
                for column, _pk in self.stored.get(w.attempt.marker, [])]

    def report(self) -> str:
        """Who tried what, how each path answered, and what was stored where by readers."""
        lines = []
        by_path: dict[str, dict[int, int]] = {}
        for w in self.written:
            counts = by_path.setdefault(w.attempt.path, {})
            counts[w.status] = counts.get(w.status, 0) + 1
        took: dict[str, float] = {}
        for w in self.written:
            took[w.attempt.path] = took.get(w.attempt.path, 0) + w.seconds
        for path, counts in sorted(by_path.items()):
            lines.append(f"  {path}: {dict(sorted(counts.items()))} {took[path]:.2f} s")
        readers = sorted({w.writer for w in self.written if w.reads_secrets})
        others = sorted({w.writer for w in self.written} - set(readers))
        stored = sorted({column for w in self.written if w.reads_secrets
                         for column, _pk in self.stored.get(w.attempt.marker, [])})
        return "\n".join([f"writers who read secrets: {readers}",
                          f"writers who did not: {others}",
                          f"attempts: {len(self.written)}, requests of the living: "
                          f"{self.tally.requests}",
                          f"readers' markers stored in: {stored}", *lines])


# --- the predicate switched off (the canary's own canary) ------------------------------------

def switch_off_the_predicate(monkeypatch) -> list[str]:
    """Every writer as it was before the rule: `write_refusal` and `rename_refusal` answer
    None wherever they were imported; a dead Classic seat watches before its last words
    (`owes_words`), and a revived seat keeps watching (`end_watching` from sync_alive).
    Returns the patched names."""
    from games.selectors import secrets
    from games.services import record, watching

    originals = {secrets.write_refusal: "write_refusal", secrets.rename_refusal: "rename_refusal"}
    patched = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name.startswith(("games", "accounts", "messaging", "config", "web"))):
            continue
        for attr, original_name in (("write_refusal", "write_refusal"),
                                    ("rename_refusal", "rename_refusal")):
            value = getattr(module, attr, None)
            if value is not None and originals.get(value) == original_name:
                monkeypatch.setattr(module, attr, lambda *args, **kwargs: None)
                patched.append(f"{name}.{attr}")
    monkeypatch.setattr(watching, "owes_words", lambda game, seat: False)
    monkeypatch.setattr(record, "end_watching", lambda game, user_ids: 0)
    patched += ["games.services.watching.owes_words", "games.services.record.end_watching"]
    return patched

