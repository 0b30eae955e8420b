"""When the suite runs the full leak crawl (tests/proof/crawl_stamp.py): when asked
(CRAWL=full, as `make crawl` does) or when the files that shape pages differ from those the
last passing full crawl stamped; a change elsewhere does not count."""

from __future__ import annotations

from tests.proof import crawl_stamp


def tree(tmp_path):
    (tmp_path / "templates" / "games").mkdir(parents=True)
    (tmp_path / "templates" / "games" / "home.html").write_text("<p>{{ game.name }}</p>")
    (tmp_path / "games" / "web").mkdir(parents=True)
    (tmp_path / "games" / "web" / "play.py").write_text("def act(request): ...\n")
    (tmp_path / "games" / "selectors").mkdir()
    (tmp_path / "games" / "selectors" / "views.py").write_text("def view_for(game, user): ...\n")
    (tmp_path / "games" / "engine").mkdir()
    (tmp_path / "games" / "engine" / "rules.py").write_text("RULES = 1\n")
    return tmp_path


def test_the_full_crawl_runs_until_a_stamp_matches_the_pages(tmp_path, monkeypatch):
    monkeypatch.delenv("CRAWL", raising=False)
    root, stamp = tree(tmp_path), tmp_path / "full_crawl.stamp"
    assert crawl_stamp.full_crawl_due(root, stamp)  # never stamped
    crawl_stamp.write(root, stamp)
    assert crawl_stamp.recorded(stamp) == crawl_stamp.digest(root)
    assert crawl_stamp.full_crawl_due(root, stamp) is None
    (root / "games" / "engine" / "rules.py").write_text("RULES = 2\n")  # no page file
    assert crawl_stamp.full_crawl_due(root, stamp) is None
    for path, text in (("templates/games/home.html", "<p>{{ game.name }}!</p>"),
                       ("games/web/play.py", "def act(request): return 1\n"),
                       ("games/selectors/views.py", "def view_for(game, user): return 1\n")):
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


def test_the_stamp_lists_the_files_that_shape_pages():
    files = {p.relative_to(crawl_stamp.ROOT).as_posix() for p in crawl_stamp.page_files()}
    for expected in ("templates/games/act.html", "games/web/play.py", "games/selectors/views.py",
                     "games/presenters/ninelives.py", "messaging/views.py",
                     "messaging/rules.py", "accounts/views.py", "tests/proof/crawl.py"):
        assert expected in files
    assert not any(f.startswith("games/engine/") or "__pycache__" in f for f in files)
