"""The forum's section of a player's public profile (web.profiles puts it on the page), and
what the forum keeps a user's row for (web.admin asks before a user is deleted)."""

from __future__ import annotations

from django.db.models import Q
from django.utils.translation import gettext as _

from . import rules
from .models import Conversation, Message, Post, Thread

RECENT_POSTS = 5


def forum_section(request, user) -> tuple[str, dict]:
    """Post count and latest posts of `user`, counting only what the viewer may read (a GM
    sees GM-only posts counted, a player does not). Two queries."""
    posts = rules.readable_posts(request.user, Post.objects.filter(author=user))
    recent = list(posts.select_related("thread").order_by("-created_at", "-id")[:RECENT_POSTS])
    return "messaging/_profile_forum.html", {
        "post_count": posts.count(), "recent": recent, "person": user}


def forum_records_of(user) -> list[str]:
    """Why the forum needs `user`'s row: posts and threads it wrote (their author would become
    nobody), messages it sent or wrote as 神的使者, and its conversations with 神的使者 that
    hold messages (Conversation.owner is CASCADE: they would vanish)."""
    reasons = []
    if Post.objects.filter(author=user).exists() or Thread.objects.filter(author=user).exists():
        reasons.append(_("wrote forum posts"))
    if Message.objects.filter(Q(sender=user) | Q(written_by=user)).exists() or \
            Conversation.objects.filter(owner=user, messages__isnull=False).exists():
        reasons.append(_("has conversations with the messenger"))
    return reasons
