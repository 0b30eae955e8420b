"""The site served over ASGI (uvicorn) in a thread of the test process, for the browser tests
of live pages: pytest-django's `live_server` is a thread-per-request WSGI server, which
cannot hold an event stream open (/live/ answers it 204, and pages work as without script).

Like `live_server` it serves the test database (the test commits what the pages must see:
`transactional_db`) and the static files from the finders; /live/ as in production
(config/asgi.py: config.live_view.LiveASGIHandler, before the middleware).
"""

from __future__ import annotations

import socket
import threading
import time


class AsgiServer:
    def __init__(self) -> None:
        import uvicorn
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        from config.live_view import LiveASGIHandler

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(ASGIStaticFilesHandler(LiveASGIHandler()), lifespan="off",
                                log_level="warning", timeout_graceful_shutdown=1,
                                access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       name="asgi-test-server", daemon=True)

    def start(self) -> AsgiServer:
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                return self
            time.sleep(0.05)
        raise RuntimeError("the ASGI test server did not start")

    def wait_listening(self, kind: str, pk: int, seconds: float = 10.0) -> None:
        """Until a stream of this server listens for (kind, pk) and its hub is subscribed to
        the feed (config/live.py: the hub of the server's event loop): an event published
        from then on reaches that stream live."""
        from config import live

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                hubs = list(live._hubs.values())
            except RuntimeError:  # the server's thread changed them meanwhile: look again
                hubs = []
            if any((kind, pk) in hub.listeners and hub.ready.is_set() for hub in hubs):
                return
            time.sleep(0.01)
        raise AssertionError(f"no stream of the ASGI server listens for {kind} {pk}")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
