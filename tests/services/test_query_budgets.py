"""Query budgets on the heaviest writes (as Zulip's actions carry): a night's end by the
clock at 5 seats (猫有n条命) and at 11 and 16 seats (Classic), a vote, a reply, a post with
mentions. Each budget is a constant or linear in the seats, stated in its test; a write
that grows past it fails here before a crowd notices. The statements counted are every
one the write makes on its connection (savepoints and the sweep's advisory lock included)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from messaging import services as forum
from messaging.models import Notification
from tests.factories import classic as cl
from tests.factories import fresh
from tests.factories import ninelives as nl

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_email")]


def statements(fn) -> list[str]:
    with CaptureQueriesContext(connection) as seen:
        fn()
    return [q["sql"] for q in seen.captured_queries]


def night_end_by_the_clock(game) -> list[str]:
    game = fresh(game)
    assert game.phase_name == "night"
    later = game.deadline + services.grace() + dt.timedelta(seconds=1)
    found = statements(lambda: services.sweep(now=later))
    assert fresh(game).phase_name != "night"
    return found


def classic_game(make_user, gm, seats: int):
    deal = ("PBCC" * 4)[:seats]
    users = [make_user(f"玩家{seats}-{i}") for i in range(seats)]
    game = services.create_game(name=f"经典{seats}", ruleset="classic", gm=gm, seat_count=seats,
                                config={"fixed_roles": [cl.CARDS[c] for c in deal]},
                                durations=cl.DURATIONS)
    return services.start_game(game_id=game.pk, users=users, seed="budget")


# The budgets. A night's end at 5 seats of 猫有n条命 (every seat is told it passed, by a
# message and an email): 72 statements, a part per seat (the emails) and the rest constant;
# Classic's night at 11 and at 16 seats is constant (its results go to a few seats).
NIGHT_NINELIVES_5 = 72
NIGHT_CLASSIC = 64
VOTE = 17
REPLY = 16
MENTIONS_EXTRA = 2  # a post mentioning three players: the names looked up once, the notices in one insert


def test_a_ninelives_night_ends_within_its_budget(nl_players, nl_gm):
    assert len(night_end_by_the_clock(nl.start(nl_players, nl_gm))) <= NIGHT_NINELIVES_5


def test_a_classic_night_costs_the_same_at_11_and_16_seats(make_user, gm):
    eleven = len(night_end_by_the_clock(classic_game(make_user, gm, 11)))
    sixteen = len(night_end_by_the_clock(classic_game(make_user, gm, 16)))
    assert eleven <= NIGHT_CLASSIC
    assert sixteen <= NIGHT_CLASSIC


def test_a_vote_a_reply_and_a_post_with_mentions_keep_their_budgets(nl_players, nl_gm):
    game = fresh(nl.start(nl_players, nl_gm))
    night_end_by_the_clock(game)  # the day: its vote thread open
    game = fresh(game)
    when = game.current_phase.started_at + dt.timedelta(minutes=1)
    vote = statements(lambda: services.submit_action(
        game_id=game.pk, user=nl_players[0], kind="vote", params={"target": 2}, now=when))
    assert len(vote) <= VOTE
    thread = forum.start_thread(board=game.board, author=nl_players[1], kind="discussion",
                                title="分析", body="第一帖")
    reply = statements(lambda: forum.reply(thread=thread, author=nl_players[2], body="同意",
                                           enforce_rate_limit=False))
    assert len(reply) <= REPLY
    mentions = statements(lambda: forum.reply(
        thread=thread, author=nl_players[3], body="@阿猫 @阿狗 @小白 你们怎么看",
        enforce_rate_limit=False))
    assert len(mentions) <= REPLY + MENTIONS_EXTRA
    assert Notification.objects.filter(kind="mention", post__thread=thread).count() == 3
