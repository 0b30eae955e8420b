"""One name per phase, everywhere: for a game of each rule set in
the middle of play, the current phase reads the same on the games list, the game home, the
act page, the GM console and its "end phase now" page, the reminder email and notice, the
calendar and the review timeline, and the vote headings and announcement titles name their
phases the same way. 谁偷了我的金币 names a phase by its ROUND ("第2轮 · 操作"), never by the
phase counter that runs across the game.
"""

from __future__ import annotations

import datetime as dt
import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from games import reminders, selectors, services
from games.mail import user_locale
from games.models import Announcement, Game, ReminderLook
from games.presenters import phase_name
from messaging.models import Thread
from tests.factories import fresh, user_of
from tests.factories.classic import NAMES as CLASSIC_NAMES
from tests.factories.classic import new_game as new_classic_game
from tests.factories.classic import night_one, speak_all, time_out
from tests.factories.gold import DURATIONS as GOLD_DURATIONS
from tests.factories.gold import pick_all
from tests.services.ninelives.test_play import play_night_1

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def text(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def between(html: str, start: str, end: str) -> str:
    """The text of the first piece of `html` after `start` and before the next `end`."""
    rest = html.split(start, 1)[1]
    return text(rest.split(end, 1)[0])


def get(client, user, url: str) -> str:
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def named_everywhere(client, game: Game, seat: int) -> dict[str, str]:
    """Where the current phase is named, what each place says."""
    game = fresh(game)
    player = user_of(game, seat)
    listing = get(client, player, reverse("game-list"))
    row = listing.split(f'href="{game.get_absolute_url()}"', 1)[1].split("</tr>", 1)[0]
    console = get(client, game.gm, reverse("admin:games_game_console", args=[game.pk]))
    end_page = get(client, game.gm, reverse("admin:games_game_end_phase", args=[game.pk]))
    page = (game.phases.count() - 1) // 10 + 1  # the review lists ten phases a page
    review = get(client, game.gm, reverse("game-review", args=[game.pk]) + f"?page={page}")
    sections = re.findall(r'<section class="phase card" data-seq="(\d+)">.*?<strong>(.*?)</strong>',
                          review, re.S)
    now = timezone.now()
    # the game as the reminder sweep reads it (made due for a look now)
    ReminderLook.objects.update_or_create(game=game, defaults={"at": now})
    read = next(g for g in reminders.due_games(now) if g.pk == game.pk)
    locale = user_locale(player)
    email_body = reminders.reminder_text(reminders.email_context(read, locale, now))[1]
    notice = reminders.notice_text(read, locale)
    calendar = [str(e["SUMMARY"]) for e in selectors.deadlines(player, now=now)
                if f"game-{game.pk}-phase-" in str(e["UID"])]
    return {
        "list": between(row, '<span class="phase-name">', "</span>"),
        "home": between(get(client, player, game.get_absolute_url()), 'id="phase-name">',
                        "</span>"),
        "act": between(get(client, player, reverse("game-act", args=[game.pk])),
                       'id="phase-name">', "</strong>"),
        "console": between(console, 'id="phase-head">', "</h2>").split(" · ", 1)[1]
        .rsplit(" · 截止时间", 1)[0],
        "end phase page": between(end_page, "<h1>", "</h1>"),
        "reminder email": email_body.split("\n", 1)[0],
        "reminder notice": notice,
        "calendar": calendar[0] if calendar else "",
        "review timeline": unescape(dict(sections)[str(game.current_phase.seq)]),
    }


def assert_named(places: dict[str, str], name: str) -> None:
    exact = ("list", "home", "act", "console", "review timeline")
    assert {k: places[k] for k in exact} == dict.fromkeys(exact, name), places
    assert places["end phase page"] == f"现在结束{name}？", places
    assert f"的{name}将于" in places["reminder email"], places
    assert f"：{name}于 " in places["reminder notice"], places
    assert places["calendar"].endswith(f"：{name}截止"), places


def assert_titles_name_the_closed_phases(game: Game, *, every: bool = True) -> set[str]:
    """Each announcement of a phase's end is titled "<the phase's name>结束" (and the seat
    whose turn it was, if any); with `every`, each phase that has ended has one. The names
    of the phases so announced."""
    titles = list(Announcement.objects.filter(game=game).values_list("title", flat=True))
    names = selectors.phase_titles(game)
    closed = {names[p.pk] for p in game.phases.order_by("seq") if p.ended_at}
    ends = [t for t in titles if "结束" in t]
    assert closed and ends
    announced = set()
    for title in ends:
        name = title.split("结束", 1)[0]
        assert name in closed, (title, closed)
        assert title == f"{name}结束" or title.startswith(f"{name}结束 · "), title
        announced.add(name)
    if every:
        assert announced == closed, (announced, closed)
    return announced


def test_ninelives_names_day_1_the_same_everywhere(start_ninelives, client):
    game = play_night_1(start_ninelives())
    assert (game.phase_name, game.phase_number) == ("day", 1)
    assert_named(named_everywhere(client, game, 3), "第1天")
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    assert thread.title == "第1天投票"
    panel = get(client, user_of(game, 3), reverse("messaging-thread", args=[thread.pk]))
    assert between(panel, '<section class="card vote-panel" id="vote-panel">\n  <h2>',
                   "</h2>") == "第1天投票"
    assert assert_titles_name_the_closed_phases(fresh(game)) == {"第1夜"}
    # 神的使者's results on the act page are grouped under the same names
    act = get(client, user_of(game, 2), reverse("game-act", args=[game.pk]))
    assert set(re.findall(r'<span class="phase">([^<]+)</span>', act)) <= {"第1夜", "第1天"}
    assert "第1夜" in re.findall(r'<span class="phase">([^<]+)</span>', act)
    # and what 神的使者 announced at dawn says "第1天" too
    dawn = Announcement.objects.filter(game=game, title="第1夜结束").get()
    assert "第1天开始" in dawn.body


def test_ninelives_names_the_runoff(start_ninelives, client):
    game = play_night_1(start_ninelives())
    for voter, target in {0: 1, 1: 0, 3: 1, 4: 0}.items():
        services.submit_action(game_id=game.pk, user=user_of(game, voter), kind="vote",
                               params={"target": target})
    game = fresh(game)
    assert game.phase_name == "runoff"
    assert_named(named_everywhere(client, game, 3), "第1天的生死投票")
    thread = Thread.objects.get(board=game.board, key=f"vote-{game.current_phase.seq}")
    assert thread.title == "第1天的生死投票"
    assert assert_titles_name_the_closed_phases(game) == {"第1夜", "第1天"}


def test_classic_names_the_days_vote_the_same_everywhere(make_user, gm, client):
    game = new_classic_game([make_user(n) for n in CLASSIC_NAMES], gm)
    night_one(game, victim=2)
    time_out(game)  # no last words
    speak_all(game)
    game = fresh(game)
    assert (game.phase_name, game.phase_number) == ("vote", 1)
    voter = game.state["public"]["queue"][game.state["public"]["turn"]]
    assert_named(named_everywhere(client, game, voter), "第1天 · 投票")
    home = get(client, user_of(game, 0), game.get_absolute_url())
    assert between(home, '<div class="card tally">\n    <h3>', "</h3>") == "第1天 · 投票"
    # a day's slots go to the round's record thread; the night's end is announced
    assert "第1夜" in assert_titles_name_the_closed_phases(game, every=False)


def test_gold_names_its_phases_by_the_round(make_user, gm, client):
    users = [make_user(name) for name in ("金子", "银子", "铜子")]
    game = services.create_game(name="金币局", ruleset="gold", gm=gm, seat_count=3,
                                config={"lead": 0}, durations=dict(GOLD_DURATIONS))
    game = services.start_game(game_id=game.pk, users=users, seed="gold-web-1")
    start = fresh(game).current_phase.started_at
    pick_all(game, ("KILLER", "THIEF", "ASSASSIN"), now=start)
    for _ in range(12):  # every turn of round 1 ends by the GM's button
        game = fresh(game)
        if game.state["public"]["round"] == 2:
            break
        services.advance_phase(game_id=game.pk, reason="gm", by=None)
    pick_all(fresh(game), ("THIEF", "THIEF", "KILLER"), now=timezone.now() + dt.timedelta(
        seconds=1))
    game = fresh(game)
    if game.phase_name == "priority":
        services.advance_phase(game_id=game.pk, reason="gm", by=None)
        game = fresh(game)
    assert game.phase_name == "operation" and game.state["public"]["round"] == 2
    assert game.phase_number > 4, "the phase counter is not the round"
    turn = game.state["public"]["turn"]
    places = named_everywhere(client, game, turn)
    assert_named(places, "第2轮 · 操作")
    counter = f"第{game.phase_number}轮"
    assert not any(counter in v for v in places.values()), places
    titles = list(Announcement.objects.filter(game=game).values_list("title", flat=True))
    assert not any(counter in t or f"第{game.phase_number - 1}轮" in t for t in titles)
    assert {"第1轮 · 选牌", "第1轮 · 操作", "第2轮 · 选牌"} <= \
        assert_titles_name_the_closed_phases(game)
    names = list(selectors.phase_titles(game).values())
    assert names[0] == "第1轮 · 选牌" and names[-1] == "第2轮 · 操作"
    assert all(re.fullmatch(r"第[12]轮 · (选牌|先手行动|操作)", n) for n in names), names


@pytest.mark.parametrize(("ruleset", "name", "number", "round", "zh", "en"), [
    ("ninelives", "night", 2, None, "第2夜", "Night 2"),
    ("ninelives", "day", 2, None, "第2天", "Day 2"),
    ("ninelives", "runoff", 2, None, "第2天的生死投票", "The runoff of day 2"),
    ("classic", "night", 1, None, "第1夜", "Night 1"),
    # the police's extra check is named as the night going on: the others may not learn of it
    ("classic", "extra_check", 1, None, "第1夜", "Night 1"),
    ("classic", "last_words", 2, None, "第2天 · 遗言", "Day 2 · last words"),
    ("classic", "tie_vote", 1, None, "第1天 · 平票投票", "Day 1 · tie vote"),
    ("gold", "pick", 9, 3, "第3轮 · 选牌", "Round 3 · pick"),
    ("gold", "priority", 10, 3, "第3轮 · 先手行动", "Round 3 · priority turn"),
    ("gold", "operation", 14, 3, "第3轮 · 操作", "Round 3 · operation"),
    ("gold", "operation", 14, None, "操作轮", "Operation turns"),  # never the counter 14
])
def test_each_rule_set_names_its_phases_in_the_readers_language(ruleset, name, number, round,
                                                                zh, en):
    assert phase_name(ruleset, name, number, round) == zh
    with translation.override("en"):
        assert phase_name(ruleset, name, number, round) == en
