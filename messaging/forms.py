"""Forms for the forum pages. They only shape input; the rules live in the services."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from config.inputs import IntegerField

from .models import MAX_BODY_LENGTH, MAX_TITLE_LENGTH

# The form accepts a little more than the limit so that an overlong post reaches the service,
# which refuses it with a message naming both lengths.
_BODY_SLACK = 1_000


class BodyField(forms.CharField):
    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Text"))
        kwargs.setdefault("help_text", _("Markdown: **bold**, *italic*, [link](https://…), "
                                         "> quote, lists. HTML is shown as text."))
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 8}))
        super().__init__(max_length=MAX_BODY_LENGTH + _BODY_SLACK, strip=False,
                         required=False, **kwargs)


class ReplyForm(forms.Form):
    body = BodyField()
    quote = IntegerField(required=False, widget=forms.HiddenInput, min_value=1,
                         label=_("quoted post"))


class NewThreadForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=())
    title = forms.CharField(label=_("Title"), max_length=MAX_TITLE_LENGTH + 100,
                            required=False)
    body = BodyField()

    def __init__(self, *args, kinds: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kind"].choices = kinds
        if len(kinds) == 1:
            self.fields["kind"].initial = kinds[0][0]


class MessageForm(forms.Form):
    body = BodyField(label=_("Message to the messenger"))


class AnswerForm(forms.Form):
    """Used in the admin: a staff member's answer, sent as 神的使者."""

    body = BodyField(label=_("Answer as the messenger"))


class EditPostForm(forms.Form):
    """A moderator's edit of a post."""

    body = BodyField()
