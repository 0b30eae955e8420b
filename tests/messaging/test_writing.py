"""Writing: the preview (the post's own renderer), bare URLs turned into links, and
moderator edits shown on the post with the earlier text kept for staff."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services
from messaging.models import Notification, PostRevision, PostSearch
from messaging.services import PostingRefused

pytestmark = pytest.mark.django_db
PREVIEW = reverse("messaging-preview")


def _say(thread, author, body):
    return services.reply(thread=thread, author=author, body=body, enforce_rate_limit=False)


def test_the_preview_is_the_html_the_post_gets(client, discussion, alice, bob):
    body = "**投** @阿博 见 https://example.com/rules页面 <script>x</script>"
    client.force_login(alice)
    response = client.post(PREVIEW, {"body": body})
    assert response.status_code == 200
    post = _say(discussion, alice, body)
    assert response.content.decode() == post.html
    assert Notification.objects.filter(user=bob).count() == 1  # the post's, not the preview's


@pytest.mark.parametrize(("body", "message"), [("  ", "Write something before posting."),
                                               ("x" * 20_001, "limited to 20000")])
def test_a_refused_preview_is_a_400_with_the_reason(client, alice, body, message):
    client.force_login(alice)
    response = client.post(PREVIEW, {"body": body})
    assert response.status_code == 400 and message in response.content.decode()


def test_the_preview_needs_a_signed_in_post(client, alice):
    assert client.post(PREVIEW, {"body": "x"}).status_code == 302
    client.force_login(alice)
    assert client.get(PREVIEW).status_code == 405


def test_reply_and_new_thread_forms_offer_the_preview(client, discussion, lobby, alice):
    client.force_login(alice)
    for url in (discussion.get_absolute_url(), reverse("messaging-thread-new", args=[lobby.slug])):
        html = client.get(url).content.decode()
        assert f'data-preview-url="{PREVIEW}"' in html and "/static/js/forum.js" in html


@pytest.mark.parametrize(("body", "link"), [
    ("规则在 https://example.com/rules 请看", '<a href="https://example.com/rules"'),
    ("见https://example.com/a页面，好的", '<a href="https://example.com/a"'),
    ("www.example.com。", '<a href="http://www.example.com"'),
])
def test_bare_urls_become_links_ending_at_chinese_text(discussion, alice, body, link):
    html = _say(discussion, alice, body).html
    assert link in html and 'rel="nofollow noopener"' in html


@pytest.mark.parametrize("body", ["`https://example.com`", "javascript:alert(1)",
                                  "data:text/html,hi"])
def test_urls_in_code_and_unsafe_schemes_are_not_linked(discussion, alice, body):
    assert "<a " not in _say(discussion, alice, body).html


def test_messages_to_the_messenger_link_urls_too(alice):
    conversation = services.conversation_for(owner=alice)
    message = services.send_to_messenger(conversation=conversation, author=alice,
                                         body="截图 https://example.com/x.png")
    assert '<a href="https://example.com/x.png"' in message.html


def test_a_moderator_edit_keeps_the_earlier_text_and_is_shown(client, discussion, alice, gm,
                                                              committed):
    with committed():
        post = _say(discussion, alice, "我是预言家")
    assert "预言家" in PostSearch.objects.get(post=post).text
    with committed():
        services.edit_post(post=post, editor=gm, body="（已删除人身攻击）")
    post.refresh_from_db()
    assert post.body == "（已删除人身攻击）" and post.edited_by == gm
    revision = PostRevision.objects.get(post=post)
    assert (revision.body, revision.edited_by) == ("我是预言家", gm)
    # The search row follows the edit (written once the edit has committed).
    text = PostSearch.objects.get(post=post).text
    assert "已删除人身攻击" in text and "预言家" not in text
    from accounts.models import Profile

    Profile.objects.filter(user=alice).update(language="zh-hans")
    client.force_login(alice)
    html = client.get(discussion.get_absolute_url()).content.decode()
    assert "由天神编辑于" in html and "我是预言家" not in html


def test_only_staff_edit_posts_and_nothing_changes_otherwise(discussion, alice):
    post = discussion.posts.get()
    with pytest.raises(PostingRefused):
        services.edit_post(post=post, editor=alice, body="改口")
    post.refresh_from_db()
    assert post.body == "第一帖" and not PostRevision.objects.exists()


def test_an_edit_that_changes_nothing_stores_nothing(discussion, gm):
    services.edit_post(post=discussion.posts.get(), editor=gm, body="第一帖")
    assert not PostRevision.objects.exists()


def test_the_edit_page_and_history_are_for_staff_only(client, discussion, alice, gm):
    post = discussion.posts.get()
    edit = reverse("messaging-post-edit", args=[post.pk])
    history = reverse("messaging-post-revisions", args=[post.pk])
    client.force_login(alice)
    assert client.get(edit).status_code == 404
    assert client.post(edit, {"body": "改"}).status_code == 404
    assert client.get(history).status_code == 404
    client.force_login(gm)
    assert client.post(edit, {"body": "整理后的第一帖"}).status_code == 302
    page = client.get(history).content.decode()
    assert "第一帖" in page and "整理后的第一帖" in page
    assert client.post(edit, {"body": "  "}).status_code == 400


def test_an_edit_in_the_admin_goes_through_the_service(client, discussion, gm):
    post = discussion.posts.get()
    client.force_login(gm)
    url = reverse("admin:messaging_post_change", args=[post.pk])
    response = client.post(url, {"body": "管理员改过"})
    assert response.status_code == 302, response.content.decode()[:2000]
    post.refresh_from_db()
    assert post.body == "管理员改过" and post.edited_by == gm
    assert PostRevision.objects.get(post=post).body == "第一帖"


@pytest.mark.parametrize("edits", [1, 12])
def test_the_history_page_query_budget_does_not_grow_with_edits(
        client, discussion, gm, edits, django_assert_num_queries):
    post = discussion.posts.get()
    for i in range(edits):
        services.edit_post(post=post, editor=gm, body=f"第{i}版")
    client.force_login(gm)
    url = reverse("messaging-post-revisions", args=[post.pk])
    client.get(url)
    # session, user with profile, the post with thread/board/authors, the revisions with
    # their editors, the header's badges, and which boards the GM governs (the edit check
    # and the header's count: one query each)
    with django_assert_num_queries(7):
        response = client.get(url)
    assert response.content.decode().count('class="post card revision"') == edits
