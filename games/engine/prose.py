"""Readable Chinese for the texts a simulated or scripted player writes: kill statements
(杀人宣言) and stories, speeches and last words, the GM's reasons.

Simulations, golden playthroughs and test fixtures write these instead of random
characters, so a page, a message or a golden file that quotes a player reads like a game.
A text is whole sentences from one list, drawn by a seeded generator (the same seed, the
same text), added one after another until the text is long enough: a kill statement holds
at least 100 characters (seed 002 §3.5.2) by taking more sentences, never by cutting one.

The random legal play of the conformance checks (games/engine/conformance.py `fill`) keeps
its random characters: there any text of a legal length must be accepted.
"""

from __future__ import annotations

import random

from . import conformance
from .base import Choice

# An attacker's kill statement, or the story told instead (猫有n条命 §3.5.2).
MANIFESTO = (
    "今夜月色很好，我在屋檐上等了很久，终于等到你熄灯的那一刻。",
    "你白天说的话太多了，多到让我觉得你已经看穿了什么。",
    "别怪我，这座城里每个人都在找猫，而我只是比他们先找到了你。",
    "风从巷口吹进来的时候，我已经站在你的窗外，数着你剩下的命。",
    "我不恨你，只是这场游戏需要有人先倒下，而你恰好站得最近。",
    "钟声敲过十二下，街上的灯一盏接一盏地灭了，轮到你了。",
    "你的发言很漂亮，可惜漂亮的话救不了一只已经被盯上的猫。",
    "我记得你昨天投票时犹豫了一下，那一下犹豫出卖了你。",
    "雨下得很大，脚步声被雨声盖住，你什么也不会听见。",
    "这不是私人恩怨，只是为了让我的阵营能多活一天。",
    "我在黑暗里给你写下这封信，天亮时你就会明白它的意思。",
    "老槐树下的影子动了一下，那是我，也是你今晚最后看见的东西。",
    "你以为躲在人群里就安全了，可人群里的每一双眼睛都在看着你。",
    "明天的太阳照常升起，只是你再也不能趴在楼顶晒太阳了。",
    "我数过了，这座院子里的猫还剩几条命，今晚要少一条。",
    "愿你下辈子做一只普通的猫，不必再猜谁是杀手。",
)

# A player's words by day: a speech, last words, a message to the team.
WORDS = (
    "我是平民，昨晚什么也没有看到。",
    "我觉得昨天发言最少的人最可疑。",
    "大家先别急着投票，再听听后面的人怎么说。",
    "我相信警察会给出线索，今天先跟着他们走。",
    "如果我死了，请记得我一直在怀疑同一个人。",
    "昨天的投票很奇怪，有人在故意分散票数。",
    "我没有什么可隐瞒的，请大家看我的投票记录。",
    "今天的证据还不够，我不想冤枉任何人。",
    "有人的说法前后对不上，我会一直盯着他。",
    "我们人数不多了，今天一定要投准。",
)

# The GM's reason for rejecting a statement, fouling a seat out or ending a game.
GM_REASONS = (
    "这段文字算不上杀人宣言，请重新写一份。",
    "宣言里写的目标与这次攻击不符。",
    "这个座位当天既没有投票，也没有委托投票。",
    "玩家在公开场合透露了自己的身份。",
    "报名的玩家不足，本局无法继续。",
)

# Which list each text field of a step draws from; any other field takes WORDS.
BY_FIELD = {"manifesto": MANIFESTO, "story": MANIFESTO, "reason": GM_REASONS}


def prose(rng: random.Random, min_chars: int, sentences: tuple[str, ...] = MANIFESTO) -> str:
    """At least `min_chars` characters of whole sentences from `sentences`, in an order
    `rng` shuffles (no sentence twice before every one has been used); "" for 0."""
    out, order = "", []
    while len(out) < min_chars:
        if not order:
            order = rng.sample(sentences, len(sentences))
        out += order.pop()
    return out


def fill(choice: Choice, actor, rng: random.Random) -> dict:
    """The step a player would submit for `choice`, its texts in real sentences.

    1. Take conformance.fill's step: it draws from `rng` exactly what that function draws,
       so a seeded simulation plays the same steps as it did with random characters.
    2. Replace each text by sentences at least as long (so a length the field asks for
       still holds), chosen by a generator seeded with the random text it replaces.
    """
    step = conformance.fill(choice, actor, rng)
    for field in choice.text_fields:
        text = step["params"].get(field.name)
        if text:
            words = prose(random.Random(text), len(text), BY_FIELD.get(field.name, WORDS))
            step["params"][field.name] = words if len(words) <= field.max_chars else text
    return step
