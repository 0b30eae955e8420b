"""Secrets that cannot flow back, walked in Chromium at 390 px in Chinese over ASGI (the real
change feed), as people click it (docs/community.md, "Secrets that cannot flow back" and
"Watching"). The Classic table of tests/factories/classic.py; the night is played through the
services, everything the walk is about is clicked or typed.

1. 3号小白, a civilian killed in night 1, opens the game from the home page and follows
   观战本局: told in Chinese that the last words come first. From there to the act page, the
   last words typed and sent; back to 观战本局, the page says what watching costs (nothing
   the living read, anywhere, the lobby included), the button, the watch page with every
   seat's hand. A reply to a lobby thread typed in another tab before watching is refused
   when sent, with the sentence, and stored nowhere; the thread opened afresh has the
   sentence where the reply box was.
2. With the watch page open in her browser, the GM (another browser) undoes night 1's end
   from the console's undo page, the new deadline left as the page proposes it: 小白 is
   alive again and watches no more (the console's list of watchers empties); her open
   stream ends at once, her page asks the watch view again and is refused (403), so
   nothing on it changes, and the browser connects again by itself. The graveyard link
   still on the stale page leads to a 404; the watch page reloaded refuses her as a living
   player, and her game's page offers neither 观战本局 nor the graveyard.
3. An outsider, once the GM turns "by request" on in the running game's settings (the other
   settings left as the page shows them): 观战本局, 申请观战本局, the request waits; the GM
   reads it in the console's 观战申请 with the account's history and clicks 批准; the outsider
   reloads and watches.

Screenshots (for review, not asserted): var/artifacts/secrets-walk/*.png.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games import services
from games.models import Action, Game, Watcher
from messaging import services as forum
from messaging.models import Post, Thread
from tests.browser.shots import screenshot
from tests.browser.walks.clicking import (
    PHONE,
    arrive,
    fits_a_phone,
    flash,
    follow,
    read_in_chinese,
    visible_text,
)
from tests.factories.classic import CARDS, DEAL, DURATIONS, NAMES, night_one

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("chinese")]

GAME = "经典局"
XIAO_BAI = 2  # a civilian, killed in night 1 (0-based seat; "3号小白" on the pages)
LAST_WORDS = "我是民，昨晚被杀。警察请带队，大家加油。"
LOBBY_REPLY = "我出局了，去观战啦，大家好好玩。"
REFUSED_WRITE = "你能看到进行中的游戏“经典局”的秘密"
WAIT = 10_000  # ms: a state the page reaches, never a fixed sleep


@pytest.fixture
def shot(artifacts_dir):
    folder = artifacts_dir / "secrets-walk"
    folder.mkdir(parents=True, exist_ok=True)

    def take(page, name: str, part: str | None = None):
        path = folder / f"{name}.png"
        if part:
            screenshot(page.locator(part).first, path)
        else:
            screenshot(page, path, full_page=True)
        return path

    return take


def classic(make_user, gm, **options) -> Game:
    """The Classic table (police 1 5 9, bandits 2 6 10), started, night 1 going on."""
    users = [make_user(name) for name in NAMES]
    draft = services.create_game(
        name=GAME, ruleset="classic", gm=gm, seat_count=len(users),
        config={"fixed_roles": [CARDS[c] for c in DEAL]}, durations=DURATIONS, **options)
    return services.start_game(game_id=draft.pk, users=users, seed="secrets-walk")


def console(server, game) -> str:
    """The GM's console of `game` (the GM's bookmark: the walk is not about reaching it)."""
    return f"{server.url}/admin/games/game/{game.pk}/console/"


def phone(page_for, user):
    page = page_for(user)
    page.set_viewport_size(PHONE)
    return page


def live_streams(page) -> list[str]:
    """From now on, what becomes of the page's streams of the change feed (/live/), in
    order: "opened" when one is asked for, "ended" when one is over (its body complete, or
    the connection cut)."""
    log: list[str] = []
    page.on("request", lambda r: log.append("opened") if "/live/" in r.url else None)
    for over in ("requestfinished", "requestfailed"):
        page.on(over, lambda r: log.append("ended") if "/live/" in r.url else None)
    return log


@pytest.mark.slow(seconds=25)
def test_a_dead_civilian_speaks_then_watches_and_a_rollback_ends_it(
        asgi_server, asgi_page_for, make_user, gm, shot):
    game = classic(make_user, gm, early_end=False)
    lobby_thread = forum.start_thread(
        board=forum.lobby_board(), author=game.seats.get(number=3).user, kind="discussion",
        title="闲聊：最近在玩什么", body="大家好，最近在玩什么？", enforce_rate_limit=False)
    night_one(game, victim=XIAO_BAI)
    services.end_phase_now(game_id=game.pk, gm=gm)  # no early end: the GM ends the night
    game.refresh_from_db()
    assert game.phase_name == "last_words" and not game.seats.get(number=XIAO_BAI).alive
    dead = game.seats.get(number=XIAO_BAI).user

    # 1. From the home page to the game, then 观战本局: the last words come first.
    page = phone(asgi_page_for, dead)
    arrive(page, asgi_server)
    follow(page, GAME, within="#my-games")
    follow(page, "#watch-link")
    refusal = read_in_chinese(page, "#watch-refusal")
    assert "你还有话要对存活玩家说（遗言）：请先留下遗言" in refusal, refusal
    assert page.locator("#start-watching").count() == 0 and fits_a_phone(page)
    shot(page, "1-watch-refused-last-words")

    # The last words, typed on the act page (reached from the game's page).
    follow(page, "返回本局", within="#watch-refusal")
    follow(page, "#act-link")
    labels = page.locator("#choice option:not([value=''])").all_inner_texts()
    assert "留遗言（在下方填写）" in labels, labels
    page.select_option("#choice", label="留遗言（在下方填写）")
    page.locator("#text_text").press_sequentially(LAST_WORDS)
    with page.expect_navigation():
        page.click("#act-submit")
    assert page.locator(".messages li.success").count() == 1, flash(page)
    step = Action.objects.filter(game=game, actor=str(XIAO_BAI)).order_by("-seq").first()
    assert (step.kind, step.params.get("text")) == ("last_words", LAST_WORDS)

    # Meanwhile, in another tab, a reply to a lobby thread typed but not sent yet.
    lobby = page.context.new_page()
    lobby.set_viewport_size(PHONE)
    arrive(lobby, asgi_server)
    follow(lobby, lobby_thread.title, within="#latest")
    lobby.locator("#reply-form textarea[name=body]").press_sequentially(LOBBY_REPLY)

    # Back to 观战本局: what watching costs, then the button.
    follow(page, GAME, within="nav.crumbs")
    follow(page, "#watch-link")
    confirm = read_in_chinese(page, "#watch-confirm")
    assert "在本局结束之前，你在本站任何地方都不能写下存活玩家能读到的内容" in confirm, confirm
    assert "大厅也不行" in confirm and "墓地" in confirm
    assert fits_a_phone(page)
    shot(page, "2-watch-confirm")
    follow(page, "#start-watching")
    expect(page.locator("#watched-phase")).to_be_visible()
    read_in_chinese(page, "main")
    rows = page.locator("#seats tbody tr")
    expect(rows).to_have_count(11)
    for seat, card in ((0, "警"), (1, "匪"), (XIAO_BAI, "民")):
        hand = page.locator(f"#seats tr[data-seat='{seat}']").inner_text()
        assert NAMES[seat] in hand and card in hand, (seat, hand)
    assert page.locator("#graveyard-link").count() == 1
    assert fits_a_phone(page), page.evaluate("document.documentElement.scrollWidth")
    shot(page, "3-watch-page")
    assert Watcher.objects.filter(game=game, user=dead).exclude(approved_at=None).exists()

    # The reply typed before watching is refused when sent, with a readable sentence.
    posts, threads = Post.objects.count(), Thread.objects.count()
    with lobby.expect_navigation():
        lobby.locator("#reply-form button[type=submit]").click()
    said = read_in_chinese(lobby, "main")
    assert REFUSED_WRITE in said and "墓地" in said, said
    assert (Post.objects.count(), Thread.objects.count()) == (posts, threads)
    assert not Post.objects.filter(author=dead, body__contains="去观战").exists()
    shot(lobby, "4-lobby-reply-refused")
    # The thread opened afresh: the sentence where the reply box was.
    arrive(lobby, asgi_server)
    follow(lobby, lobby_thread.title, within="#latest")
    assert REFUSED_WRITE in visible_text(lobby, "main")
    assert lobby.locator("textarea[name=body]").count() == 0
    lobby.close()

    # 2. The GM undoes night 1's end while the watch page is open and live.
    page.wait_for_selector("body[data-live=open]", timeout=WAIT)
    streams = live_streams(page)
    shown = page.inner_text("#watched-phase")
    gm_page = phone(asgi_page_for, gm)
    gm_page.goto(console(asgi_server, game))
    follow(gm_page, "#undo-link a")
    choices = gm_page.locator("#rollback-choices a").all_inner_texts()
    assert choices[0].startswith("回滚") and "夜" in choices[0], choices
    follow(gm_page, choices[0], within="#rollback-choices")
    assert "3号小白" in gm_page.inner_text("#rollback-revived")
    assert gm_page.input_value("input[name=deadline]")  # proposed: the night's length from now
    with page.expect_response(lambda r: r.url == page.url and r.request.resource_type
                              == "fetch", timeout=WAIT) as refetched, \
            page.expect_request(lambda r: "/live/" in r.url, timeout=WAIT):
        with gm_page.expect_navigation():
            gm_page.click("#rollback-form input[type=submit]")  # 回滚, the deadline as proposed
    assert "/console/" in gm_page.url
    assert "还没有人观战" in gm_page.inner_text("#watch-requests")  # 小白 watches no more
    game.refresh_from_db()
    assert game.phase_name == "night" and game.seats.get(number=XIAO_BAI).alive
    assert not Watcher.objects.filter(game=game, user=dead).exists()
    # The open page asked the watch view again, as the change feed told it to: refused,
    # so nothing on it changes.
    assert refetched.value.status == 403, refetched.value.status
    # Her stream ended at once; the browser opened another by itself (checked again).
    assert streams[:2] == ["ended", "opened"], streams
    expect(page.locator("body")).to_have_attribute("data-live", "open", timeout=WAIT)
    night = game.deadline - timezone.now()
    assert dt.timedelta(minutes=DURATIONS["night"] - 2) < night \
        <= dt.timedelta(minutes=DURATIONS["night"]), night
    # The stale page still shows night 1 and the graveyard link, which leads nowhere now.
    assert page.inner_text("#watched-phase") == shown
    assert page.locator("#seats tbody tr").count() == 11
    with page.expect_navigation() as gone:
        page.click("#graveyard-link")
    assert gone.value.status == 404
    page.go_back()
    page.reload()
    refusal = read_in_chinese(page, "#watch-refusal")
    assert "你正在参加本局：玩家出局后才能观战。" in refusal, refusal
    assert page.locator("#seats, #graveyard-link").count() == 0
    shot(page, "5-watch-refused-revived")
    follow(page, GAME, within="nav.crumbs")  # her game's page: alive, no 观战本局
    assert page.locator("#watch-link, #graveyard-link").count() == 0
    assert page.locator("#act-link").count() == 1
    # Her last page's own stream settles before the server stops.
    expect(page.locator("body")).to_have_attribute("data-live", "open", timeout=WAIT)


@pytest.mark.slow(seconds=20)
def test_an_outsider_asks_to_watch_and_the_gm_lets_them_in(
        asgi_server, asgi_page_for, make_user, gm, shot):
    game = classic(make_user, gm)
    night_one(game, victim=XIAO_BAI)  # everyone acted: the night ends by itself
    game.refresh_from_db()
    assert game.phase_name == "last_words"
    outsider = make_user("路人小明")

    # The GM turns "by request" on in the settings of the running game.
    gm_page = phone(asgi_page_for, gm)
    gm_page.goto(console(asgi_server, game))
    before = Game.objects.values().get(pk=game.pk)
    follow(gm_page, "#watch-requests a[href$='/change/']")
    select = gm_page.locator("select[name=outsiders]")
    options = select.locator("option").all_inner_texts()
    asked = next(o for o in options if "申请" in o)
    assert options.index(asked) > 0, options
    select.select_option(label=asked)
    follow(gm_page, "input[name=_continue]")  # 保存并继续编辑
    assert gm_page.locator(".errornote, .errorlist").count() == 0, gm_page.inner_text("#content")
    follow(gm_page, "打开控制台")
    gm_page.on("dialog", lambda dialog: dialog.accept())  # the console's "are you sure?"
    after = Game.objects.values().get(pk=game.pk)
    changed = {k for k in after if after[k] != before[k]}
    assert after["outsiders"] == Game.Outsiders.REQUEST
    assert changed <= {"outsiders", "version", "page_version", "updated_at"}, changed

    # The outsider: the games list, the game, 观战本局, 申请观战本局.
    page = phone(asgi_page_for, outsider)
    arrive(page, asgi_server)
    follow(page, "#games-link")
    follow(page, GAME, within="main")
    follow(page, "#watch-link")
    confirm = read_in_chinese(page, "#watch-confirm")
    assert "大厅也不行" in confirm, confirm
    assert "本局的观战者由天神逐一批准：你的申请会交给天神。" in confirm, confirm
    assert page.locator("#no-signup").count() == 1 and fits_a_phone(page)
    shot(page, "6-watch-confirm-outsider")
    button = page.locator("#start-watching")
    expect(button).to_have_text("申请观战本局")
    follow(page, "#start-watching")
    waiting = read_in_chinese(page, "#watch-waiting")
    assert "你已申请观战本局，由天神决定" in waiting, waiting
    assert page.locator("#seats").count() == 0 and fits_a_phone(page)
    shot(page, "7-watch-request-waiting")

    # The GM: the console's 观战申请, the account's history, 批准.
    gm_page.reload()
    section = gm_page.locator("#watch-requests")
    text = section.inner_text()
    assert "观战申请 (1)" in text and "路人小明" in text, text
    assert "注册于" in text and "已玩完 0 局" in text and "正在参加" in text, text
    assert fits_a_phone(gm_page), gm_page.evaluate("document.documentElement.scrollWidth")
    shot(gm_page, "8-console-watch-requests", "#watch-requests")
    with gm_page.expect_navigation():
        section.locator(".approve-watcher input[type=submit]").click()
    expect(gm_page.locator("#watchers")).to_contain_text("路人小明")
    assert "局外人" in gm_page.inner_text("#watchers")
    assert Watcher.objects.filter(game=game, user=outsider).exclude(approved_at=None).exists()

    # The outsider reloads: the watch page.
    page.reload()
    expect(page.locator("#watched-phase")).to_be_visible()
    expect(page.locator("#seats tbody tr")).to_have_count(11)
    read_in_chinese(page, "main")
    assert fits_a_phone(page)
    shot(page, "9-outsider-watches")
    expect(page.locator("body")).to_have_attribute("data-live", "open", timeout=WAIT)
