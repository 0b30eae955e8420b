"""Write the list of every event kind's fields into docs/events-json.md, from the engine's
declarations (games/engine/events.py: each rule set's `RuleSet.schema`, the GM's acts and the
reason argument types every rule set shares).

    .venv/bin/python scripts/events_doc.py          # rewrite the generated part
    .venv/bin/python scripts/events_doc.py --check  # exit 1 if the file is not up to date

Only the part between the two markers below is written; the rest of the page is prose kept by
hand. tests/engine/test_event_fields.py fails when the page and the declarations differ.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "events-json.md"
BEGIN = ("<!-- The part below is written by scripts/events_doc.py from the engine's "
         "declarations; do not edit it by hand. -->")
END = "<!-- The generated part ends here. -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(fields) -> list[str]:
    from games.engine.events import describe

    if not fields:
        return ["No data."]
    rows = ["| field | holds |", "|---|---|"]
    rows += [f"| `{name}` | {_cell(describe(t))} |" for name, t in fields.items()]
    return rows


def _kind(name: str, record) -> list[str]:
    return [f"#### `{name}`", "", record.about, "", *_table(record.fields), ""]


def render() -> str:
    """The generated part of the page, markers included."""
    from games.engine import registry
    from games.engine.events import GM_ACTS, GM_FIELD, LEAVES, REASON_ARGS, describe

    out = [BEGIN, "", "## Every event kind's data", "",
           "Generated from the engine's declarations (`games/engine/events.py`, each rule "
           "set's `kinds.py`). Any value may also be `null`. The words of the tables:", "",
           "| word | holds |", "|---|---|"]
    out += [f"| {leaf.name} | {_cell(leaf.about)} |" for leaf in LEAVES]
    out.append("")
    for name in registry.RULESETS:
        schema = registry.get(name).schema
        out += [f"### Rule set `{name}`", ""]
        for kind_name, record in schema.events.items():
            out += _kind(kind_name, record)
        if schema.gm_steps:
            out += ["The GM's steps of this rule set, recorded as `gm_<step>` with these "
                    "fields and `gm`:", ""]
            for step, record in schema.gm_steps.items():
                out += _kind(f"gm_{step}", record)
        if schema.reason_args:
            out += ["Its own types of reason arguments (`events[].because[].args`):", "",
                    "| type | holds |", "|---|---|"]
            out += [f"| `{t}` | {_cell(describe(shape))} |"
                    for t, shape in schema.reason_args.items()]
            out.append("")
    out += ["### The GM's acts (every rule set)", "",
            "Recorded by the site, GM only, as `gm_<act>`; each also has "
            f"`gm` ({_cell(describe(GM_FIELD['gm']))}).", ""]
    for act, record in GM_ACTS.items():
        fields = {k: v for k, v in record.fields.items() if k not in GM_FIELD}
        out += _kind(f"gm_{act}", type(record)(fields, record.about))
    out += ["### Reason arguments every rule set may use", "",
            "| type | holds |", "|---|---|"]
    out += [f"| `{t}` | {_cell(describe(shape))} |" for t, shape in REASON_ARGS.items()]
    out += ["", END]
    return "\n".join(out) + "\n"


def written(text: str) -> str:
    """The page `text` with its generated part replaced by `render()` (appended when the
    page has no markers yet)."""
    part = render()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        return head + part + ("\n" + tail if tail else "")
    return text.rstrip("\n") + "\n\n" + part


def main(argv: list[str]) -> int:
    text = DOC.read_text(encoding="utf-8")
    new = written(text)
    if "--check" in argv:
        if new != text:
            print(f"{DOC.relative_to(ROOT)} is not up to date: run scripts/events_doc.py")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
