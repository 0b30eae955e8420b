"""Display names: what counts as the same name, and which names nobody may take."""

from __future__ import annotations

import re
import unicodedata

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

MIN_LENGTH = 2
MAX_LENGTH = 24

# Names that would let a player pass for the service, a game master or staff: no name may
# contain the first list, nor equal the second.
RESERVED_PARTS = ["神的使者", "天神", "管理员", "messenger"]
RESERVED = ["神的使者", "天神", "法官", "执法团", "管理员", "系统", "admin", "administrator",
            "staff", "moderator", "messenger", "system", "gm", "root", "árbitro", "arbitro"]

_INVISIBLE = re.compile(r"[\s\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f"
                        r"\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0]")
_ALLOWED = re.compile(r"^[\w\u00b7\u30fb·\-. ]+$")


def canonical_name(name: str) -> str:
    """Fold a name so look-alikes compare equal: NFKC, case-folded, no invisible characters."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", name)).casefold()


def validate_display_name(name: str, *, user=None) -> str:
    """Return the cleaned name or raise ValidationError with a readable message."""
    from .models import Profile

    name = unicodedata.normalize("NFKC", name).strip()
    key = canonical_name(name)
    if len(key) < MIN_LENGTH or len(name) > MAX_LENGTH:
        raise ValidationError(_("A display name has %(min)d to %(max)d characters.")
                              % {"min": MIN_LENGTH, "max": MAX_LENGTH})
    if not _ALLOWED.match(name) or _INVISIBLE.sub("", name) != name.replace(" ", ""):
        raise ValidationError(_("Use letters, digits, spaces, '-', '.' or '·' only."))
    parts = {canonical_name(r) for r in RESERVED_PARTS + [settings.MESSENGER_NAME]}
    whole = {canonical_name(r) for r in RESERVED}
    if key in whole or any(part in key for part in parts):
        raise ValidationError(_("This name is reserved for the service and its game masters."))
    taken = Profile.objects.filter(display_key=key)
    if user is not None and user.pk:
        taken = taken.exclude(user=user)
    if taken.exists():
        raise ValidationError(_("This display name is already taken."))
    from django.contrib.auth import get_user_model

    staff = get_user_model().objects.filter(is_staff=True)
    if user is not None and user.pk:
        staff = staff.exclude(pk=user.pk)
    if any(canonical_name(u.get_username()) == key for u in staff.only("username")):
        raise ValidationError(_("This name is reserved for the service and its game masters."))
    return name
