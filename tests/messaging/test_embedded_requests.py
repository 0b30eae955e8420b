"""A request embedded in a post changes nothing.

The probe's requests, exactly: posts holding `![ ](/messenger/)`, `![ ](/games/2/act/)` and
`![ ](/admin/messaging/conversation/8/change/)` rendered same-origin images, whose GETs
cleared a reader's unread count and took a conversation off the GM's waiting list.
"""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import reverse

from config.http import is_page_navigation
from messaging import services
from messaging.models import Post, Thread
from messaging.rendering import render_markdown

pytestmark = pytest.mark.django_db
HOME = reverse("messaging-conversation-home")

PROBE_IMAGES = [
    "![ ](/messenger/)",
    "![ ](/games/2/act/)",
    "![ ](/admin/messaging/conversation/8/change/)",
    "![x](//127.0.0.1/messenger/)",
    "![x](https://127.0.0.1/messenger/)",
    "![x](https://localhost:8000/messenger/)",
    "![x](https://user@127.0.0.1/messenger/)",
    "![x](https:\\\\127.0.0.1/messenger/)",
]
# What browsers send for an <img> (with and without Fetch Metadata), a frame, and a page.
IMAGE = {"HTTP_SEC_FETCH_MODE": "no-cors", "HTTP_SEC_FETCH_DEST": "image",
         "HTTP_SEC_FETCH_SITE": "same-origin", "HTTP_ACCEPT": "image/avif,image/webp,*/*"}
OLD_BROWSER_IMAGE = {"HTTP_ACCEPT": "image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"}
FRAME = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "iframe",
         "HTTP_ACCEPT": "text/html,*/*"}
PAGE = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document",
        "HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}
OLD_BROWSER_PAGE = {"HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}


@pytest.mark.parametrize("remote_images", [False, True])
@pytest.mark.parametrize("text", PROBE_IMAGES)
def test_a_same_origin_or_relative_image_is_never_embedded(settings, text, remote_images):
    settings.POST_REMOTE_IMAGES = remote_images
    html = render_markdown(text)
    assert "<img" not in html
    assert "<a " in html  # shown as a link the reader may follow on purpose


def test_a_remote_image_is_a_link_unless_the_site_enables_them(settings):
    text = "![t](https://tracker.example/pixel.png)"
    html = render_markdown(text)
    assert "<img" not in html
    assert html == ('<p><a href="https://tracker.example/pixel.png" '
                    'rel="nofollow noopener">t</a></p>')
    settings.POST_REMOTE_IMAGES = True
    html = render_markdown(text)
    assert '<img src="https://tracker.example/pixel.png"' in html
    assert 'referrerpolicy="no-referrer"' in html


def test_an_enabled_remote_image_must_be_https(settings):
    settings.POST_REMOTE_IMAGES = True
    assert "<img" not in render_markdown("![t](http://tracker.example/pixel.png)")


def test_the_content_policy_allows_remote_images_only_when_enabled(client, db):
    policy = client.get("/healthz")["Content-Security-Policy"]
    assert "img-src 'self';" in policy


def test_a_post_with_the_probes_image_stores_no_image(client, alice, lobby):
    client.force_login(alice)
    response = client.post(reverse("messaging-thread-new", args=[lobby.slug]), {
        "kind": Thread.Kind.DISCUSSION, "title": "看图", "body": "\n\n".join(PROBE_IMAGES)})
    assert response.status_code == 302
    assert "<img" not in Post.objects.get().html


@pytest.fixture
def unread_alice(alice, messenger):
    """Alice's conversation with two results she has not seen."""
    conversation = services.conversation_for(owner=alice)
    services.send_as_messenger(conversation=conversation, body="你的结果一")
    services.send_as_messenger(conversation=conversation, body="你的结果二")
    conversation.refresh_from_db()
    assert conversation.owner_unread == 2
    return conversation


@pytest.mark.parametrize("headers", [IMAGE, OLD_BROWSER_IMAGE, FRAME],
                         ids=["image", "old-browser-image", "frame"])
def test_an_embedded_request_leaves_the_unread_count(client, alice, unread_alice, headers):
    client.force_login(alice)
    for url in (HOME, reverse("messaging-conversation", args=[unread_alice.pk])):
        assert client.get(url, **headers).status_code == 200
    unread_alice.refresh_from_db()
    assert unread_alice.owner_unread == 2


@pytest.mark.parametrize("headers", [PAGE, OLD_BROWSER_PAGE], ids=["page", "old-browser-page"])
def test_opening_the_conversation_marks_it_read(client, alice, unread_alice, headers):
    client.force_login(alice)
    assert client.get(HOME, **headers).status_code == 200
    unread_alice.refresh_from_db()
    assert unread_alice.owner_unread == 0


@pytest.fixture
def waiting(alice, messenger):
    conversation = services.conversation_for(owner=alice)
    services.send_to_messenger(conversation=conversation, author=alice, body="请回答")
    return conversation


@pytest.mark.parametrize("headers", [IMAGE, PAGE], ids=["image", "page"])
def test_no_admin_get_clears_a_waiting_flag(client, gm, waiting, headers):
    client.force_login(gm)
    for url in (reverse("admin:messaging_conversation_change", args=[waiting.pk]),
                reverse("admin:messaging_conversation_changelist"),
                reverse("admin:messaging_conversation_changelist") + "?waiting=yes"):
        assert client.get(url, **headers).status_code == 200
    waiting.refresh_from_db()
    assert waiting.staff_unread == 1


def test_the_gm_marks_a_conversation_read_by_saving_with_the_box_ticked(client, gm, waiting):
    client.force_login(gm)
    url = reverse("admin:messaging_conversation_change", args=[waiting.pk])
    assert client.post(url, {"answer": "", "_continue": "1"}).status_code == 302
    waiting.refresh_from_db()
    assert waiting.staff_unread == 1  # saving without the box changes nothing
    assert client.post(url, {"answer": "", "mark_as_read": "on",
                             "_continue": "1"}).status_code == 302
    waiting.refresh_from_db()
    assert waiting.staff_unread == 0 and waiting.messages.count() == 1


@pytest.mark.parametrize(("method", "headers", "expected"), [
    ("get", PAGE, True),
    ("get", OLD_BROWSER_PAGE, True),
    ("get", {}, True),  # no Accept at all: not a browser's sub-resource load
    ("get", IMAGE, False),
    ("get", OLD_BROWSER_IMAGE, False),
    ("get", FRAME, False),
    ("get", {"HTTP_SEC_FETCH_MODE": "cors", "HTTP_SEC_FETCH_DEST": "empty"}, False),
    ("get", {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_ACCEPT": "text/html"}, False),
    ("get", dict(PAGE, HTTP_SEC_PURPOSE="prefetch;prerender"), False),
    ("get", dict(OLD_BROWSER_PAGE, HTTP_PURPOSE="prefetch"), False),
    ("head", PAGE, False),
    ("post", IMAGE, True),
])
def test_is_page_navigation(method, headers, expected):
    request = getattr(RequestFactory(), method)("/messenger/", **headers)
    assert is_page_navigation(request) is expected
