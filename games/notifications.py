"""Email notifications, per the user's settings (accounts.Profile `email_*` fields).

Three kinds, each switched on or off by its reader on the profile page:
- `email_results`: the private results 神的使者 sends a seat (called by services);
- `email_announcements`: every announcement published in a game where the user holds a seat
  (called by services);
- `email_replies`: a reply in a thread the user started, or a post quoting theirs
  (a post hook the forum's writer calls with every new post: messaging.hooks).

Precondition of every function here: called inside the writer's transaction. Emails are
outbox rows written in that transaction (games/mail.py), so a rolled-back step sends nothing, and each is written
in its reader's language (`Profile.language`). Bodies are Markdown, like the posts they
tell of; the outbox sends them as plain text and HTML (games.mail.bodies): 神的使者's results
and announcements are official texts (players' words blocks shown as such), a reply is a
player's post. Users without an email address, inactive
accounts and the 神的使者 account itself are never written to.
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import display_name
from config.site import site_url

from .mail import queue_email, user_locale

# An email carries the text it is about, but not a whole thread's worth of it.
MAX_EXCERPT = 2_000


def wants(user, setting: str) -> bool:
    """Whether `user` can be written to and has switched `setting` (an email_* field) on."""
    if user is None or not user.is_active or not user.email:
        return False
    if user.get_username() == settings.MESSENGER_USERNAME:
        return False
    profile = getattr(user, "profile", None)
    return bool(profile is not None and getattr(profile, setting, False))


def excerpt(text: str) -> str:
    """The start of the Markdown `text` for an email, at most MAX_EXCERPT characters (the
    outbox writes it as plain text and HTML, games.mail.bodies)."""
    text = (text or "").strip()
    return text if len(text) <= MAX_EXCERPT else text[:MAX_EXCERPT].rstrip() + " …"


def notify_private_result(game, seat, body: str, message=None) -> None:
    """A seat received private results from 神的使者: email its current player if they want
    it. `body` is the message as sent, already in the player's language; `message` the
    message itself (a rollback that withdraws it finds its email by it)."""
    user = seat.user
    if not wants(user, "email_results"):
        return
    with translation.override(user_locale(user).language):
        link = site_url() + reverse("game-act", args=[game.pk])
        subject = _("[%(game)s] A private result from 神的使者") % {"game": game.name}
        text = _("%(body)s\n\nYour conversation with 神的使者: %(link)s\n") % {
            "body": excerpt(body), "link": link}
    queue_email(to=user.email, subject=subject[:200], body=text, kind="results", user=user,
                about=f"message:{message.pk}" if message is not None else "", official=True)


def notify_announcement(game, announcement) -> None:
    """An announcement was published in `game`: email every seated player who wants
    announcements (once per announcement: services publish an announcement once only)."""
    seats = game.seats.filter(user__isnull=False).select_related("user__profile")
    text = announcement.body
    if announcement.story:
        text = f"{announcement.story}\n\n---\n\n{text}"
    for seat in seats:
        user = seat.user
        if not wants(user, "email_announcements"):
            continue
        with translation.override(user_locale(user).language):
            link = site_url() + (announcement.post.get_absolute_url()
                                        if announcement.post_id else game.get_absolute_url())
            subject = _("[%(game)s] %(title)s") % {"game": game.name,
                                                   "title": announcement.title}
            body = _("%(body)s\n\nRead it on the game's board: %(link)s\n") % {
                "body": excerpt(text), "link": link}
        queue_email(to=user.email, subject=subject[:200], body=body, kind="announcements",
                    user=user, about=f"announcement:{announcement.pk}", official=True)


def notify_reply(post) -> None:
    """A new forum post: email the author of its thread and the author of the post it
    quotes, if they want replies, may read the thread, and did not write it themselves.

    Steps:
    1. The first post of a thread is the thread itself, not a reply to anyone.
    2. Collect the thread's author and the quoted post's author, once each.
    3. Skip the writer, anyone who has switched replies off, and anyone the forum's rules
       would not show the thread to (a GM-only thread, a thread moved to the GM board).
    """
    from messaging import rules

    thread = post.thread
    recipients = []
    if post.number > 1 and thread.author_id is not None:
        recipients.append((thread.author, "thread"))
    if post.quote_id is not None and post.quote.author_id is not None:
        recipients.append((post.quote.author, "quote"))
    seen = {post.author_id}
    for user, why in recipients:
        if user.pk in seen:
            continue
        seen.add(user.pk)
        if not wants(user, "email_replies") or not rules.can_read_thread(user, thread):
            continue
        with translation.override(user_locale(user).language):
            values = {"name": display_name(post.author), "thread": thread.title}
            subject = (_("%(name)s quoted your post in “%(thread)s”") if why == "quote"
                       else _("%(name)s replied in your thread “%(thread)s”")) % values
            body = _("%(body)s\n\nRead it here: %(link)s\n") % {
                "body": excerpt(post.body),
                "link": site_url() + post.get_absolute_url()}
        queue_email(to=user.email, subject=subject[:200], body=body, kind="replies", user=user)
