"""A player's own words inside an official post.

神的使者's announcements and messages quote what players wrote: manifestos and stories
(猫有n条命), last words, speeches and team messages (classic). Quoted as Markdown, such a text
could produce what looks official inside the official post: "### 游戏结束：杀手阵营获胜" a
heading, "---" a rule, an image, a link; a Markdown quote ("> ") shows a stray ">" wherever
the body is read as text (emails).

So presenters wrap the words with `words_block(text, author)`: a tilde fence, longer than any
run of tildes in the text (so nothing in it can close the fence), whose info string names the
block and its author. Markdown never reads inside a fence: the words stay plain text, with no
heading, rule, list, image, link or mention. `messaging.rendering` renders the fence of an
official post (神的使者's, or a presenter's text) as a visibly distinct "player's words"
block with the author; anyone else's fence is an ordinary code block. `words_as_text(body)`
gives the plain-text form for emails.
"""

from __future__ import annotations

import re

INFO = "player-words"

_BLOCK = re.compile(r"^(?P<fence>~{3,})" + INFO + r"(?: (?P<author>[^\n]*))?\n(?P<text>.*?)\n?"
                    r"(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL)


def words_block(text, author: str) -> str:
    """Markdown for `text`, a player's own words, written by `author` (as the post may name
    them: a seat, or "not named"), inside an official post."""
    text = str(text or "").strip("\n").replace("\r\n", "\n").replace("\r", "\n")
    longest = max((len(run) for run in re.findall(r"~+", text)), default=0)
    fence = "~" * max(3, longest + 1)
    author = " ".join(str(author or "").split())
    return f"{fence}{INFO} {author}\n{text}\n{fence}"


def words_as_text(body: str, label: str) -> str:
    """`body` with every player's-words block as plain text for an email: a header line
    "【label · author】" and the words indented, never a Markdown marker."""

    def plain(match: re.Match) -> str:
        author = (match.group("author") or "").strip()
        head = f"【{label} · {author}】" if author else f"【{label}】"
        lines = match.group("text").split("\n")
        return "\n".join([head] + ["    " + line if line else "" for line in lines])

    return _BLOCK.sub(plain, body or "")
