"""Staff status means "may host games": a staff account without Django
model permissions creates and runs its own games from the admin, and sees nobody else's; a
staff member who plays in a game is a player there (no GM view, no GM rate-limit exemption,
no "Staff" badge)."""

import pytest
from django.urls import reverse

from games import services
from games.models import Event, Game
from messaging import services as forum
from messaging.models import Board, Post
from messaging.rendering import author_badge

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("response_context")]

ADD = reverse("admin:games_game_add")
CHANGELIST = reverse("admin:games_game_changelist")


@pytest.fixture
def host(make_user):
    """A staff account with no model permissions and no superuser status."""
    return make_user("主持人丙", staff=True, superuser=False)


@pytest.fixture
def other_game(toy_ruleset, make_user, crowd):
    other = make_user("天神丁", staff=True, superuser=False)
    g = services.create_game(name="别人的局", ruleset="toy", gm=other, seat_count=5,
                             durations={"night": 60, "day": 60})
    return services.start_game(game_id=g.pk, users=crowd[:5], seed="other")


def add_form(user, **over):
    data = {"name": "主持人丙的局", "ruleset": "ninelives", "seat_count": 6, "gm": user.pk,
            "preset_ninelives": "fast", "preset_classic": "standard",
            "preset_gold": "standard", "change_cutoff_minutes": 10,
            "opt_classic_guardians": "none", "opt_classic_all_civilians_dead": "seed",
            "watch_delay": 1}
    data.update(over)
    return data


def test_a_plain_staff_host_sees_the_games_admin_and_creates_a_game(client, host):
    client.force_login(host)
    index = client.get(reverse("admin:index")).content.decode()
    assert CHANGELIST in index and ADD in index
    form = client.get(ADD)
    assert form.status_code == 200
    assert list(form.context["adminform"].form.fields["gm"].queryset) == [host]
    response = client.post(ADD, add_form(host))
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.gm == host and game.durations["night"] > 10
    assert client.get(reverse("admin:games_game_change", args=[game.pk])).status_code == 200
    assert client.get(reverse("admin:games_game_console", args=[game.pk])).status_code == 200


def test_a_host_cannot_name_another_gm(client, host, make_user):
    someone = make_user("别的天神", staff=True, superuser=False)
    client.force_login(host)
    response = client.post(ADD, add_form(host, gm=someone.pk))
    assert response.status_code == 200
    assert "gm" in response.context["adminform"].form.errors
    assert not Game.objects.exists()


def test_the_changelist_lists_only_the_games_the_host_runs(client, host, other_game, gm):
    mine = services.create_game(name="我的局", ruleset="toy", gm=host, seat_count=5)
    client.force_login(host)
    html = client.get(CHANGELIST).content.decode()
    assert "我的局" in html and "别人的局" not in html
    client.force_login(gm)  # a superuser: every game
    html = client.get(CHANGELIST).content.decode()
    assert "我的局" in html and "别人的局" in html
    assert mine.pk


def test_another_games_pages_refuse_the_host_and_store_nothing(client, host, other_game):
    client.force_login(host)
    pk = other_game.pk
    assert client.get(reverse("admin:games_game_change", args=[pk])).status_code == 404
    assert client.get(reverse("admin:games_game_console", args=[pk])).status_code == 404
    events = Event.objects.filter(game=other_game).count()
    for command, data in [("end_phase", {}), ("pause", {}), ("extend", {"minutes": "30"}),
                          ("abort", {"reason": "x"}), ("foul_out", {"seat": "1"})]:
        response = client.post(reverse("admin:games_game_command", args=[pk, command]), data)
        assert response.status_code == 404, command
    response = client.post(reverse("admin:games_game_change", args=[pk]),
                           {"name": "改名", "gm": host.pk})
    assert response.status_code == 404
    other_game.refresh_from_db()
    assert other_game.version == 0 and other_game.status == "running"
    assert other_game.name == "别人的局"
    assert Event.objects.filter(game=other_game).count() == events


def test_the_win_rates_of_a_saved_game_are_for_its_gm_only(client, host, other_game):
    client.force_login(host)
    url = reverse("admin:games_game_winrates")
    assert client.get(url, {"game": other_game.pk}).status_code == 404
    mine = services.create_game(name="我的局", ruleset="toy", gm=host, seat_count=5)
    assert client.get(url, {"game": mine.pk}).status_code == 200


def test_a_staff_host_seated_in_a_game_gets_no_gm_view_of_it(client, host, toy_ruleset,
                                                             players):
    g = services.create_game(name="自己玩的局", ruleset="toy", gm=host, seat_count=5)
    g = services.start_game(game_id=g.pk, users=[host, *players[:4]], seed="s")
    client.force_login(host)
    assert "自己玩的局" not in client.get(CHANGELIST).content.decode()
    assert client.get(reverse("admin:games_game_change", args=[g.pk])).status_code == 404
    assert client.get(reverse("admin:games_game_console", args=[g.pk])).status_code == 404
    assert client.get(reverse("admin:games_game_winrates"),
                      {"game": g.pk}).status_code == 404


def test_a_staff_player_is_rate_limited_and_unbadged_on_the_board_of_their_game(
        settings, make_user, toy_ruleset, players, gm):
    staff_player = make_user("员工玩家", staff=True, superuser=False)
    g = services.create_game(name="员工也玩", ruleset="toy", gm=gm, seat_count=5)
    g = services.start_game(game_id=g.pk, users=[staff_player, *players[:4]], seed="s")
    settings.POSTS_PER_MINUTE = 1
    thread = forum.start_thread(board=g.board, author=staff_player, kind="discussion",
                                title="我是好人", body="相信我")
    with pytest.raises(forum.PostingRefused) as refused:
        forum.reply(thread=thread, author=staff_player, body="再说一句")
    assert refused.value.code == "rate_limited"
    assert Post.objects.filter(thread=thread).count() == 1
    assert str(author_badge(staff_player, g.board_id)) == ""
    for i in range(3):  # the game's own GM is not limited there, and wears the badge
        forum.reply(thread=thread, author=gm, body=f"天神 {i}")
    assert "author-badge-staff" in str(author_badge(gm, g.board_id))
    lobby = Board.objects.create(kind=Board.Kind.LOBBY, slug="plaza", title="广场")
    assert "author-badge-staff" in str(author_badge(staff_player, lobby))


def test_a_staff_players_post_page_shows_no_staff_badge(client, make_user, toy_ruleset,
                                                        players, gm):
    staff_player = make_user("员工玩家", staff=True, superuser=False)
    g = services.create_game(name="员工也玩", ruleset="toy", gm=gm, seat_count=5)
    g = services.start_game(game_id=g.pk, users=[staff_player, *players[:4]], seed="s")
    thread = forum.start_thread(board=g.board, author=staff_player, kind="discussion",
                                title="我是好人", body="相信我", enforce_rate_limit=False)
    client.force_login(players[1])
    html = client.get(thread.get_absolute_url()).content.decode()
    assert "相信我" in html and "author-badge-staff" not in html


def test_a_superuser_seated_in_a_game_gets_no_settings_page_of_it(client, make_user,
                                                                  toy_ruleset, players, gm):
    boss = make_user("站长", staff=True)  # a superuser
    g = services.create_game(name="站长也玩", ruleset="toy", gm=gm, seat_count=5)
    g = services.start_game(game_id=g.pk, users=[boss, *players[:4]], seed="s")
    other = services.create_game(name="站长不玩", ruleset="toy", gm=gm, seat_count=5)
    client.force_login(boss)
    listing = client.get(CHANGELIST).content.decode()
    assert "站长不玩" in listing and "站长也玩" not in listing
    assert client.get(reverse("admin:games_game_change", args=[g.pk])).status_code == 404
    assert client.get(reverse("admin:games_game_change", args=[other.pk])).status_code == 200
    assert client.get(reverse("admin:games_game_console", args=[g.pk])).status_code == 404


def test_a_superuser_seated_in_a_game_sees_none_of_its_records(client, make_user,
                                                               toy_ruleset, players, gm):
    boss = make_user("站长", staff=True)
    g = services.create_game(name="站长也玩", ruleset="toy", gm=gm, seat_count=5)
    g = services.start_game(game_id=g.pk, users=[boss, *players[:4]], seed="s")
    other = services.create_game(name="站长不玩", ruleset="toy", gm=gm, seat_count=5)
    other = services.start_game(game_id=other.pk, seed="t",
                                users=[make_user(f"别人{i}") for i in range(5)])
    client.force_login(boss)
    events = client.get(reverse("admin:games_event_changelist"))
    listed = {e.game_id for e in events.context["cl"].result_list}
    assert other.pk in listed and g.pk not in listed
    seats = client.get(reverse("admin:games_seat_changelist"))
    assert {s.game_id for s in seats.context["cl"].result_list} == {other.pk}
    event = Event.objects.filter(game=g).first()
    response = client.get(reverse("admin:games_event_change", args=[event.pk]))
    assert response.status_code == 302  # Django's "does not exist" back to the index
    assert response["Location"] == reverse("admin:index")
