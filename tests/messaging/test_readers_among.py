"""`rules.readers_among` (one query for many readers) says what `rules.can_read_thread` says
for each of them, on every kind of thread and board: the lobby, a GM-only thread, the GM
board, a draft game's board (hidden by the games), for players, a GM, another staff
account, 神的使者 and a disabled account."""

from __future__ import annotations

import pytest

from games.models import Game
from messaging import rules, services
from messaging.models import Thread

pytestmark = pytest.mark.django_db


def test_one_query_answers_as_the_rule_answers_each_reader(
        lobby, game_board, gm_board, gm, alice, bob, messenger, make_user,
        django_assert_num_queries, toy_ruleset):
    other_staff = make_user("天神乙", staff=True)
    gone = make_user("离开的人")
    gone.is_active = False
    gone.save()
    draft_board = services.create_board(slug="draft-1", title="草稿局", kind="game")
    Game.objects.create(name="草稿局", ruleset="toy", board=draft_board, gm=gm,
                        status=Game.Status.DRAFT)
    threads = [
        services.start_thread(board=lobby, author=alice, kind="discussion", title="大厅",
                              body="大家好"),
        services.start_thread(board=game_board, author=gm, kind=Thread.Kind.GM_ONLY,
                              title="天神笔记", body="秘密"),
        services.start_thread(board=gm_board, author=gm, kind="discussion", title="天神版",
                              body="内部"),
        services.start_thread(board=draft_board, author=gm, kind="discussion", title="草稿",
                              body="还没开始"),
    ]
    people = [alice, bob, gm, other_staff, messenger, gone]
    answers = set()
    for thread in threads:
        expected = {user.pk for user in people if rules.can_read_thread(user, thread)}
        # One query, and for each active staff account the boards it governs (a staff
        # account is rarely among a game's players: the GM never sits)
        with django_assert_num_queries(1 + 2):
            found = rules.readers_among(thread, people)
        assert found == expected, thread.title
        answers.add(frozenset(found))
    # The threads are read by different people: the comparison above tells them apart.
    assert len(answers) >= 3
