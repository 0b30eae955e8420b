"""One seat per person per game, ever. A player replaced on one seat may not
come back as a substitute, accept the handover of another seat, or be counted as waiting."""

import pytest
from django.urls import reverse
from django.utils import translation

from games import selectors, services
from games.models import Signup, Substitution

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("toy_ruleset", "english")]


@pytest.fixture
def replaced(gm, crowd):
    """A running five-seat game whose seat 3 (number 2) was handed from crowd[2] to crowd[5];
    crowd[6] and crowd[7] wait as substitutes and seat 4 (number 3) now needs one."""
    game = services.create_game(name="一人一座", ruleset="toy", gm=gm, seat_count=5,
                                durations={"night": 60, "day": 60})
    services.open_signups(game_id=game.pk, gm=gm)
    for user in crowd[:5]:
        services.sign_up(game_id=game.pk, user=user)
    for user in crowd[5:8]:
        services.sign_up(game_id=game.pk, user=user, role="substitute")
    services.pick_players(game_id=game.pk, gm=gm, users=crowd[:5])
    game = services.start_from_signups(game_id=game.pk, gm=gm)
    services.start_substitution(game_id=game.pk, gm=gm, seat_number=2)
    assert services.accept_substitution(game_id=game.pk, user=crowd[5]).number == 2
    services.start_substitution(game_id=game.pk, gm=gm, seat_number=3)
    return game


def _state(game):
    return (sorted(game.seats.values_list("number", "user_id")),
            sorted(Signup.objects.filter(game=game).values_list("user_id", "role", "chosen",
                                                                 "withdrawn_at")),
            sorted(Substitution.objects.filter(game=game).values_list("seat__number", "status",
                                                                       "incoming_id")))


def test_a_former_seat_holder_is_recorded(replaced, crowd):
    assert selectors.ever_held_seat(crowd[2], replaced)  # replaced on seat 3
    assert selectors.ever_held_seat(crowd[5], replaced)  # holds seat 3 now
    assert selectors.ever_held_seat(crowd[3], replaced)  # holds seat 4, replacement open
    assert not selectors.ever_held_seat(crowd[6], replaced)
    waiting = {s.user for s in selectors.waiting_substitutes(replaced)}
    assert waiting == {crowd[6], crowd[7]}


def test_a_replaced_player_cannot_sign_up_as_substitute_of_the_same_game(replaced, crowd,
                                                                         client):
    before = _state(replaced)
    client.force_login(crowd[2])
    response = client.post(reverse("game-community", args=[replaced.pk, "signup"]),
                           {"role": "substitute"}, follow=True)
    assert response.status_code == 200
    assert "同一局里一人不能玩两个座位" in response.content.decode()
    assert _state(replaced) == before


def test_a_replaced_player_cannot_accept_the_handover_of_another_seat(replaced, crowd, client):
    # Even with a substitute sign-up already on record (how the probe got one), the handover
    # of seat 4 is refused and seat 4 keeps waiting for somebody else.
    Signup.objects.filter(game=replaced, user=crowd[2]).update(role="substitute", chosen=False)
    before = _state(replaced)
    client.force_login(crowd[2])
    response = client.post(reverse("game-community", args=[replaced.pk, "substitute"]),
                           follow=True)
    assert response.status_code == 200
    assert "同一局里一人不能玩两个座位" in response.content.decode()
    assert _state(replaced) == before
    assert replaced.seats.get(number=3).user == crowd[3]
    with translation.override("en"), pytest.raises(services.GameError, match="two seats"):
        services.accept_substitution(game_id=replaced.pk, user=crowd[2])
    # A waiting substitute who never held a seat still takes it.
    assert services.accept_substitution(game_id=replaced.pk, user=crowd[6]).number == 3


def test_a_substitute_who_was_replaced_in_turn_is_not_asked_again(replaced, crowd, gm):
    services.accept_substitution(game_id=replaced.pk, user=crowd[6])  # seat 4
    services.start_substitution(game_id=replaced.pk, gm=gm, seat_number=2)  # crowd[5] out
    services.accept_substitution(game_id=replaced.pk, user=crowd[7])
    services.start_substitution(game_id=replaced.pk, gm=gm, seat_number=0)
    assert list(selectors.waiting_substitutes(replaced)) == []
    with pytest.raises(services.GameError, match="two seats"):
        services.accept_substitution(game_id=replaced.pk, user=crowd[5])
