"""What other apps add to a player's public profile page, without accounts importing them.

A section is a callable `section(request, user)` returning None (nothing to show) or a pair
`(template_name, context)`; the page renders each in the order registered. Messaging adds
the forum's numbers (posts, latest posts); games add its archive (games played and hosted,
camps, win rates) from its AppConfig.ready():

    from accounts.profile_sections import register_profile_section
    register_profile_section(game_archive)   # game_archive(request, user) -> (tpl, ctx) | None

Precondition for a section: its query count does not depend on how much the user has done
(the page has a query budget).
"""

from __future__ import annotations

from collections.abc import Callable

from django.template.loader import render_to_string
from django.utils.safestring import SafeString

ProfileSection = Callable[..., "tuple[str, dict] | None"]
_sections: list[ProfileSection] = []


def register_profile_section(section: ProfileSection) -> ProfileSection:
    """Show `section` on every public profile (a decorator too; twice is a no-op)."""
    if section not in _sections:
        _sections.append(section)
    return section


def unregister_profile_section(section: ProfileSection) -> None:
    if section in _sections:
        _sections.remove(section)


def render_profile_sections(request, user) -> list[SafeString]:
    """The HTML of every registered section that has something to show for `user`."""
    rendered = []
    for section in list(_sections):
        result = section(request, user)
        if result is not None:
            template_name, context = result
            rendered.append(render_to_string(template_name, context, request=request))
    return rendered
