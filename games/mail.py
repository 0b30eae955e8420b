"""Email out of the games app (and the sign-in mail, through web.adapter): one outbox.

- `queue_email` writes an `OutboxEmail` row in the caller's transaction, so an email exists
  exactly when its cause does (a rolled-back step writes none; a reminder recorded as sent
  always has its row). Once the transaction commits the worker is nudged
  (`games.send_email`, named, not imported: nothing imports games.tasks) to send it at once;
  if the broker is down the row simply waits for the next beat.
- `send_due` (beat, `games.outbox`) and `send_one` (the nudge) lock one due row at a time
  with SKIP LOCKED, hand it to the SMTP server and mark it sent in the same transaction. A
  failure leaves it unsent with `attempts + 1` and a later `next_attempt_at` (back-off from
  OUTBOX_RETRY_BASE_SECONDS doubling up to OUTBOX_RETRY_MAX_SECONDS), until the server
  accepts it or OUTBOX_GIVE_UP_HOURS pass. Every state lives in the row: a worker restart or
  an outage of hours loses nothing.
- At most one message can be repeated: a worker that dies after the server accepted a
  message but before its transaction committed leaves the row unsent, and the next attempt
  sends that one message again. Nothing else is ever sent twice (the row lock), and nothing
  is dropped.
- Every email carries the configured From (DEFAULT_FROM_EMAIL), `Auto-Submitted:
  auto-generated`, a link to the notification settings, and (notifications only) a signed
  one-click `List-Unsubscribe` for its kind (accounts/unsubscribe.py).
- A body is written as Markdown, like a post, and leaves as two parts (`bodies`): the HTML
  of the posts' own safe renderer (messaging.rendering.render_post: raw HTML escaped, links
  checked, nh3's allowlist) and plain text read back from that HTML (`html_as_text`), so
  the text part carries no Markdown marker (`**`, `~~`, `#`, `[text](url)`).
- `user_locale(user)` is the language and timezone to write to a user in.

This module imports no service: services and notifications call it, never the reverse.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import smtplib
from dataclasses import dataclass, field
from html.parser import HTMLParser

from celery import current_app
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext as _

from accounts.unsubscribe import KINDS, settings_url, unsubscribe_url
from config import broker
from messaging.rendering import render_post

from .models import OutboxEmail

log = logging.getLogger(__name__)

SEND_TASK = "games.send_email"  # games/tasks.py
ACCOUNT = "account"  # sign-in, verification, password reset: cannot be turned off


@dataclass(frozen=True)
class Locale:
    language: str
    timezone: str


def user_locale(user) -> Locale:
    """The language and timezone to write to `user` in (the site's defaults without a
    profile, or where the profile leaves one empty)."""
    profile = getattr(user, "profile", None) if user is not None else None
    return profile_locale(getattr(profile, "language", None), getattr(profile, "timezone", None))


def profile_locale(language: str | None, timezone: str | None) -> Locale:
    """`user_locale` from a profile's language and timezone as read (None without a
    profile): the site's default for each that is missing or empty."""
    return Locale(language=language or settings.LANGUAGE_CODE,
                  timezone=timezone or settings.DEFAULT_USER_TIMEZONE)


def footer_lines(user, kind: str) -> list[str]:
    """The settings link (and the unsubscribe line for a notification), in the reader's
    language (the caller's active language)."""
    lines = [_("Notification settings: %(link)s") % {"link": settings_url()}]
    if user is not None and kind in KINDS:
        lines.append(_("Stop this kind of email: %(link)s") % {
            "link": unsubscribe_url(user, kind)})
    return lines


def footer(user, kind: str) -> str:
    """`footer_lines` under a signature separator, for the plain-text part."""
    return "\n".join(["", "--", *footer_lines(user, kind)]) + "\n"


def bodies(markdown: str, *, user=None, kind: str = ACCOUNT,
           official: bool = False) -> tuple[str, str]:
    """(plain text, HTML) of an email whose body is the Markdown `markdown`, each with the
    footer, in the caller's active language.

    1. The HTML is the posts' renderer's (`render_post`): raw HTML typed in the text comes
       out escaped, links are checked and bare URLs linked, nh3 keeps only its allowlist.
       `official` (神的使者's results and announcements) renders players' words blocks as
       the site shows them; anything else writes such a fence as code, as in a player's post.
    2. The text is read back from that HTML (`html_as_text`): no Markdown marker is left.
    """
    html, _mentions = render_post(markdown or "", official=official)
    lines = footer_lines(user, kind)
    text = html_as_text(html).rstrip("\n") + "\n" + footer(user, kind)
    language = translation.get_language() or settings.LANGUAGE_CODE
    links = render_post("\n".join(lines))[0]
    document = (f'<!DOCTYPE html>\n<html lang="{escape(language)}"><head><meta charset="utf-8">'
                f"</head>\n<body>\n{html}\n<hr>\n{links}\n</body></html>\n")
    return text, document


def queue_email(*, to: str, subject: str, body: str, kind: str = ACCOUNT, user=None,
                about: str = "", official: bool = False) -> OutboxEmail:
    """Write one email into the outbox, in the caller's transaction; nudge the worker once
    it commits.

    Precondition: called inside the writer's transaction (or in autocommit, when the row is
    written at once). `body` is Markdown (`bodies`: it leaves as plain text and HTML;
    `official` for 神的使者's texts). `kind` is a kind of accounts.unsubscribe.KINDS (then
    `user` is the reader, and the email carries that kind's one-click unsubscribe) or
    "account". `about` names what a rollback may withdraw ("message:<id>",
    "announcement:<id>").
    """
    row = _row(to=to, subject=subject, body=body, kind=kind, user=user, official=official)
    row.about = about[:40]
    row.save(force_insert=True)
    transaction.on_commit(lambda pk=row.pk: nudge(pk))
    return row


def nudge_on_commit(pks: list[int]) -> None:
    """Nudge the worker about the outbox rows `pks` once the caller's transaction commits
    (at once in autocommit): one broker message for all of them (`nudge_many`)."""
    if pks:
        transaction.on_commit(lambda: nudge_many(pks))


# Texts the sender writes from a row's `context` (OutboxEmail.template): name -> the dotted
# path of `fn(context, now=…) -> (subject, body) | None`, called in the reader's language and
# timezone (`context["language"]`, `context["timezone"]`). A sweep that sends many emails at
# once (reminders) writes only what each is made of, so its cost is one short row per email;
# the text, its footer and its unsubscribe link are written when the email is sent. None: at
# `now` the email no longer makes sense (a reminder for a phase that has ended): the row is
# dropped unsent (`attempt`).
DEFERRED = {"reminder": "games.reminders.reminder_text"}
DROPPED = "dropped: no longer true when it was due to be sent"


def write_deferred(row: OutboxEmail, now: dt.datetime | None = None) -> bool:
    """Write a deferred row's subject, body (with the footer) and headers from its context,
    in the reader's language and timezone as the sweep read them; `template` is emptied.
    The caller saves the row. False (nothing written) when the text's function says that at
    `now` the email no longer makes sense; without `now` (a preview) it is always written."""
    from django.utils.module_loading import import_string

    context = row.context
    language = context.get("language") or settings.LANGUAGE_CODE
    zone = context.get("timezone") or settings.DEFAULT_USER_TIMEZONE
    reader = None
    if row.user_id is not None:
        from django.contrib.auth import get_user_model

        reader = get_user_model()(pk=row.user_id)  # the signed links need only the id
    with translation.override(language), timezone.override(zone):
        text = import_string(DEFERRED[row.template])(context, now=now)
        if text is None:
            return False
        subject, body = text
        row.subject = subject[:255]
        row.body, row.html = bodies(body, user=reader, kind=row.kind)
        row.headers = {"Auto-Submitted": "auto-generated"}
        if reader is not None and row.kind in KINDS:
            row.headers["List-Unsubscribe"] = f"<{unsubscribe_url(reader, row.kind)}>"
            row.headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    row.template = ""
    return True


def _row(*, to: str, subject: str, body: str, kind: str = ACCOUNT, user=None,
         official: bool = False) -> OutboxEmail:
    headers = {"Auto-Submitted": "auto-generated"}
    language = user_locale(user).language if user is not None else translation.get_language()
    with translation.override(language):
        body, html = bodies(body, user=user, kind=kind, official=official)
        if user is not None and kind in KINDS:
            headers["List-Unsubscribe"] = f"<{unsubscribe_url(user, kind)}>"
            headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    return OutboxEmail(kind=kind, user=user, to=to, subject=subject[:255], body=body,
                       html=html, headers=headers)


def queue_withdrawn_email(*, to: str, user, kind: str, game_name: str, phase: str,
                          subjects: list[str]) -> OutboxEmail:
    """The "withdrawn" email (撤回) that follows emails already sent about results a
    rollback took back: to the same address, in the reader's language, naming the phase
    whose results were withdrawn and the subjects of the emails that no longer hold.
    `phase` is the phase's name already in the reader's language.

    Precondition: inside the rollback's transaction (the row exists exactly if it commits).
    """
    language = user_locale(user).language if user is not None else translation.get_language()
    with translation.override(language):
        subject = _("[%(game)s] Withdrawn: the results of %(phase)s") % {
            "game": game_name, "phase": phase}
        lines = [_("The GM has rolled back %(phase)s. What these earlier emails told you "
                   "no longer holds:") % {"phase": phase}, ""]
        lines += [f"- {s}" for s in subjects]
        lines += ["", _("The game's pages show what holds now; the withdrawn posts and "
                        "messages stay there, marked “withdrawn by the GM”.")]
    return queue_email(to=to, subject=subject[:200], body="\n".join(lines) + "\n", kind=kind,
                       user=user)


def nudge_many(pks: list[int]) -> None:
    """`nudge` for rows written together: one broker message for all of them (eager: send
    them here)."""
    if current_app.conf.task_always_eager:
        for pk in pks:
            send_one(pk)
        return
    if len(pks) == 1:
        nudge(pks[0])
        return
    broker.send(SEND_TASK, {"outbox_ids": list(pks)})


def nudge(pk: int) -> None:
    """Ask the worker to send row `pk` now (eager: send it here). A broker outage is only
    logged (config.broker.send, which never raises and gives up fast): the row is due, and
    the beat's `send_due` sends it."""
    if current_app.conf.task_always_eager:
        send_one(pk)
        return
    broker.send(SEND_TASK, {"outbox_id": pk})


def backoff(attempts: int) -> dt.timedelta:
    """The wait after the `attempts`-th failure: base, 2×base, 4×base… up to the cap."""
    seconds = settings.OUTBOX_RETRY_BASE_SECONDS * 2 ** min(attempts - 1, 30)
    return dt.timedelta(seconds=min(seconds, settings.OUTBOX_RETRY_MAX_SECONDS))


def message_of(row: OutboxEmail) -> EmailMultiAlternatives:
    msg = EmailMultiAlternatives(row.subject, row.body, settings.DEFAULT_FROM_EMAIL, [row.to],
                                 headers=row.headers)
    if row.html:
        msg.attach_alternative(row.html, "text/html")
    return msg


# --- the plain-text part: the HTML read back as text --------------------------------------

_VOID = {"br", "hr", "img"}
_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "hr", "blockquote", "ul", "ol",
           "table", "thead", "tbody", "tr", "li", "div"}
_SPACE = re.compile(r"[ \t\r\n\f]+")
RULE = "────────"


@dataclass
class _Node:
    tag: str
    attrs: dict = field(default_factory=dict)
    children: list = field(default_factory=list)


class _Tree(HTMLParser):
    """The sanitized HTML of `render_post` as a tree (it is well formed: nh3 wrote it)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = _Node("root")
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        node = _Node(tag, dict(attrs))
        self.open[-1].children.append(node)
        if tag not in _VOID:
            self.open.append(node)

    def handle_endtag(self, tag):
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data):
        self.open[-1].children.append(data)


def _raw(node) -> str:
    return node if isinstance(node, str) else "".join(_raw(c) for c in node.children)


def _inline(nodes) -> str:
    """Inline content as text: spaces folded as a browser would, <br> a line break, a link
    its words followed by its address when the words are not the address."""
    out = []
    for node in nodes:
        if isinstance(node, str):
            out.append(_SPACE.sub(" ", node))
        elif node.tag == "br":
            out.append("\n")
        elif node.tag == "img":
            out.append(node.attrs.get("alt") or "")
        elif node.tag == "a":
            words, href = _inline(node.children).strip(), node.attrs.get("href") or ""
            same = href in (words, f"mailto:{words}") or not href
            out.append(words if same else f"{words} ({href})")
        else:
            out.append(_inline(node.children))
    return "\n".join(line.strip() for line in "".join(out).split("\n"))


def _indent(text: str, prefix: str, first: str | None = None) -> str:
    lines = text.split("\n")
    head = (first if first is not None else prefix) + lines[0]
    return "\n".join([head] + [prefix + line if line else "" for line in lines[1:]])


def _blocks(nodes) -> list[str]:
    """Block content as a list of paragraphs of text."""
    found, run = [], []

    def flush():
        text = _inline(run).strip("\n")
        if text.strip():
            found.append(text)
        run.clear()

    for node in nodes:
        if isinstance(node, str) or node.tag not in _BLOCKS:
            run.append(node)
            continue
        flush()
        tag = node.tag
        if tag == "pre":
            found.append(_raw(node).rstrip("\n"))
        elif tag == "hr":
            found.append(RULE)
        elif tag == "blockquote" and "player-words" in node.attrs.get("class", ""):
            parts = _blocks(node.children)
            head = f"【{parts[0]}】" if parts else ""
            found.append("\n".join([head] + [_indent(p, "    ") for p in parts[1:]]))
        elif tag == "blockquote":
            found.append(_indent("\n\n".join(_blocks(node.children)), "    "))
        elif tag in ("ul", "ol"):
            start = int(node.attrs.get("start") or 1) if tag == "ol" else 0
            items = [c for c in node.children if isinstance(c, _Node) and c.tag == "li"]
            lines = []
            for n, item in enumerate(items, start):
                marker = f"{n}. " if tag == "ol" else "- "
                text = "\n".join(_blocks(item.children))
                lines.append(_indent(text, " " * len(marker), marker))
            found.append("\n".join(lines))
        elif tag == "tr":
            cells = [c for c in node.children if isinstance(c, _Node) and c.tag in ("th", "td")]
            found.append(" | ".join(_inline(c.children).strip() for c in cells))
        elif tag in ("table", "thead", "tbody"):
            found.append("\n".join(_blocks(node.children)))
        else:  # a paragraph, a heading, a div
            found.extend(_blocks(node.children))
    flush()
    return [block for block in found if block.strip()]


def html_as_text(html: str) -> str:
    """The plain text of an email's HTML part (`bodies`): paragraphs apart, line breaks
    kept, headings and emphasis as their words, list items "- " or numbered, quotes
    indented, a player's words block as "【玩家的话 · author】" and its words indented."""
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return "\n\n".join(_blocks(tree.root.children)) + "\n"


# A refusal that no retry will change: the address or the message itself is refused.
PERMANENT = (smtplib.SMTPRecipientsRefused, smtplib.SMTPSenderRefused,
             smtplib.SMTPDataError)


def due(now: dt.datetime):
    return OutboxEmail.objects.filter(sent_at__isnull=True, failed_at__isnull=True,
                                      next_attempt_at__lte=now)


def attempt(row: OutboxEmail, now: dt.datetime) -> bool:
    """Send `row` (caller holds its lock, inside a transaction) and record the outcome on
    it; True when the server accepted it. A deferred row gets its text first (kept with
    the outcome, so a retry sends the same words); one whose text says it no longer makes
    sense at `now` is dropped unsent (`failed_at` set, `last_error` DROPPED, no attempt
    counted), checked again at each attempt until its text is written."""
    written = []
    if row.template:
        if not write_deferred(row, now):
            row.failed_at, row.last_error = now, DROPPED
            row.save(update_fields=["failed_at", "last_error"])
            return False
        written = ["subject", "body", "html", "headers", "template"]
    try:
        message_of(row).send()
    except Exception as exc:  # SMTP outage, refusal, timeout: recorded on the row
        row.attempts += 1
        row.last_error = f"{type(exc).__name__}: {exc}"[:500]
        gone = now - row.created > dt.timedelta(hours=settings.OUTBOX_GIVE_UP_HOURS)
        permanent = isinstance(exc, PERMANENT) and not _temporary(exc)
        if gone or permanent:
            row.failed_at = now
            log.error("outbox row %s to %s given up after %d attempts: %s", row.pk, row.to,
                      row.attempts, row.last_error)
        else:
            row.next_attempt_at = now + backoff(row.attempts)
            log.warning("outbox row %s to %s not sent (attempt %d, next at %s): %s", row.pk,
                        row.to, row.attempts, row.next_attempt_at.isoformat(), row.last_error)
        row.save(update_fields=["attempts", "last_error", "failed_at", "next_attempt_at",
                                *written])
        return False
    row.sent_at = now
    row.attempts += 1
    row.save(update_fields=["sent_at", "attempts", *written])
    return True


def _temporary(exc: Exception) -> bool:
    """4xx SMTP answers are temporary (greylisting, a full queue): retry those."""
    codes = [getattr(exc, "smtp_code", 0)]
    codes += [code for code, _msg in getattr(exc, "recipients", {}).values()]
    return any(400 <= (code or 0) < 500 for code in codes)


def send_one(pk: int, *, now: dt.datetime | None = None) -> bool:
    """Send row `pk` if it is still due and nobody else holds it; True when sent now."""
    now = now or timezone.now()
    with transaction.atomic():
        row = due(now).select_for_update(skip_locked=True).filter(pk=pk).first()
        return row is not None and attempt(row, now)


def send_due(*, now: dt.datetime | None = None, limit: int = 200) -> dict[str, int]:
    """Send up to `limit` due rows, oldest due first, one row lock and one transaction each
    (two workers at once share the rows out, SKIP LOCKED). Returns sent/failed counts."""
    now = now or timezone.now()
    counts = {"sent": 0, "failed": 0}
    tried: set[int] = set()
    for _i in range(limit):
        with transaction.atomic():
            row = (due(now).exclude(pk__in=tried).order_by("next_attempt_at", "pk")
                   .select_for_update(skip_locked=True).first())
            if row is None:
                break
            tried.add(row.pk)
            sent = attempt(row, now)
        if not sent and row.last_error == DROPPED:
            continue  # not a failure: the email no longer made sense (the row says so)
        counts["sent" if sent else "failed"] += 1
        if not sent and row.failed_at is None and _server_down(row):
            break  # the server is unreachable: the other rows wait for the next tick
    return counts


def _server_down(row: OutboxEmail) -> bool:
    """Whether the row failed for want of a server (not for its own content): trying the
    rest of the batch now would only wait for the same connection timeout again."""
    return row.last_error.split(":", 1)[0] in {
        "ConnectionRefusedError", "ConnectionResetError", "TimeoutError", "OSError",
        "SMTPConnectError", "SMTPServerDisconnected", "socket.timeout", "gaierror"}
