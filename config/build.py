"""`BUILD`: a digest of what this process renders pages with — the project's own Python
code, its templates and its compiled catalogues (not the virtualenv, not the tests).

Every part kept in the cache between requests (messaging.blocks, the game home's parts in
games.web.pages.home_parts) puts it in its key, so a deploy that changes a sentence, a
presenter or a template never meets parts kept by the code before it, even in a cache shared
by every machine (Redis). Computed once per process at import (a few milliseconds).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.conf import settings

APPS = ("accounts", "config", "games", "messaging")
PATTERNS = (*(f"{app}/**/*.py" for app in APPS), "templates/**/*.html", "*/templates/**/*.html",
            "locale/*/LC_MESSAGES/*.mo")


def digest() -> str:
    root = Path(settings.BASE_DIR)
    out = hashlib.sha1()
    for pattern in PATTERNS:
        for path in sorted(root.glob(pattern)):
            out.update(str(path.relative_to(root)).encode())
            out.update(path.read_bytes())
    return out.hexdigest()[:12]


BUILD = digest()
