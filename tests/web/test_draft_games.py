"""A draft game is invisible: until its sign-ups open, its board, threads
(the announcement thread included) and posting are 404 for everyone but its GM and co-GMs,
and it is listed nowhere — not in the lobby, the board list, the search, /games/ or a profile.
Checked from every viewer: anonymous, a signed-in player, a staff user who hosts another game
(a superuser), and the game's GM and co-GM, who see and post as before."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from messaging import rules
from messaging import services as forum
from messaging.models import Post, Thread

pytestmark = pytest.mark.django_db
NAME = "暗室草稿局"
WORD = "暗室"


@pytest.fixture
def draft(toy_ruleset, gm, make_user, django_capture_on_commit_callbacks):
    game = services.create_game(name=NAME, ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    game.co_gms.add(make_user("副天神", staff=True))
    with django_capture_on_commit_callbacks(execute=True):  # the post's search row
        forum.start_thread(board=game.board, author=gm, kind="discussion", title=f"{WORD}筹备",
                           body=f"{WORD}的准备工作", enforce_rate_limit=False)
    assert game.status == "draft"
    return game


def viewers(make_user, draft) -> dict[str, Client]:
    host = make_user("另一个天神", staff=True)
    services.create_game(name="别的局", ruleset="toy", gm=host, seat_count=5,
                         durations={"night": 60, "day": 60})
    clients = {"anonymous": Client()}
    for name, user in (("player", make_user("阿猫")), ("other host", host),
                       ("gm", draft.gm), ("co-gm", draft.co_gms.get())):
        clients[name] = Client()
        clients[name].force_login(user)
    return clients


OUTSIDERS = ["anonymous", "player", "other host"]
RUNNERS = ["gm", "co-gm"]


def pages(draft) -> dict[str, str]:
    announcements = Thread.objects.get(board=draft.board, key="announcements")
    talk = Thread.objects.get(board=draft.board, kind="discussion")
    return {"board": f"/b/{draft.board.slug}/", "announcements": f"/t/{announcements.pk}/",
            "thread": f"/t/{talk.pk}/", "unread": f"/t/{talk.pk}/unread/",
            "post": f"/p/{talk.posts.get().pk}/", "new thread": f"/b/{draft.board.slug}/new/"}


def test_a_draft_board_and_its_threads_are_404_except_for_its_gms(draft, make_user):
    clients = viewers(make_user, draft)
    for name, url in pages(draft).items():
        for who in OUTSIDERS:
            signing_in = who == "anonymous" and name == "new thread"  # login_required first
            assert clients[who].get(url).status_code == (302 if signing_in else 404), (who, name)
        for who in RUNNERS:
            assert clients[who].get(url, follow=True).status_code == 200, (who, name)


def test_nobody_else_posts_on_a_draft_board(draft, make_user):
    clients = viewers(make_user, draft)
    talk = Thread.objects.get(board=draft.board, kind="discussion")
    before = Post.objects.count(), Thread.objects.count()
    for who in ("player", "other host"):
        new = clients[who].post(f"/b/{draft.board.slug}/new/",
                                {"kind": "discussion", "title": "抢先", "body": "我先来"})
        reply = clients[who].post(f"/t/{talk.pk}/reply/", {"body": "我也来"})
        assert (new.status_code, reply.status_code) == (404, 404), who
        mark = clients[who].post(f"/b/{draft.board.slug}/read/")
        assert mark.status_code == 404, who
    assert (Post.objects.count(), Thread.objects.count()) == before
    assert clients["co-gm"].post(f"/t/{talk.pk}/reply/", {"body": "副天神补充"}).status_code \
        == 302
    assert Post.objects.count() == before[0] + 1


def test_a_draft_game_is_listed_nowhere(draft, make_user):
    clients = viewers(make_user, draft)
    listings = {"lobby": "/", "games": "/games/", "search": f"/search/?q={WORD}",
                "gm's profile": f"/u/{draft.gm.pk}/"}
    for who in OUTSIDERS:
        for name, url in listings.items():
            response = clients[who].get(url)
            assert response.status_code == 200, (who, name)
            text = response.content.decode()
            assert NAME not in text and WORD not in text.replace(f"q={WORD}", "").replace(
                f'value="{WORD}"', ""), (who, name)
    for who in RUNNERS:
        assert NAME in clients[who].get("/").content.decode(), who
        found = clients[who].get(f"/search/?q={WORD}").content.decode()
        assert f"<mark>{WORD}</mark>筹备" in found, who  # the hit in the title is marked


def test_the_game_pages_of_a_draft_are_404(draft, make_user):
    clients = viewers(make_user, draft)
    for who in OUTSIDERS:
        for url in (f"/games/{draft.pk}/", f"/games/{draft.pk}/events.json",
                    f"/games/{draft.pk}/review/", f"/games/{draft.pk}/act/",
                    f"/games/{draft.pk}/awards/"):
            assert clients[who].get(url).status_code in (404, 302), (who, url)


def test_opening_sign_ups_shows_the_game(draft, make_user):
    clients = viewers(make_user, draft)
    services.open_signups(game_id=draft.pk, gm=draft.gm)
    for who in OUTSIDERS:
        assert clients[who].get(pages(draft)["announcements"]).status_code == 200, who
        assert NAME in clients[who].get("/").content.decode(), who


def test_the_rules_hide_a_draft_from_a_reader(english, draft, make_user):
    """The reading rules themselves, for the views that list (readable_*) and the ones that
    open one board or thread (can_read_*)."""
    player, host = make_user("阿狗"), make_user("再一个天神", staff=True)
    threads = Thread.objects.filter(board=draft.board)
    for user in (player, host):
        assert not rules.can_read_board(user, draft.board)
        assert not any(rules.can_read_thread(user, t) for t in threads)
        assert not rules.readable_boards(user).filter(pk=draft.board.pk).exists()
        assert not rules.readable_threads(user, threads).exists()
        assert not rules.readable_posts(user).filter(thread__board=draft.board).exists()
        assert rules.start_refusal(user, draft.board, "discussion") == "This board does not exist."
    assert rules.readable_threads(draft.gm, threads).count() == threads.count() == 2
