"""allauth's sign-in, verification and password-reset mail through the games outbox
(games/mail.py): written in the transaction of the request that causes it, retried until
the SMTP server accepts it, with the same From, Auto-Submitted and settings footer as every
other email. These are "account" mail: no unsubscribe (one cannot turn off a reset link).

The texts are the project's own (templates/account/email/, overriding every one of
allauth's): whole sentences in the reader's language (their profile's, else the request's),
greeting and signed with the site's name (settings.SITE_NAME), the subject prefixed with it.
Like every email, a text is Markdown sent as plain text and HTML (games.mail.bodies); every
value the templates insert (an address, a name, a browser's own description of itself) is
escaped for Markdown here, so none can make a link, a heading or emphasis; links are the
context's "..._url" values, written as <autolinks>.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.utils import translation

from accounts.models import display_name
from config.site import site_url
from games.mail import queue_email, user_locale

# Every ASCII punctuation character may be backslash-escaped in CommonMark, and is then
# only itself.
_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


def markdown_literal(value: str) -> str:
    """`value` as Markdown that reads exactly as the value: every punctuation mark escaped,
    line breaks as spaces."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(value).splitlines()))


def site_name() -> str:
    """The site's name in the active language (settings.SITE_NAME)."""
    return str(settings.SITE_NAME)


class ConfiguredSite:
    """The site as allauth's templates name it (`current_site.name`, `.domain`): the
    configured name and SITE_URL's host, never the request's (allauth's own answer is the
    request's Host header)."""

    def __init__(self):
        self.domain = urlsplit(site_url()).netloc
        self.name = site_name()


def configured_link(url: str) -> str:
    """An absolute link allauth built from the request (`request.build_absolute_uri`: the
    visitor's Host header, port and all), pointed at SITE_URL instead, path kept."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    return site_url() + (parts.path or "/") + (f"?{parts.query}" if parts.query else "") + (
        f"#{parts.fragment}" if parts.fragment else "")


class AccountAdapter(DefaultAccountAdapter):
    def format_email_subject(self, subject: str) -> str:
        return f"[{site_name()}] {subject}"

    def send_mail(self, template_prefix, email, context):
        """Render allauth's email `template_prefix` in the reader's language and queue it.

        1. Every link allauth puts in an account email is a "..._url" of the context
           (activate_url, password_reset_url, signup_url), built from the request that
           caused the email: a forged Host header would otherwise become a reset link to
           the forger's server. Links come from configuration only (config/site.py).
        2. Every other text value is escaped for Markdown (`markdown_literal`).
        3. The language: the user's profile's when the email is about an account, else the
           request's (someone signing up, or asking about an address no account has).
        """
        user = context.get("user")
        reader = user if getattr(user, "pk", None) else None
        language = (user_locale(reader).language if reader is not None
                    else translation.get_language() or settings.LANGUAGE_CODE)
        values = {}
        for key, value in {"email": email, **context}.items():
            if key.endswith("_url") and isinstance(value, str):
                values[key] = configured_link(value)
            elif isinstance(value, str):
                values[key] = markdown_literal(value)
            else:
                values[key] = value
        with translation.override(language):
            values.update(current_site=ConfiguredSite(), site_url=site_url(),
                          site_name=markdown_literal(site_name()),
                          name=markdown_literal(display_name(reader)) if reader else "")
            msg = self.render_mail(template_prefix, email, values)
        queue_email(to=email, subject=msg.subject, body=msg.body, user=reader)
