"""The log line format (settings.LOGGING): time in UTC, level, logger, message."""

from __future__ import annotations

import logging
import time


class UTCFormatter(logging.Formatter):
    """Times in UTC whatever the server's zone, so lines from several machines sort."""

    converter = time.gmtime
