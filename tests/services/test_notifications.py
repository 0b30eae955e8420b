"""Email notifications: each setting switches its kind on and off, each email is in its
reader's language, and each event is emailed once."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import Profile
from games import services
from messaging import services as forum
from messaging.models import Board, Thread
from tests.factories.toy import night_kill, seat_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "eager_email")]


def settings_of(user, **flags):
    Profile.objects.filter(user=user).update(**flags)
    user.refresh_from_db()
    return user


def to(user) -> list:
    return [m for m in mail.outbox if m.to == [user.email]]


def start(players, gm, capture):
    game = services.create_game(name="邮件局", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    with capture(execute=True):
        return services.start_game(game_id=game.pk, users=players, seed="fixed-seed")


# --- private results ---------------------------------------------------------------------

def test_private_results_are_emailed_once_to_each_player_who_wants_them(
        players, gm, django_capture_on_commit_callbacks):
    settings_of(players[1], email_results=False)
    game = start(players, gm, django_capture_on_commit_callbacks)
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        p.email for p in players if p != players[1])
    wolf = seat_user(game, "wolf")
    for player in players:
        mine = to(player)
        if player == players[1]:
            assert mine == []
            continue
        [email] = mine
        role = "wolf" if player == wolf else "villager"
        assert role in email.body and "邮件局" in email.subject
        assert f"/games/{game.pk}/act/" in email.body


def test_a_step_s_private_result_is_emailed_to_its_seat_only(
        players, gm, django_capture_on_commit_callbacks):
    game = start(players, gm, django_capture_on_commit_callbacks)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        night_kill(game)
    assert [m.to for m in mail.outbox] == [[seat_user(game, "wolf").email]]


def test_nothing_is_sent_when_the_step_is_refused(players, gm,
                                                 django_capture_on_commit_callbacks):
    game = start(players, gm, django_capture_on_commit_callbacks)
    mail.outbox.clear()
    villager = seat_user(game, "villager")
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(services.GameError):
        services.submit_action(game_id=game.pk, user=villager, kind="kill",
                               params={"target": 0})
    assert mail.outbox == []


def test_emails_are_written_in_each_reader_s_language(players, gm,
                                                     django_capture_on_commit_callbacks):
    settings_of(players[0], language="en")
    settings_of(players[1], language="zh-hans")
    game = start(players, gm, django_capture_on_commit_callbacks)
    [english] = to(players[0])
    [chinese] = to(players[1])
    assert english.subject == f"[{game.name}] A private result from 神的使者"
    assert "Your conversation with 神的使者" in english.body
    assert chinese.subject != english.subject and "A private result" not in chinese.subject
    assert "Your conversation" not in chinese.body


# --- announcements ------------------------------------------------------------------------

def test_announcements_reach_only_the_players_who_asked_once_each(
        players, gm, make_user, django_capture_on_commit_callbacks):
    for p in (players[0], players[2]):
        settings_of(p, email_announcements=True, email_results=False)
    for p in players[1:2] + players[3:]:
        settings_of(p, email_results=False)
    game = start(players, gm, django_capture_on_commit_callbacks)
    assert sorted(m.to[0] for m in mail.outbox) == sorted([players[0].email, players[2].email])
    first = game.announcements.exclude(published_at=None).get()
    assert all(first.title in m.subject for m in mail.outbox)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.publish_announcement(announcement_id=first.pk)  # already published
    assert mail.outbox == []
    with django_capture_on_commit_callbacks(execute=True):
        night_kill(game)
    assert sorted(m.to[0] for m in mail.outbox) == sorted([players[0].email, players[2].email])


# --- replies ------------------------------------------------------------------------------

@pytest.fixture
def discussion(players, reply_signals):
    """A lobby thread started by players[0]."""
    return forum.start_thread(board=forum.lobby_board(), author=players[0], kind="discussion",
                              title="谁是狼", body="我先说。", enforce_rate_limit=False)


def reply(thread, author, body="同意。", quote=None, capture=None):
    with capture(execute=True):
        return forum.reply(thread=thread, author=author, body=body, quote=quote,
                           enforce_rate_limit=False)


def test_a_reply_in_my_thread_is_emailed_when_i_want_replies(
        discussion, players, django_capture_on_commit_callbacks):
    cap = django_capture_on_commit_callbacks
    reply(discussion, players[1], capture=cap)
    assert mail.outbox == [], "replies are off by default"
    settings_of(players[0], email_replies=True, language="en")
    post = reply(discussion, players[1], body="我觉得是你。", capture=cap)
    [email] = mail.outbox
    assert email.to == [players[0].email] and "谁是狼" in email.subject
    assert "我觉得是你。" in email.body and reverse("messaging-post", args=[post.pk]) in email.body
    mail.outbox.clear()
    reply(discussion, players[0], capture=cap)
    assert mail.outbox == [], "not for my own reply"


def test_a_quote_is_emailed_to_the_quoted_author_and_nobody_twice(
        discussion, players, django_capture_on_commit_callbacks):
    cap = django_capture_on_commit_callbacks
    for p in players[:3]:
        settings_of(p, email_replies=True, language="en")
    first = reply(discussion, players[1], capture=cap)
    mail.outbox.clear()
    reply(discussion, players[2], quote=first, capture=cap)
    assert sorted(m.to[0] for m in mail.outbox) == sorted([players[0].email, players[1].email])
    assert "quoted your post" in to(players[1])[0].subject
    mail.outbox.clear()
    own = forum.reply(thread=discussion, author=players[0], body="我自己。",
                      enforce_rate_limit=False)
    reply(discussion, players[1], quote=own, capture=cap)
    assert [m.to for m in mail.outbox] == [[players[0].email]], "author and quoted: once"


def test_no_reply_email_for_a_thread_the_author_can_no_longer_read(
        discussion, players, gm, django_capture_on_commit_callbacks):
    settings_of(players[0], email_replies=True)
    gm_board = forum.create_board(slug="gm-board", title="天神版", kind=Board.Kind.GM)
    forum.move_thread(thread=discussion, board=gm_board)
    reply(Thread.objects.get(pk=discussion.pk), gm, capture=django_capture_on_commit_callbacks)
    assert mail.outbox == []


def test_no_email_without_an_address_or_for_an_inactive_account(
        discussion, players, django_capture_on_commit_callbacks):
    settings_of(players[0], email_replies=True)
    reply(discussion, players[1], capture=django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1, "the address and the setting are there"
    address = players[0].email
    players[0].email = ""
    players[0].save()
    reply(discussion, players[1], capture=django_capture_on_commit_callbacks)
    players[0].email, players[0].is_active = address, False
    players[0].save()
    reply(discussion, players[1], capture=django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1


# --- the settings --------------------------------------------------------------------------

def test_the_profile_form_switches_each_kind(players, client):
    user = players[0]
    client.force_login(user)
    profile = Profile.objects.get(user=user)
    form = {"display_name": profile.display_name, "timezone": profile.timezone,
            "language": "en", "reminder_hours": "6,1"}
    client.post(reverse("profile"), dict(form, email_announcements="on", email_replies="on"))
    profile.refresh_from_db()
    assert (profile.email_results, profile.email_announcements, profile.email_replies) == (
        False, True, True)
    client.post(reverse("profile"), dict(form, email_results="on"))
    profile.refresh_from_db()
    assert (profile.email_results, profile.email_announcements, profile.email_replies) == (
        True, False, False)
    page = client.get(reverse("profile")).content.decode()
    assert 'name="email_results"' in page and 'name="email_replies"' in page
