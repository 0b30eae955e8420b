"""The demo (`manage.py load_demo`, run by `make run`) and the superuser's debugging data.

The demo's GM is staff only, as every real host: it sees the admin a GM sees, never the
stored data beside the records. The operator's account, a separate superuser named in
README.md, reads every game's settings and records with that data folded under one heading,
"调试数据" (a closed <details>), after everything a GM reads."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from games import services
from games.management.commands.load_demo import DEMO_PASSWORD, OPERATOR_EMAIL
from games.models import Action, Event
from tests.factories.ninelives import act

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def accounts() -> dict[str, tuple[bool, bool]]:
    return {u.username: (u.is_staff, u.is_superuser) for u in get_user_model().objects.all()}


def test_the_demo_gm_is_staff_only_and_the_operator_is_the_superuser(client, settings):
    call_command("load_demo", stdout=open("/dev/null", "w"))
    users = get_user_model().objects
    gm, operator = users.get(email="gm@example.com"), users.get(email=OPERATOR_EMAIL)
    assert (gm.is_staff, gm.is_superuser) == (True, False)
    assert (operator.is_staff, operator.is_superuser) == (True, True)
    assert operator.profile.display_name == "演示站长"
    assert gm.check_password(DEMO_PASSWORD) and operator.check_password(DEMO_PASSWORD)
    players = users.filter(email__startswith="player")
    assert players.count() == 6 and not players.filter(is_staff=True).exists()
    readme = (settings.BASE_DIR / "README.md").read_text()
    assert f"`{OPERATOR_EMAIL}`" in readme and "`gm@example.com`" in readme
    before = accounts()
    call_command("load_demo", stdout=open("/dev/null", "w"))
    assert accounts() == before  # idempotent


def test_loading_the_demo_again_makes_an_earlier_demos_gm_staff_only():
    call_command("load_demo", stdout=open("/dev/null", "w"))
    get_user_model().objects.filter(email="gm@example.com").update(is_superuser=True)
    call_command("load_demo", stdout=open("/dev/null", "w"))
    assert accounts()["gm"] == (True, False)


def debugging(html: str) -> list[str]:
    """Each <details> block of the page that holds stored data (<pre lang="zxx">)."""
    return [d for d in re.findall(r"<details>.*?</details>", html, re.S) if 'lang="zxx"' in d]


def test_the_debugging_data_is_folded_under_one_heading_for_the_superuser_alone(
    client, start_ninelives, nl_gm, make_user
):
    game = start_ninelives()
    act(game, 2, "use_card", card="DIVINER", target=0)  # a step in the replay log
    host = make_user("主持人", staff=True, superuser=False)
    root = make_user("站长", staff=True)
    services.add_co_gm(game_id=game.pk, gm=nl_gm, user=host)
    pages = [reverse("admin:games_game_change", args=[game.pk]),
             reverse("admin:games_event_change",
                     args=[Event.objects.filter(game=game, public=False).first().pk]),
             reverse("admin:games_action_change", args=[Action.objects.filter(game=game)
                                                        .first().pk])]
    for url in pages:
        client.force_login(root)
        html = client.get(url).content.decode()
        blocks = debugging(html)
        assert len(blocks) == 1 and html.count('lang="zxx"') == 1, url
        assert re.search(r"<summary>\s*<h2[^>]*>调试数据</h2>\s*</summary>", blocks[0]), url
        assert html.index("<details>") > html.index('class="form-row'), url  # after the rest
        client.force_login(host)
        html = client.get(url).content.decode()
        assert "调试数据" not in html and 'lang="zxx"' not in html, url
