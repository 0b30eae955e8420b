"""Filling a rendered HTML form as a browser would: every field keeps the value the page gave
it (hidden inputs, prefilled text boxes, the first option of a select, checked radios) unless
the test sets it, and only named, enabled fields are sent."""

from __future__ import annotations

from html.parser import HTMLParser


class _FormParser(HTMLParser):
    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.action: str | None = None
        self.fields: dict[str, str] = {}
        self.options: dict[str, list[tuple[str, str]]] = {}  # select name -> (value, label)
        self.option_attrs: dict[str, list[dict]] = {}  # select name -> each option's attributes
        self.radios: dict[str, list[str]] = {}
        self._select: str | None = None
        self._option: list | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == self.form_id:
            self.inside, self.action = True, a.get("action")
            return
        if not self.inside or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind == "radio":
                self.radios.setdefault(name, []).append(a.get("value", "on"))
                if "checked" in a:
                    self.fields[name] = a.get("value", "on")
            elif kind == "checkbox":
                if "checked" in a:
                    self.fields[name] = a.get("value", "on")
            elif kind not in ("submit", "button", "image", "reset"):
                self.fields[name] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = ""
        elif tag == "select" and name:
            self._select = name
            self.options[name] = []
            self.option_attrs[name] = []
        elif tag == "option" and self._select:
            self._option = [a.get("value"), "", "selected" in a]
            self.option_attrs[self._select].append(a)

    def handle_data(self, data):
        if self._option is not None:
            self._option[1] += data
        elif self._textarea is not None:
            self.fields[self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "option" and self._option is not None:
            value, label, selected = self._option
            label = " ".join(label.split())
            self.options[self._select].append((label if value is None else value, label))
            if selected or self._select not in self.fields:
                self.fields[self._select] = label if value is None else value
            self._option = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


class Form:
    """The form `form_id` of `html`: `.fields` as they would be sent, `.options[select]` the
    (value, label) pairs offered (`.option_attrs[select]` their attributes, in the same
    order), `.radios[name]` the radio values offered."""

    def __init__(self, html: str, form_id: str):
        parser = _FormParser(form_id)
        parser.feed(html)
        assert parser.action is not None or parser.fields, f"no form #{form_id} on the page"
        self.action = parser.action
        self.fields = parser.fields
        self.options = parser.options
        self.option_attrs = parser.option_attrs
        self.radios = parser.radios

    def pick(self, select: str, *, label_has: str | None = None, value: str | None = None,
             index: int | None = None) -> tuple[str, str]:
        """Select the option of `select` whose label contains `label_has` (or whose value is
        `value`, or the `index`-th); returns (value, label). Exactly one option must match."""
        offered = self.options[select]
        if index is not None:
            found = [offered[index]]
        elif value is not None:
            found = [o for o in offered if o[0] == value]
        else:
            found = [o for o in offered if label_has in o[1]]
        assert len(found) == 1, (select, label_has, value, [o[1] for o in offered])
        self.fields[select] = found[0][0]
        return found[0]

    def check(self, radio: str, value: str) -> None:
        assert value in self.radios[radio], (radio, value, self.radios.get(radio))
        self.fields[radio] = value

    def fill(self, name: str, value: str) -> None:
        assert name in self.fields, (name, sorted(self.fields))
        self.fields[name] = value
