"""allauth's sign-in, verification and password-reset mail through the games outbox
(games/mail.py): written in the transaction of the request that causes it, retried until
the SMTP server accepts it, with the same From, Auto-Submitted and settings footer as every
other email. These are "account" mail: no unsubscribe (one cannot turn off a reset link).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter

from config.site import site_url
from games.mail import queue_email


class ConfiguredSite:
    """The site as allauth's email templates name it (`current_site.name`, `.domain`): from
    SITE_URL, never from the request (allauth's own answer is the request's Host header)."""

    def __init__(self):
        self.domain = self.name = urlsplit(site_url()).netloc


def configured_link(url: str) -> str:
    """An absolute link allauth built from the request (`request.build_absolute_uri`: the
    visitor's Host header, port and all), pointed at SITE_URL instead, path kept."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return url
    return site_url() + (parts.path or "/") + (f"?{parts.query}" if parts.query else "") + (
        f"#{parts.fragment}" if parts.fragment else "")


class AccountAdapter(DefaultAccountAdapter):
    def send_mail(self, template_prefix, email, context):
        # Every link allauth puts in an account email is a "..._url" of the context
        # (activate_url, password_reset_url, signup_url), built from the request that
        # caused the email: a forged Host header would otherwise become a reset link to
        # the forger's server. Links come from configuration only (config/site.py).
        context = {key: configured_link(value) if key.endswith("_url") and isinstance(value, str)
                   else value for key, value in context.items()}
        context["current_site"] = ConfiguredSite()
        msg = self.render_mail(template_prefix, email, context)
        html = next((content for content, mime in getattr(msg, "alternatives", [])
                     if mime == "text/html"), "")
        user = context.get("user")
        queue_email(to=email, subject=msg.subject, body=msg.body, html=html,
                    user=user if getattr(user, "pk", None) else None)
