"""Display names: what counts as the same name, and which names nobody may take.

Pure functions (no model import: accounts.models imports this module, never the reverse).
Names that cannot impersonate:
1. `name_skeleton` folds a name so that look-alikes compare equal:
   NFKC -> invisible characters dropped -> traditional to simplified Chinese (OpenCC t2s:
   阿貓 -> 阿猫) -> the Unicode confusable skeleton (UTS #39 confusables.txt as shipped by
   the confusable-homoglyphs package: Cyrillic а -> a, Greek Μ -> M, 1/I -> l) -> case-folded
   -> the skeleton again (so "Ⅿ" and "m" meet) -> only letters and digits kept.
   Profile stores it in a unique column, so "already taken" is one indexed lookup and a race
   between two sign-ups ends in the database's refusal, not in two equal names.
2. UTS #39 has no entry for Chinese look-alikes such as 旳/的 or 著/者, so a Chinese reserved
   name of three or more characters is also refused with any one character changed
   (神旳使者, 神的使著, 管理猿), and so is a name containing a four-character one that way.
3. Reserved words (`reserved_word`): no name may contain a word of the service, its game
   masters or its staff. Chinese ones (RESERVED_PARTS: 神的使者 and its shortenings 神使 and
   神的使, 天神, 法官, 执法团, 官方, 系统, 管理, 版主, 主持 …) anywhere in the skeleton, so
   spacing, traditional characters and look-alikes do not hide them (系 统通知, 執法團成員);
   Latin ones (RESERVED_WORDS: gm, admin, moderator, staff …) as a word of the name's Latin
   letters, so GM1, ＧＭ, "G M" and "小GM" are refused but Sigmund and badminton are not (a
   word of five letters or more also at the start or end of one: superadmin, staffer). Names
   taken before a word was reserved stay as they are (their owners keep them when saving
   the profile, accounts.forms).
4. Official names by meaning (`reserved_meaning`): the site's own names — 神的使者, 天神, the
   graveyard board (墓地), announcements (公告), 管理, 系统 — are refused in words that mean
   the same (RESERVED_MEANINGS: 信使, 上帝, 墓园, 通告, 站务, 后台 …) and in "the god's
   messenger" built any way (神之使, 天的使者), on the skeleton after Chinese look-alike
   characters are folded (CJK_LOOKALIKES: 夭/天, 砷/神, 幕/墓, 吿/告, 菅/管, 糸/系 …, which
   UTS #39 leaves alone), so "神的信使", "墓地公告", "夭神" and "幕地" are refused too. The
   folding serves these checks only: the stored skeleton (rule 1) is unchanged. The refusal
   names the official name the name reads like. Mentions (messaging.mentions) keep to rule 3's
   lists, so a name taken before these were reserved can still be mentioned.
5. Invisible and direction-changing characters (format characters such as U+200B and
   U+202E, fillers such as U+3164, variation selectors) are refused in names and thread
   titles; a post body made of nothing else counts as empty (`visible_text`).
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from pathlib import Path

import confusable_homoglyphs
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from opencc import OpenCC

MIN_LENGTH = 2
MAX_LENGTH = 24
SKELETON_MAX_LENGTH = 96  # a skeleton may be longer than its name (m -> rn)

# Names that would let a player pass for the service, a game master or staff: no name may
# contain the first list, nor equal the second (both compared by skeleton), nor have a word
# of the third among its Latin letters (see `reserved_word`).
RESERVED_PARTS = ["神的使者", "神的使", "神使", "天神", "法官", "执法团", "执法", "官方", "系统",
                  "管理员", "管理", "版主", "主持", "站长", "客服", "裁判", "messenger"]
RESERVED = ["神的使者", "天神", "法官", "执法团", "管理员", "系统", "系统消息", "官方", "admin",
            "administrator", "staff", "moderator", "messenger", "system", "gm", "root",
            "árbitro", "arbitro"]
RESERVED_WORDS = ["gm", "admin", "administrator", "moderator", "mod", "staff", "system",
                  "sysop", "root", "official", "judge", "arbitro", "messenger", "support"]
LONG_WORD = 5  # a reserved Latin word this long is refused at the start or end of a word too

# The site's official names (rule 4), each with words that mean the same or nearly: a name
# containing any of them (on the folded skeleton) reads like the official name.
RESERVED_MEANINGS = {
    "神的使者": ["使者", "信使", "使徒", "信差", "使节", "传令官"],
    "天神": ["上帝", "神明", "天帝", "主神", "天主", "真神", "神灵", "众神", "诸神", "神祇"],
    "墓地": ["墓地", "墓园", "公墓", "坟场", "坟地", "墓场", "陵园", "墓穴"],
    "公告": ["公告", "通告", "布告", "告示", "公示", "通知", "通报", "公报"],
    "管理": ["站务", "版务", "运营", "监管", "管事"],
    "系统": ["后台"],
}
# "The god's messenger" however it is put together: a word for the god, a joining word or
# none (的, 之, の, 派来的 …), then 使 (or 差 after a joining word). After 天 only with a
# joining word: 天使 (an angel) and 神差鬼使 (an idiom) are ordinary names, 天之使 is not.
_JOIN = "(?:的|之|の|家|派来的|派遣的|所派的|派的|遣)"
_MESSENGER_BUILT = re.compile(rf"(?:神|上帝|神明)(?:{_JOIN}?使|{_JOIN}差)|天{_JOIN}(?:使|差)")
# Chinese characters a reader takes for a character of an official name (UTS #39 has no
# entry for them), folded to that character before rules 3 and 4 look for the names.
CJK_LOOKALIKES = str.maketrans({
    "夭": "天", "砷": "神", "绅": "神", "伸": "神", "呻": "神", "祌": "神", "袖": "神",
    "便": "使", "吏": "使", "著": "者", "煮": "者", "旳": "的",
    "幕": "墓", "暮": "墓", "慕": "墓", "募": "墓", "驰": "地", "池": "地",
    "吿": "告", "诰": "告", "仫": "公", "菅": "管", "箮": "管", "埋": "理", "浬": "理",
    "糸": "系", "纟": "系", "铳": "统", "绕": "统", "綂": "统",
})

# Characters with no visible shape of their own besides the format (Cf) category: fillers
# and variation selectors that render as nothing.
_BLANK_LETTERS = re.compile(r"[\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0\u034f"
                            r"\ufe00-\ufe0f\U000e0100-\U000e01ef\u2800]")
_ALLOWED = re.compile(r"^[\w\u00b7\u30fb·\-. ]+$")
_NOT_WORD = re.compile(r"[\W_]+")


def is_invisible(char: str) -> bool:
    """A character that shows nothing or changes the direction of what follows."""
    return unicodedata.category(char) in ("Cf", "Cc", "Co", "Cs", "Cn") or bool(
        _BLANK_LETTERS.match(char))


def has_invisible(text: str, *, allow: str = "") -> bool:
    """True if `text` holds an invisible or bidi control character (except those in
    `allow`, e.g. newlines in a body)."""
    return any(is_invisible(c) for c in text if c not in allow)


def visible_text(text: str) -> str:
    """`text` without invisible characters and without surrounding whitespace (U+3000
    included): empty means there is nothing to read."""
    return "".join(c for c in text if c in "\n\t" or not is_invisible(c)).strip()


@functools.cache
def _confusable_map() -> dict[str, str]:
    """Each single-character UTS #39 source -> its prototype.

    confusable-homoglyphs ships confusables.txt as a symmetric table (each source lists its
    prototype, each prototype lists its sources); a prototype is never a source there, so a
    character listing exactly one homoglyph that lists it back among several is a source.
    A pair listing only each other maps the higher code point to the lower.
    """
    path = Path(confusable_homoglyphs.__file__).with_name("confusables.json")
    table = json.loads(path.read_text(encoding="utf-8"))

    def targets(char: str) -> list[str]:
        return [h["c"].replace("\u200e", "").replace("\u200f", "") for h in table.get(char, ())]

    def rank(char: str) -> tuple[bool, int]:
        # The better prototype of a pair: a letter or digit in its NFKC form (the ideograph
        # 小, not the radical ⼩ that NFKC already folds to it), then the lower code point.
        letter = unicodedata.category(char)[0] in "LN"
        return (not (letter and unicodedata.normalize("NFKC", char) == char), ord(char))

    mapping = {}
    for char in table:
        if len(char) != 1:
            continue
        mine = targets(char)
        if len(mine) != 1 or mine[0] == char:
            continue
        target = mine[0]
        if unicodedata.normalize("NFKC", target) != target:
            continue  # input is NFKC already; a compatibility prototype would never match
        back = targets(target)
        if len(back) > 1 or char not in back or len(target) > 1 or rank(target) < rank(char):
            mapping[char] = target
    return mapping


@functools.cache
def _t2s() -> OpenCC:
    return OpenCC("t2s")


def _skeleton(text: str) -> str:
    mapping = _confusable_map()
    for _round in range(3):  # prototypes are not sources; a second round is a safeguard
        folded = "".join(mapping.get(c, c) for c in text)
        if folded == text:
            break
        text = folded
    return text


def name_skeleton(name: str) -> str:
    """The form two names share when a reader could take one for the other.

    Steps: 1. NFKC, invisible characters dropped; 2. traditional -> simplified Chinese;
    3. ASCII letters case-folded (so "ADMIN" meets "admin" before UTS #39 reads capital I
    as l); 4. the confusable skeleton (Greek Μ -> M, Cyrillic а -> a), case-folded, and the
    skeleton again (lower-case look-alikes); 5. i and l merged (Il1| look alike once case is
    ignored), everything but letters and digits dropped.
    """
    text = "".join(c for c in unicodedata.normalize("NFKC", name) if not is_invisible(c))
    text = "".join(c.lower() if c.isascii() else c for c in _t2s().convert(text))
    text = _skeleton(unicodedata.normalize("NFKC", _skeleton(text).casefold()))
    return _NOT_WORD.sub("", text.replace("l", "i"))


def canonical_name(name: str) -> str:
    """NFKC, case-folded, without spaces or invisible characters (Profile.display_key)."""
    text = unicodedata.normalize("NFKC", name)
    return "".join(c for c in text if not c.isspace() and not is_invisible(c)).casefold()


def _is_cjk(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _one_apart(a: str, b: str) -> bool:
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) <= 1


@functools.cache
def _reserved() -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
    """(skeleton, near-match too?) of the whole names and of the parts nobody may use."""
    whole = [(name_skeleton(e), _is_cjk(e) and len(name_skeleton(e)) >= 3) for e in RESERVED]
    parts = [(name_skeleton(e), _is_cjk(e) and len(name_skeleton(e)) >= 4)
             for e in RESERVED_PARTS + [settings.MESSENGER_NAME]]
    return whole, parts


def _reserved_match(skeleton: str) -> str | None:
    """The entry of RESERVED or RESERVED_PARTS a name with this skeleton could pass for."""
    whole, parts = _reserved()
    for (reserved, near), entry in zip(whole, RESERVED, strict=True):
        if skeleton == reserved or (near and _one_apart(skeleton, reserved)):
            return entry
    for (part, near), entry in zip(parts, RESERVED_PARTS + [settings.MESSENGER_NAME],
                                   strict=True):
        if part in skeleton or (near and any(
                _one_apart(skeleton[i:i + len(part)], part)
                for i in range(len(skeleton) - len(part) + 1))):
            return entry
    return None


def is_reserved(skeleton: str) -> bool:
    """True if a name with this skeleton could pass for the service or its staff (the
    reserved whole names and parts; `reserved_word` also reads the name's Latin words)."""
    return _reserved_match(skeleton) is not None


def latin_words(name: str) -> list[str]:
    """The words a reader sees in the Latin letters of `name`, as skeletons: each letter
    folded the way `name_skeleton` folds it (full-width Ｇ, Cyrillic а and Greek Μ become
    g, a and m); spaces, punctuation, symbols and invisible characters dropped, so "G M"
    and "G.M" are one word; a digit or any other letter (Chinese) ends a word."""
    words, word = [], []
    for char in unicodedata.normalize("NFKC", name):
        category = unicodedata.category(char)
        if category == "Nd" or category[0] not in "LPSZC":
            folded = ""  # a digit (or a mark, a number of another kind): a boundary
        elif category[0] != "L":
            continue  # punctuation, symbols, spaces, invisible characters: joined over
        else:
            folded = name_skeleton(char)
        if folded and folded.isascii() and folded.isalpha():
            word.append(folded)
            continue
        if word:
            words.append("".join(word))
        word = []
    if word:
        words.append("".join(word))
    return words


@functools.cache
def _reserved_words() -> list[tuple[str, str]]:
    return [(name_skeleton(w), w) for w in RESERVED_WORDS]


def folded_skeleton(name: str) -> str:
    """`name_skeleton` with Chinese look-alikes folded (CJK_LOOKALIKES): what rules 3 and 4
    compare with the official names. Never stored."""
    return name_skeleton(name).translate(CJK_LOOKALIKES)


@functools.cache
def _meanings() -> list[tuple[str, str]]:
    return [(name_skeleton(word), official) for official, words in RESERVED_MEANINGS.items()
            for word in words]


def reserved_meaning(name: str) -> str | None:
    """The official name (a key of RESERVED_MEANINGS) that `name` reads like by its meaning
    or by look-alike characters, if any (rule 4): "神的信使" -> 神的使者, "墓地公告" -> 墓地,
    "夭神" -> 天神."""
    folded = folded_skeleton(name)
    if folded != name_skeleton(name):
        found = _reserved_match(folded)
        if found is not None:
            return found
    if _MESSENGER_BUILT.search(folded):
        return settings.MESSENGER_NAME
    for word, official in _meanings():
        if word in folded:
            return official
    return None


def reserved_word(name: str) -> str | None:
    """The reserved word (or whole name, or part) that `name` contains, if any, else the
    official name it reads like (rule 4): what a reader could take for the service, a game
    master or staff."""
    found = _reserved_match(name_skeleton(name))
    if found is not None:
        return found
    for word in latin_words(name):
        for reserved, entry in _reserved_words():
            if word == reserved or (len(entry) >= LONG_WORD and (
                    word.startswith(reserved) or word.endswith(reserved))):
                return entry
    return reserved_meaning(name)


def check_name(name: str) -> str:
    """`name` NFKC-normalised and stripped, or ValidationError with a readable message if it
    cannot be anybody's display name. Whether it is taken is the caller's check
    (accounts.forms.validate_display_name)."""
    name = unicodedata.normalize("NFKC", name).strip()
    if has_invisible(name):
        raise ValidationError(
            _("A name may not contain invisible or direction-changing characters."))
    skeleton = name_skeleton(name)
    if len(canonical_name(name)) < MIN_LENGTH or len(name) > MAX_LENGTH or not skeleton:
        raise ValidationError(_("A display name has %(min)d to %(max)d characters.")
                              % {"min": MIN_LENGTH, "max": MAX_LENGTH})
    if not _ALLOWED.match(name):
        raise ValidationError(_("Use letters, digits, spaces, '-', '.' or '·' only."))
    word = reserved_word(name)
    if word is not None and name_skeleton(word) in name_skeleton(name):
        raise ValidationError(
            _("A display name may not contain “%(word)s”: such names are kept for the "
              "service, its game masters and its staff.") % {"word": word})
    if word is not None:  # by meaning, by look-alike characters or by a near spelling
        raise ValidationError(
            _("“%(name)s” reads like the site's own “%(word)s”: such names are kept for the "
              "service, its game masters and its staff.") % {"name": name, "word": word})
    return name
