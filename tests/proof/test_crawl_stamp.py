"""When the suite runs the full leak crawl (tests/proof/crawl_stamp.py): when asked
(CRAWL=full, as `make crawl` does) or when the files that shape pages differ from those the
last passing full crawl stamped; a change elsewhere does not count. The files are found
from the code (the URL configurations and what they import, to the end), and the stamp is
written only after both full crawls passed on the files as they are."""

from __future__ import annotations

from tests.proof import crawl_stamp


def tree(tmp_path):
    """A small project: games/urls.py imports a view, which imports a selector; the engine's
    tool nobody imports, and a management command, shape no page."""
    for folder in ("templates/games", "games/web", "games/selectors", "games/engine",
                   "games/management"):
        (tmp_path / folder).mkdir(parents=True)
    for package in ("games", "games/web", "games/selectors", "games/engine"):
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "templates" / "games" / "home.html").write_text("<p>{{ game.name }}</p>")
    (tmp_path / "games" / "urls.py").write_text("from .web import play\n")
    (tmp_path / "games" / "web" / "play.py").write_text(
        "from games.selectors.views import view_for\ndef act(request): ...\n")
    (tmp_path / "games" / "selectors" / "views.py").write_text(
        "from games.engine import rules\ndef view_for(game, user): ...\n")
    (tmp_path / "games" / "engine" / "rules.py").write_text("RULES = 1\n")
    (tmp_path / "games" / "engine" / "bench.py").write_text("TRIES = 1\n")
    (tmp_path / "games" / "management" / "simulate.py").write_text("N = 1\n")
    return tmp_path


def test_the_full_crawl_runs_until_a_stamp_matches_the_pages(tmp_path, monkeypatch):
    monkeypatch.delenv("CRAWL", raising=False)
    root, stamp = tree(tmp_path), tmp_path / "full_crawl.stamp"
    assert crawl_stamp.full_crawl_due(root, stamp)  # never stamped
    crawl_stamp.write(root, stamp)
    assert crawl_stamp.recorded(stamp) == crawl_stamp.digest(root)
    assert crawl_stamp.full_crawl_due(root, stamp) is None
    for path, text in (("games/engine/bench.py", "TRIES = 2\n"),  # imported by no page
                       ("games/management/simulate.py", "N = 2\n")):
        (root / path).write_text(text)
        assert crawl_stamp.full_crawl_due(root, stamp) is None, path
    for path, text in (("templates/games/home.html", "<p>{{ game.name }}!</p>"),
                       ("games/web/play.py", "from games.selectors.views import view_for\n"
                        "def act(request): return 1\n"),
                       ("games/selectors/views.py",
                        "from games.engine import rules\ndef view_for(game, user): return 1\n"),
                       ("games/engine/rules.py", "RULES = 2\n")):  # imported by a selector
        crawl_stamp.write(root, stamp)
        (root / path).write_text(text)
        assert crawl_stamp.full_crawl_due(root, stamp), path
    (root / "templates" / "games" / "new.html").write_text("new")  # a new page file counts
    crawl_stamp.write(root, stamp)
    (root / "templates" / "games" / "new.html").unlink()
    assert crawl_stamp.full_crawl_due(root, stamp)


def test_make_crawl_asks_for_it_whatever_the_stamp(tmp_path, monkeypatch):
    root, stamp = tree(tmp_path), tmp_path / "full_crawl.stamp"
    crawl_stamp.write(root, stamp)
    monkeypatch.setenv("CRAWL", "full")
    assert crawl_stamp.full_crawl_due(root, stamp)


def test_the_stamp_is_written_only_after_both_full_crawls_passed_on_these_files(tmp_path):
    root, records = tree(tmp_path), tmp_path / "passed"
    assert "has not passed" in crawl_stamp.stamp_refusal(root, records)
    crawl_stamp.passed("ninelives", crawl_stamp.digest(root), records)
    assert "classic crawl has not passed" in crawl_stamp.stamp_refusal(root, records)
    crawl_stamp.passed("classic", crawl_stamp.digest(root), records)
    assert crawl_stamp.stamp_refusal(root, records) is None
    (root / "games" / "web" / "play.py").write_text("def act(request): return 2\n")
    assert "changed since" in crawl_stamp.stamp_refusal(root, records)


def test_the_stamp_covers_what_the_pages_import():
    files = {p.relative_to(crawl_stamp.ROOT).as_posix() for p in crawl_stamp.page_files()}
    for expected in ("templates/games/act.html", "games/web/play.py", "games/selectors/views.py",
                     "games/presenters/ninelives.py", "messaging/views.py",
                     "messaging/rules.py", "accounts/views.py", "tests/proof/crawl.py",
                     # once missed by a hand list: the search, the forum's admin, the live
                     # view, the unread marks; and the engine's views of a seat
                     "messaging/search.py", "messaging/admin.py", "config/live_view.py",
                     "messaging/unread.py", "games/engine/ninelives/rules.py"):
        assert expected in files, expected
    for elsewhere in ("games/tasks.py", "config/settings.py", "config/devstack.py",
                      "games/management/commands/simulate_ninelives.py"):
        assert elsewhere not in files, elsewhere
    assert not any("__pycache__" in f for f in files)
