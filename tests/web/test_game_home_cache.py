"""The game home page's kept parts (games/web/pages.py `home_parts`) and its queries.

The status card and the tables are kept in Django's cache under the game's `page_version`,
which the services move on every change the page shows (games.services.kernel.changed):
each kind of change a service makes must show at once, to an anonymous reader and to
signed-in ones, and what one seat sees must never be served to another seat or to a
visitor without one. A cache that is down costs the parts, never the page.
"""

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from games import selectors, services
from games.models import Announcement, Game
from tests.factories.toy import night_kill, seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]

# What differs between two renderings of the same page: the form token, and the live
# script's subscription token (config/live_token.py: signed with the time it was made).
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"| data-token="[^"]+"')


def forget() -> None:
    """Nothing kept."""
    from tests.conftest import clear_cache

    clear_cache()  # this worker's keys only: a FLUSHDB would wipe the other workers' too


def page(client, game) -> str:
    response = client.get(reverse("game-home", args=[game.pk]))
    assert response.status_code == 200
    return CSRF.sub("CSRF", response.content.decode())


def version(game) -> int:
    return Game.objects.get(pk=game.pk).page_version


@pytest.fixture
def readers(game, make_user):
    """An anonymous reader, a signed-in reader without a seat and a seated player (the first
    seat that is not the wolf's), each with their own client."""
    outsider, player = Client(), Client()
    people = [make_user("路人"), next(s.user for s in game.seats.order_by("number")
                                      if s.number != wolf_seat(game))]
    # Every reader reads English (the sentences the tests look for): the anonymous one asks
    # for it, the signed-in ones chose it in their profiles.
    Profile.objects.filter(user__in=people).update(language="en")
    outsider.force_login(people[0])
    player.force_login(people[1])
    return {"anonymous": Client(HTTP_ACCEPT_LANGUAGE="en"), "outsider": outsider,
            "player": player}


def read_all(readers, game) -> dict[str, str]:
    return {who: page(client, game) for who, client in readers.items()}


def shows_at_once(readers, game, change, expect) -> None:
    """Every reader reads the page (its parts kept), `change()` happens, and every reader
    sees `expect(html)` true at once (and not before)."""
    before = read_all(readers, game)
    for who, html in before.items():
        assert not expect(html), who
    old = version(game)
    change()
    assert version(game) > old
    for who, html in read_all(readers, game).items():
        assert expect(html), who


# --- each kind of change shows at once ------------------------------------------------------

def test_a_phase_change_shows_at_once(readers, game, gm):
    shows_at_once(readers, game, lambda: services.end_phase_now(game_id=game.pk, gm=gm),
                  lambda html: '<span id="phase-name">Day 1</span>' in html)


def test_a_public_step_shows_at_once(readers, game, gm):
    services.end_phase_now(game_id=game.pk, gm=gm)  # day 1: the votes are public
    voter = game.seats.order_by("number").first()

    def vote():
        services.submit_action(game_id=game.pk, user=voter.user, kind="vote",
                               params={"target": 1})

    before = timeline(page(readers["anonymous"], game))
    shows_at_once(readers, game, vote, lambda html: len(timeline(html)) == len(before) + 1)


def timeline(html: str) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", html.split('<ol class="timeline">')[1])


def test_a_death_shows_at_once(readers, game):
    victim = next(n for n in range(game.seat_count) if n != wolf_seat(game))

    def kill():
        night_kill(game)  # the night ends early: the victim is dead by the morning

    def dead(html):
        row = re.search(rf"<tr><td>{victim + 1}</td>.*?</tr>", html, re.S).group(0)
        return "✝" in row

    shows_at_once(readers, game, kill, dead)


def test_a_substitution_shows_at_once(readers, game, gm, make_user):
    incoming = make_user("替补甲")
    services.sign_up(game_id=game.pk, user=incoming, role="substitute")
    seat = game.seats.get(number=3)
    services.start_substitution(game_id=game.pk, gm=gm, seat_number=3)
    assert "替补甲" not in page(readers["anonymous"], game)

    shows_at_once(readers, game,
                  lambda: services.accept_substitution(game_id=game.pk, user=incoming),
                  lambda html: "替补甲" in html)
    seat.refresh_from_db()
    assert seat.user == incoming


def test_a_seated_players_rename_changes_nothing_the_game_shows(readers, game):
    """Names are fixed for the game (docs/community.md, "Secrets that cannot flow back"):
    the seat list keeps the name the seat's holder had at the start, for every reader."""
    user = game.seats.get(number=2).user
    old_name = user.profile.display_name
    Profile.objects.filter(user=user).update(display_name="新名字")
    services.profile_saved(user_id=user.pk, renamed=True, new_hours=False)
    for who, html in read_all(readers, game).items():
        assert "新名字" not in html and old_name in html, who


def test_a_published_announcement_shows_at_once(readers, game, gm):
    Game.objects.filter(pk=game.pk).update(hold_announcements=True)
    services.end_phase_now(game_id=game.pk, gm=gm)  # the dawn's announcement waits
    draft = Announcement.objects.filter(game=game, published_at=None).latest("id")
    Announcement.objects.filter(pk=draft.pk).update(title="天亮了公告")
    shows_at_once(readers, game,
                  lambda: services.publish_announcement(announcement_id=draft.pk, gm=gm),
                  lambda html: "天亮了公告" in html)


def test_a_deadline_change_shows_at_once(readers, game, gm):
    later = (Game.objects.get(pk=game.pk).deadline + dt.timedelta(minutes=90)).astimezone(dt.UTC)
    shows_at_once(readers, game,
                  lambda: services.extend_deadline(game_id=game.pk, gm=gm, minutes=90),
                  lambda html: f'data-deadline="{later.isoformat()}"' in html)


def test_a_gm_edit_shows_at_once(readers, game):
    shows_at_once(readers, game,
                  lambda: services.update_settings(game_id=game.pk, changes={"name": "改名后的局"}),
                  lambda html: "<h1>改名后的局</h1>" in html)


def test_the_end_of_the_game_shows_at_once(readers, game, gm):
    shows_at_once(readers, game, lambda: services.abort_game(game_id=game.pk, gm=gm),
                  lambda html: 'id="review-link"' in html)


def test_a_new_vote_thread_shows_at_once(readers, game, gm):
    shows_at_once(readers, game, lambda: services.end_phase_now(game_id=game.pk, gm=gm),
                  lambda html: 'id="vote-thread-link"' in html)


def test_a_change_in_another_game_leaves_this_one_alone(game, players, gm):
    other = services.create_game(name="别的局", ruleset="toy", gm=gm, seat_count=5)
    before = version(game)
    services.update_settings(game_id=other.pk, changes={"name": "别的局2"})
    assert version(game) == before and version(other) > 0


def test_a_cache_that_is_down_costs_the_parts_not_the_page(readers, game, gm, settings):
    """Redis away (a port nobody listens on): every reader still gets the page, each
    change shows at once, nothing is kept."""
    from config import cache as degrading

    settings.CACHES = {**settings.CACHES, "default": {
        **settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:9/0"}}
    degrading.reset()
    shows_at_once(readers, game, lambda: services.end_phase_now(game_id=game.pk, gm=gm),
                  lambda html: '<span id="phase-name">Day 1</span>' in html)


# --- whose eyes -----------------------------------------------------------------------------

def test_each_viewer_gets_what_a_fresh_render_gives_them(game, make_user, gm):
    """Every seat, the GM, a signed-in outsider and an anonymous reader read the page in
    turn (each one's parts kept, the seats' first): each
    page is the one a render without any kept part gives that viewer, so no seat's view
    reaches anyone else."""
    clients = {}
    for seat in game.seats.order_by("number"):
        clients[f"seat {seat.number}"] = Client()
        clients[f"seat {seat.number}"].force_login(seat.user)
    clients["gm"], clients["outsider"] = Client(), Client()
    clients["gm"].force_login(gm)
    clients["outsider"].force_login(make_user("路人丙"))
    clients["anonymous"] = Client()
    for moment in ("night", "day", "over"):
        kept = {who: page(c, game) for who, c in clients.items()}
        kept_again = {who: page(c, game) for who, c in clients.items()}
        forget()
        fresh = {}
        for who in reversed(list(clients)):  # the other order: the outsiders first
            fresh[who] = page(clients[who], game)
            forget()
        assert kept == kept_again == fresh, moment
        wolf = wolf_seat(game)
        assert kept[f"seat {wolf}"] != kept[f"seat {(wolf + 1) % 5}"] or moment == "over"
        if moment == "night":
            services.end_phase_now(game_id=game.pk, gm=gm)
        elif moment == "day":
            services.abort_game(game_id=game.pk, gm=gm)


def test_the_wolf_seats_page_is_kept_for_the_wolf_only(game, readers):
    wolf = seat_user(game, "wolf")
    client = Client()
    client.force_login(wolf)
    mine = page(client, game)
    assert 'id="act-link"' in mine
    for who, html in read_all(readers, game).items():
        assert html != mine, who
    assert 'id="act-link"' not in page(readers["anonymous"], game)
    assert 'id="act-link"' not in page(readers["outsider"], game)


def test_a_draft_game_is_not_found(gm):
    draft = services.create_game(name="草稿局", ruleset="toy", gm=gm, seat_count=5)
    Game.objects.filter(pk=draft.pk).update(status=Game.Status.DRAFT)
    assert Client().get(reverse("game-home", args=[draft.pk])).status_code == 404
    assert Client().get("/games/999999/").status_code == 404


# --- queries --------------------------------------------------------------------------------

def count_queries(client, game) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(reverse("game-home", args=[game.pk])).status_code == 200
    return len(ctx)


@pytest.mark.parametrize("seats", [3, 8])
def test_queries_are_few_and_the_same_for_any_number_of_seats(seats, toy_ruleset, make_user, gm):
    users = [make_user(f"座{i}") for i in range(seats)]
    game = services.create_game(name="座位局", ruleset="toy", gm=gm, seat_count=seats)
    game = services.start_game(game_id=game.pk, users=users, seed="fixed-seed")
    services.end_phase_now(game_id=game.pk, gm=gm)
    signed_in, player = Client(), Client()
    signed_in.force_login(make_user("路人丁"))
    player.force_login(users[0])
    anonymous = Client()
    # A miss: the key row, the game's whole row, the seats, the public events, the vote and
    # announcement threads, the announcements; on every answer of a game in play, each
    # seat's posts in the last 48 hours (one query, never kept: it follows the clock). The
    # same for 3 seats and 8: nothing is read per seat.
    assert count_queries(anonymous, game) == 6 + 1
    # A hit: the key row only (the parts kept), and the seats' posts.
    assert count_queries(anonymous, game) == 1 + 1
    forget()
    # Signed in: the session, the user with their profile, the key row with their seat and
    # sign-up, the header's counts, the seats' posts; a miss adds the five reads above.
    assert count_queries(signed_in, game) == 5 + 5
    assert count_queries(signed_in, game) == 5
    assert count_queries(player, game) == 5 + 5  # another seat: its own parts
    assert count_queries(player, game) == 5


def test_the_key_row_reads_the_visitors_seat_and_signup(game, make_user):
    substitute = make_user("替补乙")
    services.sign_up(game_id=game.pk, user=substitute, role="substitute")
    row = selectors.home_row(game.pk, substitute)
    assert (row.viewer_seat, row.viewer_signup_role) == (None, "substitute")
    seat = game.seats.get(number=2)
    row = selectors.home_row(game.pk, seat.user)
    assert (row.viewer_seat, row.viewer_checked_in_at, row.viewer_signup_role) == (2, None, None)
    assert selectors.home_row("nope", seat.user) is None
