"""The forum's section of a player's public profile (see accounts.profile_sections)."""

from __future__ import annotations

from . import rules
from .models import Post

RECENT_POSTS = 5


def forum_section(request, user) -> tuple[str, dict]:
    """Post count and latest posts of `user`, counting only what the viewer may read (a GM
    sees GM-only posts counted, a player does not). Two queries."""
    posts = rules.readable_posts(request.user, Post.objects.filter(author=user))
    recent = list(posts.select_related("thread").order_by("-created_at", "-id")[:RECENT_POSTS])
    return "messaging/_profile_forum.html", {
        "post_count": posts.count(), "recent": recent, "person": user}
