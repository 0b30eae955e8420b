"""Who may watch a game some phases behind (games.services.watching), from every seat: the
living never, the dead from their death on (and a dead player who watches no longer writes
on the board), outsiders who chose to (and never sign up after), never the GM, a player
signed up or a waiting substitute, nor anyone before the start, after the end, or in a game
whose GM let nobody watch."""

from __future__ import annotations

import pytest

from games import services
from games.models import Game, Signup, Watcher
from games.services import GameError
from tests.factories.toy import finish, night_kill, open_to_outsiders, seat_user, wolf_seat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


def refused(game, user) -> str:
    with pytest.raises(GameError) as refusal:
        services.watch(game_id=game.pk, user=user)
    assert not Watcher.objects.filter(game=game, user=user).exists()
    return str(refusal.value)


def test_the_living_never_watch_and_the_dead_do_from_their_death(game):
    victim = game.seats.get(number=next(n for n in range(5) if n != wolf_seat(game)))
    assert "players watch only once they are out" in refused(game, victim.user)
    assert "players watch only once they are out" in refused(game, seat_user(game, "wolf"))
    game = night_kill(game)
    victim.refresh_from_db()
    assert not victim.alive
    watcher = services.watch(game_id=game.pk, user=victim.user)
    assert watcher.seat == victim
    assert services.watch(game_id=game.pk, user=victim.user) == watcher  # once
    for seat in game.seats.filter(alive=True):
        assert "players watch only once they are out" in refused(game, seat.user)


def test_a_dead_player_who_watches_no_longer_replies_on_the_board(game):
    """The toy's dead reply briefly, as 猫有n条命's do (§7.2): watching ends it (docs/community.md, "Watching")."""
    game = night_kill(game)
    dead = game.seats.get(alive=False).user
    thread = game.board.threads.exclude(key__startswith="vote-").first()
    assert services.dead_post_refusal(game, dead, thread=thread, body="短话") is None
    assert services.gives_up_dead_talk(game, dead)
    services.watch(game_id=game.pk, user=dead)
    assert not services.gives_up_dead_talk(game, dead)
    refusal = services.dead_post_refusal(game, dead, thread=thread, body="短话")
    assert refusal and "watches writes nothing" in refusal
    assert services.dead_post_refusal(game, dead, thread=None, body="新帖")


def test_an_outsider_who_watches_never_signs_up(game, make_user):
    game = open_to_outsiders(game)
    outsider = make_user("看客")
    assert services.watch_refusal(game, outsider) is None
    watcher = services.watch(game_id=game.pk, user=outsider)
    assert watcher.seat is None
    with pytest.raises(GameError, match="watcher does not sign up"):
        services.sign_up(game_id=game.pk, user=outsider, role=Signup.Role.SUBSTITUTE)
    assert not Signup.objects.filter(game=game, user=outsider).exists()


def test_a_waiting_substitute_never_watches(game, make_user):
    game = open_to_outsiders(game)
    waiting = make_user("替补")
    services.sign_up(game_id=game.pk, user=waiting, role=Signup.Role.SUBSTITUTE)
    assert "you may still enter it" in refused(game, waiting)
    services.withdraw_signup(game_id=game.pk, user=waiting)
    assert services.watch(game_id=game.pk, user=waiting).seat is None


def test_the_gm_and_a_visitor_are_refused(game, gm):
    from django.contrib.auth.models import AnonymousUser

    assert "console shows you everything" in refused(game, gm)
    with pytest.raises(GameError, match="Sign in"):
        services.watch(game_id=game.pk, user=AnonymousUser())


def test_the_gm_chooses_the_delay_before_the_start_only(toy_ruleset, gm, players, make_user):
    draft = services.create_game(name="不许观战", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60},
                                 watch_delay=Game.WatchDelay.TWO)
    services.update_settings(game_id=draft.pk, changes={"watch_delay": Game.WatchDelay.NONE})
    with pytest.raises(GameError):
        services.update_settings(game_id=draft.pk, changes={"watch_delay": 7})
    game = services.start_game(game_id=draft.pk, users=players, seed="fixed-seed")
    assert game.watch_delay == Game.WatchDelay.NONE
    assert "lets nobody watch" in refused(game, make_user("看客"))
    with pytest.raises(GameError, match="setup cannot change"):
        services.update_settings(game_id=game.pk, changes={"watch_delay": 1})


def test_nothing_to_watch_before_the_start_and_the_review_after_the_end(toy_ruleset, gm,
                                                                        players, make_user):
    draft = services.create_game(name="未开局", ruleset="toy", gm=gm, seat_count=5,
                                 durations={"night": 60, "day": 60})
    assert "has not started" in refused(draft, make_user("看客"))
    done = finish(services.start_game(game_id=draft.pk, users=players, seed="fixed-seed"))
    assert "its review shows everything" in refused(done, make_user("后来的看客"))


def test_a_gm_watches_no_game_and_a_watcher_runs_none(game, gm, make_user):
    """A GM speaks for their game where the living of every game read (its board, the
    lobby): a GM of a game not over may not watch another, and a watcher who is staff may
    neither create a game, act as a GM, nor edit a post as the lobby's moderator."""
    from messaging import services as forum
    from messaging.models import Post, PostRevision, Thread

    game = open_to_outsiders(game)
    host = make_user("别处天神", staff=True)
    other = services.create_game(name="别处的局", ruleset="toy", gm=host, seat_count=5,
                                 durations={"night": 60, "day": 60})
    assert "GM watches no game" in refused(game, host)
    services.abort_game(game_id=other.pk, gm=host)
    watcher = services.watch(game_id=game.pk, user=host)
    assert watcher.approved_at is not None
    with pytest.raises(GameError, match="you write nothing its living players can read"):
        services.create_game(name="新局", ruleset="toy", gm=host, seat_count=5)
    assert not Game.objects.filter(name="新局").exists()
    thread = forum.start_thread(board=forum.lobby_board(), author=make_user("路人"),
                                kind=Thread.Kind.DISCUSSION, title="闲聊", body="原话")
    with pytest.raises(forum.PostingRefused, match="you write nothing its living players"):
        forum.edit_post(post=thread.posts.get(), editor=host, body="匪是 2 6 10")
    assert Post.objects.get(thread=thread).body == "原话" and not PostRevision.objects.exists()


def test_a_watcher_and_the_living_never_read_each_others_general_conversation(game, make_user):
    """A superuser who watches a game may neither read nor answer, in 神的使者's name, the
    general conversation of one of its living players, nor the reverse (messaging.rules
    table mates): a conversation answered as the messenger is a write the living read."""
    from messaging import rules
    from messaging import services as forum
    from messaging.models import Conversation

    game = open_to_outsiders(game)
    living = game.seats.filter(alive=True).first().user
    watcher = make_user("看客超管", staff=True)
    type(watcher).objects.filter(pk=watcher.pk).update(is_superuser=True)
    watcher.refresh_from_db()
    asked = forum.write_to_messenger(author=living, body="请问规则")
    conversation = asked.conversation
    assert rules.answer_refusal(watcher, conversation) is None  # not watching yet
    services.watch(game_id=game.pk, user=watcher)
    assert rules.answer_refusal(watcher, conversation)
    assert not rules.gm_conversations(watcher, Conversation.objects.all()).filter(
        pk=conversation.pk).exists()
