"""A rollback leaves nothing behind: the emails about what it withdrew are cancelled if not
sent yet, or followed by a "withdrawn" email (撤回) to the same address naming the phase; the
vote thread the undone phase end opened is marked withdrawn and unpinned, and given back (the
same thread, not a second) when the phase opens again."""

import pytest
from django.utils import timezone

from accounts.models import Profile
from games import services
from games.models import OutboxEmail
from messaging.models import Thread
from tests.factories.ninelives import MANIFESTO, act, fresh
from tests.services.test_rollback import NL_ORDERS, undo_end

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


@pytest.fixture
def ended(start_ninelives, nl_gm, nl_players):
    """Night 1 ended by the GM (early ends off): day 1 open with its vote thread, each
    seat's results and the dawn announcement emailed."""
    Profile.objects.filter(user__in=nl_players).update(email_announcements=True)
    game = start_ninelives()
    game.early_end = False
    game.save()
    for seat, order in NL_ORDERS.items():
        act(game, seat, "loss_order", cards=order)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 2, "use_card", card="DIVINER", target=0)
    act(game, 3, "use_card", card="WEREWOLF", target=4, manifesto=MANIFESTO)
    act(game, 4, "pass")
    OutboxEmail.objects.all().delete()  # the start's and the night's: not about this end
    services.end_phase_now(game_id=game.pk, gm=nl_gm)
    return fresh(game)


def withdrawn_emails():
    return list(OutboxEmail.objects.filter(subject__contains="撤回").order_by("id"))


def test_emails_already_sent_are_followed_by_a_withdrawn_email_to_the_same_address(ended, nl_gm):
    about = list(OutboxEmail.objects.exclude(about=""))
    assert {r.about.split(":")[0] for r in about} == {"message", "announcement"}
    OutboxEmail.objects.update(sent_at=timezone.now())
    undo_end(ended, nl_gm)
    notes = withdrawn_emails()
    assert sorted(n.to for n in notes) == sorted({r.to for r in about})  # one per address
    for note in notes:
        assert note.subject == "【九命局】撤回：第1夜的结果"
        assert "天神撤回了第1夜的结果" in note.body
        assert note.sent_at is None and note.failed_at is None
        sent = [r for r in about if r.to == note.to]
        assert all(r.subject in note.body for r in sent)
        assert note.kind in {r.kind for r in sent}


def test_emails_not_sent_yet_are_cancelled_and_need_no_withdrawal(ended, nl_gm):
    about = list(OutboxEmail.objects.exclude(about=""))
    assert about and all(r.sent_at is None for r in about)
    undo_end(ended, nl_gm)
    for row in about:
        row.refresh_from_db()
        assert row.failed_at is not None and row.sent_at is None
    assert withdrawn_emails() == []


def test_the_vote_thread_of_the_undone_day_is_marked_withdrawn_then_given_back(ended, nl_gm):
    key = f"vote-{ended.current_phase.seq}"
    thread = Thread.objects.get(board=ended.board, key=key)
    title = thread.title
    assert thread.is_pinned and not title.startswith("【已撤回】")
    undo_end(ended, nl_gm)
    thread.refresh_from_db()
    assert thread.title == f"【已撤回】 {title}" and not thread.is_pinned
    services.end_phase_now(game_id=ended.pk, gm=nl_gm)  # the day opens again
    thread.refresh_from_db()
    assert thread.title == title and thread.is_pinned
    assert Thread.objects.filter(board=ended.board, kind=Thread.Kind.VOTE).count() == 1
