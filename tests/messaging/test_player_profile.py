"""The public player profile: display name, member since, and the forum's section (post
count, latest posts) counting only what the viewer may read."""

from __future__ import annotations

import pytest
from django.urls import reverse

from messaging import services

pytestmark = pytest.mark.django_db


def _url(user):
    return reverse("profile-public", args=[user.pk])


def test_the_profile_shows_the_name_join_date_and_post_count(client, discussion, alice, bob):
    services.reply(thread=discussion, author=alice, body="第二帖")
    response = client.get(_url(alice))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="profile-name">阿丽<' in html
    assert "Member since" in html
    assert 'id="post-count">2 posts<' in html
    assert discussion.title in html


def test_gm_only_posts_are_not_counted_for_players(client, lobby, gm, alice):
    services.start_thread(board=lobby, author=gm, kind="gm_only", title="秘密", body="x")
    client.force_login(alice)
    html = client.get(_url(gm)).content.decode()
    assert 'id="post-count">0 posts<' in html and "秘密" not in html
    client.force_login(gm)
    assert 'id="post-count">1 post<' in client.get(_url(gm)).content.decode()


def test_unknown_users_and_the_messenger_have_no_profile(client, messenger):
    assert client.get(reverse("profile-public", args=[999_999])).status_code == 404
    assert client.get(_url(messenger)).status_code == 404


def test_the_page_shows_each_section_the_composition_names(client, alice, monkeypatch):
    """web.profiles.SECTIONS, in order: a section that answers None shows nothing."""
    from web import profiles

    def section(request, user):
        return "messaging/_profile_forum.html", {"post_count": 4242, "recent": [],
                                                 "person": user}

    monkeypatch.setattr(profiles, "SECTIONS", (section, lambda request, user: None))
    html = client.get(_url(alice)).content.decode()
    assert "4242 posts" in html
    assert html.count('id="post-count"') == 1


@pytest.mark.parametrize("posts", [2, 60])
def test_profile_query_budget_does_not_grow_with_posts(
        client, lobby, alice, bob, make_thread_with_posts, posts, django_assert_num_queries):
    make_thread_with_posts(lobby, alice, posts)
    client.force_login(bob)
    client.get(_url(alice))
    # session, viewer with profile, the person with profile, latest posts, post count,
    # the header's badges; + the games section (games.selectors.player_record: four for
    # a user who played no finished game, six otherwise)
    with django_assert_num_queries(6 + 4):
        response = client.get(_url(alice))
    assert f"{posts} posts" in response.content.decode()
