"""The console's review of manifestos and its "everyone has acted" notice (seed 002 §3.5.2,
§5.7): with early ends off the GM sees that everyone has acted and ends the night from the
console; each manifesto waits for approval or a rejection with a reason; the add form starts
"end as soon as everyone has acted" off for the forum-standard preset."""

import pytest
from django.urls import reverse

from games import selectors
from games.models import Game, ManifestoApproval
from tests.factories.ninelives import MANIFESTO, act, announcements, conversation, fresh
from tests.services.ninelives.test_manifesto_review import ORDERS

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese", "response_context")]


@pytest.fixture
def night(start_ninelives):
    """Night 1, early ends off, loss orders in; the killer (seat 1) attacks seat 3 with a
    manifesto; seats 2 and 3 have acted, seats 4 and 5 not yet."""
    game = start_ninelives()
    game.early_end = False
    game.save()
    for seat, order in ORDERS.items():
        act(game, seat, "loss_order", cards=order)
    act(game, 0, "use_card", card="KILLER", target=2, manifesto=MANIFESTO)
    act(game, 1, "use_card", card="SOULBINDER", target=2)
    act(game, 2, "use_card", card="DIVINER", target=0)
    return fresh(game)


def console(client, game):
    return client.get(reverse("admin:games_game_console", args=[game.pk])).content.decode()


def command(client, game, name, **data):
    return client.post(reverse("admin:games_game_command", args=[game.pk, name]), data, follow=True)


def test_everyone_has_acted_is_said_only_once_everyone_has(client, night, nl_gm):
    client.force_login(nl_gm)
    html = console(client, night)
    assert "所有人都已行动" not in html and 'id="end-now"' not in html
    act(night, 3, "pass")
    act(night, 4, "pass")
    html = console(client, night)
    assert fresh(night).phase_name == "night"  # the night waits for the GM
    notice = html.split('id="everyone-acted"')[1].split("</li>")[0]
    assert "所有人都已行动" in notice and "立即结束本阶段" in notice
    assert "还有1份杀人宣言等待你审核" in notice
    end_page = reverse("admin:games_game_end_phase", args=[night.pk])
    assert f'href="{end_page}"' in notice
    page = client.get(end_page).content.decode()
    assert "未审核的杀人宣言" in page and "1号阿猫" in page.split('id="unreviewed"')[1]


def test_the_console_lists_the_manifesto_with_approve_and_reject(client, night, nl_gm):
    client.force_login(nl_gm)
    html = console(client, night)
    block = html.split('id="manifestos"')[1].split("</fieldset>")[0]
    assert "杀人宣言审核" in block and MANIFESTO[:20] in block
    assert "1号阿猫" in block and "杀手" in block and "3号小白" in block and "待审核" in block
    assert 'value="通过"' in block and 'value="驳回"' in block
    gm_steps = html.split('id="gm-steps"')[1].split("</fieldset>")[0]
    assert 'data-kind="reject_manifesto"' not in gm_steps  # reviewed in one place only


def test_approve_then_end_from_the_console_publishes_it(client, night, nl_gm):
    client.force_login(nl_gm)
    [m] = selectors.manifestos_for_review(night)
    command(client, night, "approve_manifesto", seat="1", digest=m["digest"])
    assert ManifestoApproval.objects.filter(game=night, seat=0).exists()
    block = console(client, night).split('id="manifestos"')[1].split("</fieldset>")[0]
    assert "✓ 已通过" in block and 'value="通过"' not in block
    command(client, night, "end_phase", version=fresh(night).version)
    night = fresh(night)
    assert night.phase_name == "day"
    assert MANIFESTO[:20] in announcements(night)[-1]


def test_reject_from_the_console_sends_the_reason(client, night, nl_gm):
    client.force_login(nl_gm)
    [m] = selectors.manifestos_for_review(night)
    html = command(
        client, night, "reject_manifesto", seat="1", digest=m["digest"], reason="请按剧情重写。"
    ).content.decode()
    assert "请按剧情重写。" in conversation(night, 0)
    assert selectors.manifestos_for_review(fresh(night)) == []
    assert 'id="manifestos"' not in html


@pytest.mark.parametrize(
    "data",
    [
        {"seat": "1", "reason": ""},  # no reason
        {"seat": "1", "digest": "0" * 64, "reason": "x"},  # not the manifesto shown
        {"seat": "9", "reason": "x"},  # no such seat
        {"seat": "一", "reason": "x"},  # not a number
        {"seat": "1", "digest": "<script>", "reason": "x"},
    ],
)
def test_a_bad_review_is_a_readable_refusal_that_changes_nothing(client, night, nl_gm, data):
    client.force_login(nl_gm)
    [m] = selectors.manifestos_for_review(night)
    steps = night.steps
    for name in ("reject_manifesto", "approve_manifesto"):
        response = command(client, night, name, **{"digest": m["digest"], **data})
        if name == "approve_manifesto" and data.get("digest") is None and data["seat"] == "1":
            continue  # approving needs no reason: the one good request here
        assert response.status_code == 200
        assert 'class="error"' in response.content.decode()
    assert fresh(night).steps == steps
    assert selectors.manifestos_for_review(fresh(night))[0]["seat"] == 0


def test_another_host_cannot_review(client, night, make_user):
    other = make_user("别的天神", staff=True, superuser=False)
    client.force_login(other)
    [m] = selectors.manifestos_for_review(night)
    response = client.post(
        reverse("admin:games_game_command", args=[night.pk, "approve_manifesto"]),
        {"seat": "1", "digest": m["digest"]},
    )
    assert response.status_code == 404
    assert not ManifestoApproval.objects.exists()


def test_the_add_form_starts_early_ends_off_for_the_forum_standard(client, nl_gm):
    client.force_login(nl_gm)
    html = client.get(reverse("admin:games_game_add")).content.decode()
    box = (
        html.split('id="id_early_end"')[0].rsplit("<input", 1)[1]
        + html.split('id="id_early_end"')[1].split(">", 1)[0]
    )
    assert "checked" not in box
    assert 'data-on-presets="fast turbo"' in box
    assert "所有人行动后立即结束阶段" in html and "杀人宣言审核截止" in html
    form = client.get(reverse("admin:games_game_add")).context["adminform"].form
    data = {
        "name": "标准局",
        "ruleset": "ninelives",
        "seat_count": 5,
        "gm": nl_gm.pk,
        "preset_ninelives": "standard",
        "preset_classic": "standard",
        "preset_gold": "standard",
        "opt_classic_guardians": "none",
        "opt_classic_all_civilians_dead": "seed",
        "manifesto_review_minutes": "30",
        "watch_delay": "1",
    }
    assert form["early_end"].value() is False
    response = client.post(reverse("admin:games_game_add"), data)
    assert response.status_code == 302
    game = Game.objects.get(name="标准局")
    assert not game.early_end and game.manifesto_review_minutes == 30
