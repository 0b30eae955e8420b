"""A game's GM and co-GMs never play in it (games/services/community.py): a GM who signed up
and was drawn held a seat, lost the console (a seat holder has no GM power) and left the
game without a GM. Sign-up, the pick, the start, a substitute's takeover and the naming of
a co-GM refuse it with a readable sentence; the draw leaves such a sign-up out and says so.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import selectors, services
from games.models import Game, Signup, Substitution

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset")]


@pytest.fixture
def signup_game(gm):
    g = services.create_game(
        name="报名局", ruleset="toy", gm=gm, seat_count=5, durations={"night": 60, "day": 60}
    )
    return services.open_signups(game_id=g.pk, gm=gm)


@pytest.fixture
def co_gm(make_user, signup_game, gm):
    user = make_user("副天神", staff=True, superuser=False)
    services.add_co_gm(game_id=signup_game.pk, gm=gm, user=user)
    return user


def refusal(call, **kwargs) -> str:
    with pytest.raises(services.GameError) as refused:
        call(**kwargs)
    return str(refused.value.message)


# --- sign-up --------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["player", "substitute"])
def test_the_gm_and_a_co_gm_cannot_sign_up(signup_game, gm, co_gm, chinese, role):
    for host in (gm, co_gm):
        said = refusal(services.sign_up, game_id=signup_game.pk, user=host, role=role)
        assert "天神" in said and "不能" in said, said
    assert not Signup.objects.filter(game=signup_game).exists()


def test_the_sign_up_button_gives_the_gm_a_chinese_refusal(client, signup_game, gm, chinese):
    client.force_login(gm)
    response = client.post(
        reverse("game-community", args=[signup_game.pk, "signup"]),
        {"role": "player"},
        follow=True,
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "你是这局的天神" in page
    assert not Signup.objects.filter(game=signup_game).exists()


# --- the draw -------------------------------------------------------------------------------


def _old_sign_up(game, user):
    """A sign-up made before its user was named GM or co-GM (or before sign-up refused it)."""
    return Signup.objects.create(game=game, user=user, role=Signup.Role.PLAYER)


@pytest.mark.parametrize("seed", [f"seed-{i}" for i in range(12)])
def test_the_draw_leaves_the_gms_own_sign_up_out_and_says_so(signup_game, gm, crowd, english, seed):
    _old_sign_up(signup_game, gm)
    for user in crowd[:5]:
        services.sign_up(game_id=signup_game.pk, user=user)
    picked = services.draw_players(game_id=signup_game.pk, gm=gm, seed=seed)
    assert gm not in picked and sorted(u.pk for u in picked) == sorted(u.pk for u in crowd[:5])
    announcement = signup_game.signup_thread.posts.order_by("number").last().body
    assert "Left out of the draw" in announcement and "天神甲" in announcement
    game = services.start_from_signups(game_id=signup_game.pk, gm=gm)
    assert not game.seats.filter(user=gm).exists()
    assert selectors.is_gm(gm, game)  # the game keeps its GM


def test_the_draw_counts_without_the_gms_sign_ups(signup_game, gm, co_gm, crowd, english):
    _old_sign_up(signup_game, gm)
    _old_sign_up(signup_game, co_gm)
    for user in crowd[:4]:
        services.sign_up(game_id=signup_game.pk, user=user)
    said = refusal(services.draw_players, game_id=signup_game.pk, gm=gm)
    assert "Only 4 player sign-ups for 5 seats" in said
    assert not Signup.objects.filter(game=signup_game, chosen=True).exists()


def test_the_gm_cannot_pick_themselves_or_a_co_gm(signup_game, gm, co_gm, crowd, english):
    for host in (gm, co_gm):
        said = refusal(
            services.pick_players, game_id=signup_game.pk, gm=gm, users=[*crowd[:4], host]
        )
        assert "runs this game" in said
    assert not Signup.objects.filter(game=signup_game, chosen=True).exists()


def test_a_gm_chosen_before_being_named_cannot_start_in_a_seat(
    signup_game, gm, make_user, crowd, english
):
    for user in crowd[:5]:
        services.sign_up(game_id=signup_game.pk, user=user)
    services.pick_players(game_id=signup_game.pk, gm=gm, users=crowd[:5])
    signup_game.co_gms.add(crowd[0])  # named afterwards, outside the service (old data)
    said = refusal(services.start_from_signups, game_id=signup_game.pk, gm=gm)
    assert "runs this game" in said
    assert Game.objects.get(pk=signup_game.pk).status == Game.Status.SIGNUP


# --- substitutes and co-GMs -------------------------------------------------------------------


def test_a_gm_waiting_as_substitute_cannot_take_over_a_seat(signup_game, gm, crowd, english):
    for user in crowd[:5]:
        services.sign_up(game_id=signup_game.pk, user=user)
    Signup.objects.create(game=signup_game, user=gm, role=Signup.Role.SUBSTITUTE)  # old data
    services.pick_players(game_id=signup_game.pk, gm=gm, users=crowd[:5])
    game = services.start_from_signups(game_id=signup_game.pk, gm=gm)
    services.start_substitution(game_id=game.pk, gm=gm, seat_number=0, reason="测试")
    said = refusal(services.accept_substitution, game_id=game.pk, user=gm)
    assert "GM" in said
    assert not game.seats.filter(user=gm).exists()
    assert Substitution.objects.get(game=game).status == Substitution.Status.OPEN


def test_someone_signed_up_or_seated_cannot_be_named_co_gm(
    signup_game, gm, crowd, make_user, english
):
    services.sign_up(game_id=signup_game.pk, user=crowd[0])
    services.sign_up(game_id=signup_game.pk, user=crowd[1], role="substitute")
    for user in crowd[:2]:
        said = refusal(services.add_co_gm, game_id=signup_game.pk, gm=gm, user=user)
        assert "signed up" in said
    for user in crowd[2:6]:
        services.sign_up(game_id=signup_game.pk, user=user)
    services.pick_players(game_id=signup_game.pk, gm=gm, users=[crowd[0], *crowd[2:6]])
    game = services.start_from_signups(game_id=signup_game.pk, gm=gm)
    said = refusal(services.add_co_gm, game_id=game.pk, gm=gm, user=crowd[2])
    assert "seat" in said
    assert not game.co_gms.exists()
    helper = make_user("助理", staff=True, superuser=False)
    services.add_co_gm(game_id=game.pk, gm=gm, user=helper)
    assert selectors.is_gm(helper, game)
    assert refusal(services.add_co_gm, game_id=game.pk, gm=crowd[3], user=helper)


def test_a_withdrawn_sign_up_does_not_stand_in_the_way(signup_game, gm, crowd):
    services.sign_up(game_id=signup_game.pk, user=crowd[0])
    services.withdraw_signup(game_id=signup_game.pk, user=crowd[0])
    services.add_co_gm(game_id=signup_game.pk, gm=gm, user=crowd[0])
    assert signup_game.co_gms.filter(pk=crowd[0].pk).exists()
