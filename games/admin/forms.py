"""The add/change form of a game in the admin: typed fields generated from the rule-set table.

Field names carry the rule set they belong to (`preset_<ruleset>`, `dur_<ruleset>_<phase>`,
`opt_<ruleset>_<key>`), so one page holds every rule set's fields; the small script
static/admin/games/game_form.js only hides the ones of the rule sets not chosen. Only the
chosen rule set's fields are read and validated, here and again by the service
(services.check_settings): the server is the truth, the page works without JS.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.validators import MaxValueValidator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .. import rulesets, services
from ..models import Game
from ..presenters import phase_label
from ..services.lifecycle import check_watching

CUSTOM = "custom"


def preset_label(preset: rulesets.Preset, entry: rulesets.RuleSetEntry) -> str:
    lengths = ", ".join(f"{phase_label(phase, entry.name)} {minutes_text(preset.durations[phase])}"
                        for phase in entry.phases if phase in preset.durations)
    return _("%(name)s: %(lengths)s; change cut-off %(cutoff)s") % {
        "name": preset.label, "lengths": lengths, "cutoff": minutes_text(preset.cutoff)}


def minutes_text(minutes: int) -> str:
    if minutes >= 60 and minutes % 60 == 0:
        return _("%(n)d h") % {"n": minutes // 60}
    return _("%(n)d min") % {"n": minutes}


def ruleset_label(entry: rulesets.RuleSetEntry) -> str:
    engine = entry.engine
    return _("%(title)s — %(summary)s (%(lo)d–%(hi)d players)") % {
        "title": entry.title, "summary": entry.summary or entry.name,
        "lo": engine.min_seats, "hi": engine.max_seats}


def gm_choices(user=None, current: int | None = None):
    """Who may be named GM: active staff, never the messenger account. A host who is not a
    superuser names only themselves (a game handed to someone else would vanish from their
    admin at once); a superuser may name any staff member (to reassign a game)."""
    staff = get_user_model().objects.filter(is_active=True, is_staff=True).exclude(
        username=settings.MESSENGER_USERNAME).order_by("profile__display_name", "username")
    if user is not None and not user.is_superuser:
        staff = staff.filter(pk__in=[user.pk, current])
    return staff


class GmChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, user):
        profile = getattr(user, "profile", None)
        return profile.display_name if profile else user.get_username()


def review_minutes_field(form: forms.ModelForm) -> None:
    """The manifesto review deadline: at most REVIEW_MINUTES_MAX; left empty, the game's
    current value (0 for a new game)."""
    field = form.fields["manifesto_review_minutes"]
    field.required = False
    field.max_value = services.REVIEW_MINUTES_MAX
    field.validators.append(MaxValueValidator(services.REVIEW_MINUTES_MAX))


def review_minutes(form: forms.ModelForm) -> int:
    value = form.cleaned_data.get("manifesto_review_minutes")
    return (form.instance.manifesto_review_minutes or 0) if value is None else value


def watching_fields(form: forms.ModelForm) -> None:
    """Who of the outsiders may watch (观战) and the risk the GM accepts for open watching
    where the roles never change: the same two fields before and after the start. Left out
    of a post, `outsiders` keeps the game's value (off for a new game)."""
    field = form.fields["outsiders"]
    field.required = False
    field.help_text = gettext_lazy(
        "Off by default: any signed-in account may be the second account of a player in "
        "the game. By request: you approve each account from the console, seeing its "
        "history. Open: any signed-in account with no seat. You may change this while the "
        "game runs; turning it off lets nobody new in, but whoever already watches keeps "
        "watching (they have read the secrets already).")
    risk = form.fields["watch_risk_accepted"]
    risk.label = gettext_lazy(
        "I understand: in this rule set the roles never change, so anyone watching openly "
        "may be a second account of a player still in the game, and sees everyone's hand")
    risk.help_text = gettext_lazy(
        "Needed to open watching to any outsider in a rule set whose roles never change "
        "(classic, gold); not needed by request, nor in 猫有n条命.")
    # The form's script shows the box only for these rule sets, with open watching chosen.
    risk.widget.attrs["data-rulesets"] = " ".join(
        e.name for e in rulesets.TABLE.values() if e.roles_fixed)


WATCHING_SETTINGS = ("outsiders", "watch_risk_accepted")


def running_fields(game: Game) -> list[str]:
    """A started game's settings that may still change (services.RUNNING_SETTINGS), without
    the risk box where the rule set's roles change (it is never needed there), and without
    who may watch once the game is over (its review is open to everyone: nobody watches
    then, games.services.watching; the settings page shows the choice as a fact)."""
    fixed = game.ruleset not in rulesets.names() or rulesets.get(game.ruleset).roles_fixed
    return [key for key in services.RUNNING_SETTINGS
            if (fixed or key != "watch_risk_accepted")
            and not (game.is_over and key in WATCHING_SETTINGS)]


def check_watching_fields(form: forms.ModelForm, ruleset: str | None) -> None:
    """The watching fields' errors, on the fields (the service checks the same again)."""
    data = form.cleaned_data
    if "outsiders" in form.errors or "watch_risk_accepted" in form.errors:
        return
    try:
        check_watching(ruleset=ruleset or "", outsiders=outsiders(form),
                       risk_accepted=data.get("watch_risk_accepted", False))
    except services.GameError as exc:
        form.add_error(exc.code if exc.code in form.fields else None, exc.message)


def outsiders(form: forms.ModelForm) -> str:
    return form.cleaned_data.get("outsiders") or form.instance.outsiders or Game.Outsiders.OFF


class GameSettingsForm(forms.ModelForm):
    """Creates (or, before the start, edits) a game. `settings()` gives the service's
    keyword arguments once the form is valid."""

    ruleset = forms.ChoiceField(label=gettext_lazy("rule set"), choices=())
    gm = GmChoiceField(queryset=None, label=gettext_lazy("game master"))
    seat_count = forms.IntegerField(label=gettext_lazy("seats"), min_value=1)
    change_cutoff_minutes = forms.IntegerField(
        label=gettext_lazy("change cut-off (minutes, custom lengths only)"), min_value=0,
        initial=10, required=False,
        help_text=gettext_lazy("A preset sets its own cut-off; with custom lengths, every "
                               "phase must be longer than this."))

    class Meta:
        model = Game
        fields = ["name", "ruleset", "seat_count", "gm", "early_end", "hold_announcements",
                  "manifesto_review_minutes", "watch_delay", "outsiders",
                  "watch_risk_accepted"]

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["ruleset"].choices = [(e.name, ruleset_label(e))
                                          for e in rulesets.TABLE.values()]
        self.fields["gm"].queryset = gm_choices(user, self.instance.gm_id)
        game = self.instance if self.instance.pk else None
        if game is None:
            first = next(iter(rulesets.TABLE.values()))
            self.fields["ruleset"].initial = first.name
            self.fields["seat_count"].initial = first.engine.min_seats
            if user is not None:
                self.fields["gm"].initial = user.pk
            # The default preset's choice (off for the forum standard, §5.7); the form's
            # script follows the preset picked until the GM ticks the box themselves.
            self.initial["early_end"] = first.presets[0].early_end if first.presets else True
        self.fields["early_end"].widget.attrs["data-on-presets"] = " ".join(sorted({
            p.key for e in rulesets.TABLE.values() for p in e.presets if p.early_end}))
        review_minutes_field(self)
        watching_fields(self)
        self.groups: list[dict] = []
        for entry in rulesets.TABLE.values():
            self._add_ruleset_fields(entry, game if game and game.ruleset == entry.name else None)

    def _add_ruleset_fields(self, entry, game: Game | None) -> None:
        name = entry.name
        group = {"ruleset": name, "title": entry.title, "preset": None, "durations": [],
                 "options": []}
        choices = [(p.key, preset_label(p, entry)) for p in entry.presets]
        choices.append((CUSTOM, _("Custom: one length per phase, below")))
        initial = choices[0][0]
        if game is not None:
            initial = next((p.key for p in entry.presets if p.durations == game.durations
                            and p.cutoff == game.change_cutoff_minutes), CUSTOM)
        key = f"preset_{name}"
        self.fields[key] = forms.ChoiceField(
            label=_("phase lengths"), choices=choices, initial=initial,
            widget=forms.RadioSelect, required=False)
        group["preset"] = key
        for phase in entry.phases:
            key = f"dur_{name}_{phase}"
            self.fields[key] = forms.IntegerField(
                label=_("%(phase)s (minutes)") % {"phase": phase_label(phase, name)}, min_value=1,
                required=False,
                initial=(game.durations.get(phase) if game is not None else
                         entry.presets[0].durations.get(phase) if entry.presets else None))
            group["durations"].append(key)
        config = game.config if game is not None else entry.engine.default_config()
        for option in entry.options:
            key = f"opt_{name}_{option.key}"
            if option.kind == "bool":
                field = forms.BooleanField(label=option.label, required=False)
            elif option.kind == "choice":
                field = forms.ChoiceField(label=option.label, required=False,
                                          choices=[(v, lbl) for v, lbl, _c in option.values])
            else:
                field = forms.IntegerField(label=option.label, min_value=1,
                                           max_value=entry.engine.max_seats, required=False)
            field.initial = option.from_config(config)
            field.help_text = option.help
            self.fields[key] = field
            group["options"].append(key)
        self.groups.append(group)

    def clean(self):
        data = super().clean()
        name = data.get("ruleset")
        if not name or name not in rulesets.names():
            return data
        entry = rulesets.get(name)
        check_watching_fields(self, name)
        preset_key = data.get(f"preset_{name}") or (entry.presets[0].key if entry.presets
                                                    else CUSTOM)
        preset = next((p for p in entry.presets if p.key == preset_key), None)
        if preset is not None:
            durations, cutoff = dict(preset.durations), preset.cutoff
        else:
            cutoff = data.get("change_cutoff_minutes")
            if cutoff is None:
                cutoff = 10
            durations = {}
            for phase in entry.phases:
                key = f"dur_{name}_{phase}"
                minutes = data.get(key)
                if minutes is None:
                    if key not in self.errors:
                        self.add_error(key, _("Give this phase's length in minutes."))
                elif minutes <= cutoff:
                    self.add_error(key, _("A phase must be longer than the change cut-off "
                                          "(%(n)d minutes).") % {"n": cutoff})
                else:
                    durations[phase] = minutes
        config: dict = {}
        for option in entry.options:
            key = f"opt_{name}_{option.key}"
            if key in self.errors:
                continue
            value = data.get(key)
            if option.kind == "choice" and not value:
                value = option.default  # another rule set's page, or the field left out
            if option.kind == "seat" and value is not None and value > data.get(
                    "seat_count", entry.engine.max_seats):
                self.add_error(key, _("There is no seat %(n)d.") % {"n": value})
                continue
            config.update(option.to_config(value))
        if self.errors:
            return data
        self.settings_kwargs = {
            "ruleset": name, "seat_count": data["seat_count"], "config": config,
            "durations": durations, "change_cutoff_minutes": cutoff}
        try:
            self.settings_kwargs["config"] = services.check_settings(**self.settings_kwargs)
        except services.GameError as exc:
            field = {"ruleset": "ruleset", "seat_count": "seat_count",
                     "change_cutoff_minutes": "change_cutoff_minutes"}.get(exc.code)
            if exc.code == "durations":
                field = None if preset is not None else "change_cutoff_minutes"
            self.add_error(field, exc.message)
        return data

    def settings(self) -> dict:
        """The service's keyword arguments (valid form only)."""
        data = self.cleaned_data
        return {**self.settings_kwargs, "name": data["name"], "gm": data["gm"],
                "early_end": data["early_end"],
                "hold_announcements": data["hold_announcements"],
                "manifesto_review_minutes": review_minutes(self),
                "watch_delay": data["watch_delay"], "outsiders": outsiders(self),
                "watch_risk_accepted": data["watch_risk_accepted"]}


class RunningGameForm(forms.ModelForm):
    """A started game: only what may change while it runs (services.RUNNING_SETTINGS)."""

    gm = GmChoiceField(queryset=None, label=gettext_lazy("game master"))

    class Meta:
        model = Game
        fields = list(services.RUNNING_SETTINGS)

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["gm"].queryset = gm_choices(user, self.instance.gm_id)
        review_minutes_field(self)
        watching_fields(self)
        for key in set(self.fields) - set(running_fields(self.instance)):
            del self.fields[key]

    def clean(self):
        data = super().clean()
        check_watching_fields(self, self.instance.ruleset)
        return data

    def settings(self) -> dict:
        return {**{key: self.cleaned_data[key] for key in running_fields(self.instance)},
                "manifesto_review_minutes": review_minutes(self), "outsiders": outsiders(self)}
