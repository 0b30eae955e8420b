"""The leak crawler's machinery: drive a game through the services, list what each viewer
may not know, fetch every page that viewer can reach, and report any secret found.

Texts are compared "squashed": tags and scripts removed, entities unescaped, ALL whitespace
removed, on both sides; a sentence rendered as Markdown in a message, as a table row in a
panel or as indented JSON in a dump is then found whatever the layout.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import random
import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from django.template.loader import render_to_string, select_template
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve
from django.utils import translation

from games import rulesets, selectors, services
from games.engine.base import replay
from games.engine.conformance import fill
from games.models import Game
from games.presenters import describe
from games.web.events_export import data_json, reason_json
from messaging.models import Conversation
from messaging.rendering import render_markdown

MIN_SECRET = 10  # squashed characters: shorter strings are too common to mean anything
# A panel's statements need more: template words ("no card left") are shared by every panel.
MIN_STATEMENT = 16
LANGUAGE = "zh-hans"  # every test user and the anonymous visitor read the site in Chinese

# Where the crawl never goes: other sites' login flows, static files, the language switch.
SKIP_PREFIXES = ("/static/", "/accounts/", "/i18n/", "/admin/", "/healthz")
# The only query parameter that selects different content is a numbered `page` (every page
# links its neighbours by number; "last" is the default page of a conversation and is reached
# by number in a thread). `quote` pre-fills the reply box with a post of the same, already
# fetched, thread: dropped, like everything else, to keep the crawl small.
KEPT_QUERY = ("page",)
MAX_PAGES = 300  # found by links, per viewer and snapshot: more means the crawl ran away

_DROPPED = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_HREF = re.compile(r'href="([^"]*)"')


def squash(text: str) -> str:
    return _SPACE.sub("", text)


def plain(html: str) -> str:
    """The text a reader sees: scripts and styles dropped, tags removed, entities decoded."""
    return unescape(_TAG.sub(" ", _DROPPED.sub(" ", html)))


def markdown_plain(text: str) -> str:
    return plain(render_markdown(text))


def json_squashed(value) -> str:
    return squash(json.dumps(value, ensure_ascii=False, sort_keys=False))


# --- what a page says ----------------------------------------------------------------------

class _Blocks(HTMLParser):
    """The text of every block element (p, li, ul, ol, tr, pre, dd, h3): a panel's
    statements; a list's text is its items in order (a hand, a loss order)."""

    BLOCKS = {"p", "li", "ul", "ol", "tr", "pre", "dd", "h3"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[list[str]] = []
        self.found: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        if tag in self.BLOCKS:
            self.open.append([])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)
        if tag in self.BLOCKS and self.open:
            text = "".join(self.open.pop())
            self.found.append(text)
            if self.open:
                self.open[-1].append(text)

    def handle_data(self, data):
        if not self._skip and self.open:
            self.open[-1].append(data)


def blocks(html: str) -> set[str]:
    parser = _Blocks()
    parser.feed(html)
    return {s for s in (squash(b) for b in parser.found) if len(s) >= MIN_STATEMENT}


@dataclass
class Page:
    url: str
    status: int
    text: str      # squashed plain text
    raw: str       # squashed, unescaped HTML (attribute values included)


@dataclass
class Secret:
    what: str      # who may know it and why the viewer may not, for the failure message
    text: str      # squashed
    in_markup: bool = False  # JSON-shaped: also looked for in attribute values


@dataclass
class Viewer:
    label: str
    user: object | None        # None: an anonymous visitor
    seat: int | None = None    # the seat the user holds now
    watches: bool = False      # follows the game on its watch page (games.services.watching)
    dead: bool = False         # holds a dead seat (reads the graveyard)


@dataclass
class Leak:
    viewer: str
    url: str
    secret: str
    text: str

    def __str__(self):
        return f"{self.viewer} sees [{self.secret}] on {self.url}: {self.text[:160]}"


@dataclass
class Tally:
    """What the crawl covered, so a test can show it checked something real."""

    requests: int = 0
    pages: int = 0
    secrets: int = 0
    private_events: set = field(default_factory=set)
    viewers: set = field(default_factory=set)
    snapshots: list = field(default_factory=list)
    statuses: dict = field(default_factory=dict)


# --- the secrets ---------------------------------------------------------------------------

def panel_html(game: Game, seat) -> str:
    """Seat's "my hand" panel, rendered exactly as the act page includes it."""
    view = services.ruleset_of(game).view(game.state, seat.number)
    template = select_template([f"games/panels/{game.ruleset}.html",
                                "games/panels/default.html"])
    with translation.override(LANGUAGE):
        return render_to_string(template.template.name, {
            "view": view, "names": selectors.seat_names(game), "seat": seat, "game": game,
            "me": json.dumps(view.get("me", {}), ensure_ascii=False, indent=1)})


def watched_game(game: Game) -> Game | None:
    """A copy of `game` holding the state its watchers may see, worked out here and not by
    the page's own code: the replay of the steps up to the end of the phase `watch_delay`
    phases before the current one (None: nothing yet, or nobody watches)."""
    if not game.is_live or not game.watch_delay or game.current_phase is None:
        return None
    phase = game.phases.filter(seq=game.current_phase.seq - game.watch_delay).first()
    if phase is None:
        return None
    steps = [a.as_step() for a in game.actions.filter(phase__seq__lte=phase.seq).order_by("seq")]
    then = copy.copy(game)
    then.state = replay(services.ruleset_of(game), {
        "seats": game.seat_count, "config": game.config, "seed": game.seed}, steps)
    return then


def me_fragments(game: Game, number: int) -> set[str]:
    """Each list or mapping in the seat's private part as JSON ("hand": [...]); single
    values ("camp": "wolf") are left to the panel's sentences, since the same JSON is public
    once the seat dies."""
    me = services.ruleset_of(game).view(game.state, number).get("me") or {}
    out = set()
    for key, value in me.items():
        if not isinstance(value, list | dict) or not value:
            continue
        text = squash(json.dumps(key, ensure_ascii=False)) + ":" + json_squashed(value)
        if len(text) >= MIN_STATEMENT:
            out.add(text)
    return out


class Secrets:
    """Everything about one snapshot of a game that some viewer may not know.

    Steps (built once per snapshot, then filtered per viewer):
    1. each non-public event's sentence, as `describe` writes it for people, with its
       audience (GM-only events have none);
    2. each seat's panel, cut into its statements, and its private part as JSON;
    3. the GM-only parts of the state (deal, taints...) as JSON, the deal's commitment text
       and salt;
    4. the markers planted in conversations and GM-only threads (`markers`: text -> the
       conversation's id, None for a GM-only thread or the game's GM board); a
       conversation's owner is read now, so a seat handed to a substitute takes its history
       along; and those planted in the game's graveyard (`graveyard`: its watchers read them,
       and its dead players where the dead write nothing on the game's board; nobody else
       before the end);
    5. for the watchers: what the watch page may show them (games.selectors.watch): the
       events of the audience view of the state at the end of the phase `watch_delay`
       phases before the current one, and every seat's panel and private part at that end.
       Anything else is as secret from a watcher as from any outsider.
    """

    def __init__(self, game: Game, markers: dict[str, int | None],
                 graveyard: list[str] = ()):
        self.game = game
        engine = services.ruleset_of(game)
        names = selectors.seat_names(game)
        self.events: list[tuple[str, frozenset[int], int]] = []
        texts: dict[int, str] = {}
        every = list(game.events.order_by("id"))
        with translation.override(LANGUAGE):
            for e in every:
                texts[e.pk] = squash(markdown_plain(
                    describe(game.ruleset, e.as_engine_event(), names)))
        # The same events as data, as the JSON export shows them (seats numbered from 1, as
        # on the pages): the arguments of each reason of the `because` chain and the data,
        # keys sorted, as find_leaks reads JSON answers. A public reason's arguments are
        # public data: a death announced with the dead seat's card tells everyone the card
        # the deal gave that seat.
        self.event_data: list[tuple[list[str], frozenset[int], int]] = []

        def as_json(value) -> str:
            return squash(json.dumps(value, ensure_ascii=False, sort_keys=True))

        with translation.override(LANGUAGE):
            data_of = {e.pk: [as_json(r["args"]) for r in (
                reason_json(game.ruleset, b, names) for b in e.because or [])
                if r is not None and r["args"]] + [as_json(data_json(game.ruleset, e.kind,
                                                                       e.data))]
                for e in every}
        for e in every:
            if not e.public:
                audience = frozenset(int(s) for s in e.audience.strip(",").split(",") if s)
                self.events.append((texts[e.pk], audience, e.pk))
                self.event_data.append((data_of[e.pk], audience, e.pk))
        self.visible_data = {
            number: "\x00".join("\x00".join(data_of[e.pk]) for e in every
                                 if e.visible_to_seat(number))
            for number in range(game.seat_count)}
        self.public_data = "\x00".join("\x00".join(data_of[e.pk]) for e in every if e.public)
        self.public_texts = "\x00".join(texts[e.pk] for e in every if e.public)
        self.visible_texts = {
            number: "\x00".join(texts[e.pk] for e in every if e.visible_to_seat(number))
            for number in range(game.seat_count)}
        seats = list(game.seats.select_related("user"))
        self.panels = {s.number: blocks(panel_html(game, s)) for s in seats}
        self.me = {s.number: me_fragments(game, s.number) for s in seats}
        self.gm_state = set()
        for key, value in (game.state.get("secret") or {}).items():
            if value in (None, "", [], {}) or isinstance(value, bool | int | float):
                continue
            text = squash(json.dumps(key)) + ":" + json_squashed(value)
            self.gm_state.add(text)
        # Options the GM gave that the engine keeps out of its public config (a fixed deal).
        for key, value in (game.config or {}).items():
            if key not in game.state.get("config", {}) and value not in (None, "", [], {}):
                self.gm_state.add(squash(json.dumps(key)) + ":" + json_squashed(value))
        text = engine.commitment_text(game.state)
        self.deal = [t for t in (squash(text) if text else "", game.salt) if t]
        self.phase_names = hidden_phase_names(game, every)
        owners = dict(Conversation.objects.filter(pk__in=[c for c in markers.values() if c])
                      .values_list("pk", "owner_id"))
        self.markers = {text: owners.get(conversation) for text, conversation in markers.items()}
        self.graveyard = list(graveyard)
        # Where the dead may still reply on the game's board, they read the graveyard only
        # once they watch (games.selectors.watch.graveyards_hidden_from).
        self.dead_reply = rulesets.get(game.ruleset).dead_talk.replies
        self.watched_events: set[int] = set()
        self.watched_panels: dict[int, set[str]] = {}
        self.watched_me: dict[int, set[str]] = {}
        then = watched_game(game)
        if then is not None:
            known = {e["seq"] for e in then.state["log"]
                     if e["visibility"]["public"] or e["visibility"]["seats"]}
            self.watched_events = {e.pk for e in every if e.seq in known}
            self.watched_panels = {s.number: blocks(panel_html(then, s)) for s in seats}
            self.watched_me = {s.number: me_fragments(then, s.number) for s in seats}
        self.watched_texts = "\x00".join(texts[e.pk] for e in every
                                          if e.pk in self.watched_events)
        self.watched_data = "\x00".join("\x00".join(data_of[e.pk]) for e in every
                                         if e.pk in self.watched_events)

    def for_viewer(self, viewer: Viewer, public_text: str, public_raw: str) -> list[Secret]:
        """What `viewer` may not know now, less what the public pages already say."""
        own = viewer.seat
        watched = self.watched_events if viewer.watches else set()
        out: list[Secret] = []
        visible = self.visible_texts.get(own, "") if own is not None else ""
        if viewer.watches:
            visible += "\x00" + self.watched_texts
        for text, audience, pk in self.events:
            if own in audience or pk in watched or len(text) < MIN_SECRET or text in visible \
                    or text in public_text:
                continue
            who = f"seats {sorted(n + 1 for n in audience)}" if audience else "the GM"
            out.append(Secret(f"event {pk}, for {who}", text))
        visible_data = self.visible_data.get(own, self.public_data) if own is not None \
            else self.public_data
        if viewer.watches:
            visible_data += "\x00" + self.watched_data
        for pieces, audience, pk in self.event_data:
            if own in audience or pk in watched:
                continue
            who = f"seats {sorted(n + 1 for n in audience)}" if audience else "the GM"
            for text in pieces:
                if len(text) >= MIN_STATEMENT and text not in visible_data \
                        and text not in public_raw:
                    out.append(Secret(f"event {pk} as data, for {who}", text, True))
        mine_blocks = self.panels.get(own, set())
        mine_json = self.me.get(own, set())
        known = [t for t in self.visible_texts.get(own, self.public_texts).split("\x00")
                 if len(t) >= MIN_SECRET]
        if viewer.watches:
            known += [t for t in self.watched_texts.split("\x00") if len(t) >= MIN_SECRET]
        for number, statements in self.panels.items():
            if number == own:
                continue
            then_blocks = self.watched_panels.get(number, set()) if viewer.watches else set()
            then_me = self.watched_me.get(number, set()) if viewer.watches else set()
            for text in statements - mine_blocks - then_blocks:
                if len(without(text, known)) >= MIN_STATEMENT and text not in public_text:
                    out.append(Secret(f"panel of seat {number + 1}", text))
            for text in self.me[number] - mine_json - then_me:
                if text not in public_raw:
                    out.append(Secret(f"private part of seat {number + 1}", text, True))
        if not self.game.is_over:
            out += [Secret("GM-only state", t, True) for t in self.gm_state]
            out += [Secret("the deal before the end", t, True) for t in self.deal]
        for text, owner in self.markers.items():
            if owner is None or viewer.user is None or owner != viewer.user.pk:
                out.append(Secret("a conversation or GM-only thread of someone else", text))
        reads_graveyard = viewer.watches or (viewer.dead and not self.dead_reply)
        if not self.game.is_over and not reads_graveyard:
            out += [Secret("the graveyard, before the end", t) for t in self.graveyard]
        for text, audience, pk in self.phase_names:
            if own not in audience and pk not in watched:
                out.append(Secret(f"a phase only seats {sorted(n + 1 for n in audience)} "
                                  f"know of", text))
        return out


# Phases a rule set keeps from some seats, by the event that opens them (its audience knows
# the phase): Classic's extra check of the police after checking the poison (seed 003 poison
# rules 3-4), named in Chinese and in English as the pages once named it.
HIDDEN_PHASES = {
    ("classic", "extra_check"): ("第{n}夜 · 追加验人", "Night {n} · extra check"),
}


def hidden_phase_names(game: Game, events) -> list[tuple[str, frozenset[int], int]]:
    """(squashed phase name, the seats that know of it, the event that opened it) for each
    hidden phase the game has opened (`HIDDEN_PHASES`); the GM and those seats may read it,
    and watchers once that event is in what they see, nobody else."""
    out = []
    for e in events:
        forms = HIDDEN_PHASES.get((game.ruleset, e.kind))
        if not forms or e.phase is None:
            continue
        audience = frozenset(int(s) for s in e.audience.strip(",").split(",") if s)
        out += [(squash(form.format(n=e.phase.number)), audience, e.pk) for form in forms]
    return out


def without(statement: str, texts: list[str]) -> str:
    """The statement less every sentence the viewer already knows (a panel line that only
    labels an event the viewer saw, or a public one, says nothing new)."""
    for t in texts:
        if t in statement:
            statement = statement.replace(t, "")
    return statement


def after_end_secrets(secrets: list[Secret]) -> list[Secret]:
    """After the end the review reveals the game; other people's conversations stay theirs."""
    return [s for s in secrets if s.what.startswith("a conversation")]


# --- fetching ------------------------------------------------------------------------------

def _route_params(route: str) -> list[tuple[str, str]]:
    return re.findall(r"<(?:(\w+):)?(\w+)>", route)


def known_routes() -> list[tuple[str, bool]]:
    """Every route of the site with its parameters, as (route, is_admin); allauth's,
    the language switch, static files and the favicon are left out (they hold no game
    data), and so are /healthz and /readyz (about the machine, not about any viewer; /readyz
    answers 503 until a beat has swept)."""
    out = []

    def walk(patterns, prefix: str):
        for p in patterns:
            route = getattr(p.pattern, "_route", None)
            if route is None:  # a regex pattern (admin's app index, static, i18n)
                continue
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + route)
            elif isinstance(p, URLPattern):
                full = "/" + prefix + route
                if not full.startswith(("/accounts/", "/i18n/", "/static/", "/readyz",
                                        "/healthz", "/favicon.ico")):
                    out.append((full, full.startswith("/admin/")))

    walk(get_resolver().url_patterns, "")
    return out


def fill_route(route: str, ids: list[int], slugs: list[str], seats: int = 1) -> list[str]:
    """The route filled in every way: its first parameter with every id (id, int, path) or slug
    (str, slug); a second int parameter (a seat number) with 1..`seats`, others with the
    first value."""
    params = _route_params(route)
    if not params:
        return [route]

    def values(converter: str, position: int) -> list[str]:
        if converter in ("id", "int", "path"):
            return [str(i) for i in ids] if position == 0 else [
                str(n) for n in range(1, seats + 1)]
        return slugs

    urls = [route]
    for position, (converter, _name) in enumerate(params):
        options = values(converter or "str", position)
        if position > 1:
            options = options[:1]
        urls = [re.sub(r"<[^>]+>", v, u, count=1) for u in urls for v in options]
    return urls


def normalize(url: str, base: str) -> str | None:
    """An on-site path to crawl, or None. Fragments go; only `page` survives in the query."""
    parts = urlsplit(urljoin("http://testserver" + base, unescape(url)))
    if parts.netloc != "testserver" or parts.path.startswith(SKIP_PREFIXES):
        return None
    query = [(k, v) for k, v in parse_qsl(parts.query) if k in KEPT_QUERY and v.isdigit()]
    return parts.path + ("?" + urlencode(query) if query else "")


# The kind of object a route's first parameter names, by the route's first segment; a second
# parameter is a seat number (a game's seat posts, the review of a seat).
PARAM_KINDS = {"games": "game", "t": "thread", "p": "post", "messenger": "conversation",
               "u": "user", "b": "board"}


def page_type(url: str, classes: dict[tuple[str, str], str]) -> str:
    """What kind of page `url` is: its route with each parameter replaced by the class of the
    object it names (`classes`: (kind, value) -> class, for the objects whose ids matter; any
    other value is "any"), the query left out. Two URLs of one type are the same page for
    objects any viewer reads alike: page 2 of a thread, another public post or profile."""
    path = url.split("?", 1)[0]
    try:
        match = resolve(path)
    except Resolver404:
        return url
    head = match.route.split("/", 1)[0]
    parts = [classes.get((PARAM_KINDS.get(head, head) if i == 0 else "seat", str(value)), "any")
             for i, value in enumerate(match.kwargs.values())]
    return match.route + "|" + ",".join(parts)


def fetch_all(client: Client, starts: list[str], extra: list[str], tally: Tally,
              classes: dict[tuple[str, str], str] | None = None,
              every_link: bool = False) -> list[Page]:
    """GET every start page and everything reachable from it by links or redirects (on this
    site, GET only), then every `extra` URL not reached yet (and what it links to). With
    `classes`, one URL of each page type (`page_type`): a URL whose type was fetched already
    is left out; with `every_link` too, only the start and extra URLs are (every link is
    followed)."""
    seen: dict[str, Page] = {}
    types: set[str] = set()
    queue = [(u, False) for u in list(starts) + list(extra)]
    allowed = len(queue) + MAX_PAGES
    while queue:
        url, linked = queue.pop(0)
        if url in seen:
            continue
        if classes is not None:
            kind = page_type(url, classes)
            if kind in types and not (linked and every_link):
                continue
            types.add(kind)
        assert len(seen) < allowed, f"the crawl ran away: {len(seen)} pages"
        response = client.get(url)
        tally.requests += 1
        tally.statuses[response.status_code] = tally.statuses.get(response.status_code, 0) + 1
        body = response.content.decode("utf-8", "replace")
        if "json" in response.get("Content-Type", "") and response.status_code == 200:
            # Unicode escapes decoded and keys sorted, as the secrets are written.
            text = squash(json.dumps(json.loads(body), ensure_ascii=False, sort_keys=True))
            page = Page(url, response.status_code, text, text)
        else:
            page = Page(url, response.status_code, squash(plain(body)), squash(unescape(body)))
        seen[url] = page
        if response.status_code in (301, 302, 303, 307, 308):
            nxt = normalize(response["Location"], url)
            if nxt:
                queue.append((nxt, True))
        elif response.status_code == 200 and "html" in response.get("Content-Type", ""):
            tally.pages += 1
            for href in _HREF.findall(body):
                nxt = normalize(href, url)
                if nxt and nxt not in seen:
                    queue.append((nxt, True))
    return list(seen.values())


def find_leaks(viewer: Viewer, pages: list[Page], secrets: list[Secret]) -> list[Leak]:
    leaks = []
    for page in pages:
        assert page.status < 500, f"{viewer.label}: {page.url} answered {page.status}"
        for s in secrets:
            haystack = page.raw if s.in_markup else page.text
            at = haystack.find(s.text)
            if at >= 0:
                leaks.append(Leak(viewer.label, page.url, s.what, s.text))
    return leaks


# --- driving a game ------------------------------------------------------------------------

def act_randomly(game: Game, rng: random.Random, now: dt.datetime, passes: int = 3,
                 silent: frozenset[int] = frozenset()) -> int:
    """Each seat the phase awaits (except the `silent` ones) takes a random legal step (a
    kind first, then one of its choices; never a withdrawal), up to `passes` rounds;
    refusals (a cut-off, a step that lost its point) are ignored. Returns how many steps
    were accepted."""
    engine = services.ruleset_of(game)
    accepted = 0
    for _ in range(passes):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        awaiting = sorted(engine.phase(game.state).awaiting)
        if not awaiting:
            break
        users = {s.number: s.user for s in game.seats.select_related("user")}
        for number in awaiting:
            if number in silent:
                continue
            game.refresh_from_db()
            choices = [c for c in engine.legal_actions(game.state, number)
                       if c.kind != "withdraw"]
            if not choices:
                continue
            kinds = sorted({c.kind for c in choices})
            kind = rng.choice(kinds)
            step = fill(rng.choice([c for c in choices if c.kind == kind]), number, rng)
            try:
                services.submit_action(game_id=game.pk, user=users[number], kind=step["kind"],
                                       params=step["params"], now=now)
            except services.GameError:
                continue
            accepted += 1
    game.refresh_from_db()
    return accepted


def end_current_phase(game: Game) -> dt.datetime:
    """Let the clock end the phase (its deadline passes); returns the moment used."""
    game.refresh_from_db()
    later = game.deadline + services.grace() + dt.timedelta(seconds=1)
    services.sweep(now=later)
    game.refresh_from_db()
    return later


# --- a staff player's pages against a plain player's ----------------------------------------

_STAFF_ONLY = ("/admin/",)  # the 天神 console: staff status itself
# The lobby's new-thread form: staff may post the site's announcements there (staff status
# itself, nothing of a game).
_SITE_STAFF = {"/b/lobby/new/"}
# The links into the admin that pages show staff (no data of any game): the header's 天神
# console, the conversation page's link to the admin's waiting list.
STAFF_HEADER = {"天神控制台": "", "GM console": "", "等待回复的玩家对话": "",
                "Players' conversations waiting for an answer": ""}


def twin_texts(client_pages: list[Page]) -> dict[str, tuple[int, str]]:
    """url -> (status, text) of the pages a viewer reached outside the admin."""
    return {p.url: (p.status, p.text) for p in client_pages
            if not p.url.startswith(_STAFF_ONLY) and p.url not in _SITE_STAFF}


def normalise(text: str, names: dict[str, str]) -> str:
    """A page's text with each name in `names` replaced (the two twins' own names and the
    staff badge, which the user's own posts carry for everyone)."""
    for name, placeholder in names.items():
        text = text.replace(name, placeholder)
    return text


def staff_differences(staff_pages: list[Page], plain_pages: list[Page],
                      names: dict[str, str]) -> list[str]:
    """Where a staff player's pages differ from the same seat's pages seen without staff
    status: a URL one reaches and the other does not, another status, or another text."""
    staff, plain_ = twin_texts(staff_pages), twin_texts(plain_pages)
    out = [f"{url}: reached only {'with' if url in staff else 'without'} staff status"
           for url in sorted(set(staff) ^ set(plain_))]
    for url in sorted(set(staff) & set(plain_)):
        (s_status, s_text), (p_status, p_text) = staff[url], plain_[url]
        if s_status != p_status:
            out.append(f"{url}: {s_status} with staff status, {p_status} without")
        elif normalise(s_text, names) != normalise(p_text, names):
            a, b = normalise(s_text, names), normalise(p_text, names)
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                      min(len(a), len(b)))
            out.append(f"{url}: with staff status …{a[max(0, at - 60):at + 80]}… "
                       f"without …{b[max(0, at - 60):at + 80]}…")
    return out


# --- a reader of planted images -------------------------------------------------------------

# What a browser sends when it loads an <img>: with Fetch Metadata, and an old one without.
IMAGE_FETCHES = [
    {"HTTP_SEC_FETCH_MODE": "no-cors", "HTTP_SEC_FETCH_DEST": "image",
     "HTTP_SEC_FETCH_SITE": "same-origin",
     "HTTP_ACCEPT": "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"},
    {"HTTP_ACCEPT": "image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5"},
]
NAVIGATION = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document",
              "HTTP_SEC_FETCH_SITE": "same-origin", "HTTP_SEC_FETCH_USER": "?1",
              "HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}
_IMG_SRC = re.compile(r"<img\b[^>]*\bsrc=\"([^\"]*)\"", re.I)


def reading_marks() -> dict:
    """Everything a read changes: each conversation's unread counters (the owners' badges,
    the GMs' waiting lists), each notice's read flag and each thread read mark."""
    from messaging.models import Notification, ThreadReadState

    return {
        "conversations": sorted(Conversation.objects.values_list("pk", "owner_unread",
                                                                  "staff_unread"), key=repr),
        "notices": sorted(Notification.objects.values_list("user_id", "thread_id", "pk",
                                                           "read_at"), key=repr),
        "thread marks": sorted(ThreadReadState.objects.values_list(
            "user_id", "thread_id", "last_read_number"), key=repr),
    }


def without_thread(marks: dict, user_id: int, thread_id: int) -> dict:
    """The marks less the reader's mark of the thread it opened and its notices about that
    thread (opening the thread reads them)."""
    return dict(marks, **{key: [m for m in marks[key] if (m[0], m[1]) != (user_id, thread_id)]
                          for key in ("thread marks", "notices")})


def read_planted_thread(client: Client, user, thread_url: str, thread_id: int,
                        planted: list[str]) -> list[str]:
    """The reader opens the thread (a top-level navigation), then its browser loads every
    <img> of the page and every planted target as an image would be: nothing but the
    reader's mark of that thread may change. Returns what moved (and any same-origin <img>
    the page rendered)."""
    problems = []
    before = reading_marks()
    page = client.get(thread_url, **NAVIGATION)
    assert page.status_code == 200, (thread_url, page.status_code)
    body = page.content.decode()
    sources = _IMG_SRC.findall(body)
    for src in sources:
        parts = urlsplit(urljoin("http://testserver" + thread_url, unescape(src)))
        if parts.netloc == "testserver" and not parts.path.startswith("/static/"):
            problems.append(f"the thread renders a same-origin <img src={src!r}>")
    for target in planted + [s for s in sources if s.startswith("/")]:
        for headers in IMAGE_FETCHES:
            response = client.get(target, **headers)
            assert response.status_code < 500, (target, response.status_code)
    after = reading_marks()
    for key in before:
        b = without_thread(before, user.pk, thread_id)[key]
        a = without_thread(after, user.pk, thread_id)[key]
        if a != b:
            problems.append(f"{key} moved: {sorted(set(b) - set(a), key=repr)} -> "
                            f"{sorted(set(a) - set(b), key=repr)}")
    return problems
