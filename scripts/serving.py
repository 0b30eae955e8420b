"""What the benches and the storm share about the servers they start: waiting until one
answers /healthz, and saying why not when it never does."""

from __future__ import annotations

import http.client
import subprocess
import time
from pathlib import Path


class NotServing(SystemExit):
    """A server that exited at start or did not answer in time (a SystemExit: the script
    stops with the sentence)."""


def wait_until_it_answers(port: int, *, proc: subprocess.Popen | None = None,
                          log: Path | None = None, seconds: float = 60,
                          name: str = "the server") -> None:
    """Return once 127.0.0.1:`port` answers /healthz with 200; raise `NotServing` when `proc`
    exits first (with the end of `log`, if given) or after `seconds`."""
    end = time.monotonic() + seconds
    while True:
        if proc is not None and proc.poll() is not None:
            tail = ("; its log " + str(log) + ":\n" + log.read_text(errors="replace")[-3000:]
                    if log is not None and log.exists() else "")
            raise NotServing(f"{name} exited with code {proc.returncode} before answering"
                             + tail)
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        if time.monotonic() > end:
            raise NotServing(f"{name} on port {port} did not answer /healthz within "
                             f"{seconds:g} s")
        time.sleep(0.1)
