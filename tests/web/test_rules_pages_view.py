"""The rules pages as players open them: /games/rules/ and /games/rules/<ruleset>/."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import rules_pages

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("ruleset", rules_pages.rulesets())
def test_each_rule_set_has_a_page_in_chinese_by_default(client, ruleset):
    page = client.get(reverse("rules-detail", args=[ruleset]))
    assert page.status_code == 200
    html = page.content.decode()
    expected = rules_pages.rules_page(ruleset, "zh-hans")
    assert f"<h1>{expected.title}</h1>" in html
    assert 'id="interpretations"' in html
    assert "not yet written in your language" not in html


def test_the_english_reader_gets_the_english_page(client):
    client.cookies["django_language"] = "en"
    html = client.get(reverse("rules-detail", args=["ninelives"])).content.decode()
    assert rules_pages.rules_page("ninelives", "en").title in html
    assert 'id="card-WITCH_DOCTOR"' in html


def test_the_index_links_every_rule_set(client):
    html = client.get(reverse("rules-index")).content.decode()
    for ruleset in rules_pages.rulesets():
        assert reverse("rules-detail", args=[ruleset]) in html


@pytest.mark.parametrize("name", ["unknown", "..", "NINELIVES"])
def test_an_unknown_rule_set_is_not_found(client, name):
    assert client.get(f"/games/rules/{name}/").status_code == 404
