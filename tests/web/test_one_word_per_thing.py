"""One word per thing in the Chinese pages: the glossary's terms (/work/shared/GLOSSARY.md, the
project's docs/architecture.md names it) and nothing else, read from what players are shown —
the compiled catalogue (locale/zh_Hans/LC_MESSAGES/django.mo), the templates and the players'
rules pages.

- 生死投票, never 加赛; 委托投票, never 代理投票; 秘密属性, never 秘密污染牌 (or 污染); 生死状,
  never a 契约 (the poison's card and the bandits' form say the same word).
- A yes/no answer is not written after "答案是" (which read "答案是是").
- A seat named in a sentence is "3号阿狗" (presenters.who), never "座位3 阿狗".
- A player is 他/她 or named, never 它: every translation holding 它 is listed below with the
  thing it stands for, so a new one is read by someone before it ships.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo
from django.utils import translation

from games.presenters import outcome_text

ROOT = Path(__file__).resolve().parents[2]
MO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo"

# word that must not appear -> the glossary's word for the same thing
FORBIDDEN = {
    "加赛": "生死投票",
    "代理投票": "委托投票",
    "秘密污染牌": "秘密属性",
    "污染": "秘密属性",
    "契约": "生死状",
    "答案是是": "结果：是",
}
# "答案是" directly before the answer: "答案是%(answer)s", "答案是“是”", "答案是**是**"
ANSWER_AFTER_IS = re.compile(r"答案是\s*(%\(|[“\"*]*[是否])")
# a seat as "座位3" / "座位 %(seat)s" in a sentence (the number or the name follows 座位)
SEAT_WORD_FIRST = re.compile(r"座位\s*(%\(|\{|\d)")

# The translations that hold 它, each with what it stands for (never a player or a seat).
IT_ALLOWED = {
    "The form holds a field it does not have: %(fields)s.": "the form",
    "Opening a conversation leaves it waiting; answering it or ticking this and saving "
    "takes it off the waiting list.": "the conversation",
    "You chose: %(use)s. It takes effect when the phase ends and may be changed or "
    "withdrawn until then.": "the card use",
    "神的使者 holds your proxy vote for %(target)s: it counts after all other votes, can be "
    "changed until the count, and is void if you vote in person.": "the proxy vote",
    "That action has fields it does not take.": "the action",
    "Subscribe to this private address in your calendar application (iCalendar): it lists the "
    "deadline of the current phase of each of your games, your check-in deadline, handover "
    "windows, the start of the games you signed up for and award votes. Later phases are not "
    "listed: they depend on how each phase ends.": "the calendar address",
    "The remaining steps do not replay without it; it cannot be undone alone.": "the step",
    "Later steps depend on this one; undo them first.": "the later steps",
    "The GM has taken back one step of %(phase)s; what it announced and the private results "
    "it sent are withdrawn. The deadline is now %(deadline)s.": "the step",
    "The mark of the first reminder, which also rang the bell.": "the reminder",
    "The messenger holds %(seat)s's proxy vote for %(target)s; it counts after all others, "
    "can change until then, and is void if %(seat2)s votes in person (%(ref)s).": "the proxy vote",
    "The messenger holds %(seat)s's proxy runoff vote for %(target)s; it counts after all "
    "others, can change until then, and is void if %(seat2)s votes in person (%(ref)s).": "the proxy vote",
    "The game clock has stopped: there is no record of it checking the deadlines (it has not "
    "run, or Redis, which keeps the record, cannot be reached), so a deadline that passes will "
    "not end its phase. Check that Redis, the Celery worker and beat are running, and restart "
    "them through their supervisor (docs/operations.md). Meanwhile you can end a phase by "
    "hand in the console (“End phase now…”).": "the clock",
    "The game clock has stopped: it last checked the deadlines %(ago)s ago, so a deadline "
    "that passes will not end its phase. Check that the Celery worker and beat are running, "
    "and restart them through their supervisor (docs/operations.md). Meanwhile you can end a "
    "phase by hand in the console (“End phase now…”).": "the clock",
}


def catalogue() -> list[tuple[str, str]]:
    """(msgid, translation) of every translated entry of the compiled catalogue (plural
    forms joined)."""
    with MO.open("rb") as handle:
        messages = read_mo(handle)
    entries = []
    for message in messages:
        msgid = message.id[0] if isinstance(message.id, tuple) else message.id
        text = message.string
        text = "".join(text) if isinstance(text, tuple | list) else text
        if msgid and text:
            entries.append((msgid, text))
    return entries


def shown_files() -> list[Path]:
    """Templates and the players' Chinese rules pages."""
    return sorted((ROOT / "templates").rglob("*.html")) + sorted(
        (ROOT / "docs" / "rules" / "players").glob("*.zh-hans.md")
    )


def test_the_catalogue_is_compiled_and_read():
    assert len(catalogue()) > 1000


@pytest.mark.parametrize("word", FORBIDDEN)
def test_no_translation_uses_a_word_the_glossary_replaced(word):
    found = [(msgid, text) for msgid, text in catalogue() if word in text]
    assert not found, f"use {FORBIDDEN[word]!r} instead of {word!r}: {found}"


@pytest.mark.parametrize("word", FORBIDDEN)
def test_no_template_or_rules_page_uses_a_word_the_glossary_replaced(word):
    found = [str(p.relative_to(ROOT)) for p in shown_files() if word in p.read_text("utf-8")]
    assert not found, f"use {FORBIDDEN[word]!r} instead of {word!r} in {found}"


def test_no_answer_is_written_after_daan_shi():
    found = [(msgid, text) for msgid, text in catalogue() if ANSWER_AFTER_IS.search(text)]
    assert not found, found


def test_a_seat_is_named_by_its_number_before_its_player():
    found = [(msgid, text) for msgid, text in catalogue() if SEAT_WORD_FIRST.search(text)]
    assert not found, found


def test_only_the_listed_translations_say_ta_and_none_of_them_for_a_player():
    found = {msgid for msgid, text in catalogue() if "它" in text}
    unlisted = found - set(IT_ALLOWED)
    assert not unlisted, f"它 in translations not listed (a player is 他/她 or named): {unlisted}"
    assert set(IT_ALLOWED) <= found, f"listed but gone, drop them: {set(IT_ALLOWED) - found}"


def test_every_rule_set_names_a_winner_as_number_and_name():
    names = {0: "阿猫", 1: "阿狗", 2: "小白"}
    with translation.override("zh-hans"):
        assert (
            outcome_text(
                "gold",
                {"result": "win", "winners": [1]},
                names,
            )
            == "获胜者：2号阿狗。"
        )
        ninelives = outcome_text(
            "ninelives",
            {
                "result": "win",
                "camp": "civilian",
                "winners": [0, 2],
            },
            names,
        )
        assert ninelives.endswith("获胜者：1号阿猫、3号小白。"), ninelives


@pytest.mark.django_db
def test_the_gold_panel_names_the_lead_and_the_turns_by_number_and_name(client, start_gold):
    from html import unescape

    from django.urls import reverse

    from tests.factories import user_of

    game = start_gold(players=3, lead=0)
    client.force_login(user_of(game, 1))
    with translation.override("zh-hans"):
        page = unescape(client.get(reverse("game-act", args=[game.pk])).content.decode())
    status = page[page.index('id="gold-status"') :]
    status = status[: status.index("</p>")]
    assert "1号金子" in status, status
