"""A process's own small memory of recently used values (least recently used out first)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable


class Recent:
    """At most `size` entries; the one used longest ago leaves first. Thread-safe (gthread
    workers share the process). Its users keep only values that never change under their
    key, so nothing here needs telling about a change: a changed thing is asked for under
    a new key, and the old entries fall off the end."""

    def __init__(self, size: int):
        self.size = size
        self.entries: OrderedDict[Hashable, object] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable):
        with self.lock:
            entry = self.entries.get(key)
            if entry is not None:
                self.entries.move_to_end(key)
            return entry

    def put(self, key: Hashable, entry) -> None:
        with self.lock:
            self.entries[key] = entry
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()

    def through(self, cache, key: str):
        """The entry under `key` from this memory, else from the shared `cache` (then kept
        here too); None when neither has it."""
        entry = self.get(key)
        if entry is None:
            entry = cache.get(key)
            if entry is not None:
                self.put(key, entry)
        return entry

    def keep(self, cache, key: str, entry, seconds: int) -> None:
        """Keep `entry` under `key` in the shared `cache` for `seconds` and in this memory."""
        cache.set(key, entry, seconds)
        self.put(key, entry)
