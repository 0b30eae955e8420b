"""Drafts of the reply and new-thread boxes (messaging/drafts.py): kept on the server per
user and box, rendered into the owner's own page only, surviving a quote (with or without
script), a reload and a refused post, gone after a successful post; quotes written into the
text notify the quoted authors. Every test here fails on the code before drafts existed (no
draft address, no quote address, ?quote= set a hidden field and kept nothing)."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from messaging import drafts, services
from messaging.models import MAX_BODY_LENGTH, Board, Draft, Notification, Post, Thread

pytestmark = pytest.mark.django_db

LONG = "我的分析：三号昨晚的发言前后矛盾。" * 40  # a long reply, as players write them


def _draft_url(thread):
    return reverse("messaging-draft", args=[thread.pk])


def _save(client, thread, body, **extra):
    return client.post(_draft_url(thread), {"body": body, "js": "1", **extra})


def _box(page: str) -> str:
    """The reply (or new-thread) box's text as the page renders it."""
    match = re.search(r'<textarea name="body"[^>]*>(.*?)</textarea>', page, re.S)
    assert match, "the page has a text box"
    return html.unescape(match.group(1)).lstrip("\n")


@pytest.fixture
def other_device(alice):
    """A second browser of 阿丽 (another session)."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(alice)
    return client


def test_a_saved_reply_draft_fills_the_box_on_another_device(
    client, discussion, alice, other_device
):
    client.force_login(alice)
    response = _save(client, discussion, LONG)
    assert response.status_code == 200
    assert json.loads(response.content)["saved"] > 0
    page = other_device.get(discussion.get_absolute_url()).content.decode()
    assert _box(page) == LONG
    assert f'data-draft-key="forum-draft:u{alice.pk}:t{discussion.pk}"' in page


def test_a_draft_never_reaches_another_reader_nor_a_page_kept_for_anonymous_readers(
    client, discussion, alice, bob
):
    client.force_login(alice)
    _save(client, discussion, "只给自己看的草稿")
    assert "只给自己看的草稿" in client.get(discussion.get_absolute_url()).content.decode()
    client.logout()
    for _ in range(2):  # the second answer comes from the kept page
        assert "只给自己看的草稿" not in client.get(discussion.get_absolute_url()).content.decode()
    client.force_login(bob)
    page = client.get(discussion.get_absolute_url()).content.decode()
    assert "只给自己看的草稿" not in page and _box(page) == ""


def test_the_quote_button_without_script_keeps_the_text_and_adds_the_quote(
    client, discussion, alice, bob
):
    """The quote button posts the reply form to the draft address: what was written stays,
    the quote comes after it, and the page opens again at the box."""
    first = discussion.posts.get()
    client.force_login(bob)
    response = client.post(
        f"{_draft_url(discussion)}?page=1&quote={first.pk}", {"body": LONG, "quote": ""}
    )
    assert response.status_code == 302
    assert response["Location"] == f"{discussion.get_absolute_url()}?page=1#reply"
    box = _box(client.get(response["Location"]).content.decode())
    assert box.startswith(LONG)
    assert f"> [阿丽 wrote in #1:](/p/{first.pk}/)\n> 第一帖" in box
    # A second quote (multi-quote) keeps both.
    reply = services.reply(thread=discussion, author=alice, body="第二帖", enforce_rate_limit=False)
    client.post(f"{_draft_url(discussion)}?quote={reply.pk}", {"body": box})
    box = _box(client.get(discussion.get_absolute_url()).content.decode())
    assert box.startswith(LONG) and f"(/p/{first.pk}/)" in box and f"(/p/{reply.pk}/)" in box


def test_a_quote_link_adds_the_quote_after_the_server_draft_and_writes_nothing(
    client, discussion, bob
):
    first = discussion.posts.get()
    client.force_login(bob)
    _save(client, discussion, "写了一半")
    saved = Draft.objects.get(user=bob).updated_at
    box = _box(client.get(f"{discussion.get_absolute_url()}?quote={first.pk}").content.decode())
    assert box.startswith("写了一半\n\n> [阿丽 wrote in #1:]")
    assert Draft.objects.get(user=bob).updated_at == saved, "a GET keeps nothing"


def test_the_quote_address_gives_the_text_to_readers_only(client, lobby, alice, bob, gm):
    gm_thread = services.start_thread(
        board=lobby,
        author=gm,
        kind=Thread.Kind.GM_ONLY,
        title="天神之间",
        body="> 旧的引用\n\n只有天神看得到",
    )
    post = gm_thread.posts.get()
    client.force_login(bob)
    assert client.get(reverse("messaging-post-quote", args=[post.pk])).status_code == 404
    client.force_login(gm)
    quote = json.loads(client.get(reverse("messaging-post-quote", args=[post.pk])).content)
    assert quote["markdown"].endswith("> 只有天神看得到\n\n")
    assert "旧的引用" not in quote["markdown"], "a quote of a quote repeats nothing"
    assert quote["header"] == f"> [天神甲 wrote in #1:](/p/{post.pk}/)"


def test_a_long_post_is_quoted_cut(alice, discussion):
    post = services.reply(
        thread=discussion, author=alice, body="长" * 5000, enforce_rate_limit=False
    )
    text = drafts.quote_markdown(post, "阿丽")
    assert text.count("长") == drafts.MAX_QUOTE_LENGTH and "…" in text


def test_a_refused_reply_stays_in_the_box_and_on_the_server(client, discussion, bob, other_device):
    client.force_login(bob)
    too_long = "字" * (MAX_BODY_LENGTH + 10)
    response = client.post(reverse("messaging-reply", args=[discussion.pk]), {"body": too_long})
    assert response.status_code == 400
    assert _box(response.content.decode()) == too_long
    assert Draft.objects.get(user=bob, thread=discussion).body == too_long
    assert _box(client.get(discussion.get_absolute_url()).content.decode()) == too_long


def test_a_posted_reply_deletes_the_draft_and_names_the_box_for_the_script(client, discussion, bob):
    client.force_login(bob)
    _save(client, discussion, "终于写完了")
    response = client.post(
        reverse("messaging-reply", args=[discussion.pk]), {"body": "终于写完了"}, follow=True
    )
    page = response.content.decode()
    assert not Draft.objects.filter(user=bob).exists()
    assert f"draft-posted draft-u{bob.pk}-t{discussion.pk}" in page
    assert _box(page) == ""
    assert _box(client.get(discussion.get_absolute_url()).content.decode()) == ""


def test_quotes_written_into_the_text_notify_each_quoted_author(discussion, alice, bob, make_user):
    carol = make_user("小卡")
    mine = services.reply(thread=discussion, author=bob, body="我是好人", enforce_rate_limit=False)
    first = discussion.posts.get(number=1)
    body = (
        drafts.quote_markdown(first, "阿丽")
        + drafts.quote_markdown(mine, "阿博")
        + "你们两个都可疑。"
    )
    services.reply(thread=discussion, author=carol, body=body, enforce_rate_limit=False)
    kinds = dict(Notification.objects.filter(actor=carol).values_list("user_id", "kind"))
    assert kinds == {alice.pk: "quote", bob.pk: "quote"}


def test_a_quote_header_of_another_thread_notifies_nobody(lobby, discussion, alice, bob, make_user):
    other = services.start_thread(
        board=lobby, author=bob, kind=Thread.Kind.DISCUSSION, title="别处", body="别处的话"
    )
    carol = make_user("小卡")
    services.reply(
        thread=discussion,
        author=carol,
        enforce_rate_limit=False,
        body=drafts.quote_markdown(other.posts.get(), "阿博") + "嗯",
    )
    assert not Notification.objects.filter(user=bob).exists()


def test_an_empty_draft_deletes_it(client, discussion, bob):
    client.force_login(bob)
    _save(client, discussion, "一点")
    assert json.loads(_save(client, discussion, "   ").content) == {"saved": 0}
    assert not Draft.objects.exists()


def test_a_draft_too_long_is_refused_and_changes_nothing(client, discussion, bob):
    client.force_login(bob)
    _save(client, discussion, "原来的")
    response = _save(client, discussion, "长" * (drafts.MAX_DRAFT_LENGTH + 1))
    assert response.status_code == 413
    assert "characters" in json.loads(response.content)["error"]
    assert Draft.objects.get().body == "原来的"


def test_draft_saves_are_rate_limited(client, discussion, bob, one_rate_window):
    client.force_login(bob)
    for n in range(drafts.SAVES_PER_MINUTE):
        assert _save(client, discussion, f"第{n}稿").status_code == 200
    response = _save(client, discussion, "太快了")
    assert response.status_code == 429 and int(response["Retry-After"]) >= 1
    assert Draft.objects.get().body == f"第{drafts.SAVES_PER_MINUTE - 1}稿"


def test_a_draft_save_needs_the_csrf_token_and_a_sign_in(discussion, bob):
    checking = Client(enforce_csrf_checks=True)
    checking.force_login(bob)
    assert _save(checking, discussion, "伪造").status_code == 403
    anonymous = Client()
    assert _save(anonymous, discussion, "匿名").status_code == 302  # to the sign-in page
    assert not Draft.objects.exists()


def test_a_thread_the_user_may_not_read_has_no_draft(client, lobby, gm, bob):
    hidden = services.start_thread(
        board=lobby, author=gm, kind=Thread.Kind.GM_ONLY, title="天神之间", body="秘密"
    )
    client.force_login(bob)
    assert _save(client, hidden, "偷看").status_code == 404
    assert (
        client.get(f"{reverse('messaging-post-quote', args=[hidden.posts.get().pk])}").status_code
        == 404
    )
    assert not Draft.objects.exists()


def test_a_user_keeps_at_most_so_many_drafts(discussion, bob, lobby, monkeypatch):
    monkeypatch.setattr(drafts, "MAX_DRAFTS_PER_USER", 3)
    threads = [
        services.start_thread(
            board=lobby,
            author=bob,
            kind=Thread.Kind.DISCUSSION,
            title=f"第{n}",
            body="x",
            enforce_rate_limit=False,
        )
        for n in range(4)
    ]
    for thread in threads:
        drafts.save(user=bob, thread=thread, body="草稿", count=False)
    assert set(Draft.objects.values_list("thread_id", flat=True)) == {t.pk for t in threads[1:]}


def test_the_new_thread_box_keeps_its_draft_and_loses_it_once_posted(
    client, lobby, alice, other_device
):
    client.force_login(alice)
    url = reverse("messaging-draft-board", args=[lobby.slug])
    assert (
        client.post(
            url, {"js": "1", "kind": "discussion", "title": "第三天的票型", "body": LONG}
        ).status_code
        == 200
    )
    page = other_device.get(reverse("messaging-thread-new", args=[lobby.slug])).content.decode()
    assert _box(page) == LONG and 'value="第三天的票型"' in page
    # Refused (no title): the box and the server copy keep the text.
    response = client.post(
        reverse("messaging-thread-new", args=[lobby.slug]),
        {"kind": "discussion", "title": "", "body": LONG + "补充"},
    )
    assert response.status_code == 400 and _box(response.content.decode()) == LONG + "补充"
    assert Draft.objects.get(board=lobby).body == LONG + "补充"
    response = client.post(
        reverse("messaging-thread-new", args=[lobby.slug]),
        {"kind": "discussion", "title": "第三天的票型", "body": LONG},
        follow=True,
    )
    assert f"draft-posted draft-u{alice.pk}-b{lobby.pk}" in response.content.decode()
    assert not Draft.objects.exists()
    page = other_device.get(reverse("messaging-thread-new", args=[lobby.slug])).content.decode()
    assert _box(page) == ""


def test_a_draft_is_one_row_per_user_and_box(discussion, lobby, bob):
    drafts.save(user=bob, thread=discussion, body="一", count=False)
    drafts.save(user=bob, thread=discussion, body="二", count=False)
    drafts.save(user=bob, board=lobby, body="三", title="题", count=False)
    assert sorted(Draft.objects.values_list("body", flat=True)) == ["三", "二"]
    assert Board.objects.count() == 1 and Post.objects.count() == 1
