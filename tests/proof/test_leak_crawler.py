"""The leak crawler: at chosen moments of a 猫有n条命 game and a Classic game,
every kind of viewer fetches the pages it can reach, and no page holds a secret that viewer
may not know.

Two crawls. The suite's (the first two tests) crawls four moments of each game: a night whose
seats have acted (their private results pending until dawn), a runoff (Classic's vote among
the tied), the night again after the GM undid its end (docs/undo.md: its dawn and private
results withdrawn, which stay as secret as they were), and the end. At each, one seat of each
kind (its side, alive or dead, handed over or not; the staff player and seat 1's player
always) and every viewer without a seat fetch one page of each type (`crawl.page_type`: a
route with each id replaced by its class), with every id where ids matter (every game, board,
thread and conversation; the posts only the GM may read, their authors' profiles and seats);
the anonymous visitor follows every link, so every public page is read. The full crawl
(`test_at_every_phase_...`: every phase, every seat, every page, every id in every route at
one snapshot) runs with `make crawl` and in the suite whenever the files that shape pages
changed since it last passed (tests/proof/crawl_stamp.py).

For each snapshot (taken once the seats have acted, just before the clock ends the phase):
1. the viewers: each seat's player (dead ones included; in the suite's crawl one seat of
   each kind), a substitute-to-be (a user with no seat, who takes over a seat midway; from
   then on the player they replaced is a viewer too, and must see no more than an
   outsider), an outsider and an anonymous visitor;
2. the pages: everything reachable by links from the game's pages (on this site, GET only)
   and every known route of the site filled with the game's object ids (games, boards,
   threads, posts, conversations, seats, phases, announcements), by kind at every snapshot
   and, at one snapshot (the full crawl), with every id in every route; the admin's routes
   at one snapshot. In the full crawl the routes are tried by the viewers without a seat,
   seat 1's player and the substitute (which object a URL reaches depends on the kind of
   viewer, not on the seat it holds) and every player follows every link; in the suite's,
   every viewer tries one page of each type and the anonymous visitor follows every link;
3. the secrets (tests/proof/crawl.py `Secrets`): sentences of events addressed to others
   or to the GM only, as `describe` writes them; statements of other seats' panels and
   their private parts as JSON (hands, loss orders, roles, teams...); GM-only state (the
   deal, taints); the deal's commitment text and salt; a unique marker planted in every
   conversation (by its owner and by the GM), in GM-only threads and the game's GM board;
4. the anonymous visitor goes first: what its pages say is public, and is taken out of the
   other viewers' secrets (so a sentence that is public by another route is no leak).
After the end, the review may show the whole game: only the markers stay secret.

Viewers beyond the seats and the public:
- a staff user (a superuser) seated in the game: besides the leak check of its seat (on the
  site's pages; the admin shows a superuser every game), it must see exactly what a
  non-staff player in the same seat sees: the same user's pages
  fetched once without staff status (in a transaction rolled back afterwards, so neither
  crawl marks anything read for the other) must reach the same URLs with the same statuses
  and texts, outside the admin;
- a staff user (not a superuser) who hosts another game: nothing secret of this one (an
  outsider's secrets), the admin included;
- the former seat holder (replaced by the substitute), as before;
- a reader of a thread with planted same-origin images (`![ ](/messenger/)` and the like,
  posted by a player): a player with an unread result and the GM with a waiting
  conversation open it, their browser loads every image: no unread count, waiting list,
  notice or other thread's read mark moves, and the page renders no same-origin <img>.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import secrets as token
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from games import selectors, services
from games.models import Announcement, Game, Phase, Substitution, Watcher
from messaging import services as forum
from messaging.models import Board, Conversation, Post, Thread
from tests.engine.ninelives.deals import FIVE
from tests.factories.toy import open_to_outsiders

from . import crawl_stamp
from .crawl import (
    STAFF_HEADER,
    Secrets,
    Tally,
    Viewer,
    act_randomly,
    after_end_secrets,
    end_current_phase,
    fetch_all,
    fill_route,
    find_leaks,
    known_routes,
    read_planted_thread,
    staff_differences,
)
from .crawl_stamp import full_crawl_due

pytestmark = pytest.mark.django_db

T0 = dt.datetime(2025, 5, 1, 12, 0, tzinfo=dt.UTC)
NINE_NAMES = ["阿猫", "阿狗", "小白", "老黑", "花花"]
CLASSIC_NAMES = ["阿一", "阿二", "阿三", "阿四", "阿五", "阿六", "阿七", "阿八", "阿九",
                 "阿十", "十一"]
CLASSIC_DEAL = ["police", "bandit", "civilian", "civilian", "police", "bandit", "civilian",
                "civilian", "police", "bandit", "civilian"]


@pytest.fixture
def people(make_user):
    host = make_user("天神戊", staff=True)
    get_user_model().objects.filter(pk=host.pk).update(is_superuser=False)  # a plain host
    host.refresh_from_db()
    services.create_game(name="别处的局", ruleset="gold", gm=host, seat_count=3)
    return {"gm": make_user("天神丙", staff=True), "outsider": make_user("路人甲"),
            "substitute": make_user("替补乙"), "host": host, "watcher": make_user("看客丁")}


def seated_users(make_user, names: list[str]) -> list:
    """The players; the second one is staff."""
    return [make_user(n, staff=i == 1) for i, n in enumerate(names)]


# A thread's page (any page number): the anonymous visitor's tell which threads are public.
_THREAD_PAGE = re.compile(r"/t/(\d+)/(?:\?|$)")
# The posts only the GM may read: those of GM-only threads and of GM boards.
HIDDEN_POSTS = Q(thread__kind=Thread.Kind.GM_ONLY) | Q(thread__board__kind=Board.Kind.GM)


class _RolledBack(Exception):
    pass


# --- the table ------------------------------------------------------------------------------

class Table:
    """A game under observation: its viewers, its planted markers and the crawl's tally."""

    def __init__(self, game: Game, people: dict):
        self.game = game
        self.gm = people["gm"]
        self.outsider = people["outsider"]
        self.substitute = people["substitute"]
        self.host = people["host"]
        self.watcher = people["watcher"]  # an outsider who chose to watch the game
        self.former = None          # the player the substitute replaced
        self.markers: dict[str, int | None] = {}
        self.graveyard: list[str] = []  # markers the dead and the watchers may read
        self.tally = Tally()
        self.leaks: list = []
        self.post_only: set[str] = set()  # routes that answered a GET with 405
        self.staff_diffs: list[str] = []  # a staff player's pages vs the same without staff
        self.moved: list[str] = []        # reading marks moved by planted images
        self.images_read = 0
        # What an undone phase end said to some seats only (`undo_phase_end`): (sentence,
        # audience, event id) and (data, audience, event id), as `Secrets` lists events.
        self.withdrawn: tuple[list, list] = ([], [])
        self.plant_markers()
        self.plant_images()
        services.sign_up(game_id=game.pk, user=self.substitute, role="substitute")
        open_to_outsiders(game)  # the GM lets outsiders watch (off by default)
        services.watch(game_id=game.pk, user=self.watcher)

    def marker(self, what: str) -> str:
        return f"MARK{what}{token.token_hex(6)}"

    def plant_markers(self) -> None:
        """A unique string in every conversation (one from its owner, one answer from the GM)
        and in a GM-only thread of the game's board and a thread of a GM board."""
        users = [s.user for s in self.game.seats.select_related("user")]
        conversations = [s.conversation for s in self.game.seats.all()]
        conversations += [forum.conversation_for(owner=u) for u in
                          users + [self.outsider, self.substitute]]
        for c in conversations:
            mine, answer = self.marker(f"OWNER{c.pk}X"), self.marker(f"GM{c.pk}X")
            forum.send_to_messenger(conversation=c, author=c.owner, body=mine,
                                    enforce_rate_limit=False)
            forum.answer_as_messenger(conversation=c, staff=self.gm, body=answer)
            self.markers[mine] = self.markers[answer] = c.pk
        note = self.marker("GMTHREAD")
        forum.start_thread(board=self.game.board, author=self.gm, kind=Thread.Kind.GM_ONLY,
                           title="天神笔记", body=note, enforce_rate_limit=False)
        note2 = self.marker("GMBOARD")
        forum.start_thread(board=services.gm_board(self.game), author=self.gm,
                           kind=Thread.Kind.DISCUSSION, title="天神讨论", body=note2,
                           enforce_rate_limit=False)
        self.markers[note] = self.markers[note2] = None
        grave = self.marker("GRAVEYARD")
        forum.start_thread(board=self.game.graveyard, author=self.gm,
                           kind=Thread.Kind.DISCUSSION, title="墓地闲聊", body=grave,
                           enforce_rate_limit=False)
        self.graveyard.append(grave)

    def plant_images(self) -> None:
        """Seat 1's player posts a thread of same-origin images aimed at the pages that mark
        things read (the probe's `![ ](/messenger/)`, `![ ](/games/2/act/)`, an admin
        conversation page...) and a remote one."""
        game = self.game
        seats = list(game.seats.select_related("user", "conversation").order_by("number"))
        announcements = Thread.objects.get(board=game.board, key="announcements")
        self.planted = ["/messenger/", "/messenger/all/", "/notifications/",
                        reverse("game-act", args=[game.pk]), announcements.get_absolute_url(),
                        game.board.get_absolute_url()]
        for seat in seats:
            self.planted += [reverse("messaging-conversation", args=[seat.conversation.pk]),
                             f"/admin/messaging/conversation/{seat.conversation.pk}/change/"]
        body = "\n\n".join(f"![ ]({url})" for url in self.planted)
        body += "\n\n![t](https://tracker.example/pixel.png) ![rel](../../messenger/)"
        self.image_thread = forum.start_thread(
            board=game.board, author=seats[0].user, kind=Thread.Kind.DISCUSSION,
            title="看图", body=body, enforce_rate_limit=False)

    def read_planted_images(self) -> None:
        """A player with a fresh result from 神的使者 and the GM with a player's fresh
        question open the image thread; nothing they have unread may change."""
        game = self.game
        seats = {s.number: s for s in game.seats.select_related("user", "conversation")}
        reader, asker = seats[2], seats[0]
        forum.send_as_messenger(conversation=reader.conversation, body="新的结果（看图前）")
        forum.send_to_messenger(conversation=asker.conversation, author=asker.user,
                                body="天神在吗（看图前）", enforce_rate_limit=False)
        url = self.image_thread.get_absolute_url()
        for user in (reader.user, self.gm):
            client = Client()
            client.force_login(user)
            self.moved += [f"{user}: {m}" for m in read_planted_thread(
                client, user, url, self.image_thread.pk, self.planted)]
            self.images_read += 1

    def substitute_seat(self, number: int) -> None:
        """The substitute (signed up as one when the table was laid) takes over a seat the
        GM opened for replacement, and with it the seat's conversation."""
        game = self.game
        services.start_substitution(game_id=game.pk, gm=self.gm, seat_number=number,
                                     reason="the leak crawler's handover")
        self.former = game.seats.get(number=number).user
        seat = services.accept_substitution(game_id=game.pk, user=self.substitute)
        assert seat.number == number and seat.user == self.substitute

    def undo_phase_end(self, now: dt.datetime) -> None:
        """The GM undoes the latest phase end (docs/undo.md): the phase it closed is open
        again, the steps taken since leave the log, its announcements and private results
        are withdrawn (still shown, marked so). What those results told some seats stays as
        secret from the others as it was: their events join every later snapshot's secrets."""
        game = self.game
        game.refresh_from_db()
        before = Secrets(game, {})
        plan = selectors.rollback_plan(game, "phase_end")
        assert not isinstance(plan, str), plan
        services.rollback(game_id=game.pk, gm=self.gm, kind="phase_end",
                          deadline=now + dt.timedelta(days=1), expected_version=game.version,
                          expected_target=plan.target, expected_steps=game.steps, now=now)
        kept = set(game.events.values_list("pk", flat=True))
        self.withdrawn[0].extend(e for e in before.events if e[2] not in kept)
        self.withdrawn[1].extend(e for e in before.event_data if e[2] not in kept)
        assert self.withdrawn[0], "the undone end told no seat anything of its own"
        game.refresh_from_db()

    def dead_watch(self) -> None:
        """Once two seats are dead, the first one's player watches the game (the others do
        not: a dead seat of each kind is crawled)."""
        if not self.game.is_live:
            return
        dead = list(self.game.seats.filter(alive=False).order_by("number")[:2])
        if len(dead) == 2 and services.watch_refusal(self.game, dead[0].user) is None:
            services.watch(game_id=self.game.pk, user=dead[0].user)

    def side_of(self, number: int | None) -> str | None:
        """The side a seat plays on, as its own view names it (its role, or its camp)."""
        if number is None:
            return None
        me = services.ruleset_of(self.game).view(self.game.state, number).get("me") or {}
        return me.get("role") or me.get("camp")

    def seats_of_each_kind(self, seats: list) -> list:
        """One seat of each kind, by what decides what a seat may know: its side (the role or
        camp its own view names), alive or dead, handed over or not. Seat 1's player (it
        tries the routes by every id), the staff player and the substitute are always among
        them, each standing for its kind."""
        watching = set(Watcher.objects.filter(game=self.game).values_list("user_id", flat=True))

        def kind(seat) -> tuple:
            return (self.side_of(seat.number), seat.alive, seat.user_id == self.substitute.pk,
                    seat.user_id in watching)

        def always(seat) -> bool:
            return seat.number == 0 or seat.user.is_staff or seat.user_id == self.substitute.pk

        chosen, kinds = [], set()
        for seat in sorted(seats, key=lambda s: (not always(s), s.number)):
            if always(seat) or kind(seat) not in kinds:
                chosen.append(seat)
                kinds.add(kind(seat))
        return sorted(chosen, key=lambda s: s.number)

    def viewers(self, *, every_seat: bool = True) -> list[Viewer]:
        out = [Viewer("anonymous", None)]
        seats = list(self.game.seats.select_related("user").order_by("number"))
        watching = set(Watcher.objects.filter(game=self.game).values_list("user_id", flat=True))
        for seat in seats if every_seat else self.seats_of_each_kind(seats):
            state = "alive" if seat.alive else (
                "dead, watching" if seat.user_id in watching else "dead")
            who = "substitute" if seat.user_id == self.substitute.pk else (
                "staff player" if seat.user.is_staff else "player")
            out.append(Viewer(f"{who} of seat {seat.number + 1} ({state})", seat.user,
                              seat.number, watches=seat.user_id in watching,
                              dead=not seat.alive))
        out.append(Viewer("watcher (an outsider)", self.watcher, watches=True))
        if self.former is None:
            out.append(Viewer("substitute-to-be (no seat yet)", self.substitute))
        else:
            out.append(Viewer("former player (replaced)", self.former))
        out.append(Viewer("outsider", self.outsider))
        out.append(Viewer("staff host of another game", self.host))
        return out

    # --- ids and routes ---
    def ids(self) -> dict[str, list[int]]:
        game = self.game
        boards = list(Board.objects.values_list("pk", flat=True))
        threads = list(Thread.objects.values_list("pk", flat=True))
        return {
            "game": [game.pk], "board": boards, "thread": threads,
            "post": list(Post.objects.order_by("pk").values_list("pk", flat=True)),
            "conversation": list(Conversation.objects.values_list("pk", flat=True)),
            "seat": list(game.seats.values_list("pk", flat=True)),
            "user": list(get_user_model().objects.values_list("pk", flat=True)),
            "phase": list(Phase.objects.filter(game=game).values_list("pk", flat=True)),
            "announcement": list(Announcement.objects.filter(game=game)
                                 .values_list("pk", flat=True)),
        }

    def known_urls(self, every_id: bool, admin: bool | None = None) -> dict[str, str]:
        """Every route filled with ids (url -> route): of its own kind, or (every_id) of
        every kind; the admin's routes with `admin` (by default with every_id). A route
        that refused a GET with 405 (POST only) is tried with one id only, except at the
        every_id snapshot."""
        admin = every_id if admin is None else admin
        ids = self.ids()
        # A permalink is tried for the posts of threads only the GM may read, the newest two
        # and (every_id) the first post of each thread: a readable one answers with a
        # redirect to its thread's page, which the crawl reads anyway, so trying the
        # hundreds of other posts (Classic announces every speech) would only repeat that.
        hidden = set(Post.objects.filter(HIDDEN_POSTS).values_list("pk", flat=True))
        firsts = set(Post.objects.filter(number=1).values_list("pk", flat=True)) \
            if every_id else set()
        ids["post"] = sorted(hidden | firsts | set(ids["post"][-2:]))
        union = sorted({i for values in ids.values() for i in values})
        slugs = list(Board.objects.values_list("slug", flat=True))
        kind_of = {"/games/": "game", "/t/": "thread", "/p/": "post", "/messenger/": "conversation",
                   "/u/": "user"}
        urls: dict[str, str] = {}
        for route, is_admin in known_routes():
            if is_admin:
                # Every admin route redirects a non-staff viewer to the sign-in whatever the
                # id: tried once per viewer, with the game's id, at one snapshot.
                if admin:
                    urls.update(dict.fromkeys(fill_route(route, [self.game.pk], slugs)[:1],
                                              route))
                continue
            kind = next((k for prefix, k in kind_of.items() if route.startswith(prefix)), None)
            filled = fill_route(route, union if every_id or kind is None else ids[kind], slugs,
                                self.game.seat_count)
            if route in self.post_only and not every_id:
                filled = filled[:1]
            urls.update(dict.fromkeys(filled, route))
        return urls

    def access_classes(self) -> dict[tuple[str, str], str]:
        """The objects whose ids matter to a crawl (`crawl.page_type`), each a class of its
        own: every game, board, thread and conversation (who may read each, and what each
        shows, differs from one to the next); the posts only the GM may read (GM-only
        threads, GM boards), the profiles of their authors and the seats those authors
        held. Any other post, profile or seat number is one of many alike. The anonymous
        visitor crawls with these classes; `viewer_classes` narrows them for the others."""
        keys = [("game", str(pk)) for pk in Game.objects.values_list("pk", flat=True)]
        keys += [("board", slug) for slug in Board.objects.values_list("slug", flat=True)]
        keys += [("thread", str(pk)) for pk in Thread.objects.values_list("pk", flat=True)]
        keys += [("conversation", str(pk))
                 for pk in Conversation.objects.values_list("pk", flat=True)]
        hidden = list(Post.objects.filter(HIDDEN_POSTS).values_list("pk", "author_id"))
        authors = {author for _, author in hidden}
        keys += [("post", str(pk)) for pk, _ in hidden]
        keys += [("user", str(author)) for author in authors]
        for seat in self.game.seats.all():
            held = {seat.user_id} | set(Substitution.objects.filter(seat=seat)
                                        .values_list("outgoing_id", flat=True))
            if held & authors:
                keys.append(("seat", str(seat.number + 1)))
        return {key: ":".join(key) for key in keys}

    def viewer_classes(self, viewer: Viewer, classes: dict, public: set[int]) -> dict:
        """`classes` as one viewer crawls. A conversation is its own class when the viewer
        owns it or once held its seat, else one of "another seat's, on the viewer's side",
        "another seat's, on another side" and "someone's, not a seat's" (the anonymous
        visitor owns none). For a signed-in viewer the threads the anonymous visitor read
        (`public`: their text is checked already, as its) are alike by board and kind, but
        for the open vote thread (its vote box is the seat's)."""
        out = dict(classes)
        seats = {s.conversation_id: s for s in self.game.seats.all()}
        held = set(Substitution.objects.filter(outgoing=viewer.user).values_list(
            "seat_id", flat=True)) if viewer.user is not None else set()
        mine = self.side_of(viewer.seat)
        for pk, owner in Conversation.objects.values_list("pk", "owner_id"):
            seat = seats.get(pk)
            if (viewer.user is not None and owner == viewer.user.pk) or (
                    seat is not None and seat.pk in held):
                continue
            if seat is None:
                out[("conversation", str(pk))] = "conversation:someone's, not a seat's"
            else:
                side = "the viewer's" if self.side_of(seat.number) == mine else "another"
                out[("conversation", str(pk))] = f"conversation:another seat's, on {side} side"
        if viewer.user is None:
            return out
        vote, _open = selectors.vote_thread(self.game)
        for pk, board, kind in Thread.objects.filter(pk__in=public).values_list(
                "pk", "board__kind", "kind"):
            if vote is None or pk != vote.pk:
                out[("thread", str(pk))] = f"thread:{board}/{kind}"
        return out

    def start_pages(self, viewer: Viewer) -> list[str]:
        pk = self.game.pk
        pages = ["/", reverse("game-list"), reverse("game-home", args=[pk]),
                 reverse("game-commitment", args=[pk]), self.game.board.get_absolute_url()]
        if viewer.user is not None:
            pages += [reverse("profile"), reverse("messaging-conversation-list"),
                      reverse("messaging-conversation-home"), reverse("game-act", args=[pk])]
        return pages

    # --- one snapshot ---
    def crawl(self, label: str, *, every_id: bool = False, admin: bool | None = None,
              full: bool = False, images: bool = False) -> None:
        """Every viewer fetches its pages; leaks are collected (the test asserts none).

        full: every seat's player and every page (the crawl at every phase); otherwise one
        seat of each kind (`seats_of_each_kind`) and, but for the anonymous visitor, who
        follows every link, one page of each type (`access_classes`). every_id: the known
        routes filled with ids of every kind too, for the viewers that try them; admin: the
        admin's routes (by default with every_id); images: the readers of the planted
        images open their thread afterwards (a running game only)."""
        started = time.perf_counter()
        self.game.refresh_from_db()
        self.dead_watch()
        secrets = Secrets(self.game, self.markers, self.graveyard)
        secrets.events += self.withdrawn[0]
        secrets.event_data += self.withdrawn[1]
        typed = self.known_urls(False, admin=False)
        every = self.known_urls(every_id, admin) if every_id or admin else typed
        classes = None if full else self.access_classes()
        public: set[int] = set()  # the threads the anonymous visitor read
        public_text = public_raw = ""
        viewers = self.viewers(every_seat=full)
        if self.game.is_over:
            # Only the markers are secret now, and a marker is its owner's whatever seat the
            # viewer held: one player with a seat stands for all (the review pages it reads
            # are the same for every seat).
            viewers = [v for v in viewers if v.seat in (None, 0)]
        for viewer in viewers:
            client = Client()
            if viewer.user is not None:
                client.force_login(viewer.user)
            extra = self.extra_urls(viewer, typed, every, full)
            # One page of each type; but what the anonymous visitor reads is what is public,
            # so it follows every link (the full crawl makes everyone do so).
            types = classes if classes is None else self.viewer_classes(viewer, classes, public)
            if viewer.label.startswith("staff player"):
                self.compare_without_staff(viewer, list(extra), types)
            pages = fetch_all(client, self.start_pages(viewer), list(extra), self.tally, types,
                              every_link=viewer.user is None)
            if viewer.label.startswith("staff player"):
                self.staff_diffs += [f"{viewer.label}, {label}: {d}" for d in staff_differences(
                    pages, self.twin_pages, STAFF_HEADER)]
            self.post_only.update(extra[p.url] for p in pages
                                  if p.status == 405 and p.url in extra)
            hidden = secrets.for_viewer(viewer, public_text, public_raw)
            if self.game.is_over:
                hidden = after_end_secrets(hidden)
            if viewer.user is None:
                public_text = "\x00".join(p.text for p in pages if p.status == 200)
                public_raw = "\x00".join(p.raw for p in pages if p.status == 200)
                public = {int(m.group(1)) for p in pages if p.status == 200
                          for m in [_THREAD_PAGE.match(p.url)] if m}
            self.leaks += find_leaks(viewer, pages, hidden)
            self.tally.secrets += len(hidden)
            self.tally.viewers.add(viewer.label.split(" (")[0])
            if viewer.dead:
                self.tally.viewers.add("a dead seat watching" if viewer.watches
                                       else "a dead seat")
            self.tally.private_events.update(
                s.what.split(",")[0] for s in hidden if s.what.startswith("event"))
        if images and not self.game.is_over:
            self.read_planted_images()
        self.tally.snapshots.append((label, round(time.perf_counter() - started, 2)))

    def extra_urls(self, viewer: Viewer, typed: dict[str, str], every: dict[str, str],
                   full: bool) -> dict[str, str]:
        """The known URLs a viewer tries besides the links it follows. Which object a URL
        reaches depends on the kind of viewer, not on which seat it holds: the routes by
        every id are tried by the viewers without a seat, seat 1's player and the
        substitute; in the full crawl the other players only follow links, in the suite's
        they try the routes by kind (one page of each type), and a route that answered a
        GET with 405 (POST only, whoever asks) is not tried again."""
        if viewer.seat in (None, 0) or viewer.user == self.substitute:
            urls = every
            if not full and viewer.user not in (self.outsider, self.host):
                # The admin's gate is staff status, which a seat or its absence does not
                # change: in the suite's crawl its routes are tried by the outsider and the
                # host only.
                urls = {u: r for u, r in every.items() if not u.startswith("/admin/")}
        elif viewer.label.startswith("staff player"):
            # A superuser: the admin shows it every game (the admin's per-game authority is
            # tested with the console); the site's pages are what it shares with a plain
            # player.
            urls = {u: r for u, r in every.items() if not u.startswith("/admin/")}
        else:
            urls = {} if full else typed
        if full:
            return urls
        return {u: r for u, r in urls.items() if r not in self.post_only}

    def compare_without_staff(self, viewer: Viewer, extra: list[str], types) -> None:
        """The staff player's pages as the same seat without staff status, fetched in a
        transaction that is rolled back (read marks, sessions and the flags come back)."""
        try:
            with transaction.atomic():
                get_user_model().objects.filter(pk=viewer.user.pk).update(
                    is_staff=False, is_superuser=False)
                client = Client()
                client.force_login(get_user_model().objects.get(pk=viewer.user.pk))
                self.twin_pages = fetch_all(client, self.start_pages(viewer), extra,
                                            self.tally, types)
                raise _RolledBack
        except _RolledBack:
            pass
        assert get_user_model().objects.get(pk=viewer.user.pk).is_staff


def assert_no_leaks(table: Table) -> None:
    assert not table.leaks, "\n".join(str(leak) for leak in table.leaks[:20])
    assert not table.staff_diffs, "\n".join(table.staff_diffs[:20])
    assert not table.moved, "\n".join(table.moved[:20])
    assert table.images_read >= 2


# --- the games ------------------------------------------------------------------------------

def ninelives_table(make_user, people, *, seed: str = "leak-crawler") -> Table:
    users = seated_users(make_user, NINE_NAMES)
    game = services.create_game(name="九命局", ruleset="ninelives", gm=people["gm"],
                                seat_count=5, config={"players": 5, "deal": FIVE},
                                early_end=False)
    game = services.start_game(game_id=game.pk, users=users, seed=seed, now=T0)
    return Table(game, people)


def classic_table(make_user, people) -> Table:
    users = seated_users(make_user, CLASSIC_NAMES)
    game = services.create_game(name="经典局", ruleset="classic", gm=people["gm"],
                                seat_count=11, config={"fixed_roles": CLASSIC_DEAL},
                                early_end=False)
    game = services.start_game(game_id=game.pk, users=users, seed="leak-crawler", now=T0)
    return Table(game, people)


def play_until(table: Table, rng: random.Random, now: dt.datetime, until: tuple[str, int], *,
               silent: dict | None = None, max_phases: int = 80) -> dt.datetime:
    """Seats act at random in each phase (`silent` as in `play`) and the clock ends it,
    until the phase `until` (name, number) is open and its seats have acted (the first of
    several phases of that name and number, such as Classic's one-speaker slots). Returns
    the clock's time."""
    game = table.game
    for _ in range(max_phases):
        game.refresh_from_db()
        assert game.status == Game.Status.RUNNING, f"the game ended before {until}"
        quiet = (silent or {}).get((game.phase_name, game.phase_number))
        act_randomly(game, rng, now + dt.timedelta(minutes=1),
                     silent=frozenset() if quiet is None else frozenset([quiet]))
        if (game.phase_name, game.phase_number) == until:
            return now
        now = end_current_phase(game)
    raise AssertionError(f"no {until} within {max_phases} phases")


def end_game(table: Table) -> None:
    """The GM aborts the game (an end like any other for the review)."""
    services.abort_game(game_id=table.game.pk, gm=table.gm, reason="the test's phase budget")
    table.game.refresh_from_db()


def play(table: Table, *, rng: random.Random, max_phases: int, substitute_at: int,
         substitute_seat: int, max_snapshots: int = 99,
         silent: dict | None = None) -> None:
    """The full crawl's game: drive it to its end: seats act at random, a snapshot is
    crawled once per phase (phases with the same name and number, such as Classic's
    one-speaker slots, count as one; after `max_snapshots`, no more), the substitute comes
    in at the `substitute_at`-th snapshot, and the clock ends each phase. A game still
    running after `max_phases` phases, or once the snapshots are spent, is aborted by the
    GM. `silent` maps a (phase name, number) to a seat that does not act in it (a player who
    misses a vote is out in 猫有n条命: a dead seat early on)."""
    game = table.game
    now = T0
    crawled = 0
    accepted = 0  # steps the service took: a game nobody could play proves nothing
    last_phase = None
    for _ in range(max_phases):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        quiet = (silent or {}).get((game.phase_name, game.phase_number))
        accepted += act_randomly(game, rng, now + dt.timedelta(minutes=1),
                                 silent=frozenset() if quiet is None else frozenset([quiet]))
        phase = (game.phase_name, game.phase_number)
        if game.status == Game.Status.RUNNING and phase != last_phase \
                and crawled < max_snapshots:
            last_phase = phase
            if crawled == substitute_at:
                table.substitute_seat(substitute_seat)
            last = crawled == substitute_at + 2
            table.crawl(f"{game.phase_name} {game.phase_number}", every_id=last, full=True,
                        images=True)
            crawled += 1
        if crawled >= max_snapshots:
            break  # the crawl budget is spent: the GM ends the game below
        if game.status == Game.Status.RUNNING:
            now = end_current_phase(game)
    assert accepted >= crawled, f"only {accepted} steps accepted in {crawled} phases crawled"
    game.refresh_from_db()
    if game.status == Game.Status.RUNNING:
        end_game(table)
    table.crawl("after the end", full=True)


# --- the suite's crawl: four moments of each game -------------------------------------------

@pytest.mark.slow(seconds=60)
def test_no_viewer_of_a_ninelives_game_sees_what_it_may_not_know(make_user, people):
    """Day 1 ties (seat 5 does not vote, and is out for it): the runoff, with a dead seat
    and the substitute still to come; night 2 once its seats acted (seat 4 handed over);
    night 2 again after the GM undid its end (day 2's votes and the dawn withdrawn); the
    end. About 45 s: some 2,500 page requests, every page type for every kind of viewer at
    four moments, which is the proof that no page leaks."""
    table = ninelives_table(make_user, people)
    game, rng = table.game, random.Random(4)
    play_until(table, rng, T0, ("runoff", 1), silent={("day", 1): 4})
    table.crawl("runoff 1", admin=True, images=True)
    table.substitute_seat(3)
    play_until(table, rng, end_current_phase(game), ("night", 2))
    table.crawl("night 2, results pending")
    now = play_until(table, rng, end_current_phase(game), ("day", 2))
    table.undo_phase_end(now + dt.timedelta(minutes=2))
    assert (game.phase_name, game.phase_number) == ("night", 2)
    table.crawl("night 2 again, after the GM's undo")
    end_game(table)
    table.crawl("after the end")
    print("\nninelives crawl:", table.tally)
    assert_no_leaks(table)
    # The crawl checked something real: private sentences (106 events or their data when
    # written), dead seats, the substitute.
    assert len(table.tally.private_events) >= 50
    assert {"player of seat 1", "substitute of seat 4", "former player", "outsider",
            "anonymous", "substitute-to-be", "a dead seat", "staff player of seat 2", "watcher",
            "staff host of another game", "a dead seat watching"} <= table.tally.viewers


@pytest.mark.slow(seconds=65)
def test_no_viewer_of_a_classic_game_sees_what_it_may_not_know(make_user, people):
    """Night 1 once its seats acted (the police's check and the bandits' kill pending), with
    the substitute still to come; day 1's vote among the tied (seat 3 handed over, a dead
    seat); night 2 again after the GM undid its end; the end. About 45 s: some 2,500 page
    requests, every page type for every kind of viewer at four moments."""
    table = classic_table(make_user, people)
    game, rng = table.game, random.Random(2)
    play_until(table, rng, T0, ("night", 1))
    table.crawl("night 1, results pending", admin=True, images=True)
    table.substitute_seat(2)
    play_until(table, rng, end_current_phase(game), ("tie_vote", 1))
    table.crawl("the vote among the tied of day 1")
    play_until(table, rng, end_current_phase(game), ("night", 2))
    now = end_current_phase(game)
    play_until(table, rng, now, (game.phase_name, game.phase_number))
    table.undo_phase_end(now + dt.timedelta(minutes=2))
    assert (game.phase_name, game.phase_number) == ("night", 2)
    table.crawl("night 2 again, after the GM's undo")
    end_game(table)
    table.crawl("after the end")
    print("\nclassic crawl:", table.tally)
    assert_no_leaks(table)
    assert len(table.tally.private_events) >= 30  # 72 when written
    assert {"player of seat 1", "substitute of seat 3", "former player", "outsider",
            "anonymous", "substitute-to-be", "a dead seat", "staff player of seat 2", "watcher",
            "staff host of another game"} <= table.tally.viewers


@pytest.mark.slow
def test_the_crawler_finds_leaks_when_there_are_some(make_user, people, monkeypatch):
    """The checks can fail: with two leaks planted (the event export shows every event to
    everyone, the second seat's own aside for visitors not signed in; a conversation opens
    for whoever asks by id), the suite's crawl reports both, and the private sentences of the
    first night among them."""
    import messaging.views
    from games.models import Event

    users = [make_user(n) for n in NINE_NAMES]
    game = services.create_game(name="漏洞局", ruleset="ninelives", gm=people["gm"],
                                seat_count=5, config={"players": 5, "deal": FIVE},
                                early_end=False)
    game = services.start_game(game_id=game.pk, users=users, seed="leak-canary", now=T0)
    table = Table(game, people)
    act_randomly(game, random.Random(1), T0 + dt.timedelta(minutes=1))
    real_get = messaging.views.get_object_or_404
    def every_event(game, user):
        # Everyone reads every event, but a visitor not signed in misses the second seat's
        # own ones: what the public pages say is no secret to a seat any more, so without
        # that gap the seat's check would have nothing left to find.
        events = Event.objects.filter(game=game)
        return events if user is not None and user.is_authenticated \
            else events.exclude(audience=",1,")

    monkeypatch.setattr(selectors, "events_visible_to", every_event)
    monkeypatch.setattr(messaging.views, "get_object_or_404", lambda klass, *args, **kw: real_get(
        klass, *args, **{k: v for k, v in kw.items() if k != "owner"}))
    table.crawl("night 1 with planted leaks")
    found = {(leak.viewer.split(" (")[0], leak.secret.split(",")[0].split(" ")[0])
             for leak in table.leaks}
    assert ("outsider", "a") in found          # someone else's conversation marker
    assert ("anonymous", "event") in found     # a private event in the export
    assert ("player of seat 1", "event") in found


def test_the_crawler_finds_what_watchers_and_the_living_may_not_see(make_user, people,
                                                                   monkeypatch):
    """The watchers' and the graveyard's checks can fail too: with a watch page that shows
    the game as it stands with the GM's own events, and a graveyard open to everyone before
    the end, the crawl reports the watcher reading events it may not, and the anonymous
    visitor reading the graveyard."""
    from games.engine.base import GM
    from games.selectors.watch import Watched
    from messaging import rules

    users = [make_user(n) for n in NINE_NAMES]
    game = services.create_game(name="漏洞局", ruleset="ninelives", gm=people["gm"],
                                seat_count=5, config={"players": 5, "deal": FIVE},
                                early_end=False)
    game = services.start_game(game_id=game.pk, users=users, seed="leak-canary", now=T0)
    table = Table(game, people)
    act_randomly(game, random.Random(1), T0 + dt.timedelta(minutes=1))
    now = end_current_phase(game)  # night 1 ends
    act_randomly(game, random.Random(2), now + dt.timedelta(minutes=1))

    def too_soon(game):  # the phase being played, and what only the GM may read
        return Watched(phase=game.current_phase, steps=list(game.actions.order_by("seq")),
                       view=services.ruleset_of(game).view(game.state, GM))

    monkeypatch.setattr(selectors, "watched", too_soon)
    rules.unregister_hidden_boards(selectors.graveyards_hidden_from)
    try:
        table.crawl("night 2 with planted leaks")
    finally:
        rules.register_hidden_boards(selectors.graveyards_hidden_from)
    found = {(leak.viewer.split(" (")[0], leak.secret.split(",")[0].split(" ")[0])
             for leak in table.leaks}
    assert ("watcher", "event") in found
    assert ("anonymous", "the") in found  # the graveyard, before the end
    assert not any(leak.viewer.startswith("watcher") and "graveyard" in leak.secret
                   for leak in table.leaks)


# --- the full crawl: every phase, every seat, every page --------------------------------------

# Collected only when asked (make crawl) or when the pages changed since the last full crawl
# passed (tests/proof/crawl_stamp.py), so a run that does not need it neither runs nor skips
# it; the suite's crawl above runs every time.
FULL_CRAWL_DUE = full_crawl_due()


@pytest.mark.slow(seconds=330)
def at_every_phase_no_viewer_of_a_ninelives_game_sees_what_it_may_not_know(make_user, people):
    """The crawl at every phase of a 猫有n条命 game: minutes (every seat, every page)."""
    began_on = crawl_stamp.digest()  # the page files this crawl proves
    table = ninelives_table(make_user, people)
    play(table, rng=random.Random(4), max_phases=9, substitute_at=2, substitute_seat=3,
         silent={("day", 1): 4})
    print("\nninelives crawl at every phase:", table.tally)
    assert_no_leaks(table)
    assert len(table.tally.private_events) >= 20
    assert {"player of seat 1", "substitute of seat 4", "former player", "outsider",
            "anonymous", "substitute-to-be", "a dead seat", "staff player of seat 2", "watcher",
            "staff host of another game"} <= table.tally.viewers
    crawl_stamp.passed("ninelives", began_on)  # make crawl stamps only what passed


@pytest.mark.slow(seconds=490)
def at_every_phase_no_viewer_of_a_classic_game_sees_what_it_may_not_know(make_user, people):
    """The crawl at every phase of a Classic game: minutes (every seat, every page)."""
    began_on = crawl_stamp.digest()  # the page files this crawl proves
    table = classic_table(make_user, people)
    play(table, rng=random.Random(7), max_phases=40, substitute_at=1, substitute_seat=2,
         max_snapshots=5)
    print("\nclassic crawl at every phase:", table.tally)
    assert_no_leaks(table)
    assert len(table.tally.private_events) >= 10
    assert {"player of seat 1", "substitute of seat 3", "former player", "outsider",
            "anonymous", "substitute-to-be", "a dead seat", "staff player of seat 2", "watcher",
            "staff host of another game"} <= table.tally.viewers
    crawl_stamp.passed("classic", began_on)  # make crawl stamps only what passed


if FULL_CRAWL_DUE:
    test_at_every_phase_no_viewer_of_a_ninelives_game_sees_what_it_may_not_know = (
        at_every_phase_no_viewer_of_a_ninelives_game_sees_what_it_may_not_know)
    test_at_every_phase_no_viewer_of_a_classic_game_sees_what_it_may_not_know = (
        at_every_phase_no_viewer_of_a_classic_game_sees_what_it_may_not_know)
