"""One way to read input: integers, choices, JSON steps and dates from forms
and query strings.

Every parser either returns a clean value or raises `InputError` with a sentence to show;
views turn it into a 400 page (config.middleware.RefusalMiddleware does that for any view
that lets it escape) or a form message. The rules, each a finding of the outside probe:
1. Integers are ASCII digits only, with a bounded length: "²".isdigit() is true and "１" is
   accepted by int(), but neither is a number a form of ours ever sends.
2. JSON is bounded in size and in nesting depth, checked before it is parsed (a `[` * 50000
   choice raised RecursionError inside json.loads); NaN/Infinity and huge integers are refused.
3. A step is exactly {"kind": str, "params": {...}}: unknown top-level fields are refused, and
   params may not use the reserved keys (`actor`, `kind`) that the service passes itself
   (a params "actor" raised "multiple values for 'actor'"); the same holds for form fields
   that add params (`text_actor`).
4. Dates and times must exist: "2026-13-45T99:99" is refused, not a ValueError; so is a wall
   time that does not exist or is ambiguous in the reader's timezone.
5. Dates and times lie between FIRST_DATE and LAST_DATE (as the reader writes them). Python's
   dates run from 0001-01-01 to 9999-12-31: "to 9999-12-31" plus the one day an end date
   reaches overflowed, and so did 9999-12-31T23:59 read west of UTC or 0001-01-01T00:00
   read east of it, once turned into a UTC instant (a time stored like that also could not
   be read back). The bounds are far from both ends in every timezone; the same check
   guards the Django form fields that take a date (`validate_date_range`;
   `DateRangeAdmin` for the admin's model forms and date hierarchies).
Query strings may carry parameters a page does not read (links from elsewhere add their own);
those are ignored, never refused. Page numbers are lenient: anything unreadable shows page 1.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import Any
from zoneinfo import ZoneInfo

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

MAX_INT_DIGITS = 12
MAX_JSON_BYTES = 16_384
MAX_JSON_DEPTH = 6
MAX_KEY_LENGTH = 40
RESERVED_STEP_KEYS = frozenset({"actor", "kind"})
FIRST_DATE = dt.date(1900, 1, 1)
LAST_DATE = dt.date(2999, 12, 31)

_INT = re.compile(r"-?[0-9]+")
_DATETIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_MISSING = object()


class InputError(ValueError):
    """Input that no form of ours sends; `message` is a sentence for the person, `field` the
    field or parameter it came from (None for the request as a whole)."""

    def __init__(self, message, *, field: str | None = None):
        super().__init__(str(message))
        self.message = message
        self.field = field


def _blank(raw) -> bool:
    return raw is None or (isinstance(raw, str) and raw.strip() == "")


def _default(field: str, default: Any) -> Any:
    """What a missing value reads as: `default`, or InputError when there is none."""
    if default is not _MISSING:
        return default
    raise InputError(_("Fill in %(field)s.") % {"field": field}, field=field)


def parse_int(raw: str | None, *, field: str, minimum: int | None = None,
              maximum: int | None = None, default: Any = _MISSING) -> Any:
    """The integer in `raw` (ASCII digits, an optional minus, at most MAX_INT_DIGITS digits).

    Missing or empty: `default` if one is given, else InputError.
    """
    if _blank(raw):
        return _default(field, default)
    text = raw.strip() if isinstance(raw, str) else str(raw)
    if not _INT.fullmatch(text) or len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise InputError(_("%(field)s must be a whole number written with the digits 0-9.")
                         % {"field": field}, field=field)
    value = int(text)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise InputError(_("%(field)s is out of range.") % {"field": field}, field=field)
    return value


def parse_choice(raw: str | None, *, field: str, choices: Iterable[str],
                 default: Any = _MISSING) -> Any:
    """`raw` if it is one of `choices` (exactly), else InputError; missing -> `default`."""
    if raw is None or raw == "":
        if default is not _MISSING:
            return default
        raise InputError(_("Choose %(field)s.") % {"field": field}, field=field)
    if raw not in set(choices):
        raise InputError(_("%(field)s is not one of the offered choices.") % {"field": field},
                         field=field)
    return raw


def parse_page(raw: str | None) -> int | str | None:
    """A page number for a paginator: "last", a small ASCII number, or None (page 1)."""
    if raw == "last":
        return raw
    if raw and raw.isascii() and raw.isdigit() and len(raw) <= 6:
        return int(raw)
    return None


def _depth(text: str) -> int:
    """The deepest nesting of [ and { in JSON `text`, outside strings (a linear scan, so a
    deep document is refused without recursion)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _no_constant(name: str):
    raise ValueError(name)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(text)
    return int(text)


def parse_json(raw: str | None, *, field: str, max_bytes: int = MAX_JSON_BYTES,
               max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The JSON value in `raw`, at most `max_bytes` long and `max_depth` deep."""
    if not raw:
        raise InputError(_("Choose one of the offered actions."), field=field)
    if len(raw.encode("utf-8", "surrogatepass")) > max_bytes or _depth(raw) > max_depth:
        raise InputError(_("%(field)s is too large.") % {"field": field}, field=field)
    try:
        return json.loads(raw, parse_constant=_no_constant, parse_int=_bounded_int)
    except ValueError:  # JSONDecodeError is a ValueError, and so are the two hooks' refusals
        raise InputError(_("Choose one of the offered actions."), field=field) from None


def check_param_keys(keys: Iterable[str], *, field: str,
                     allowed: Iterable[str] | None = None) -> None:
    """Refuse reserved step keys, overlong keys and (when `allowed` is given) unknown ones."""
    allowed = None if allowed is None else set(allowed)
    for key in keys:
        if not isinstance(key, str) or key in RESERVED_STEP_KEYS or len(key) > MAX_KEY_LENGTH \
                or (allowed is not None and key not in allowed):
            raise InputError(_("%(field)s holds a field no offered action has.")
                             % {"field": field}, field=field)


def parse_step(raw: str | None, *, field: str = "choice") -> tuple[str, dict]:
    """(kind, params) from a step's JSON: exactly the keys "kind" (a short string) and
    "params" (an object whose keys are not reserved)."""
    kind, params, _texts = parse_offered_choice(raw, field=field, texts_allowed=False)
    return kind, params


def parse_offered_choice(raw: str | None, *, field: str = "choice",
                         texts_allowed: bool = True) -> tuple[str, dict, list[str] | None]:
    """(kind, params, texts) from an option of the act form: a step (see `parse_step`) that
    may also name, under "texts", the free-text fields that go with it (a list of keys), and
    under "picks", the parameters chosen in separate pickers (`offered_picks`)."""
    data = parse_json(raw, field=field)
    allowed = ({"kind", "params", "texts", "picks"} if texts_allowed else {"kind", "params"})
    if not isinstance(data, dict) or not {"kind", "params"} <= set(data) <= allowed:
        raise InputError(_("Choose one of the offered actions."), field=field)
    texts = data.get("texts")
    if texts is not None and (not isinstance(texts, list) or not all(
            isinstance(t, str) and 0 < len(t) <= MAX_KEY_LENGTH for t in texts)):
        raise InputError(_("Choose one of the offered actions."), field=field)
    if texts:
        check_param_keys(texts, field=field)
    picks = data.get("picks")
    if picks is not None and (not isinstance(picks, list) or not all(
            isinstance(t, str) and 0 < len(t) <= MAX_KEY_LENGTH for t in picks)):
        raise InputError(_("Choose one of the offered actions."), field=field)
    kind, params = data["kind"], data["params"]
    if not isinstance(kind, str) or not kind or len(kind) > MAX_KEY_LENGTH \
            or not isinstance(params, dict):
        raise InputError(_("Choose one of the offered actions."), field=field)
    check_param_keys(params, field=field)
    return kind, params, texts


def offered_picks(raw: str | None, *, field: str = "choice") -> list[str]:
    """The "picks" of an act-form option already read by `parse_offered_choice` (the keys
    of the parameters chosen in separate pickers: a card and its target, the victim and the
    death-pact bandit). The caller accepts only the keys it offers pickers for
    (games.web.play.complete_picks), so a reserved or unknown key is refused there."""
    return parse_json(raw, field=field).get("picks") or []


def _aware(naive: dt.datetime, tz: dt.tzinfo, field: str) -> dt.datetime:
    """`naive` as a wall time in `tz`; a time that does not exist there (the hour skipped in
    spring) or exists twice (the hour repeated in autumn) is refused."""
    first = naive.replace(tzinfo=tz, fold=0)
    second = naive.replace(tzinfo=tz, fold=1)
    if first.utcoffset() != second.utcoffset():
        raise InputError(_("%(field)s falls on a clock change; choose another time.")
                         % {"field": field}, field=field)
    back = first.astimezone(dt.UTC).astimezone(tz).replace(tzinfo=None)
    if back != naive:
        raise InputError(_("%(field)s falls on a clock change; choose another time.")
                         % {"field": field}, field=field)
    return first


def _build(pattern: re.Pattern, raw: str, make, field: str, message: str):
    """`make(*numbers)` from the ASCII numbers `pattern` finds in `raw` (missing optional
    groups read 0), or InputError(`message`) for a shape or a value that does not exist."""
    match = pattern.fullmatch(raw.strip())
    try:
        if not match:
            raise ValueError(raw)
        return make(*(int(part) for part in match.groups(default="0")))
    except ValueError:
        raise InputError(message % {"field": field}, field=field) from None


def _date_out_of_range(value: dt.date) -> bool:
    """Whether `value` (a date, or a datetime's date as written in its own zone) falls
    outside FIRST_DATE .. LAST_DATE."""
    day = value.date() if isinstance(value, dt.datetime) else value
    return not FIRST_DATE <= day <= LAST_DATE


def _range_message():
    return _("Choose a date between %(first)s and %(last)s.") % {
        "first": FIRST_DATE.isoformat(), "last": LAST_DATE.isoformat()}


def check_date_range(value, *, field: str):
    """`value` (a date or datetime) if it lies between FIRST_DATE and LAST_DATE, else
    InputError."""
    if _date_out_of_range(value):
        raise InputError(_("%(field)s must lie between %(first)s and %(last)s.") % {
            "field": field, "first": FIRST_DATE.isoformat(), "last": LAST_DATE.isoformat()},
            field=field)
    return value


def validate_date_range(value) -> None:
    """The same bound as a Django validator, for form fields that parse dates themselves
    (the admin's model forms, the rollback form's deadline)."""
    if value is not None and _date_out_of_range(value):
        raise ValidationError(_range_message(), code="date_range")


# For a ModelAdmin's `formfield_overrides`: every date and datetime field of its form also
# refuses dates out of range (merged into the admin's defaults, so the widgets stay).
ADMIN_DATE_FIELDS = {models.DateTimeField: {"validators": [validate_date_range]},
                     models.DateField: {"validators": [validate_date_range]}}


class DateRangeAdmin:
    """A ModelAdmin mixin (first among the bases) for the admin pages that take dates:
    1. its model forms' date and datetime fields refuse a date out of range (a form error);
    2. its list's date hierarchy (`?<field>__year=`) takes a year within the range, else a
       400 with the sentence: Django builds the next year's first instant from it, which
       overflows for 9999 and, made aware, is unreadable for year 1.
    The admin's other date filters (a date `list_filter`) refuse bad values themselves."""

    formfield_overrides = ADMIN_DATE_FIELDS

    def changelist_view(self, request, extra_context=None):
        field = getattr(self, "date_hierarchy", None)
        if field:
            parse_int(request.GET.get(f"{field}__year"), field=_("year"),
                      minimum=FIRST_DATE.year, maximum=LAST_DATE.year, default=None)
        return super().changelist_view(request, extra_context)


def parse_datetime(raw: str | None, *, field: str, tz: dt.tzinfo | str | None = None,
                   default: Any = _MISSING) -> Any:
    """An aware datetime from "YYYY-MM-DDTHH:MM[:SS]" (what <input type=datetime-local>
    sends), read in `tz` (default: the active timezone), within the date range (rule 5)."""
    if _blank(raw):
        return _default(field, default)
    naive = _build(_DATETIME, raw, dt.datetime, field,
                   _("%(field)s is not a date and time (YYYY-MM-DD HH:MM)."))
    check_date_range(naive, field=field)  # before any arithmetic across zones
    zone = ZoneInfo(tz) if isinstance(tz, str) else (tz or timezone.get_current_timezone())
    return _aware(naive, zone, field)


def parse_date(raw: str | None, *, field: str, default: Any = _MISSING) -> Any:
    """A date from "YYYY-MM-DD", within the date range (rule 5)."""
    if _blank(raw):
        return _default(field, default)
    day = _build(_DATE, raw, dt.date, field, _("%(field)s is not a date (YYYY-MM-DD)."))
    return check_date_range(day, field=field)


class IntegerField(forms.Field):
    """A form field read with `parse_int` (Django's IntegerField accepts "１" and "1.0")."""

    default_error_messages = {"invalid": gettext_lazy("Enter a whole number.")}

    def __init__(self, *, min_value: int | None = None, max_value: int | None = None,
                 **kwargs):
        self.min_value, self.max_value = min_value, max_value
        super().__init__(**kwargs)

    def to_python(self, value):
        try:
            return parse_int(value, field=str(self.label or _("this field")),
                             minimum=self.min_value, maximum=self.max_value, default=None)
        except InputError as error:
            raise forms.ValidationError(error.message, code="invalid") from None
