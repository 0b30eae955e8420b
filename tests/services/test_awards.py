"""Awards (§11.2): the GM nominates, players add candidates, everyone who played votes once
until the deadline, and the results are posted in the announcement thread."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import messenger_user
from games import selectors, services
from games.models import Award, AwardVote, Nomination, Substitution
from games.services import awards
from messaging.models import Thread
from tests.factories.toy import finish, night_kill

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]

MVP = Award.Kind.MVP_CIVILIAN


@pytest.fixture
def over(game):
    return finish(game)


@pytest.fixture
def outsider(make_user):
    return make_user("路人")


def announcements(game) -> list[str]:
    thread = Thread.objects.get(board=game.board, key="announcements")
    return list(thread.posts.order_by("number").values_list("body", flat=True))


def refused(call, **kwargs) -> str:
    with pytest.raises(services.GameError) as info:
        call(**kwargs)
    return str(info.value.message)


# --- nominating -------------------------------------------------------------------------

def test_no_award_before_the_end(game, gm, players):
    running = night_kill(game)
    assert refused(awards.nominate, game_id=running.pk, gm=gm, kind=MVP,
                   nominee=players[0]) == _("Awards are given after the game is over.")
    assert not Award.objects.exists()


def test_the_gm_nominates_a_player_of_the_game_and_opens_the_award(over, gm, players,
                                                                    outsider):
    assert refused(awards.nominate, game_id=over.pk, gm=players[1], kind=MVP,
                   nominee=players[0])
    assert refused(awards.nominate, game_id=over.pk, gm=gm, kind=MVP, nominee=outsider)
    assert refused(awards.nominate, game_id=over.pk, gm=gm, kind="best_cat", nominee=players[0])
    now = timezone.now()
    nomination = awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[0], now=now)
    assert nomination.by_gm and nomination.award.vote_until == now + dt.timedelta(
        hours=awards.VOTE_HOURS)
    assert refused(awards.nominate, game_id=over.pk, gm=gm, kind=MVP, nominee=players[0]) == \
        _("%(name)s is already a candidate.") % {"name": players[0].profile.display_name}
    assert Nomination.objects.filter(award__game=over).count() == 1


def test_players_add_candidates_only_once_the_gm_opened_the_award(over, gm, players,
                                                                  outsider):
    assert refused(awards.add_candidate, game_id=over.pk, user=players[1], kind=MVP,
                   nominee=players[2])
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[0])
    added = awards.add_candidate(game_id=over.pk, user=players[1], kind=MVP,
                                 nominee=players[2])
    assert not added.by_gm and added.by == players[1]
    assert refused(awards.add_candidate, game_id=over.pk, user=players[1], kind=MVP,
                   nominee=players[1])  # themselves
    assert refused(awards.add_candidate, game_id=over.pk, user=outsider, kind=MVP,
                   nominee=players[2])
    assert refused(awards.add_candidate, game_id=over.pk, user=players[3], kind=MVP,
                   nominee=players[2])  # already a candidate
    assert refused(awards.add_candidate, game_id=over.pk, user=players[3], kind=MVP,
                   nominee=outsider)
    assert awards.Nomination.objects.filter(award__game=over).count() == 2


def test_a_substitute_who_took_a_seat_and_the_player_who_left_both_count(over, gm, players,
                                                                        make_user):
    newcomer = make_user("替补甲")
    seat = over.seats.get(user=players[4])
    Substitution.objects.create(game=over, seat=seat, outgoing=players[4], incoming=newcomer,
                                status=Substitution.Status.ACCEPTED,
                                ends_at=timezone.now(), closed_at=timezone.now())
    seat.user = newcomer
    seat.save()
    assert {players[4].pk, newcomer.pk} <= selectors.player_ids(over)
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[4])
    awards.cast_vote(game_id=over.pk, user=newcomer, kind=MVP, nominee=players[4])


# --- voting -------------------------------------------------------------------------------

def test_each_player_votes_once_per_award_and_never_for_themselves(over, gm, players,
                                                                   outsider):
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[0])
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[1])
    awards.cast_vote(game_id=over.pk, user=players[2], kind=MVP, nominee=players[0])
    again = refused(awards.cast_vote, game_id=over.pk, user=players[2], kind=MVP,
                    nominee=players[1])
    assert again
    assert refused(awards.cast_vote, game_id=over.pk, user=players[0], kind=MVP,
                   nominee=players[0])
    assert refused(awards.cast_vote, game_id=over.pk, user=outsider, kind=MVP,
                   nominee=players[0])
    assert refused(awards.cast_vote, game_id=over.pk, user=gm, kind=MVP, nominee=players[0])
    assert refused(awards.cast_vote, game_id=over.pk, user=players[3], kind=MVP,
                   nominee=players[4])  # not a candidate
    assert AwardVote.objects.count() == 1
    # a vote for another award is a vote of its own
    awards.nominate(game_id=over.pk, gm=gm, kind=Award.Kind.FAIR_PLAY, nominee=players[1])
    awards.cast_vote(game_id=over.pk, user=players[2], kind=Award.Kind.FAIR_PLAY,
                     nominee=players[1])
    assert AwardVote.objects.count() == 2


def test_a_vote_after_the_deadline_is_refused(over, gm, players, client):
    deadline = timezone.now() + dt.timedelta(hours=2)
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[0], vote_until=deadline)
    with time_machine.travel(deadline + dt.timedelta(seconds=1), tick=False):
        assert refused(awards.cast_vote, game_id=over.pk, user=players[1], kind=MVP,
                       nominee=players[0]) == _("This award is closed.")
        client.force_login(players[1])
        response = client.post(reverse("game-award-post", args=[over.pk]), {
            "do": "vote", "kind": MVP, "nominee": players[0].pk}, follow=True)
    assert not AwardVote.objects.exists()
    assert 'class="error"' in response.content.decode()
    with time_machine.travel(deadline - dt.timedelta(seconds=1), tick=False):
        awards.cast_vote(game_id=over.pk, user=players[1], kind=MVP, nominee=players[0])
    assert AwardVote.objects.count() == 1


# --- results ------------------------------------------------------------------------------

def test_results_are_posted_once_at_the_deadline_by_the_messenger(over, gm, players):
    deadline = timezone.now() + dt.timedelta(hours=1)
    for nominee in players[:2]:
        awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=nominee, vote_until=deadline)
    awards.nominate(game_id=over.pk, gm=gm, kind=Award.Kind.FAIR_PLAY, nominee=players[3],
                    vote_until=deadline)
    for voter, nominee in ((players[2], players[1]), (players[3], players[1]),
                           (players[4], players[0])):
        awards.cast_vote(game_id=over.pk, user=voter, kind=MVP, nominee=nominee)
    before = len(announcements(over))
    assert awards.close_due_awards(now=deadline - dt.timedelta(minutes=1)) == 0
    assert awards.close_due_awards(now=deadline) == 2
    assert awards.close_due_awards(now=deadline + dt.timedelta(hours=1)) == 0
    posts = announcements(over)
    assert len(posts) == before + 1, "one post for the awards closed together"
    text = posts[-1]
    names = {p.pk: p.profile.display_name for p in players}
    mvp = Award.objects.get(game=over, kind=MVP)
    assert mvp.winner == players[1] and mvp.closed_at == deadline
    assert f"{names[players[1].pk]} 2" in text and f"{names[players[0].pk]} 1" in text
    fair = Award.objects.get(game=over, kind=Award.Kind.FAIR_PLAY)
    assert fair.winner is None and fair.closed_at == deadline
    thread = Thread.objects.get(board=over.board, key="announcements")
    assert thread.posts.order_by("-number")[0].author == messenger_user()


def test_a_tie_goes_to_the_first_to_reach_the_count(over, gm, players):
    for nominee in players[:2]:
        awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=nominee)
    order = ((players[2], players[1]), (players[3], players[0]), (players[4], players[0]),
             (players[0], players[1]))
    for voter, nominee in order:
        awards.cast_vote(game_id=over.pk, user=voter, kind=MVP, nominee=nominee)
    [award] = awards.close_awards(game_id=over.pk, gm=gm)
    assert award.winner == players[0], "players[0] reached 2 votes before players[1]"


def test_the_gm_closes_early_and_only_staff_may(over, gm, players):
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[0])
    assert refused(awards.close_awards, game_id=over.pk, gm=players[1])
    assert awards.close_awards(game_id=over.pk) == [], "not due yet"
    assert len(awards.close_awards(game_id=over.pk, gm=gm)) == 1
    assert awards.close_awards(game_id=over.pk, gm=gm) == []
    assert refused(awards.cast_vote, game_id=over.pk, user=players[1], kind=MVP,
                   nominee=players[0])


# --- the page ----------------------------------------------------------------------------

def test_the_page_runs_the_whole_flow_and_hides_counts_until_the_end(over, gm, players,
                                                                      client):
    url = reverse("game-awards", args=[over.pk])
    post = reverse("game-award-post", args=[over.pk])
    client.force_login(gm)
    client.post(post, {"do": "nominate", "kind": MVP, "nominee": players[0].pk,
                       "vote_until": ""})
    client.force_login(players[1])
    client.post(post, {"do": "add", "kind": MVP, "nominee": players[2].pk})
    client.post(post, {"do": "vote", "kind": MVP, "nominee": players[2].pk})
    page = unescape(client.get(url).content.decode())
    section = re.search(r'data-kind="mvp_civilian" data-state="open">(.*?)</section>', page,
                        re.S).group(1)
    assert set(re.findall(r'data-user="(\d+)"', section)) == {str(players[0].pk),
                                                              str(players[2].pk)}
    assert 'class="votes"' not in section and "vote-form" not in section, "voted already"
    assert 'data-kind="fair_play" data-state="vacant"' in page
    client.force_login(gm)
    client.post(post, {"do": "close"})
    page = unescape(client.get(url).content.decode())
    section = re.search(r'data-kind="mvp_civilian" data-state="closed">(.*?)</section>', page,
                        re.S).group(1)
    assert re.search(r'class="winner">([^<]+)<', section).group(1) == \
        players[2].profile.display_name
    assert re.findall(r'class="votes">(\d+)<', section) == ["1", "0"]


def test_the_awards_page_does_not_exist_before_the_end(game, client):
    assert client.get(reverse("game-awards", args=[game.pk])).status_code == 404


def test_after_the_deadline_the_gm_can_still_post_results_the_sweeper_has_not(
        over, gm, players, client):
    deadline = timezone.now() + dt.timedelta(hours=1)
    awards.nominate(game_id=over.pk, gm=gm, kind=MVP, nominee=players[0], vote_until=deadline)
    awards.cast_vote(game_id=over.pk, user=players[1], kind=MVP, nominee=players[0])
    client.force_login(gm)
    with time_machine.travel(deadline + dt.timedelta(minutes=5), tick=False):
        page = client.get(reverse("game-awards", args=[over.pk])).content.decode()
        assert 'data-kind="mvp_civilian" data-state="closed"' in page and 'id="close-form"' in page
        client.post(reverse("game-award-post", args=[over.pk]), {"do": "close"})
        page = client.get(reverse("game-awards", args=[over.pk])).content.decode()
    assert Award.objects.get(game=over, kind=MVP).winner == players[0]
    assert 'id="close-form"' not in page
