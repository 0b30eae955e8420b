"""The Chinese catalogue (locale/zh_Hans/LC_MESSAGES/django.po): it compiles, every message
the code asks for has a translation that keeps its placeholders, and the main pages read in
Chinese by default and in English for a user who chose English.

The pages are rendered with the catalogue compiled afresh from django.po into a temporary
directory, so a stale or missing django.mo cannot make these tests pass or fail.
"""

from __future__ import annotations

import io
import re
from html import unescape
from pathlib import Path

import pytest
from babel.messages.extract import extract
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.urls import reverse
from django.utils.translation.template import templatize

from tests.factories.toy import seat_user

ROOT = Path(settings.BASE_DIR)
DJANGO_PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
# The project's own code (makemessages' scope: not the venv, var/, tests/ or scripts/).
CODE_DIRS = ("accounts", "config", "games", "messaging")
# Django's gettext keywords, as makemessages gives them to xgettext, in Babel's notation.
KEYWORDS = {"_": None, "gettext": None, "gettext_lazy": None, "gettext_noop": None,
            "ngettext": (1, 2), "ngettext_lazy": (1, 2),
            "pgettext": ((1, "c"), 2), "pgettext_lazy": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3), "npgettext_lazy": ((1, "c"), 2, 3)}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w*\}")
CJK = re.compile(r"[\u4e00-\u9fff]")


def catalogue():
    with open(DJANGO_PO, "rb") as f:
        return read_po(f, locale="zh_Hans")


def key(message) -> tuple[str | None, str]:
    """(context, singular msgid) of a catalogue or extracted message."""
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return message.context, msgid


def forms(message) -> list[str]:
    """Every msgstr of a message (one for a singular, one per plural form)."""
    return list(message.string) if isinstance(message.string, (list, tuple)) else [
        message.string]


def messages_in_code() -> dict[tuple[str | None, str], str]:
    """(context, msgid) -> where, for every constant message the code and templates ask
    for, read the way Python evaluates the literals (what gettext looks up at run time).

    1. Python modules of CODE_DIRS: Babel's extractor with Django's keywords.
    2. Templates: Django's own `templatize` (as makemessages does), then the same extractor.
    """
    found = {}
    sources = [p for d in CODE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    sources += sorted((ROOT / "templates").rglob("*.html"))
    for path in sources:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".html":
            # Templatized text is not Python; without indentation it tokenizes cleanly.
            text = "\n".join(line.lstrip() for line in templatize(text).splitlines())
        for lineno, message, _comments, context in extract(
                "python", io.BytesIO(text.encode("utf-8")), keywords=KEYWORDS):
            msgid = message if isinstance(message, str) else message[0]
            if msgid:
                found.setdefault((context, msgid), f"{path.relative_to(ROOT)}:{lineno}")
    return found


# --- the catalogue itself --------------------------------------------------------------------

def test_the_header_names_the_language_and_its_single_plural_form():
    cat = catalogue()
    assert str(cat.locale) == "zh_Hans"
    assert cat.plural_forms == "nplurals=1; plural=0;"


def test_every_message_is_translated_and_none_is_fuzzy():
    cat = catalogue()
    assert len(cat) > 800
    untranslated = [key(m) for m in cat if m.id and not all(s.strip() for s in forms(m))]
    assert not untranslated, untranslated
    fuzzy = [key(m) for m in cat if m.id and m.fuzzy]
    assert not fuzzy, fuzzy


def test_every_translation_keeps_the_placeholders_of_its_msgid():
    for message in catalogue():
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        wanted = sorted(PLACEHOLDER.findall(ids[-1]))
        for text in forms(message):
            assert sorted(PLACEHOLDER.findall(text)) == wanted, key(message)


def test_every_translation_is_chinese():
    """A msgstr with Latin letters outside its placeholders also holds Chinese (no English
    sentence was copied over untranslated)."""
    for message in catalogue():
        if not message.id:
            continue
        for text in forms(message):
            words = PLACEHOLDER.sub("", text)
            assert CJK.search(words) or not re.search("[A-Za-z]", words), key(message)


def test_the_catalogue_compiles_and_babel_finds_no_format_error():
    cat = catalogue()
    errors = [(key(m), [str(e) for e in errs]) for m, errs in cat.check() if errs]
    assert not errors, errors
    out = io.BytesIO()
    write_mo(out, cat)
    assert len(out.getvalue()) > 10_000


def test_every_message_the_code_asks_for_has_a_translation():
    """A new string in the code without a translation fails here (run locale/refresh.sh, then
    translate it: locale/README.md); so does a literal gettext cannot match (e.g. an escape
    xgettext reads differently from Python)."""
    translated = {key(m) for m in catalogue() if m.id and m.string}
    needed = messages_in_code()
    assert len(needed) > 800
    missing = sorted(f"{where}: {k[1]!r}" + (f" (context {k[0]!r})" if k[0] else "")
                     for k, where in needed.items() if k not in translated)
    assert not missing, missing


# --- pages -----------------------------------------------------------------------------------

@pytest.fixture
def compiled(settings, tmp_path):
    """django.po compiled now, first in LOCALE_PATHS (changing the setting makes Django drop
    its cached translations)."""
    target = tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES"
    target.mkdir(parents=True)
    with open(target / "django.mo", "wb") as f:
        write_mo(f, catalogue())
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    yield


@pytest.fixture
def toy_game(request):
    """The running toy game of tests/conftest.py (the toy rule set: one wolf, villagers)."""
    return request.getfixturevalue("game")


def english_of(user):
    from accounts.models import Profile

    Profile.objects.filter(user=user).update(language="en")
    user.refresh_from_db()
    return user


def visible_text(html: str, *, skip_ids: tuple[str, ...] = ()) -> str:
    """The page's readable text: no scripts, styles, tags, or the elements named by id
    (content written by players or by a rule set without a presenter)."""
    for element_id in skip_ids:
        html = re.sub(rf'<(\w+)[^>]*\bid="{element_id}"[^>]*>.*?</\1>', " ", html, flags=re.S)
    html = re.sub(r"<(script|style|select)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", " ", html))


def english_words(text: str, allowed: set[str] = frozenset()) -> set[str]:
    """Latin words of 3+ letters, except time-zone names and offsets and the `allowed`
    ones."""
    text = re.sub(r"\b[A-Z][a-z]+/[A-Za-z_]+\b", " ", text)  # Asia/Shanghai
    text = re.sub(r"\bUTC[+-]\d\d:\d\d\b", " ", text)  # the footer's UTC+08:00
    return {w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in allowed}


def page(client, name: str, *args) -> str:
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200, response.status_code
    return response.content.decode()


@pytest.mark.django_db
def test_the_lobby_is_chinese_for_a_visitor_and_english_on_request(client, compiled):
    html = page(client, "lobby")
    for label in ("杀人游戏", "大厅", "版块", "最新主题", "登录", "注册"):
        assert label in html, label
    assert not english_words(visible_text(html)), english_words(visible_text(html))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = page(client, "lobby")
    for label in ("Killing Games", "Lobby", "Boards", "Latest threads", "Sign in"):
        assert label in html, label
    assert "杀人游戏" not in html and "最新主题" not in html
    assert {"Killing", "Games", "Boards"} <= english_words(visible_text(html))


@pytest.mark.django_db
def test_the_lobby_follows_the_signed_in_users_language(client, compiled, make_user):
    user = make_user("阿猫")
    client.force_login(user)
    html = page(client, "lobby")
    assert "退出" in html and "大厅" in html
    assert not english_words(visible_text(html)), english_words(visible_text(html))
    english_of(user)
    html = page(client, "lobby")
    assert "Sign out" in html and "Lobby" in html and "退出" not in html


@pytest.mark.django_db
def test_the_sign_in_page_is_chinese_by_default_and_english_on_request(client, compiled):
    html = page(client, "account_login")
    assert "登录" in html and "密码" in html
    assert not english_words(visible_text(html)), english_words(visible_text(html))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = page(client, "account_login")
    assert "Sign In" in html and "Password" in html and "密码" not in html


@pytest.mark.django_db
def test_a_seats_act_page_is_chinese_and_english_for_an_english_player(client, compiled,
                                                                       toy_game):
    user = seat_user(toy_game, "wolf")  # the one seat with an action at night
    number = toy_game.seats.get(user=user).number + 1
    client.force_login(user)
    html = page(client, "game-act", toy_game.pk)
    for label in ("我的行动", f"{number} 号座位：我的手牌", "阶段", "夜晚", "截止时间",
                  "我所知道的", "行动", "发给神的使者", "给神的使者留言", "对话"):
        assert label in html, label
    # The toy rule set has no presenter: its panel and its messages stay raw.
    text = visible_text(html, skip_ids=("my-hand", "conversation"))
    assert not english_words(text), english_words(text)
    english_of(user)
    html = page(client, "game-act", toy_game.pk)
    for label in ("My actions", f"Seat {number}: my hand", "Phase", "Night", "Deadline",
                  "What I know", "Send to 神的使者", "Conversation"):
        assert label in html, label
    assert "我的行动" not in html and "夜晚" not in html


@pytest.mark.django_db
def test_a_games_home_page_is_chinese(client, compiled, toy_game):
    client.force_login(toy_game.seats.get(number=0).user)
    html = page(client, "game-home", toy_game.pk)
    for label in ("进行中", "阶段", "夜晚", "游戏版块", "我的手牌与行动", "座位", "公开信息",
                  "公告", "玩家名单"):
        assert label in html, label
    # The seats' public facts come from the toy rule set, which has no presenter.
    text = visible_text(html, skip_ids=("seats",))
    assert not english_words(text), english_words(text)


def test_no_message_is_defined_twice():
    """A second definition of a msgid (appended by a later change) is kept silently by Babel,
    which uses one of the two; gettext's msgfmt refuses the file. Each (msgctxt, msgid) once."""
    import collections

    text = DJANGO_PO.read_text(encoding="utf-8")
    keys = collections.Counter()
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        key, part = {"msgctxt": "", "msgid": ""}, None
        for line in lines:
            head = re.match(r"(msgctxt|msgid|msgid_plural|msgstr\S*) (\".*\")$", line)
            if head:
                part = head.group(1) if head.group(1) in key else None
                if part:
                    key[part] = head.group(2)[1:-1]
            elif part and line.startswith('"'):
                key[part] += line[1:-1]
        if key["msgid"]:
            keys[(key["msgctxt"], key["msgid"])] += 1
    assert [k for k, n in keys.items() if n > 1] == []
