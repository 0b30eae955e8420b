"""The GM's review of manifestos (seed 002 §3.5.2) and the GM's choice to end a night early
(§5.7): with early ends off a night waits for its deadline or the GM; each manifesto is
approved, or rejected with a reason its author reads and may answer with a new one; what
is not reviewed by the review deadline is published at dawn as written."""

import datetime as dt

import pytest

from games import selectors, services
from games.models import ManifestoApproval
from tests.factories.ninelives import MANIFESTO, act, announcements, conversation, fresh

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]

ORDERS = {
    0: ["JAIL", "VEST", "WITCH_DOCTOR", "DEMON", "KILLER"],
    1: ["PARDON", "WOLFSBANE", "SOULBINDER", "SORCERER", "WEREWOLF"],
    2: ["SAINT", "SORCERER", "KILLER", "DIVINER", "SNIPER"],
    3: ["CURSE", "STRIKE", "WEREWOLF", "PROPHET", "DIVINER"],
    4: ["COUNTER_SNIPER", "BOMB", "BLESS", "DEMON", "PROPHET"],
}
SECOND = "第二份宣言：月光照在湖面上，猫沿着屋脊慢慢走过，没有回头看一眼那些熟睡的人。" * 4


@pytest.fixture
def night(start_ninelives):
    """Night 1 of a five-seat game with early ends off, every seat's loss order in, the
    killer (seat 1, 阿猫) attacking seat 3 with a manifesto and every other seat done."""
    game = start_ninelives()
    game.early_end = False
    game.save()
    for seat, order in ORDERS.items():
        act(game, seat, "loss_order", cards=order)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 2, "use_card", card="DIVINER", target=0)
    act(game, 3, "pass")
    act(game, 4, "pass")
    return fresh(game)


def pending(game):
    return selectors.manifestos_for_review(fresh(game))


def test_with_early_ends_off_a_night_waits_when_everyone_has_acted(night):
    assert (night.phase_name, night.phase_number) == ("night", 1)
    assert night.current_phase.ended_at is None
    assert not selectors.seat_duties(night)  # nobody owes anything: the GM decides


def test_the_console_lists_the_nights_manifesto_waiting_for_review(night):
    [m] = pending(night)
    assert (m["seat"], m["card"], m["target"], m["text"], m["approved"]) == (
        0,
        "KILLER",
        2,
        MANIFESTO,
        False,
    )


def test_approving_tells_the_author_and_dawn_publishes_the_approved_text(night, nl_gm):
    [m] = pending(night)
    services.approve_manifesto(game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"])
    [m] = pending(night)
    assert m["approved"]
    assert "天神通过了你在第1夜的杀人宣言" in conversation(night, 0)
    services.approve_manifesto(game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"])
    assert ManifestoApproval.objects.filter(game=night).count() == 1  # once is enough
    services.end_phase_now(game_id=night.pk, gm=nl_gm)
    assert MANIFESTO[:20] in announcements(night)[-1]


def test_rejecting_sends_the_reason_and_the_author_may_send_a_new_one(night, nl_gm):
    [m] = pending(night)
    services.reject_manifesto(
        game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"], reason="抄书了，请重写。"
    )
    assert "抄书了，请重写。" in conversation(night, 0)
    assert pending(night) == []
    assert selectors.seat_duties(fresh(night)) == {0: ["use_card"]}  # owes an attack again
    act(night, 0, "use_card", card="KILLER", target=2, manifesto=SECOND)
    [m2] = pending(night)
    assert m2["text"] == SECOND and not m2["approved"]
    services.approve_manifesto(game_id=night.pk, gm=nl_gm, seat=0, digest=m2["digest"])
    services.end_phase_now(game_id=night.pk, gm=nl_gm)
    dawn = announcements(night)[-1]
    assert SECOND[:20] in dawn and MANIFESTO[:20] not in dawn


def test_an_approval_does_not_carry_over_to_a_changed_manifesto(night, nl_gm):
    [m] = pending(night)
    services.approve_manifesto(game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"])
    act(night, 0, "use_card", card="KILLER", target=2, manifesto=SECOND)
    [m2] = pending(night)
    assert not m2["approved"]


@pytest.mark.parametrize("reason", ["", "   ", "长" * 2001])
def test_a_rejection_needs_a_reason_and_changes_nothing_without_one(night, nl_gm, reason):
    [m] = pending(night)
    steps = night.steps
    with pytest.raises(services.GameError, match="理由|太长"):
        services.reject_manifesto(
            game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"], reason=reason
        )
    assert fresh(night).steps == steps and pending(night) == [m]


def test_a_stale_review_is_refused(night, nl_gm):
    [m] = pending(night)
    act(night, 0, "use_card", card="KILLER", target=2, manifesto=SECOND)
    for review in (services.approve_manifesto, services.reject_manifesto):
        kwargs = {"reason": "x"} if review is services.reject_manifesto else {}
        with pytest.raises(services.GameError, match="不再等待审核"):
            review(game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"], **kwargs)
    with pytest.raises(services.GameError, match="不再等待审核"):
        services.approve_manifesto(game_id=night.pk, gm=nl_gm, seat=1, digest=m["digest"])
    assert not ManifestoApproval.objects.exists()


def test_only_the_games_gm_reviews(night, nl_players, make_user):
    [m] = pending(night)
    for who in (nl_players[0], make_user("别的天神", staff=True, superuser=False)):
        with pytest.raises(services.GameError):
            services.approve_manifesto(game_id=night.pk, gm=who, seat=0, digest=m["digest"])
    assert not ManifestoApproval.objects.exists()


def test_review_closes_before_dawn_and_the_text_is_published_as_written(night, nl_gm):
    night.manifesto_review_minutes = 60
    night.save()
    [m] = pending(night)
    late = night.deadline - dt.timedelta(minutes=30)
    with pytest.raises(services.GameError, match="审核已在天亮前60分钟截止"):
        services.reject_manifesto(
            game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"], reason="太短", now=late
        )
    with pytest.raises(services.GameError, match="审核已在天亮前60分钟截止"):
        services.approve_manifesto(game_id=night.pk, gm=nl_gm, seat=0, digest=m["digest"], now=late)
    assert services.review_open(night, night.deadline - dt.timedelta(minutes=61))
    assert not services.review_open(night, late)
    services.advance_phase(game_id=night.pk, now=night.deadline + dt.timedelta(minutes=5))
    assert MANIFESTO[:20] in announcements(night)[-1]  # unreviewed: published as written


def test_an_unreviewed_manifesto_is_published_at_dawn_by_default(night):
    services.advance_phase(game_id=night.pk, now=night.deadline + dt.timedelta(minutes=5))
    night = fresh(night)
    assert (night.phase_name, night.phase_number) == ("day", 1)
    assert MANIFESTO[:20] in announcements(night)[-1]


def test_the_review_deadline_is_a_setting_of_0_to_7_days(night):
    for bad in (-1, 7 * 24 * 60 + 1, "60", True):
        with pytest.raises(services.GameError):
            services.update_settings(game_id=night.pk, changes={"manifesto_review_minutes": bad})
    services.update_settings(game_id=night.pk, changes={"manifesto_review_minutes": 30})
    assert fresh(night).manifesto_review_minutes == 30
