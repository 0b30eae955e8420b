"""Put back into django.po the translations gettext needs at run time but makemessages cannot
see. Usage (from the project root, after makemessages):

    python locale/keep_runtime.py locale/zh_Hans/LC_MESSAGES/django.po previous-django.po

1. Engine refusal reasons: the engines (no Django there) write `Refusal(code, "reason")`, and
   a presenter may look the English reason up in the catalogue (games/presenters/gold.py refusal).
   Every reason found in games/engine that the previous catalogue translated, and that the
   new one lacks, is appended with its translation and its places in the engine.
2. Escaped literals: xgettext keeps a Python "\\u201c" escape as six characters, so that msgid
   never matches the string gettext is asked for. For each such entry a twin with the
   characters decoded is appended (writing the characters literally in the source is the
   real fix; the twin then goes away by itself).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def read(path: str):
    with open(path, "rb") as f:
        return read_po(f, locale="zh_Hans")


def engine_reasons() -> dict[str, list[str]]:
    """reason -> ["games/engine/<set>/<module>.py:<line>", ...] of every constant reason."""
    reasons: dict[str, list[str]] = {}
    for path in sorted((ROOT / "games" / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refusal"
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
                    and isinstance(node.args[1].value, str)):
                reasons.setdefault(node.args[1].value, []).append(
                    f"{path.relative_to(ROOT)}:{node.lineno}")
    return reasons


def entry(comment: str, places: list[str], msgid: str, msgstr: str, *, flags: str = "",
          context: str | None = None) -> str:
    lines = [f"#. {comment}", *(f"#: {p}" for p in places)]
    if flags:
        lines.append(f"#, {flags}")
    if context:
        lines.append(f"msgctxt {quoted(context)}")
    lines += [f"msgid {quoted(msgid)}", f"msgstr {quoted(msgstr)}"]
    return "\n".join(lines) + "\n"


def main(new_po: str, previous_po: str) -> int:
    """Append the missing entries to `new_po`; return how many were added."""
    current = [m for m in read(new_po) if m.id]
    have = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in current}
    known = {m.id: m.string for m in read(previous_po)
             if m.id and isinstance(m.id, str) and m.context is None and m.string}
    added = []
    for reason, places in sorted(engine_reasons().items(), key=lambda kv: kv[1][0]):
        if (None, reason) not in have and reason in known:
            added.append(entry("Engine refusal reason, translated at run time by the "
                               "presenter; makemessages does not extract it.", places, reason,
                               known[reason], flags="python-brace-format" if "{" in reason
                               else ""))
    for m in current:
        if isinstance(m.id, str) and m.string and ESCAPE.search(m.id):
            decoded = ESCAPE.sub(lambda g: chr(int(g.group(1), 16)), m.id)
            if (m.context, decoded) not in have:
                added.append(entry(
                    "The source writes this with \\u escapes, which xgettext does not decode; "
                    "this twin is what gettext looks up. Write the characters literally in "
                    "the source to drop it.", [f"{f}:{n}" for f, n in m.locations], decoded,
                    m.string, flags="python-format" if "python-format" in m.flags else "",
                    context=m.context))
    with open(new_po, "a", encoding="utf-8") as f:
        for text in added:
            f.write("\n" + text)
    return len(added)


if __name__ == "__main__":
    print(f"kept {main(sys.argv[1], sys.argv[2])} runtime-only entries", file=sys.stderr)
