"""Classic pages: each seat's 'my hand' panel shows exactly what the seat may know, no page
shows another seat's hidden identity, votes are offered to the voter whose turn it is, and a
refused form shows the reason."""

import json
import re

import pytest
from django.urls import reverse

from games.models import Action
from tests.factories.classic import (
    BANDITS,
    NAMES,
    POLICE,
    act,
    assert_hides,
    current,
    fresh,
    identities,
    known,
    new_game,
    night_one,
    page,
    pub,
    role_of,
    speak_all,
    text_of,
    time_out,
    vote_all,
)

pytestmark = pytest.mark.django_db


def choice(kind, **params):
    return json.dumps({"kind": kind, "params": params}, sort_keys=True, ensure_ascii=False)


def test_each_seats_panel_shows_its_card_team_and_checks_and_nothing_more(client, game):
    night_one(game, victim=2, checked=5)
    time_out(game)  # no last words: the speeches begin
    for seat in range(11):
        if seat == 2:
            continue
        html = page(client, game, seat)
        allowed = known(seat, checks=[(5, "bandit")], revealed=[(2, "civilian")])
        assert identities(html) == allowed, seat  # everything it may know is shown...
        assert_hides(html, allowed)               # ...and nothing else, anywhere on the page


def test_the_home_page_shows_only_public_identities_to_seats_and_visitors(client, game):
    night_one(game, victim=2, checked=5)
    for seat in [*range(11), None]:
        html = page(client, game, seat, name="game-home")
        assert_hides(html, {(2, "civilian")})
        assert "3号小白：民" in text_of(html)  # the dawn's public reveal is in the timeline
        assert "出局（第1个死者）：民" in text_of(html)  # and in the table of seats


def test_the_police_panel_lists_its_checks_with_the_result(client, game):
    night_one(game, victim=2, checked=5)
    html = page(client, game, POLICE[2])
    table = html[html.index('id="classic-checks"'):html.index("</table>", html.index(
        'id="classic-checks"'))]
    assert "6号大黄" in table and 'data-seat="5" data-role="bandit"' in table


def test_only_the_voter_whose_turn_it_is_gets_the_vote_form(client, game):
    night_one(game, victim=2)
    time_out(game)
    speak_all(game)
    voter = current(game)
    html = page(client, game, voter)
    assert 'id="classic-your-turn"' in html and 'id="action-form"' in html
    options = re.findall(r'<option value="(\{.*?\})">([^<]*)</option>', html)
    offered = {json.loads(value)["params"].get("target") for value, _label in options}
    assert offered == {s for s in range(11) if s not in (2, voter)} | {None}  # None: abstain
    assert "投票给1号阿猫" in [label for _value, label in options]
    waiting = page(client, game, 4)
    assert 'id="action-form"' not in waiting and 'id="no-actions"' in waiting
    # The voter votes through the form; the next voter's turn begins.
    client.force_login(game.seats.get(number=voter).user)
    fields = {"choice": choice("vote", target=5), "phase": str(fresh(game).current_phase.seq)}
    response = client.post(reverse("game-act", args=[game.pk]), fields, follow=True)
    assert "投出后不能更改。" in response.content.decode(), "a vote is confirmed first"
    assert not Action.objects.filter(game=game, kind="vote").exists()
    response = client.post(reverse("game-act", args=[game.pk]), dict(fields, confirmed="1"),
                           follow=True)
    assert response.status_code == 200
    assert Action.objects.filter(game=game, kind="vote", params={"target": 5}).exists()
    assert current(game) == 4


def test_a_refused_form_post_shows_the_reason_in_chinese(client, game):
    night_one(game, victim=2)
    time_out(game)
    speak_all(game)
    voter = current(game)
    client.force_login(game.seats.get(number=voter).user)
    response = client.post(reverse("game-act", args=[game.pk]),
                           {"choice": choice("vote", target=voter)}, follow=True)
    assert "你不能投票给自己。" in response.content.decode()
    assert not Action.objects.filter(game=game, kind="vote").exists()


def test_speeches_and_team_talk_are_written_through_the_form(client, game):
    client.force_login(game.seats.get(number=BANDITS[0]).user)
    url = reverse("game-act", args=[game.pk])
    client.post(url, {"choice": choice("team_message"), "text_text": "今晚杀3号？"})
    assert "今晚杀3号？" in page(client, game, BANDITS[1])
    assert "今晚杀3号？" not in page(client, game, POLICE[0])


def test_the_gm_console_shows_the_teams_private_talk(client, game, gm):
    act(game, BANDITS[0], "team_message", text="我们先杀3号")
    act(game, POLICE[0], "team_message", text="先验6号")
    client.force_login(gm)
    html = client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()
    assert "我们先杀3号" in html and "先验6号" in html


def test_at_the_end_every_panel_shows_every_card_and_the_result(client, game):
    # Night 1: the bandits kill one of their own; day 1: the police vote out a second;
    # night 2: the last bandit kills itself. Every bandit is dead: the police side wins.
    act(game, BANDITS[0], "kill", target=BANDITS[0])
    act(game, BANDITS[1], "defer")
    act(game, BANDITS[2], "defer")
    for p in POLICE:
        act(game, p, "defer")
    time_out(game)  # no last words
    speak_all(game)
    vote_all(game, {s: BANDITS[1] for s in range(11) if s not in BANDITS})
    time_out(game)  # no last words
    act(game, BANDITS[2], "kill", target=BANDITS[2])
    for p in POLICE:
        act(game, p, "defer")
    game = fresh(game)
    assert game.status == "finished" and pub(game)["outcome"]["result"] == "police"
    every = {(s, role_of(s)) for s in range(11)}
    for seat in range(11):
        html = page(client, game, seat)
        assert every <= identities(html)
        assert "警察与平民获胜。" in html
        assert ("我是获胜者之一。" in html) == (seat not in BANDITS), seat


# --- the 2.0 variants -------------------------------------------------------------------

# 12 seats, seat 1 first: police 1 5 9; bandits 2 6 (6 is the ghost) 10; poison 3;
# police guardian 4; bandit guardian 7; civilians 8 11 12.
VARIANT_DEAL = ["police", "bandit", "poison", "police_guardian", "police", "ghost",
                "bandit_guardian", "civilian", "police", "bandit", "civilian", "civilian"]


@pytest.fixture
def variant_game(players, gm, make_user):
    return new_game([*players, make_user("十二")], gm, fixed_roles=VARIANT_DEAL,
                    variant_ghost_poison=True, dual_guardians=True)


def test_variant_panels_show_the_ghost_to_its_team_and_each_guardian_its_protections(
        client, variant_game):
    game = variant_game
    ghost, bandits = 5, [1, 5, 9]
    for seat, card in enumerate(VARIANT_DEAL):
        html = page(client, game, seat)
        shown = identities(html)
        assert (seat, card) in shown, seat
        if seat in bandits:
            assert shown == {(s, "bandit") for s in bandits} | {(ghost, "ghost")} | {
                (seat, card)}
        elif card == "police":
            assert shown == {(s, "police") for s in (0, 4, 8)}
        else:
            assert shown == {(seat, card)}
        assert ('id="classic-guardian"' in html) == card.endswith("guardian"), seat
        assert ('id="classic-possession"' in html) == (seat == ghost), seat


def test_a_possessed_civilian_joins_the_bandits_and_only_they_are_told(client, variant_game):
    game = variant_game
    act(game, 5, "possess", target=7)          # the ghost possesses 8号, a civilian
    for b in (1, 5, 9):
        act(game, b, "kill", target=11, pact=1)
    for p in (0, 4, 8):
        act(game, p, "defer")
    act(game, 3, "protect", target=0)
    act(game, 6, "protect", target=1)
    game = fresh(game)
    assert game.phase_name == "last_words"
    html = page(client, game, 7)
    assert (7, "bandit") in identities(html) and (5, "ghost") in identities(html)
    assert "我被鬼匪附体" in html
    for seat in (1, 9):
        assert (7, "bandit") in identities(page(client, game, seat))
    for seat in (0, 2, 3, 6, 10):
        html = page(client, game, seat)
        assert (7, "bandit") not in identities(html) and "转变为匪" not in html, seat
    assert NAMES[7] + "，其身份转变为匪" in page(client, game, 1)
