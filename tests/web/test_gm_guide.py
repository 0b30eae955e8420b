"""The GM guide (docs/gm-guide.md) in the admin, linked from the admin index, with its
pictures; README links it too."""

import re

import pytest
from django.urls import reverse

from games.admin import guide
from tests.factories import ROOT

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("chinese")]


def test_the_admin_index_links_the_guide_and_the_guide_shows_its_pictures(client, make_user):
    host = make_user("主持人丙", staff=True, superuser=False)
    client.force_login(host)
    index = client.get(reverse("admin:index")).content.decode()
    url = reverse("admin:games_game_guide")
    assert f'href="{url}"' in index
    page = client.get(url).content.decode()
    assert "主持第一局" in page and "English summary" not in page  # the Chinese part only
    # bold Markdown beside Chinese punctuation is bold, not two stars shown as text
    assert "**" not in page and "<strong>工作人员</strong>" in page
    images = re.findall(r'<img src="([^"]+)"', page)
    assert len(images) >= 5
    for src in images:
        response = client.get(src)
        assert response.status_code == 200 and response["Content-Type"] == "image/png"


@pytest.mark.parametrize("name", ["gm-guide.md", "nope.png", "x.svg", ".png", "GM-STEPS.png"])
def test_only_the_guides_own_pictures_are_served(client, gm, name):
    client.force_login(gm)
    response = client.get(reverse("admin:games_game_guide_image", args=["x.png"]).replace(
        "x.png", name))
    assert response.status_code == 404


def test_a_reader_of_english_gets_the_english_summary(client, make_user):
    from accounts.models import Profile

    host = make_user("主持人丙", staff=True, superuser=False)
    Profile.objects.filter(user=host).update(language="en")
    client.force_login(host)
    page = client.get(reverse("admin:games_game_guide")).content.decode()
    assert "Your first game as the GM" in page and "Staff status means" in page
    assert "主持第一局" not in page


def test_players_do_not_get_the_admin_guide(client, players):
    client.force_login(players[0])
    response = client.get(reverse("admin:games_game_guide"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_every_picture_the_guide_names_exists_and_readme_links_it():
    text = guide.GUIDE.read_text(encoding="utf-8")
    for name in re.findall(r"\]\(img/([^)]+)\)", text):
        assert (guide.IMAGES / name).is_file(), name
    assert "docs/gm-guide.md" in (ROOT / "README.md").read_text(encoding="utf-8")
