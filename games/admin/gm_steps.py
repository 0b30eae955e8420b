"""The console's GM steps and per-seat duties, in the viewer's language.

Every GM step the engine offers now (`selectors.gm_choices`: its `legal_actions(state, GM)`)
becomes one small form per kind: a picker per parameter (seats as "3 · 阿狗", cards and camps
by the presenter's names) and a text box per free text the step asks for. The pickers post
the engine's own values (a seat's 0-based index) and only the values offered; a posted
combination is accepted only if it is one of the engine's choices, so a seat or card that
does not exist, or is not offered now, is a form message and never reaches the engine.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ..presenters import choice_label, field_label, param_label

# The GM's log as sentences lives with the presenters (the review's timeline reads it too);
# the console and admin/text.py read it through this module.
from ..presenters.gm_log import gm_log_text, kind_title  # noqa: F401


def owed_text(kind: str) -> str:
    """What a seat still owes this phase, by the kind of step it may take."""
    texts = {
        "use_card": _("a card use (or “no card tonight”)"),
        "pass": _("a card use (or “no card tonight”)"),
        "withdraw": _("a card use (or “no card tonight”)"),
        "vote": _("a vote"),
        "proxy_vote": _("a proxy vote"),
        "abstain": _("a vote (or abstaining)"),
        "loss_order": _("the order of losing cards"),
        "choose_camp": _("the choice of a camp"),
        "kill": _("the night's kill"),
        "check": _("the night's check"),
        "extra_check": _("the extra check"),
        "protect": _("a protection (or skipping it)"),
        "skip_protection": _("a protection (or skipping it)"),
        "possess": _("a possession (or none)"),
        "cancel_possession": _("a possession (or none)"),
        "defer": _("going with the team's choice"),
        "last_words": _("last words"),
        "speech": _("a speech"),
        "speak": _("a speech"),
        "pick": _("the choice of a card"),
        "take_bonus": _("the priority token's choice"),
        "take_double": _("the priority token's choice"),
        "keep": _("a move (keep, swap, replace or flip)"),
        "swap": _("a move (keep, swap, replace or flip)"),
        "replace": _("a move (keep, swap, replace or flip)"),
        "flip": _("a move (keep, swap, replace or flip)"),
        "wait": _("a step of their team"),
    }
    return str(texts.get(kind, _("a step")))


# Kinds a seat may take instead of the one it owes, read together with it: (owed kind, the
# other kind) -> one sentence. Only the pairs the rule set offers that seat are joined, so a
# Classic vote (no proxy vote in Classic) reads "a vote", never "(or a proxy vote)", and a
# Classic police officer who may go with the team owes "the check (or going with the team)".
def _joined() -> dict[tuple[str, str], str]:
    return {
        ("vote", "proxy_vote"): _("a vote (or a proxy vote)"),
        ("vote", "abstain"): _("a vote (or abstaining)"),
        ("kill", "defer"): _("the night's kill (or going with the team's choice)"),
        ("check", "defer"): _("the night's check (or going with the team's choice)"),
        ("extra_check", "defer"): _("the extra check (or going with the team's choice)"),
    }


def owed_texts(kinds: list[str]) -> list[str]:
    """The engine's `duties` as sentences (kinds that read the same are shown once; a kind
    offered instead of another joins that one's sentence)."""
    kinds = [k for k in kinds if k != "team_message"]
    joined = _joined()
    texts, used = [], set()
    for kind in kinds:
        if kind in used:
            continue
        pair = next(((kind, other) for other in kinds if (kind, other) in joined), None)
        if pair is not None:
            used.add(pair[1])
            texts.append(joined[pair])
        elif not any((other, kind) in joined for other in kinds):
            texts.append(owed_text(kind))
    return list(dict.fromkeys(texts))


def encode(value) -> str:
    """A parameter's value as a form posts it: the engine's own value as text."""
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


NOT_OFFERED = gettext_lazy("That choice does not exist or is not offered now.")


class GmStepForm(forms.Form):
    """One GM step kind: `kind` (hidden), a picker per parameter, a box per free text."""

    def __init__(self, *args, ruleset: str, kind: str, choices: list, names: dict[int, str],
                 **kwargs):
        kwargs.setdefault("auto_id", f"id_{kind}_%s")  # several of these on one page
        super().__init__(*args, **kwargs)
        self.step_kind, self.choices = kind, choices
        self.title = kind_title(kind)
        self.fields["kind"] = forms.CharField(widget=forms.HiddenInput, initial=kind)
        keys = list(dict.fromkeys(k for c in choices for k in c.params))
        self.param_keys = keys
        for key in keys:
            values = list(dict.fromkeys(encode(c.params[key]) for c in choices if key in c.params))
            raw = {encode(c.params[key]): c.params[key] for c in choices if key in c.params}
            options = sorted(((v, param_label(ruleset, key, raw[v], names)) for v in values),
                             key=lambda o: _order(raw[o[0]]))
            self.fields[f"p_{key}"] = forms.ChoiceField(
                label=_param_title(key), choices=[("", "—"), *options],
                error_messages={"invalid_choice": NOT_OFFERED, "required": NOT_OFFERED})
        texts = {f.name: f for c in choices for f in c.text_fields}
        for name, spec in texts.items():
            self.fields[f"t_{name}"] = forms.CharField(
                label=field_label(name), required=spec.required and spec.min_chars > 0,
                min_length=spec.min_chars or None, max_length=spec.max_chars,
                widget=forms.TextInput(attrs={"size": 40}))
        # A kind with one choice and no picker (e.g. abort): show what it does.
        self.summary = choice_label(ruleset, choices[0], names) if not keys else ""

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        wanted = {key: data.get(f"p_{key}") for key in self.param_keys}
        match = next((c for c in self.choices
                      if {k: encode(v) for k, v in c.params.items()} == wanted), None)
        if match is None:
            raise forms.ValidationError(NOT_OFFERED)
        texts = {name[2:]: value for name, value in data.items()
                 if name.startswith("t_") and value != ""}
        self.step_params = {**match.params, **texts}
        return data


def _order(value):
    return (0, value) if isinstance(value, int) else (1, str(value))


def _param_title(key: str) -> str:
    return str({"seat": _("Seat"), "target": _("Target"), "card": _("Card"),
                "cards": _("Cards"), "camp": _("Camp"), "virtual": _("Virtual player")}
               .get(key, key))


def step_forms(game, choices: list, names: dict[int, str], data=None,
               kind: str | None = None) -> list[GmStepForm]:
    """One form per kind offered, in the engine's order (`data` binds the one of `kind`)."""
    by_kind: dict[str, list] = {}
    for choice in choices:
        by_kind.setdefault(choice.kind, []).append(choice)
    return [GmStepForm(data if k == kind else None, ruleset=game.ruleset, kind=k, choices=cs,
                       names=names) for k, cs in by_kind.items()]
