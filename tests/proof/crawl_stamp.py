"""When the leak crawl at every phase runs (tests/proof/test_leak_crawler.py, "full").

The suite crawls a few chosen moments of each game on every run. The crawl at every phase,
with every seat and every id, takes minutes: it runs when asked (`make crawl`, which sets
CRAWL=full) and whenever the files that shape pages differ from those it last passed on.
Each full crawl records the digest it passed on (`passed`), and `make crawl` then writes
the digest to `full_crawl.stamp` (`python -m tests.proof.crawl_stamp`, which refuses unless
both crawls passed on the files as they are); the stamp is committed, so a change to a page whose
author did not run `make crawl` is crawled in full by the suite (in CI too) until someone
does. Standard library only: the Makefile runs it without Django.
"""

from __future__ import annotations

import hashlib
import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
STAMP = pathlib.Path(__file__).with_name("full_crawl.stamp")

# What a viewer's pages are made of, found from the code rather than listed by hand:
# 1. the entry points: every URL configuration, the admin modules (their pages are served
#    through admin.site.urls), the template tags and context processors (the templates load
#    them by name, not by import), the middleware and the apps' ready() (which hand other
#    apps the parts of their pages);
# 2. every project module an entry point imports, and what those import, to the end: the
#    views, and the reads, rules and sentences behind them (the engine's views decide what a
#    seat may know, the presenters what it reads);
# 3. the templates, and the crawler itself.
ENTRY_GLOBS = ("*/urls.py", "*/*_urls.py", "*/admin.py", "*/admin/*.py",
               "*/templatetags/*.py", "*/context_processors.py", "*/middleware.py",
               "*/apps.py")
ALWAYS = ("templates/", "tests/proof/crawl.py", "tests/proof/test_leak_crawler.py")
SUFFIXES = (".py", ".html", ".txt", ".xml", ".json")
# Where each full crawl test records the digest it passed on (`passed`), for `main`.
PASSED_DIR = ROOT / "var" / "crawl-passed"
FULL_CRAWLS = ("ninelives", "classic")


def _graph(root: pathlib.Path) -> tuple[dict[str, set[str]], dict[str, pathlib.Path]]:
    from scripts.code_graph import APPS, import_graph, module_name

    files = sorted(p for app in APPS if (root / app).is_dir() for p in (root / app).rglob("*.py")
                   if "migrations" not in p.parts and "__pycache__" not in p.parts)
    return import_graph(files, root), {module_name(p, root): p for p in files}


def page_modules(root: pathlib.Path = ROOT) -> set[str]:
    """The project modules that shape pages (the comment above: the entry points and all
    they import)."""
    from scripts.code_graph import module_name

    graph, paths = _graph(root)
    todo = [name for pattern in ENTRY_GLOBS for p in root.glob(pattern)
            if (name := module_name(p, root)) in paths]
    found = set(todo)
    while todo:
        for dep in graph.get(todo.pop(), ()):
            if dep in paths and dep not in found:
                found.add(dep)
                todo.append(dep)
    return found


def page_files(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    _unused, paths = _graph(root)
    out = [paths[name] for name in page_modules(root)]
    for entry in ALWAYS:
        path = root / entry
        if entry.endswith("/"):
            out += [p for p in path.rglob("*") if p.is_file() and p.suffix in SUFFIXES
                    and "__pycache__" not in p.parts]
        elif path.is_file():
            out.append(path)
    return sorted(set(out))


def digest(root: pathlib.Path = ROOT) -> str:
    """SHA-256 over each page file's path and bytes, in path order."""
    h = hashlib.sha256()
    for path in page_files(root):
        data = path.read_bytes()
        h.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def recorded(stamp: pathlib.Path = STAMP) -> str | None:
    """The digest the last passing full crawl wrote, or None."""
    if not stamp.exists():
        return None
    lines = [s.strip() for s in stamp.read_text().splitlines()]
    return next((s for s in lines if s and not s.startswith("#")), None)


def full_crawl_due(root: pathlib.Path = ROOT, stamp: pathlib.Path = STAMP) -> str | None:
    """Why the full crawl must run now, or None when it need not."""
    if os.environ.get("CRAWL") == "full":
        return "asked for (CRAWL=full, make crawl)"
    if recorded(stamp) != digest(root):
        return "the files that shape pages changed since the last full crawl (make crawl)"
    return None


def write(root: pathlib.Path = ROOT, stamp: pathlib.Path = STAMP) -> str:
    value = digest(root)
    stamp.write_text("# The digest of the files that shape pages (tests/proof/crawl_stamp.py)"
                     " when the full\n# leak crawl last passed; written by `make crawl`.\n"
                     f"{value}\n")
    return value


def passed(crawl: str, value: str, folder: pathlib.Path = PASSED_DIR) -> None:
    """Record that the full crawl `crawl` passed on the page files whose digest was `value`
    when it began (called by the crawl test itself, at its end)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{crawl}.digest").write_text(value + "\n")


def stamp_refusal(root: pathlib.Path = ROOT, folder: pathlib.Path = PASSED_DIR) -> str | None:
    """Why the stamp may not be written now, or None: every full crawl must have passed, on
    the page files as they are now."""
    value = digest(root)
    for crawl in FULL_CRAWLS:
        record = folder / f"{crawl}.digest"
        if not record.exists():
            return f"the full {crawl} crawl has not passed here: run `make crawl`"
        if record.read_text().strip() != value:
            return (f"the page files changed since the full {crawl} crawl passed: "
                    "run `make crawl` again")
    return None


def main() -> int:
    refusal = stamp_refusal()
    if refusal:
        print(f"{STAMP.relative_to(ROOT)} not written: {refusal}")
        return 1
    print(f"{STAMP.relative_to(ROOT)}: {write()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
