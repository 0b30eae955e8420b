"""The admin's forum pages follow the games' per-game authority (the console's): who answers as
神的使者 (a seat's conversation: its game's GM and co-GMs; a general one: a superuser who
plays in no running game with its owner), and whose boards, threads and posts a user manages
(those of the games they run, and for a superuser those of no game). A seat holder, superuser
or not, sees and changes nothing of their own game there: forged POSTs change nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import translation

from games import selectors
from games import services as games
from messaging import rules, services
from messaging.models import Board, Conversation, Message, Post, Thread

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "response_context")]

ROLES = ("host", "co", "seated_staff", "seated_boss", "boss", "other_host")


def _may_moderate(user):
    """Give a plain staff account Django's permissions on the forum's models, so only the
    per-game authority stands between it and a game's boards."""
    user.user_permissions.add(*Permission.objects.filter(
        content_type__app_label="messaging",
        content_type__model__in=["board", "thread", "post", "message"]))
    return user


@pytest.fixture
def world(make_user):
    """Game G run by `host` (plain staff) and co-GM `co`, seating a plain staff member, a
    superuser and three players; game H run by `other_host`; `boss`, a superuser with no
    part in G. Boards: G's board and GM board, H's board, the lobby. Each with a thread and
    a post; the players' conversations, one seat's and one general."""
    w = {
        "host": _may_moderate(make_user("主持人", staff=True, superuser=False)),
        "co": _may_moderate(make_user("副主持", staff=True, superuser=False)),
        "seated_staff": _may_moderate(make_user("员工玩家", staff=True, superuser=False)),
        "seated_boss": make_user("站长玩家", staff=True),
        "boss": make_user("站长", staff=True),
        "other_host": _may_moderate(make_user("别的主持", staff=True, superuser=False)),
        "players": [make_user(n) for n in ("阿猫", "阿狗", "小白")],
    }
    g = games.create_game(name="大家的局", ruleset="toy", gm=w["host"], seat_count=5)
    g.co_gms.add(w["co"])
    w["game"] = games.start_game(game_id=g.pk, seed="s", users=[
        w["seated_staff"], w["seated_boss"], *w["players"]])
    h = games.create_game(name="别处的局", ruleset="toy", gm=w["other_host"], seat_count=5)
    w["other_game"] = games.start_game(game_id=h.pk, seed="t", users=[
        make_user(f"别处{i}") for i in range(5)])
    w["gm_board"] = games.gm_board(w["game"])
    w["lobby"] = services.lobby_board()
    w["boards"] = {"game": w["game"].board, "gm": w["gm_board"],
                   "grave": w["game"].graveyard, "other": w["other_game"].board,
                   "other_grave": w["other_game"].graveyard, "lobby": w["lobby"]}
    p1 = w["players"][0]
    w["threads"] = {
        "game": services.start_thread(board=w["game"].board, author=p1, kind="discussion",
                                      title="我是好人", body="相信我", enforce_rate_limit=False),
        "gm": services.start_thread(board=w["gm_board"], author=w["host"], kind="discussion",
                                    title="天神笔记", body="2号是杀手", enforce_rate_limit=False),
        "lobby": services.start_thread(board=w["lobby"], author=p1, kind="discussion",
                                       title="大家好", body="第一帖", enforce_rate_limit=False),
    }
    w["seat_conv"] = w["game"].seats.get(user=p1).conversation
    services.send_to_messenger(conversation=w["seat_conv"], author=p1, body="我想请假")
    w["general_conv"] = services.conversation_for(owner=p1)
    services.send_to_messenger(conversation=w["general_conv"], author=p1, body="规则问题")
    return w


def _ids(response) -> set[int]:
    return {row.pk for row in response.context["cl"].result_list}


# --- who answers as 神的使者 -------------------------------------------------------------

ANSWERS = {  # role -> which of the player's two conversations it lists and answers
    "host": {"seat_conv"},
    "co": {"seat_conv"},
    "seated_staff": set(),
    "seated_boss": set(),
    "boss": {"general_conv"},
    "other_host": set(),
}
LISTS = {  # role -> the conversations it lists: its games' seats', or the general ones
    "host": "game", "co": "game", "seated_staff": None, "seated_boss": None,
    "boss": "general", "other_host": "other_game",
}


@pytest.mark.parametrize("role", ROLES)
def test_each_role_lists_only_the_conversations_it_may_answer(client, world, role):
    client.force_login(world[role])
    listed = _ids(client.get(reverse("admin:messaging_conversation_changelist")))
    kind = LISTS[role]
    expected = (Conversation.objects.none() if kind is None
                else Conversation.objects.filter(board=None) if kind == "general"
                else Conversation.objects.filter(board=world[kind].board))
    assert listed == set(expected.values_list("pk", flat=True))
    assert {world[name].pk for name in ANSWERS[role]} <= listed
    messages = client.get(reverse("admin:messaging_message_changelist"))
    assert {m.conversation_id for m in messages.context["cl"].result_list} == set(
        Message.objects.filter(conversation__in=listed).values_list("conversation_id",
                                                                    flat=True))


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("which", ["seat_conv", "general_conv"])
def test_a_forged_answer_changes_nothing_and_an_allowed_one_names_its_writer(
        client, world, role, which):
    conversation = world[which]
    before = list(conversation.messages.values_list("pk", flat=True))
    owner_unread = conversation.owner_unread
    client.force_login(world[role])
    url = reverse("admin:messaging_conversation_change", args=[conversation.pk])
    response = client.post(url, {"answer": "神的使者提醒：你的队友是4号", "mark_as_read": "on",
                                 "_continue": "1"})
    conversation.refresh_from_db()
    added = conversation.messages.exclude(pk__in=before)
    if which not in ANSWERS[role]:
        assert response.status_code == 404
        assert not added.exists() and conversation.staff_unread == 1
        assert conversation.owner_unread == owner_unread
        with pytest.raises(services.PostingRefused):
            services.answer_as_messenger(conversation=conversation, staff=world[role],
                                         body="再试一次")
        assert not conversation.messages.exclude(pk__in=before).exists()
        return
    assert response.status_code == 302 and response["Location"] == url
    answer = added.get()
    assert answer.from_messenger and answer.written_by == world[role]
    assert conversation.staff_unread == 0
    # The writer is named to the GMs in the admin: the conversation and the message list.
    name = world[role].profile.display_name
    assert name in client.get(url).content.decode()
    listing = client.get(reverse("admin:messaging_message_changelist"),
                         {"conversation__id__exact": conversation.pk})
    assert name in listing.content.decode()


def test_a_seated_superuser_answers_no_general_conversation_of_a_table_mate_but_others(
        world, make_user):
    boss = world["seated_boss"]
    stranger = make_user("路人")
    theirs = services.conversation_for(owner=stranger)
    assert rules.answer_refusal(boss, world["general_conv"]) is not None
    assert rules.answer_refusal(boss, theirs) is None
    assert set(rules.gm_conversations(boss)) == {theirs}
    # Nobody answers their own conversation as the messenger.
    own = services.conversation_for(owner=world["boss"])
    assert rules.answer_refusal(world["boss"], own) is not None
    # Once the game is over the table is broken up.
    world["game"].status = "finished"
    world["game"].save(update_fields=["status"])
    assert rules.answer_refusal(boss, world["general_conv"]) is None


def test_a_refused_new_conversation_is_a_readable_chinese_refusal_that_stores_nothing(
        client, world, chinese):
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    mate = world["players"][1]
    client.force_login(world["seated_boss"])
    response = client.post(reverse("admin:messaging_conversation_add"),
                           {"owner": mate.pk, "board": "", "answer": "你的队友是4号"})
    assert response.status_code == 200
    assert "正在进行的游戏" in response.content.decode()
    assert not Conversation.objects.filter(owner=mate, board=None).exists()
    assert not Message.objects.filter(body="你的队友是4号").exists()
    # The service says the same in the reader's language (the console shows it as is).
    with translation.override("zh-hans"), pytest.raises(services.PostingRefused) as refused:
        services.answer_as_messenger(conversation=world["general_conv"],
                                     staff=world["seated_staff"], body="你的队友是4号")
    assert str(refused.value.message) == "只有超级管理员可以以神的使者的名义回复综合对话。"
    assert not Message.objects.filter(body="你的队友是4号").exists()


# --- boards, threads and posts -------------------------------------------------------------

MANAGES = {  # role -> the boards whose rows it sees in the admin
    "host": {"game", "gm", "grave"},
    "co": {"game", "gm", "grave"},
    "seated_staff": set(),
    "seated_boss": {"lobby"},
    "boss": {"lobby"},
    "other_host": {"other", "other_grave"},
}


@pytest.mark.parametrize("role", ROLES)
def test_each_role_sees_the_boards_threads_and_posts_of_the_games_it_runs(client, world, role):
    client.force_login(world[role])
    boards = {world["boards"][name].pk for name in MANAGES[role]}
    assert _ids(client.get(reverse("admin:messaging_board_changelist"))) == boards
    threads = _ids(client.get(reverse("admin:messaging_thread_changelist")))
    assert threads == set(Thread.objects.filter(board__in=boards).values_list("pk", flat=True))
    posts = _ids(client.get(reverse("admin:messaging_post_changelist")))
    assert posts == set(Post.objects.filter(thread__board__in=boards).values_list("pk",
                                                                                  flat=True))


@pytest.mark.parametrize("role", ROLES)
def test_the_admin_and_the_console_agree_on_who_runs_each_game(world, role):
    user = world[role]
    managed = set(Board.objects.filter(rules.console_boards_q(user)).values_list("pk",
                                                                                 flat=True))
    for game in (world["game"], world["other_game"]):
        assert (game.board_id in managed) == selectors.is_gm(user, game)


def _board_form(board, **over):
    data = {"title": board.title, "slug": board.slug, "kind": board.kind,
            "description": board.description, "position": board.position}
    if board.is_locked:
        data["is_locked"] = "on"
    data.update(over)
    return data


@pytest.mark.parametrize("role", ["seated_staff", "seated_boss"])
def test_a_seated_user_cannot_rename_or_reopen_their_games_boards(client, world, role):
    user = world[role]
    client.force_login(user)
    for name in ("gm", "game"):
        board = world["boards"][name]
        url = reverse("admin:messaging_board_change", args=[board.pk])
        response = client.post(url, _board_form(board, title="随便看看", slug="open-room",
                                                kind=Board.Kind.LOBBY))
        assert response.status_code == 404
        fresh = Board.objects.get(pk=board.pk)
        assert (fresh.title, fresh.slug, fresh.kind) == (board.title, board.slug, board.kind)
    # The changelist's editable columns, forged for the GM board: nothing changes either.
    gm_board = world["gm_board"]
    client.post(reverse("admin:messaging_board_changelist"), {
        "form-TOTAL_FORMS": "1", "form-INITIAL_FORMS": "1", "form-0-id": gm_board.pk,
        "form-0-position": "99", "form-0-is_locked": "on", "_save": "1"})
    fresh = Board.objects.get(pk=gm_board.pk)
    assert (fresh.position, fresh.is_locked) == (gm_board.position, gm_board.is_locked)
    assert not rules.can_read_board(user, fresh)


@pytest.mark.parametrize("role", ["seated_staff", "seated_boss"])
def test_a_seated_user_changes_no_thread_or_post_of_their_game(client, world, role):
    client.force_login(world[role])
    for name in ("game", "gm"):
        thread = world["threads"][name]
        response = client.post(reverse("admin:messaging_thread_change", args=[thread.pk]), {
            "board": world["lobby"].pk, "kind": thread.kind, "title": "搬走了", "key": "",
            "is_locked": "on"})
        assert response.status_code == 404
        fresh = Thread.objects.get(pk=thread.pk)
        assert (fresh.board_id, fresh.title, fresh.is_locked) == (
            thread.board_id, thread.title, thread.is_locked)
        post = thread.posts.get(number=1)
        response = client.post(reverse("admin:messaging_post_change", args=[post.pk]),
                               {"body": "改过了"})
        assert response.status_code == 404
        assert Post.objects.get(pk=post.pk).body == post.body
    # The lock action, forged for the game's thread.
    thread = world["threads"]["game"]
    client.post(reverse("admin:messaging_thread_changelist"), {
        "action": "lock", "_selected_action": [thread.pk]})
    assert not Thread.objects.get(pk=thread.pk).is_locked


def test_no_thread_moves_onto_a_board_the_user_does_not_manage(client, world):
    client.force_login(world["seated_boss"])
    thread = world["threads"]["lobby"]
    response = client.post(reverse("admin:messaging_thread_change", args=[thread.pk]), {
        "board": world["gm_board"].pk, "kind": thread.kind, "title": thread.title, "key": ""})
    assert response.status_code == 200 and response.context["adminform"].form.errors
    assert Thread.objects.get(pk=thread.pk).board_id == world["lobby"].pk


def test_no_board_takes_the_address_of_a_games_gm_board(client, world):
    """A game finds its GM board by its address: a board given it would become that board."""
    client.force_login(world["seated_boss"])
    other = world["other_game"].board  # a game whose GM board does not exist yet
    claim = f"gm-{other.slug}"
    response = client.post(reverse("admin:messaging_board_add"), {
        "title": "公开的天神版", "slug": claim, "kind": Board.Kind.LOBBY, "description": "",
        "position": "0"})
    assert response.status_code == 200 and "slug" in response.context["adminform"].form.errors
    lobby = world["lobby"]
    client.post(reverse("admin:messaging_board_change", args=[lobby.pk]),
                _board_form(lobby, slug=claim))
    assert not Board.objects.filter(slug=claim).exists()


def test_the_gm_keeps_the_address_and_kind_of_their_games_boards(client, world):
    client.force_login(world["host"])
    board = world["gm_board"]
    url = reverse("admin:messaging_board_change", args=[board.pk])
    assert client.get(url).status_code == 200
    response = client.post(url, _board_form(board, title="天神版（改名）", slug="open-room",
                                            kind=Board.Kind.LOBBY))
    assert response.status_code == 302
    fresh = Board.objects.get(pk=board.pk)
    assert (fresh.title, fresh.slug, fresh.kind) == ("天神版（改名）", board.slug, Board.Kind.GM)
