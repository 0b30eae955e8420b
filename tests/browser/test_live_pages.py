"""Live pages in Chromium, served over ASGI (tests/browser/asgi_server.py), with the real
services publishing on the change feed: two players of a toy game. One posts, acts and
votes; the other's open pages follow without a reload (a marker set in each page's window
stays): the thread's "1 条新回复" bar within 2 s and the post it adds, the bell, the game
home's banner when the night ends and its countdown stopped, the vote tally, and the
banner on every open page when the GM ends the day. Screenshots at 390 px in Chinese.
Connecting: a stream the live server turns away for now (its `retry:` answer) comes back by
itself and follows; a stream refused for good makes the script load its page for a new
token after a back-off that doubles, with jitter."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from games import services
from games.models import Game
from messaging import services as forum
from messaging.models import Thread
from tests.browser.act_form import choose
from tests.browser.shots import screenshot
from tests.factories.toy import seat_user, wolf_seat

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("toy_ruleset")]

PHONE = {"width": 390, "height": 844}


def _open(context, url: str):
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.set_viewport_size(PHONE)
    page.goto(url)
    page.wait_for_selector("body[data-live=open]")
    page.evaluate("window.__notReloaded = true")
    return page


def _not_reloaded(*pages) -> None:
    for page in pages:
        assert page.evaluate("window.__notReloaded === true"), page.url


TICK_CONTROL = """() => {
  // A countdown the page's ticker (static/js/site.js, each second) does tick: a deadline
  // an hour away, with no text yet until a tick writes it.
  const control = document.createElement("span");
  control.id = "tick-control";
  control.className = "countdown";
  control.dataset.deadline = new Date(Date.now() + 3600 * 1000).toISOString();
  document.body.appendChild(control);
}"""


def _countdown_stopped(page) -> None:
    """The page's countdown says the phase ended and ticks no more. Positive control: a
    countdown put on the same page, which the same ticker ticks; once a tick has written
    it, the stopped one still reads as before (a tick rewrites every countdown it ticks)."""
    countdown = page.locator(".countdown").first
    assert "已结束" in countdown.inner_text()
    before = countdown.inner_text()
    page.evaluate(TICK_CONTROL)
    control = page.locator("#tick-control .left")
    control.wait_for(state="attached", timeout=5_000)  # a tick ran since
    assert ":" in control.inner_text(), control.inner_text()  # "(0:59:59)": it ticked
    assert countdown.inner_text() == before  # the stopped one did not
    page.evaluate("document.getElementById('tick-control').remove()")


@pytest.mark.slow(seconds=15)
def test_two_players_pages_follow_each_other_without_a_reload(
        asgi_server, asgi_page_for, game, players, gm, artifacts_dir):
    url = asgi_server.url
    wolf = seat_user(game, "wolf")
    villagers = [s.user for s in game.seats.order_by("number") if s.number != wolf_seat(game)]
    reader, victim = villagers[0], villagers[1]
    victim_seat = game.seats.get(user=victim).number
    thread = forum.start_thread(board=game.board, author=reader, kind=Thread.Kind.DISCUSSION,
                                title="第一夜的分析", body="大家说说自己的身份吧")
    home_url = url + reverse("game-home", args=[game.pk])

    # The reader has the thread and the game home open.
    reader_tab = asgi_page_for(reader)
    reader_tab.close()  # asgi_page_for opens one page; the reader's pages follow
    context = reader_tab.context
    thread_page = _open(context, url + thread.get_absolute_url())
    home = _open(context, home_url)
    badge = home.locator("#bell #notification-count")
    before = int(badge.inner_text()) if badge.count() else 0

    # 1. The wolf replies in the thread: the reader's thread page shows the bar within 2 s.
    writer = asgi_page_for(wolf)
    writer.goto(url + thread.get_absolute_url())
    writer.fill("#reply-form textarea[name=body]", "我是好人，昨晚什么也没看到。")
    posted_at = time.monotonic()
    writer.click("#reply-form button[type=submit]")
    bar = thread_page.locator("#live-new-replies")
    bar.wait_for(timeout=5_000)
    took = time.monotonic() - posted_at
    assert bar.inner_text() == "1 条新回复"
    assert took < 2.0 + 1.0, took  # within 2 s of the commit (the click's round trip aside)
    screenshot(thread_page, artifacts_dir / "live-new-replies-390.png")
    bar.click()
    assert "我是好人，昨晚什么也没看到。" in thread_page.locator("#posts li.post").last.inner_text()
    assert thread_page.locator("#live-new-replies").count() == 0

    # 2. The reply is a notice for the thread's author: the bell of both open pages counts it.
    for page in (thread_page, home):
        page.wait_for_function(
            "n => (document.getElementById('notification-count') || {}).textContent == n",
            arg=str(before + 1), timeout=5_000)

    # 3. The wolf acts: the night ends as soon as everyone has acted. The reader's game home
    #    says the phase ended and its countdown stops.
    writer.goto(url + reverse("game-act", args=[game.pk]))
    choose(writer, "kill", {"target": victim_seat})
    writer.click("#act-submit")
    banner = home.locator("#live-banner")
    banner.wait_for(timeout=5_000)
    assert "本阶段已结束。" in banner.inner_text()
    _countdown_stopped(home)
    _not_reloaded(thread_page, home)

    # 4. The day: the reader loads the new phase (the banner's button) and opens the day's
    #    vote thread; the wolf votes. The reader's tally and home follow.
    home.click("#live-reload")
    home.wait_for_selector("body[data-live=open]")
    home.evaluate("window.__notReloaded = true")
    game.refresh_from_db()
    assert game.phase_name == "day"
    day = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    vote_page = _open(context, url + day.get_absolute_url())
    assert vote_page.locator("#vote-history li").count() == 0
    writer.goto(url + day.get_absolute_url())
    writer.check(f"#vote-form input[name=target][value='{game.seats.get(user=reader).number}']")
    writer.click("#vote-submit")
    writer.click("#vote-confirm-submit")
    vote_page.locator("#vote-history li").first.wait_for(timeout=5_000)
    assert vote_page.locator("#vote-history li").count() == 1
    _not_reloaded(vote_page, home)

    # 5. The GM ends the day: every open page of the game says so; the countdowns stop and
    #    the reader's vote form can no longer be sent.
    services.end_phase_now(game_id=game.pk, gm=gm)
    ended = Game.objects.get(pk=game.pk)
    said = "游戏已结束。" if ended.is_over else "本阶段已结束。"
    for page in (vote_page, home):
        page.locator("#live-banner").wait_for(timeout=5_000)
        assert said in page.locator("#live-banner").inner_text()
        _countdown_stopped(page)
    assert vote_page.locator("#vote-submit").is_disabled()
    screenshot(vote_page, artifacts_dir / "live-phase-ended-390.png")
    _not_reloaded(vote_page, home, thread_page)


# --- connecting: refusals, tokens and back-off ----------------------------------------------------

class _RefuseFirst:
    """The live server's admission, refusing the first `n` attempts for about a second."""

    def __init__(self, n: int) -> None:
        self.left = n
        self.refused = 0

    def admit(self, address: str) -> float:
        if self.left > 0:
            self.left -= 1
            self.refused += 1
            return 1.0
        return 0.0


@pytest.mark.slow(seconds=5)
def test_a_stream_refused_for_now_comes_back_by_itself_and_the_page_follows(
        asgi_server, asgi_page_for, game, players, monkeypatch):
    """The live server's refusal under a crowd is a 200 carrying `retry:` (config/
    live_view.py): Chromium's EventSource reconnects by itself after that delay, with no
    script and no reload, and the page then follows its thread."""
    from config import live_view

    gate = _RefuseFirst(2)
    monkeypatch.setattr(live_view, "admission", lambda: gate)
    thread = forum.start_thread(board=game.board, author=players[1], kind=Thread.Kind.DISCUSSION,
                                title="排队的帖子", body="先来后到")
    page = asgi_page_for(players[0])
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/live/" in r.url else None)
    page.goto(asgi_server.url + thread.get_absolute_url())
    page.evaluate("window.__notReloaded = true")
    while len(asked) < 3:  # each wait ends with the page's next attempt
        page.wait_for_event("request", lambda r: "/live/" in r.url, timeout=10_000)
    assert gate.refused == 2 and len(asked) >= 3, (gate.refused, asked)
    assert all("t=" in url for url in asked)
    page.wait_for_selector("body[data-live=open]")
    asgi_server.wait_listening("thread", thread.pk)  # the third stream listens
    forum.reply(thread=thread, author=players[1], body="轮到你了", enforce_rate_limit=False)
    page.locator("#live-new-replies").wait_for(timeout=5_000)
    _not_reloaded(page)


FAILING_EVENTSOURCE = """
window.__live = {fails: [], renews: [], urls: []};
window.EventSource = function (url) {
  var self = this;
  self.readyState = 0;
  window.__live.urls.push(url);
  self.close = function () { self.readyState = 2; };
  self.addEventListener = function () {};
  // Refused for good (a 403): the browser's EventSource is CLOSED and says so once.
  Promise.resolve().then(function () {
    self.readyState = 2;
    window.__live.fails.push(Date.now());
    if (self.onerror) { self.onerror(); }
  });
};
window.EventSource.CONNECTING = 0;
window.EventSource.OPEN = 1;
window.EventSource.CLOSED = 2;
var realFetch = window.fetch;
window.fetch = function (url) {
  if (String(url) === window.location.href) { window.__live.renews.push(Date.now()); }
  return realFetch.apply(this, arguments);
};
"""


@pytest.mark.slow(seconds=5)
def test_a_refused_stream_asks_its_page_for_a_new_token_after_a_jittered_back_off(
        asgi_server, asgi_page_for, game, players):
    """A stream refused for good (EventSource CLOSED: a 403 for a token refused) makes
    static/js/live.js load its page again for a new token, after 5 s, 10 s, 20 s, 40 s, 80 s
    (doubling to 5 min), each wait a random 50-100 % of that; it then connects with the new
    token. The browser's EventSource is replaced by one that always fails, time by
    Playwright's clock."""
    thread = forum.start_thread(board=game.board, author=players[1], kind=Thread.Kind.DISCUSSION,
                                title="退避", body="慢慢来")
    page = asgi_page_for(players[0])
    page.add_init_script(FAILING_EVENTSOURCE)
    page.clock.install()
    page.goto(asgi_server.url + thread.get_absolute_url())
    for attempt in range(1, 6):
        page.wait_for_function("n => window.__live.fails.length >= n", arg=attempt)
        page.clock.run_for(400_000)  # past any wait: the renewal starts
        page.wait_for_function("n => window.__live.renews.length >= n", arg=attempt)
    page.wait_for_function("n => window.__live.fails.length >= n", arg=6)
    live = page.evaluate("window.__live")
    waits = [renew - fail for fail, renew in zip(live["fails"], live["renews"], strict=False)]
    for n, wait in enumerate(waits):
        ceiling = 5000 * 2 ** n
        assert ceiling / 2 <= wait <= ceiling, (n, wait, waits)
    assert len({round(w / (5000 * 2 ** n), 3) for n, w in enumerate(waits)}) > 1, waits
    # Each attempt names the token its page gave (a new one after each renewal) and the
    # thread, with the version the page shows.
    assert all(f"thread={thread.pk}" in url and "t=" in url for url in live["urls"])
