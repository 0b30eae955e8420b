"""The development outbox: staff read the emails the site sent, on a development server only,
and only what is theirs to read: their own emails and those of the games they run (GM or
co-GM, never seated). Sign-in and password-reset emails reach their addressee only; a staff
member seated in a game, a superuser too, reads nothing the game sends to the others."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services
from games.models import OutboxEmail

pytestmark = pytest.mark.django_db

URL = reverse("dev-outbox")


@pytest.fixture
def mail(db, make_user):
    host = make_user("天神甲", staff=True, email="a@example.com")
    row = OutboxEmail.objects.create(to="a@example.com", subject="第1夜结果",
                                     body="你验了3号：平民。\nhttp://127.0.0.1:8000/games/1/")
    return host, row


def test_staff_read_their_emails_on_a_development_server(client, settings, mail):
    settings.DEBUG = True
    client.force_login(mail[0])
    html = client.get(URL).content.decode()
    assert "第1夜结果" in html and "你验了3号：平民。" in html and "a@example.com" in html


def test_nobody_else_and_never_in_production(client, settings, make_user, mail):
    settings.DEBUG = True
    assert client.get(URL).status_code == 404
    client.force_login(make_user("阿猫"))
    assert client.get(URL).status_code == 404
    settings.DEBUG = False
    client.force_login(make_user("天神乙", staff=True))
    assert client.get(URL).status_code == 404


# --- who reads which email: every seat's point of view -------------------------------------

@pytest.fixture
def table(toy_ruleset, make_user):
    """A running game run by a plain staff host and a co-GM, seating a staff member, a
    superuser and three players (one of whom also plays in another host's game); beside it
    a staff member and a superuser with no part in it."""
    people = {
        "gm": make_user("主持人", staff=True, superuser=False),
        "co": make_user("副主持", staff=True, superuser=False),
        "staff_player": make_user("员工玩家", staff=True, superuser=False),
        "boss": make_user("站长", staff=True),  # a superuser, seated
        "p1": make_user("阿猫"),
        "p2": make_user("阿狗"),
        "both": make_user("两局都玩"),
        "other_staff": make_user("别的主持", staff=True, superuser=False),
        "other_boss": make_user("别的站长", staff=True),
    }
    game = services.create_game(name="大家的局", ruleset="toy", gm=people["gm"], seat_count=5)
    game.co_gms.add(people["co"])
    services.start_game(game_id=game.pk, seed="s", users=[
        people[k] for k in ("staff_player", "boss", "p1", "p2", "both")])
    elsewhere = services.create_game(name="别处的局", ruleset="toy", seat_count=5,
                                     gm=people["other_staff"])
    services.start_game(game_id=elsewhere.pk, seed="t", users=[
        people["both"], *(make_user(f"别处{i}") for i in range(4))])
    return people


def _email(user, subject, *, kind="results", to=None):
    return OutboxEmail.objects.create(kind=kind, user=user, to=to or user.email,
                                      subject=subject, body=f"{subject} 的正文")


@pytest.fixture
def emails(table):
    """One marked email per case: hands (results) to each seat, team talk to a player of both
    games, password-reset links (account mail), and a mail to an address with no account."""
    t = table
    return {
        "hand_p1": _email(t["p1"], "HAND-P1 你的手牌"),
        "hand_staff_player": _email(t["staff_player"], "HAND-STAFF 你的手牌"),
        "hand_boss": _email(t["boss"], "HAND-BOSS 你的手牌"),
        "team_both": _email(t["both"], "TEAM-BOTH 队友发言", kind="announcements"),
        "police_p2": _email(t["p2"], "POLICE-P2 你验了3号"),
        "reset_boss": _email(t["boss"], "RESET-BOSS 重设密码", kind="account"),
        "reset_gm": _email(t["gm"], "RESET-GM 重设密码", kind="account"),
        "warning_p1": _email(t["p1"], "WARN-P1 不活跃提醒", kind="account"),
        "no_account": _email(None, "NOACCOUNT 无此账号", kind="account",
                             to=t["other_staff"].email.upper()),
    }


# What each viewer reads: everything else stays off their page.
READS = {
    "gm": {"hand_p1", "hand_staff_player", "hand_boss", "police_p2", "reset_gm"},
    "co": {"hand_p1", "hand_staff_player", "hand_boss", "police_p2"},
    "staff_player": {"hand_staff_player"},
    "boss": {"hand_boss", "reset_boss"},
    "other_staff": {"no_account"},
    "other_boss": set(),
}


@pytest.mark.parametrize("viewer", sorted(READS))
def test_each_staff_member_reads_only_their_own_and_their_games_emails(
        client, settings, table, emails, viewer):
    settings.DEBUG = True
    client.force_login(table[viewer])
    html = client.get(URL).content.decode()
    shown = {name for name, row in emails.items() if row.subject in html}
    assert shown == READS[viewer]
    for name in set(emails) - READS[viewer]:
        assert emails[name].body not in html


def test_a_player_reads_no_outbox_not_even_their_own(client, settings, table, emails):
    settings.DEBUG = True
    client.force_login(table["p1"])
    assert client.get(URL).status_code == 404
