"""Browser helpers: a signed-in Chromium page for any user, without going through sign-in.
Each page has a context of its own (its own cookies and storage) in the worker's one
Chromium (tests/conftest.py: `chromium`, `browser`)."""

import pytest
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore


@pytest.fixture
def page_for(browser, live_server):
    """page_for(user) -> a Playwright page in its own context, signed in as `user`."""
    return _pages(browser, live_server.url)


@pytest.fixture
def docs_screenshots(monkeypatch):
    """Screenshots on for this test (SCREENSHOTS=1, tests/browser/shots.py): for the tests
    whose pictures the docs show (docs/gm-guide.md), so every run keeps them current."""
    monkeypatch.setenv("SCREENSHOTS", "1")


@pytest.fixture
def asgi_server(transactional_db):
    """The site over ASGI (uvicorn in a thread: tests/browser/asgi_server.py), for live
    pages; `.url` like `live_server`'s. Database connections are not kept between requests
    (each ASGI request has a thread of its own), so none outlives the test."""
    from django.db import connections

    from .asgi_server import AsgiServer

    settings_dict = connections["default"].settings_dict
    kept = settings_dict["CONN_MAX_AGE"]
    settings_dict["CONN_MAX_AGE"] = 0
    server = AsgiServer().start()
    try:
        yield server
    finally:
        server.stop()
        settings_dict["CONN_MAX_AGE"] = kept


@pytest.fixture
def asgi_page_for(browser, asgi_server):
    """page_for over the ASGI server (`asgi_server`). Its pages close before the server
    stops, so the server does not wait for their open event streams."""
    make = _pages(browser, asgi_server.url)
    yield make
    for context in make.contexts:
        context.close()


def _pages(browser, url: str):
    contexts = []

    def make(user, *, timezone_id: str = "Asia/Shanghai"):
        # The browser's zone: the site's default unless a test says otherwise (the page
        # reports it once, static/js/timezone.js, and reloads if it differs).
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        context = browser.new_context(locale="zh-CN", timezone_id=timezone_id)
        contexts.append(context)
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": store.session_key,
                              "url": url}])
        page = context.new_page()
        page.set_default_timeout(20_000)
        return page

    make.contexts = contexts
    return make
