"""allauth's sign-in, verification and password-reset mail through the games outbox
(games/mail.py): written in the transaction of the request that causes it, retried until
the SMTP server accepts it, with the same From, Auto-Submitted and settings footer as every
other email. These are "account" mail: no unsubscribe (one cannot turn off a reset link).
"""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter

from games.mail import queue_email


class AccountAdapter(DefaultAccountAdapter):
    def send_mail(self, template_prefix, email, context):
        msg = self.render_mail(template_prefix, email, context)
        html = next((content for content, mime in getattr(msg, "alternatives", [])
                     if mime == "text/html"), "")
        user = context.get("user")
        queue_email(to=email, subject=msg.subject, body=msg.body, html=html,
                    user=user if getattr(user, "pk", None) else None)
