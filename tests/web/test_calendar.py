"""The private iCalendar feed: valid iCal, only my games' deadlines, revocable."""

from __future__ import annotations

import datetime as dt

import icalendar
import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Profile
from games import services
from games.models import Signup
from tests.factories.toy import finish, night_kill

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]


def sec(when: dt.datetime) -> dt.datetime:
    """iCalendar keeps whole seconds."""
    return when.replace(microsecond=0)


def make_feed(client, user) -> str:
    """Create the user's calendar address through the profile page; return its path."""
    client.force_login(user)
    response = client.post(reverse("profile-calendar"), {"do": "create"})
    assert response.status_code == 302
    token = Profile.objects.get(user=user).calendar_token
    assert len(token) == 40
    client.logout()
    return reverse("calendar-feed", args=[token])


def entries(client, path) -> list:
    response = client.get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    assert "no-store" in response["Cache-Control"]
    calendar = icalendar.Calendar.from_ical(response.content)
    assert str(calendar["VERSION"]) == "2.0" and calendar.get("PRODID")
    return calendar.walk("VEVENT")


def test_the_feed_lists_the_deadline_of_my_running_game_and_nothing_of_others(
        game, players, gm, make_user, client):
    other_players = [make_user(f"旁人{i}") for i in range(5)]
    other = services.create_game(name="别的局", ruleset="toy", gm=gm, seat_count=5)
    other = services.start_game(game_id=other.pk, users=other_players)
    events = entries(client, make_feed(client, players[0]))
    phases = [e for e in events if "-phase-" in str(e["UID"])]
    assert len(phases) == 1
    assert phases[0]["DTSTART"].dt == sec(game.deadline)
    assert f"/games/{game.pk}/act/" in str(phases[0]["URL"])
    assert all(f"game-{other.pk}-" not in str(e["UID"]) for e in events)


def test_the_check_in_deadline_is_listed_until_i_check_in(game, players, client):
    path = make_feed(client, players[0])
    checkin = [e for e in entries(client, path) if "-checkin-" in str(e["UID"])]
    assert [e["DTSTART"].dt for e in checkin] == [
        sec(game.started_at + dt.timedelta(hours=game.checkin_hours))]
    game.seats.filter(user=players[0]).update(checked_in_at=timezone.now())
    assert not [e for e in entries(client, path) if "-checkin-" in str(e["UID"])]


def test_a_dead_seat_s_feed_lists_no_phase_or_check_in_deadline(game, players, gm, client):
    game = night_kill(game)
    dead = game.seats.get(alive=False)
    living = game.seats.filter(alive=True).exclude(user=None).first()
    assert game.status == game.Status.RUNNING and dead.checked_in_at is None
    dead_events = entries(client, make_feed(client, dead.user))
    assert not [e for e in dead_events if "-phase-" in str(e["UID"]) or
                "-checkin-" in str(e["UID"])]
    living_events = entries(client, make_feed(client, living.user))
    assert [e["DTSTART"].dt for e in living_events if "-phase-" in str(e["UID"])] == [
        sec(game.deadline)]
    assert [e for e in living_events if "-checkin-" in str(e["UID"])]
    gm_events = entries(client, make_feed(client, gm))
    assert [e["DTSTART"].dt for e in gm_events if "-phase-" in str(e["UID"])] == [
        sec(game.deadline)]


def test_the_gm_sees_the_deadlines_of_the_games_they_run(game, gm, client):
    events = entries(client, make_feed(client, gm))
    assert [e["DTSTART"].dt for e in events if "-phase-" in str(e["UID"])] == [sec(game.deadline)]


def test_a_new_phase_is_a_new_entry_and_a_moved_deadline_the_same_one(game, players, gm,
                                                                     client):
    path = make_feed(client, players[0])
    [first] = [e for e in entries(client, path) if "-phase-" in str(e["UID"])]
    services.extend_deadline(game_id=game.pk, gm=gm, minutes=30)
    [moved] = [e for e in entries(client, path) if "-phase-" in str(e["UID"])]
    assert moved["UID"] == first["UID"] and moved["DTSTART"].dt == first["DTSTART"].dt + \
        dt.timedelta(minutes=30)
    services.end_phase_now(game_id=game.pk, gm=gm)
    [later] = [e for e in entries(client, path) if "-phase-" in str(e["UID"])]
    assert later["UID"] != first["UID"]


def test_sign_ups_and_open_awards_are_listed(game, players, gm, make_user, client):
    upcoming = services.create_game(name="下一局", ruleset="toy", gm=gm, seat_count=5)
    starts = timezone.now() + dt.timedelta(days=2)
    upcoming.status, upcoming.starts_at = upcoming.Status.SIGNUP, starts
    upcoming.save()
    Signup.objects.create(game=upcoming, user=players[0])
    over = finish(game)
    until = timezone.now() + dt.timedelta(days=1)
    services.nominate(game_id=over.pk, gm=gm, kind="fair_play", nominee=players[1],
                    vote_until=until)
    events = {str(e["UID"]).split("@")[0]: e["DTSTART"].dt
              for e in entries(client, make_feed(client, players[0]))}
    assert events == {f"game-{upcoming.pk}-start": sec(starts),
                      f"game-{over.pk}-award-fair_play": sec(until)}
    stranger = make_user("路人")
    assert entries(client, make_feed(client, stranger)) == []


def test_a_new_address_revokes_the_old_one_and_revoking_leaves_none(players, client):
    old = make_feed(client, players[0])
    assert client.get(old).status_code == 200
    new = make_feed(client, players[0])
    assert new != old
    assert client.get(old).status_code == 404
    assert client.get(new).status_code == 200
    client.force_login(players[0])
    client.post(reverse("profile-calendar"), {"do": "revoke"})
    assert Profile.objects.get(user=players[0]).calendar_token == ""
    assert client.get(new).status_code == 404


def test_unknown_short_and_empty_tokens_are_404(players, client):
    Profile.objects.filter(user=players[0]).update(calendar_token="short")
    for token in ("short", "x" * 40, "-"):
        assert client.get(reverse("calendar-feed", args=[token])).status_code == 404


def test_the_settings_page_needs_a_sign_in_and_shows_the_address(players, client):
    url = reverse("profile-calendar")
    assert client.get(url).status_code == 302
    client.force_login(players[0])
    assert 'id="no-feed"' in client.get(url).content.decode()
    client.post(url, {"do": "create"})
    token = Profile.objects.get(user=players[0]).calendar_token
    assert token in client.get(url).content.decode()
    assert reverse("profile-calendar") in client.get(reverse("profile")).content.decode()


def test_summaries_are_in_the_reader_s_language(game, players, client):
    Profile.objects.filter(user=players[0]).update(language="en")
    [phase] = [e for e in entries(client, make_feed(client, players[0]))
               if "-phase-" in str(e["UID"])]
    assert str(phase["SUMMARY"]) == f"{game.name}: Night 1 ends"


def test_the_feed_s_queries_do_not_grow_with_the_games(players, gm, make_user,
                                                        django_assert_max_num_queries):
    """One running game, or four (one with an open handover) and an open award: the same
    number of queries, within the selector's budget."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import selectors

    me = players[0]

    def game(name):
        g = services.create_game(name=name, ruleset="toy", gm=gm, seat_count=5)
        others = [make_user(f"{name}{i}") for i in range(4)]
        return services.start_game(game_id=g.pk, users=[me, *others], seed="fixed-seed")

    first = game("一局")
    with CaptureQueriesContext(connection) as one:
        assert len(selectors.deadlines(me)) == 2  # the phase, the check-in
    more = [game(f"{n}局") for n in "二三四"]
    services.start_substitution(game_id=more[0].pk, gm=gm, seat_number=0)
    over = finish(first)
    services.nominate(game_id=over.pk, gm=gm, kind="fair_play",
                      nominee=over.seats.get(number=1).user,
                      vote_until=timezone.now() + dt.timedelta(days=1))
    with django_assert_max_num_queries(selectors.calendar.DEADLINE_QUERIES), \
            CaptureQueriesContext(connection) as four:
        found = selectors.deadlines(me)
    assert len(found) == 3 * 2 + 1 + 1  # three games' phases and check-ins, a handover, an award
    assert len(one) <= len(four) <= selectors.calendar.DEADLINE_QUERIES
    assert len(four) - len(one) <= 2  # the award's two reads, nothing per game
