"""Choosing a step on the act page in Chromium, as a player clicks it: a
step of its own is one option of the action list; a multi-part one (a card and its target,
a victim and a pact bandit, a card and a virtual player) is the option of its kind with
pickers, each picked in turn; the page's script then shows the text box the step takes."""

from __future__ import annotations

import json

# The action list's options, after the "choose an action" entry it opens on (value "").
OPTIONS = "#choice option:not([value=''])"


def option_values(page) -> list[dict]:
    """The act form's options, decoded."""
    return [json.loads(v) for v in
            page.eval_on_selector_all(OPTIONS, "os => os.map(o => o.value)")]


def offered_steps(page) -> list[dict]:
    """Every step the act form offers ({"kind", "params"}, and "texts" where an option names
    them): each option of its own, and each combination of an option with pickers."""
    out = []
    for option in page.locator(OPTIONS).all():
        data = json.loads(option.get_attribute("value"))
        if data.get("picks"):
            out += [{"kind": data["kind"], "params": c["params"]}
                    for c in json.loads(option.get_attribute("data-combos"))]
        else:
            out.append(data)
    return out


def grouped_option(page, kind: str, params: dict) -> dict | None:
    """The option of `kind` with pickers that can send `params`, or None."""
    for data in option_values(page):
        picks = data.get("picks")
        if data["kind"] == kind and picks and all(k in params for k in picks) and {
                k: v for k, v in params.items() if k not in picks} == data["params"]:
            return data
    return None


def select(page, data: dict) -> None:
    page.select_option("#choice", value=json.dumps(data, sort_keys=True, ensure_ascii=False))


def choose(page, kind: str, params: dict, texts: dict[str, str] | None = None) -> None:
    """Select the step (kind, params) on the open act page and write `texts` (name -> text)
    into the boxes the page shows for it; does not send the form."""
    grouped = grouped_option(page, kind, params)
    if grouped is not None:
        select(page, grouped)
        for key in grouped["picks"]:
            page.select_option(f"#pick_{key}", value=str(params[key]))
    else:
        wanted = set(texts or {})
        found = [d for d in option_values(page) if d["kind"] == kind
                 and d["params"] == params and wanted <= set(d.get("texts", wanted))]
        assert found, (kind, params, option_values(page))
        select(page, found[0])
    for name, text in (texts or {}).items():
        page.fill(f"#text_{name}", text)  # visible only once the step needs it
