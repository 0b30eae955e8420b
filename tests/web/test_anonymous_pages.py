"""Thread pages for readers who are not signed in: kept whole in the cache (no query on a
hit: two cache reads), every change a service makes to the thread, its board or its game
shows at once, what no version covers (a rename) within the kept page's lifetime,
no answer carries a CSRF token (the language menu is a link that sets a cookie), and nothing
of a signed-in reader's page reaches them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from games import services as game_services
from messaging import services
from messaging.models import Thread
from tests.factories.toy import seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def thread(make_user):
    author = make_user("写帖人")
    lobby = services.lobby_board()
    thread = services.start_thread(board=lobby, author=author, kind=Thread.Kind.DISCUSSION,
                                   title="公开讨论", body="第一帖", enforce_rate_limit=False)
    services.reply(thread=thread, author=author, body="第二帖", enforce_rate_limit=False)
    return thread


def _read(client, thread, **params) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("messaging-thread", args=[thread.pk]), params)
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def test_a_kept_page_costs_no_query_and_is_the_same_page(client, thread):
    first, misses = _read(client, thread)
    again, queries = _read(client, thread)
    assert queries == 0 < misses
    assert again == first
    assert "第一帖" in again and "第二帖" in again
    assert "csrfmiddlewaretoken" not in again


def test_a_page_asked_with_another_query_is_rendered_afresh(client, thread, monkeypatch):
    """Only `?page=` is kept: anything else a link adds is rendered for its request, so a
    query cannot fill the cache with copies of a page."""
    from messaging import views

    rendered = []
    real = views._render_thread
    monkeypatch.setattr(views, "_render_thread",
                        lambda *a, **k: rendered.append(1) or real(*a, **k))

    def renders(**params) -> int:
        before = len(rendered)
        _read(client, thread, **params)
        return len(rendered) - before

    assert [renders(), renders()] == [1, 0]
    assert [renders(page="1"), renders(page="1"), renders(page="last")] == [1, 0, 1]
    assert [renders(page="1", utm="x"), renders(page="1", utm="x")] == [1, 1]
    assert [renders(page="１"), renders(page="１")] == [1, 1]  # a full-width digit


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """A block whose writes commit: their change feed events (and its listeners) run at its
    end, as after a real commit."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_a_new_post_an_edit_and_a_withdrawal_show_at_once(client, thread, make_user,
                                                          committed):
    _read(client, thread)
    with committed():
        services.reply(thread=thread, author=make_user("后来者"), body="第三帖",
                       enforce_rate_limit=False)
    assert "第三帖" in _read(client, thread)[0]
    with committed():
        services.edit_post(post=thread.posts.get(number=2),
                           editor=make_user("天神", staff=True), body="改过的第二帖")
    html = _read(client, thread)[0]
    assert "改过的第二帖" in html and "<p>第二帖</p>" not in html
    with committed():
        services.withdraw(post_ids=[thread.posts.get(number=1).pk])
    assert "withdrawn-mark" in _read(client, thread)[0]


def test_a_page_is_kept_until_the_write_commits(client, thread, make_user,
                                               django_capture_on_commit_callbacks):
    """The kept page is forgotten when the writer's transaction commits, not before: a
    reader during the write still gets the committed page."""
    _read(client, thread)
    with django_capture_on_commit_callbacks() as callbacks:
        services.reply(thread=thread, author=make_user("后来者"), body="第三帖",
                       enforce_rate_limit=False)
        html, queries = _read(client, thread)
        assert queries == 0 and "第三帖" not in html
    for callback in callbacks:
        callback()
    assert "第三帖" in _read(client, thread)[0]


def test_a_title_and_a_lock_show_at_once(client, thread, committed):
    _read(client, thread)
    with committed():
        services.set_thread_title(thread=thread, title="改名的讨论")
        services.set_thread_locked(thread=thread, locked=True)
    html = _read(client, thread)[0]
    assert "改名的讨论" in html and "公开讨论" not in html


def test_a_rename_shows_when_the_kept_page_falls_out(client, thread, monkeypatch):
    """An author's name is in no version: a signed-in reader sees a rename at once (the
    names are read on every view), a reader who is not signed in when the page kept for
    them falls out (blocks.KEPT_SECONDS)."""
    import time

    from messaging import blocks

    monkeypatch.setattr(blocks, "KEPT_SECONDS", 1)
    assert "写帖人" in _read(client, thread)[0]
    Profile.objects.filter(user=thread.author).update(display_name="新名字")
    assert "写帖人" in _read(client, thread)[0]
    time.sleep(1.2)
    assert "新名字" in _read(client, thread)[0]


def test_the_language_menu_of_a_page_read_without_signing_in_is_a_link(thread):
    """The header's menu asks by a GET: only the language cookie is set, the reader goes
    back to the page (never to another site), and a signed-in user's GET changes nothing."""
    client = Client(enforce_csrf_checks=True)
    html, _ = _read(client, thread)
    assert re.search(r'<form action="/profile/language/" method="get"', html)
    page = reverse("messaging-thread", args=[thread.pk])
    response = client.get(reverse("profile-language"), {"language": "zh-hans", "next": page})
    assert response.status_code == 302 and response["Location"] == page
    assert response.cookies["django_language"].value == "zh-hans"
    assert '<html lang="zh-hans">' in _read(client, thread)[0]
    away = client.get(reverse("profile-language"), {"language": "en",
                                                    "next": "https://elsewhere.example/"})
    assert away["Location"] == "/"
    assert "django_language" not in client.get(
        reverse("profile-language"), {"language": "xx", "next": page}).cookies


def test_a_signed_in_users_get_of_the_language_menu_changes_nothing(client, make_user):
    user = make_user("会员")
    client.force_login(user)
    response = client.get(reverse("profile-language"), {"language": "en", "next": "/"})
    assert response.status_code == 302 and "django_language" not in response.cookies
    user.profile.refresh_from_db()
    assert user.profile.language != "en"


def test_a_board_rename_and_a_game_rename_show_at_once(client, thread, game, committed):
    """The board's title and the game's name (its breadcrumb): the kept page holds the
    board's and the game's tokens."""
    board = thread.board
    _read(client, thread)
    board.title = "改名的版面"
    with committed():
        services.save_board(board=board, fields=["title"])
    assert "改名的版面" in _read(client, thread)[0]
    in_game = Thread.objects.filter(board=game.board).exclude(key__startswith="vote-").first()
    _read(client, in_game)
    with committed():
        game_services.update_settings(game_id=game.pk, changes={"name": "改名的游戏"})
    assert "改名的游戏" in _read(client, in_game)[0]


def test_a_signed_in_readers_page_never_reaches_an_anonymous_one(client, thread, make_user):
    _read(client, thread)
    reader = make_user("读者")
    client.force_login(reader)
    html, queries = _read(client, thread)
    assert 'id="reply-form"' in html and "读者" in html
    assert queries > 1
    client.logout()
    assert 'id="reply-form"' not in _read(client, thread)[0]


def test_a_waiting_flash_message_is_shown(client, thread, make_user):
    _read(client, thread)
    client.force_login(make_user("要退出的人"))
    client.post(reverse("account_logout"))  # "You have signed out." waits for the next page
    html = _read(client, thread)[0]
    assert 'class="messages"' in html


def test_an_unreadable_thread_is_a_404_every_time(client, make_user):
    gm = make_user("天神", staff=True)
    secret = services.start_thread(board=services.lobby_board(), author=gm,
                                   kind=Thread.Kind.GM_ONLY, title="天神密谈", body="内情",
                                   enforce_rate_limit=False)
    for _ in range(2):
        response = client.get(reverse("messaging-thread", args=[secret.pk]))
        assert response.status_code == 404 and "内情" not in response.content.decode()


def test_the_vote_box_of_a_vote_thread_follows_the_votes(client, game, committed):
    """The vote box follows the game's votes, not the thread: a vote cast after the page's
    posts were kept shows on the next anonymous answer."""
    wolf = seat_user(game, "wolf")
    victim = next(s for s in game.seats.all() if s.user != wolf)
    game_services.submit_action(game_id=game.pk, user=wolf, kind="kill",
                                params={"target": victim.number})
    game.refresh_from_db()
    vote_thread = Thread.objects.get(board=game.board, key="vote-2")
    before, _ = _read(client, vote_thread)
    _read(client, vote_thread)  # the posts kept
    voter = next(s for s in game.seats.all() if s.alive and s.user != wolf)
    target = game.seats.get(user=wolf)
    with committed():
        game_services.submit_action(game_id=game.pk, user=voter.user, kind="vote",
                                    params={"target": target.number})
    after, _ = _read(client, vote_thread)
    name = voter.user.profile.display_name
    assert 'id="vote-tally"' in after
    assert after.count(name) > before.count(name)


def test_a_staff_authors_badge_is_on_every_answer(client, game, gm):
    """Whether a staff author acts as the GM on a board is asked on every view and is part
    of the posts' key: the badge shows whether the posts were kept or not."""
    announcements = Thread.objects.filter(board=game.board).exclude(
        key__startswith="vote-").first()
    services.reply(thread=announcements, author=gm, body="天神的话", enforce_rate_limit=False)
    first, _ = _read(client, announcements)
    again, _ = _read(client, announcements)
    assert "天神的话" in again
    badge = re.compile(r'<span class="author-badge [^"]*">[^<]*</span>')
    assert badge.findall(first)
    assert badge.findall(again) == badge.findall(first)


def test_a_signed_in_reader_sees_a_changed_thread_at_once(client, thread, make_user):
    """The thread's row is read on every view: a title, a lock."""
    client.force_login(make_user("常客"))
    assert "公开讨论" in _read(client, thread)[0]
    _read(client, thread)
    services.set_thread_locked(thread=thread, locked=True)
    services.set_thread_title(thread=thread, title="又改了名")
    html = _read(client, thread)[0]
    assert "又改了名" in html and "公开讨论" not in html
    assert 'id="reply-form"' not in html  # locked: no reply box


def test_the_build_digest_follows_code_templates_and_catalogues(settings, tmp_path):
    """Every cached part's key holds config.build.BUILD: a deploy that changes a presenter, a
    template or a catalogue never meets what the code before it kept (even in Redis)."""
    from config import build

    for name, text in (("games/presenters.py", "A = 1"), ("templates/base.html", "<p>"),
                       ("locale/zh_Hans/LC_MESSAGES/django.mo", "mo")):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("x = 1")
    settings.BASE_DIR = tmp_path
    seen = {build.digest()}
    (tmp_path / "tests" / "test_x.py").write_text("x = 2")  # not what pages are made of
    assert build.digest() in seen
    for name, text in (("games/presenters.py", "A = 2"), ("templates/base.html", "<p>!"),
                       ("locale/zh_Hans/LC_MESSAGES/django.mo", "mo2")):
        (tmp_path / name).write_text(text)
        now = build.digest()
        assert now not in seen, name
        seen.add(now)
