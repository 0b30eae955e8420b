"""The player-facing rules pages (games/rules_pages.py, docs/rules/players/).

What they promise: a page per rule set in Chinese and English; a stable anchor for every card
or role the seat panel may link to, the same in both languages; every interpretation of
docs/rules/ in the pages' interpretations section; Chinese pages without engine codes, English
pages without Chinese; and not one line or sentence taken from the seed rule texts.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from games import rules_pages
from games.engine import registry
from games.engine.classic.roles import ROLE_NAMES_ZH
from games.engine.gold.rules import CARDS as GOLD_CARDS
from games.engine.ninelives.cards import CARDS as NINELIVES_CARDS
from games.rules_pages import rules_page
from tests.presenters import seed_runs

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rules"
# The seed rule texts live beside the checkouts (shared/seeds); SEEDS_DIR may point elsewhere.
SEEDS = Path(os.environ.get("SEEDS_DIR", ROOT.parent / "shared" / "seeds"))
RULESETS = ("ninelives", "classic", "gold")
LANGUAGES = ("zh-hans", "en")
PAGES = [(r, lang) for r in RULESETS for lang in LANGUAGES]

# The anchors the seat panels link to (one per card or role code).
PANEL_ANCHORS = {
    "ninelives": {f"card-{code}" for code in NINELIVES_CARDS},
    "classic": {f"role-{code}" for code in ROLE_NAMES_ZH},
    "gold": {f"card-{code}" for code in GOLD_CARDS} | {"token-priority", "token-double"},
}

# Where the interpretations are numbered in docs/rules/: (file, kind, label prefix in the
# pages). "I" items are the rows or bullets of the file's "Interpretations" section; "W" items
# are classic's service-level choices. The dealer's I1-I5 become D1-D5 on the 猫有n条命 page,
# since the main file has its own I1-I5.
SOURCES = {
    "ninelives": [("ninelives.md", "I", "I"), ("ninelives-dealing.md", "I", "D")],
    "classic": [("classic.md", "I", "I"), ("classic.md", "W", "W")],
    "gold": [("gold.md", "I", "I")],
}
EXPECTED_COUNTS = {"ninelives": 29 + 5, "classic": 39 + 6, "gold": 13}

# Proper names an English page may keep in Chinese: the messenger account and a game's name.
ENGLISH_MAY_KEEP = ("神的使者", "猫有n条命")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class _Page(HTMLParser):
    """Collects the visible text, the ids (with their tags) and the internal links of a page."""

    def __init__(self, html: str):
        super().__init__()
        self.text: list[str] = []
        self.ids: dict[str, str] = {}
        self.links: list[str] = []
        self.table_widths: list[int] = []
        self._row = 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids[attrs["id"]] = tag
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.links.append(attrs["href"][1:])
        if tag == "tr":
            self._row = 0
        if tag in ("th", "td"):
            self._row += 1

    def handle_endtag(self, tag):
        if tag == "tr":
            self.table_widths.append(self._row)

    def handle_data(self, data):
        self.text.append(data)

    @property
    def visible(self) -> str:
        return "".join(self.text)


def parsed(ruleset: str, language: str) -> _Page:
    return _Page(rules_page(ruleset, language).html)


def documented(ruleset: str) -> list[str]:
    """The interpretation labels of docs/rules/ for `ruleset`, in document order."""
    labels = []
    for name, kind, prefix in SOURCES[ruleset]:
        text = (DOCS / name).read_text(encoding="utf-8")
        if kind == "I":
            section = re.search(r"^## [^\n]*Interpretations[^\n]*\n(.*?)(?=^## |\Z)", text,
                                re.M | re.S)
            assert section, f"{name} has no Interpretations section"
            found = re.findall(r"^(?:\| |\* \*\*)I(\d+)\b", section.group(1), re.M)
        else:
            found = re.findall(r"^\* \*\*W(\d+) —", text, re.M)
        assert found, f"no {kind} items found in {name}"
        labels += [f"{prefix}{n}" for n in found]
    return labels


def interpretations_section(html: str) -> str:
    match = re.search(r'<h2 id="interpretations">.*?</h2>(.*?)(?=<h2 |\Z)', html, re.S)
    assert match, "the page has no interpretations section"
    return match.group(1)


# --- every page exists, renders and falls back as documented ------------------------------

def test_every_registered_rule_set_has_a_page_in_both_languages():
    built_in = {name for name, cls in registry.RULESETS.items()
                if cls.__module__.startswith("games.")}
    assert set(rules_pages.rulesets()) == set(RULESETS) == built_in
    for ruleset, language in PAGES:
        assert rules_pages.page_path(ruleset, language).is_file()
        page = rules_page(ruleset, language)
        assert page.language == language
        assert page.title and page.html.startswith("<p>")
        assert "<h1" not in page.html, "the title is given apart, not inside the html"


@pytest.mark.parametrize("language, served", [
    ("en-us", "en"), ("EN", "en"), ("zh_Hans", "zh-hans"), ("zh-hans", "zh-hans"),
    ("fr", "zh-hans"), ("", "zh-hans"), ("zh-hant", "zh-hans"),
])
def test_a_language_without_a_file_gets_the_chinese_page(language, served):
    page = rules_page("gold", language)
    assert page.language == served
    assert page.html == rules_page("gold", served).html


@pytest.mark.parametrize("ruleset", ["chess", "", "../rules/players/gold", "gold.en", "GOLD"])
def test_an_unknown_rule_set_raises_key_error(ruleset):
    with pytest.raises(KeyError):
        rules_page(ruleset, "zh-hans")


def test_pages_are_rendered_once_per_rule_set_and_language():
    assert rules_page("classic", "en") is rules_page("classic", "en-us")
    assert rules_page("classic", "en") is not rules_page("classic", "zh-hans")


# --- anchors --------------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset, language", PAGES)
def test_every_card_or_role_of_the_panel_has_its_heading_anchor(ruleset, language):
    ids = parsed(ruleset, language).ids
    missing = sorted(a for a in PANEL_ANCHORS[ruleset] if a not in ids)
    assert not missing, f"{ruleset}.{language} lacks anchors {missing}"
    assert all(ids[a] == "h3" for a in PANEL_ANCHORS[ruleset])


def test_ninelives_has_one_card_heading_per_card_code_and_no_other():
    for language in LANGUAGES:
        cards = {i for i in parsed("ninelives", language).ids if i.startswith("card-")}
        assert cards == {f"card-{code}" for code in NINELIVES_CARDS}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_both_languages_use_the_same_anchors_and_sections(ruleset):
    zh, en = rules_page(ruleset, "zh-hans"), rules_page(ruleset, "en")
    assert set(_Page(zh.html).ids) == set(_Page(en.html).ids)
    assert [a for a, _ in zh.toc] == [a for a, _ in en.toc]


@pytest.mark.parametrize("ruleset, language", PAGES)
def test_headings_carry_ids_and_the_toc_lists_every_section(ruleset, language):
    page = rules_page(ruleset, language)
    without_id = re.findall(r"<h[23]>", page.html)
    assert not without_id, "every ## and ### heading needs an {#id}"
    sections = re.findall(r'<h2 id="([^"]+)">', page.html)
    assert [a for a, _ in page.toc] == sections
    assert page.toc[-1][0] == "interpretations"
    assert all(heading and "{" not in heading for _, heading in page.toc)


@pytest.mark.parametrize("ruleset, language", PAGES)
def test_no_attribute_syntax_is_left_visible_and_every_link_lands(ruleset, language):
    page = parsed(ruleset, language)
    assert "{#" not in page.visible
    dangling = sorted(set(page.links) - set(page.ids))
    assert not dangling, f"links to missing anchors: {dangling}"


@pytest.mark.parametrize("ruleset, language", PAGES)
def test_tables_stay_narrow_for_a_phone(ruleset, language):
    widths = parsed(ruleset, language).table_widths
    assert max(widths, default=0) <= 4


# --- interpretations ------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS)
def test_docs_number_the_interpretations_this_test_expects(ruleset):
    labels = documented(ruleset)
    assert len(labels) == len(set(labels)) == EXPECTED_COUNTS[ruleset]


@pytest.mark.parametrize("ruleset, language", PAGES)
def test_every_documented_interpretation_is_in_the_section_in_order(ruleset, language):
    section = interpretations_section(rules_page(ruleset, language).html)
    paragraphs = re.findall(r'<p id="interp-([A-Z]\d+)">(.*?)</p>', section, re.S)
    assert [label for label, _ in paragraphs] == documented(ruleset)
    for label, body in paragraphs:
        # the label, then the seed section it reads, in brackets, then a sentence
        assert re.match(rf"<strong>{label}</strong>\s*[（(][^（()）]+[）)]\s*\S", body), body[:80]


# --- languages ------------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset", RULESETS)
def test_chinese_pages_show_no_engine_code_or_english_word(ruleset):
    page = rules_page(ruleset, "zh-hans")
    visible = page.title + _Page(page.html).visible
    assert "card-" in page.html or "role-" in page.html   # the codes are there, in the ids
    codes = set(NINELIVES_CARDS) | set(GOLD_CARDS) | set(ROLE_NAMES_ZH)
    leaked = sorted(c for c in codes if re.search(rf"(?<![A-Za-z_]){c}(?![A-Za-z_])", visible))
    assert not leaked, f"engine codes in the visible Chinese text: {leaked}"
    words = sorted(set(re.findall(r"[A-Za-z_]{3,}", visible)))
    assert not words, f"English words in the visible Chinese text: {words}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_english_pages_keep_no_chinese_but_proper_names(ruleset):
    page = rules_page(ruleset, "en")
    visible = page.title + _Page(page.html).visible
    for name in ENGLISH_MAY_KEEP:
        visible = visible.replace(name, "")
    assert not CJK.findall(visible), sorted(set(CJK.findall(visible)))


# --- own words ---------------------------------------------------------------------------------
# Checked against fingerprints of the seeds kept in the project (tests/presenters/seed_runs.py),
# so the check runs on every checkout; the seeds themselves are not in the project.


def test_the_fingerprints_cover_the_seeds():
    """Every run of every seed is there: as many as the seeds have (about 17,600), and, where
    the seeds lie beside the checkout, exactly theirs (made again after a seed changed)."""
    known = seed_runs.load()
    assert len(known) > 15_000
    beside = seed_runs.seed_fingerprints(SEEDS) if SEEDS.is_dir() else known
    assert beside == known, "the seeds changed: python -m tests.presenters.seed_runs SEEDS"


def test_a_copied_run_is_found_and_an_own_sentence_is_not():
    """The check itself, on texts of its own: fifteen characters taken from the middle of a
    'seed' are found in a page that words everything else its own way."""
    seed = "夜里杀手与警察各自行动，天亮后由主持人宣布谁在夜里出局了，然后大家投票。"
    known = seed_runs.fingerprints([seed])
    page = "规则：白天讨论。" + seed[5:21] + "——这是照抄的。"
    assert set(seed_runs.shared(page, known)) == {seed[5:20], seed[6:21]}
    assert seed_runs.shared("夜里杀手行动，白天大家讨论并投票，主持人宣布结果。", known) == []


@pytest.mark.parametrize("ruleset, language", PAGES)
def test_no_run_of_fifteen_characters_is_shared_with_a_seed(ruleset, language):
    """No line, no sentence and no clause of fifteen characters in a row (whitespace removed)
    of a seed, in the page's source or in the text it shows."""
    known = seed_runs.load()
    source = rules_pages.page_path(ruleset, language).read_text(encoding="utf-8")
    copied = seed_runs.shared(source, known) + seed_runs.shared(
        parsed(ruleset, language).visible, known)
    assert not copied, f"copied from a seed: {copied[:3]}"
