#!/usr/bin/env python
"""The forum's new pages at scale: 100,000 posts by 1,000 users in PostgreSQL.

Prints, in one run, the median time of each page against a trivial view (/healthz) served by
the same in-process Django, and the ratios (what to read: absolute numbers depend on the
machine):
  - an ISO page (只看该作者) of a 5,000-post thread,
  - a board list with unread marks (100 threads, some read),
  - search (one, two and four Chinese characters, a rare and a common word, an ASCII word),
    then the search players type (AND of two words, two one-character words, the author
    field by a whole and by part of a name, the profile's "search this player's posts"),
    each also as a ratio against the one-word search of the same run,
  - a player's public profile, and the notifications page;
  - the games side: a profile whose games section lists 50 finished games (of 400, 8 seats
    each, the toy rule set of tests/toy.py), the archive of finished games, and the archive
    filtered by player and rule set;
then the search strategies compared on the same rows (the bigram GIN index used, a plain
LIKE scan, and pg_trgm for three characters or more when the extension is available), with
index sizes. Seeding uses bulk_create and takes about a minute; `--keep` reuses the data.

Uses DATABASE_URL, default postgres://postgres@127.0.0.1:5432/killinggames_bench_forum.

    .venv/bin/python scripts/bench_forum.py [--posts 100000] [--users 1000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL",
                      "postgres://postgres@127.0.0.1:5432/killinggames_bench_forum")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("DEBUG", "false")  # no query log growing in memory

BENCH = "bench-forum"
# Words players write, so search has realistic hits: common ones and rare ones.
COMMON = ["我觉得", "杀手", "平民", "投票", "查杀", "金水", "预言家", "昨晚", "发言", "怀疑",
          "今天", "号", "的", "是", "不", "了", "他", "在", "有", "这"]
RARE = ["防弹衣", "束魂", "狼毒", "反狙击手", "巫医"]
ASCII = ["ok", "lol", "GG", "vote", "fake", "claim"]


def seed(*, posts: int, users: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.utils import timezone
    from django.utils.html import escape

    from accounts.models import Profile
    from accounts.names import canonical_name, name_skeleton
    from messaging import search
    from messaging.models import Board, Notification, Post, PostSearch, Thread, ThreadReadState

    rng = random.Random(15)
    User = get_user_model()
    t0 = time.perf_counter()
    people = User.objects.bulk_create(
        [User(username=f"{BENCH}-{i}", password="!", email=f"b{i}@example.com")
         for i in range(users)], batch_size=2000)
    Profile.objects.bulk_create(
        [Profile(user=u, display_name=f"玩家{i}", display_key=canonical_name(f"玩家{i}"),
                 name_skeleton=name_skeleton(f"玩家{i}"))
         for i, u in enumerate(people)], batch_size=2000)
    boards = Board.objects.bulk_create(
        [Board(slug=f"{BENCH}-{i}", title=f"第{i}局", kind=Board.Kind.GAME) for i in range(20)])
    # One big thread for ISO (5% of the posts), the rest spread over 100 threads per board.
    threads = Thread.objects.bulk_create(
        [Thread(board=boards[0], title="第一天大讨论", author=people[0], kind="discussion")]
        + [Thread(board=b, title=f"{rng.choice(COMMON)}{rng.choice(COMMON)}分析 {i}",
                  author=rng.choice(people), kind="discussion")
           for b in boards for i in range(100)], batch_size=2000)
    big, rest = threads[0], threads[1:]
    numbers: dict[int, int] = {}
    batch = []
    now = timezone.now()

    def text() -> str:
        # One post in a hundred is a long analysis (~2,000 characters), where the excerpt
        # has to find its hit far from the start.
        length = rng.randint(500, 700) if rng.random() < 0.01 else rng.randint(8, 40)
        words = [rng.choice(COMMON) for _ in range(length)]
        if rng.random() < 0.02:
            words.insert(rng.randrange(len(words)), rng.choice(RARE))
        if rng.random() < 0.2:
            words.insert(rng.randrange(len(words)), f" {rng.choice(ASCII)} ")
        return "".join(words)

    def index(made: list) -> None:
        """The posts' search rows (messaging.search), as the services write them."""
        titles = {t.pk: t.title for t in threads}
        rows = []
        for post in made:
            fields = search.fields_for(body=post.body,
                                       title=titles[post.thread_id] if post.number == 1 else "")
            rows.append(PostSearch(post=post, text=fields["search_text"],
                                   terms=fields["search_terms"]))
        PostSearch.objects.bulk_create(rows)

    for i in range(posts):
        thread = big if i < posts // 20 else rng.choice(rest)
        n = numbers[thread.pk] = numbers.get(thread.pk, 0) + 1
        body = text()
        # The renderer's output for plain text (a paragraph), without rendering 100,000 times.
        batch.append(Post(thread=thread, number=n, author=rng.choice(people), body=body,
                          html=f"<p>{escape(body)}</p>", created_at=now))
        if len(batch) == 5000:
            index(Post.objects.bulk_create(batch))
            batch = []
    index(Post.objects.bulk_create(batch))
    with connection.cursor() as c:
        c.execute("""UPDATE messaging_thread t SET last_number = s.n, post_count = s.n,
                     last_post_at = now(), last_post_id = s.last
                     FROM (SELECT thread_id, max(number) n, max(id) last FROM messaging_post
                           GROUP BY thread_id) s WHERE s.thread_id = t.id""")
        c.execute("ANALYZE")
    viewer = people[1]
    board_threads = [t for t in rest if t.board_id == boards[1].pk]
    ThreadReadState.objects.bulk_create(
        [ThreadReadState(user=viewer, thread=t, last_read_number=max(1, numbers.get(t.pk, 1) // 2))
         for t in board_threads[::2]])
    sample = list(Post.objects.filter(thread__board=boards[1]).values_list("pk", "thread_id")[:60])
    Notification.objects.bulk_create(
        [Notification(user=viewer, kind="mention", actor=people[2], post_id=p, thread_id=t)
         for p, t in sample])
    print(f"seeded {users} users, {len(threads)} threads, {posts} posts in "
          f"{time.perf_counter() - t0:.1f} s")
    return {}


GAMES, SEATS, PLAYED = 400, 8, 50


def seed_games(people: list) -> None:
    """GAMES finished toy games of SEATS seats; people[7] plays in PLAYED of them and
    people[8] hosted them all (the toy is registered by main())."""
    from django.utils import timezone

    from games.models import Game, Seat
    from tests.toy import Toy

    rng = random.Random(8)
    engine, now = Toy(), timezone.now()
    games = []
    for i in range(GAMES):
        state = engine.initial_state(seats=SEATS, seed=f"bench-{i}").state
        wolf = state["secret"]["wolf"]
        won = rng.random() < 0.5
        games.append(Game(
            name=f"{BENCH}-game-{i}", ruleset="toy", status=Game.Status.FINISHED,
            gm=people[8], seat_count=SEATS, state=state, started_at=now, finished_at=now,
            outcome={"result": "wolf" if won else "village",
                     "winners": [wolf] if won else [n for n in range(SEATS) if n != wolf],
                     "summary": "The wolf is dead." if not won else "The wolf outlived "
                     "the village."}))
    games = Game.objects.bulk_create(games, batch_size=500)
    seats = []
    for i, game in enumerate(games):
        chosen = rng.sample([p for p in people if p.pk != people[7].pk], SEATS)
        if i < PLAYED:
            chosen[i % SEATS] = people[7]
        seats += [Seat(game=game, number=n, user=u) for n, u in enumerate(chosen)]
    Seat.objects.bulk_create(seats, batch_size=2000)
    print(f"seeded {GAMES} finished games of {SEATS} seats")


def bench_search(client, repeat: int) -> None:
    """The search as players type it, against two baselines measured in the same rounds:
    the trivial view and the one-word search (杀手, the page before words were combined).
    Each result page also builds its excerpts and marks, so their cost is in the figures."""
    from django.contrib.auth import get_user_model
    from django.db.models import Count

    from messaging.models import Post

    # The most prolific of 玩家100..玩家999, whose name less its first character (家NNN) is
    # held by that name alone.
    prolific = (Post.objects.filter(author__username__startswith=BENCH,
                                    author__profile__display_name__regex=r"^玩家[0-9]{3}$")
                .values("author_id").annotate(n=Count("id")).order_by("-n").first())
    author = get_user_model().objects.select_related("profile").get(pk=prolific["author_id"])
    name = author.profile.display_name
    part = name[1:]
    pages = [
        ("trivial view (/healthz)", "/healthz", {}),
        ("baseline: one word (杀手)", "/search/", {"q": "杀手"}),
        ("AND, two words (狼毒 金水)", "/search/", {"q": "狼毒 金水"}),
        ("AND, two common words (杀手 金水)", "/search/", {"q": "杀手 金水"}),
        ("AND, no post holds both (狼毒 龙卷风)", "/search/", {"q": "狼毒 龙卷风"}),
        ("two 1-char words, common (号 他)", "/search/", {"q": "号 他"}),
        ("1-char words, one rare (毒 号)", "/search/", {"q": "毒 号"}),
        ("1-char word (号)", "/search/", {"q": "号"}),
        ("author by name + word", "/search/", {"q": "金水", "by": name}),
        ("author by part of a name + word", "/search/", {"q": "金水", "by": part}),
        ("author + rare word (狼毒)", "/search/", {"q": "狼毒", "by": name}),
        ("author only (profile link)", "/search/", {"author": author.pk}),
        ("author only, page 5", "/search/", {"author": author.pk, "page": 5}),
    ]
    samples: dict[str, list[float]] = {label: [] for label, _url, _q in pages}
    for round_ in range(repeat + 1):
        for label, url, params in pages:
            t = time.perf_counter()
            response = client.get(url, params)
            elapsed = time.perf_counter() - t
            assert response.status_code == 200, (label, response.status_code)
            if round_:
                samples[label].append(elapsed)
    trivial = statistics.median(samples[pages[0][0]])
    one_word = statistics.median(samples[pages[1][0]])
    print(f"\nsearch as typed ({name}: {prolific['n']} posts; part of the name: {part})")
    print(f"{'search':36} {'median ms':>10} {'x trivial':>10} {'x 1 word':>9}")
    for label, _url, _q in pages:
        median = statistics.median(samples[label])
        print(f"{label:36} {median * 1000:10.2f} {median / trivial:10.1f} "
              f"{median / one_word:9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="reuse the data of an earlier run")
    args = parser.parse_args()

    from bench_http import ensure_database  # same folder

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from games.models import Game
    from messaging import search
    from messaging.models import Board, Post, Thread
    from tests import toy

    toy.register()  # the archive's games are toy games (tests/toy.py)
    call_command("migrate", verbosity=0)
    User = get_user_model()
    seeded = User.objects.filter(username__startswith=BENCH).count() == args.users
    if not (args.keep and seeded):
        Board.objects.filter(slug__startswith=BENCH).delete()
        User.objects.filter(username__startswith=BENCH).delete()
        seed(posts=args.posts, users=args.users)
    if not (args.keep and Game.objects.filter(name__startswith=BENCH).count() == GAMES):
        Game.objects.filter(name__startswith=BENCH).delete()
        seed_games(list(User.objects.filter(username__startswith=BENCH).order_by("id")))
    viewer = User.objects.get(username=f"{BENCH}-1")
    big = Thread.objects.get(board__slug=f"{BENCH}-0", title="第一天大讨论")
    iso_author = big.posts.values_list("author_id", flat=True).first()
    profile_user = User.objects.get(username=f"{BENCH}-7")  # plays PLAYED finished games
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(viewer)
    nav = {"HTTP_SEC_FETCH_MODE": "navigate", "HTTP_SEC_FETCH_DEST": "document"}

    pages = [
        ("trivial view (/healthz)", "/healthz"),
        ("ISO page, 5,000-post thread", f"/t/{big.pk}/?author={iso_author}"),
        ("ISO page, last page", f"/t/{big.pk}/?author={iso_author}&page=last"),
        ("board list with unread marks", f"/b/{BENCH}-1/"),
        ("search 2 chars, common (杀手)", "/search/?q=杀手"),
        ("search 1 char, common (号)", "/search/?q=号"),
        ("search 2 chars, rare (狼毒)", "/search/?q=狼毒"),
        ("search 4 chars, rare (反狙击手)", "/search/?q=反狙击手"),
        ("search ASCII (claim)", "/search/?q=claim"),
        ("search in one board (查杀)", f"/search/?q=查杀&board={BENCH}-3"),
        ("search no hit (龙卷风)", "/search/?q=龙卷风"),
        ("player profile (+ 50 finished games)", f"/u/{profile_user.pk}/"),
        ("archive of finished games", "/games/archive/"),
        ("archive, one player, one rule set",
         f"/games/archive/?player={profile_user.pk}&ruleset=toy"),
        ("notifications page", "/notifications/"),
    ]
    # Round robin: every page once per round, so a machine that gets busier or quieter
    # during the run moves all of them alike and the ratios hold.
    samples: dict[str, list[float]] = {name: [] for name, _url in pages}
    for _round in range(args.repeat + 1):
        for name, url in pages:
            headers = nav if url.startswith("/t/") else {}
            t = time.perf_counter()
            response = client.get(url, **headers)
            elapsed = time.perf_counter() - t
            assert response.status_code == 200, (url, response.status_code)
            if _round:  # the first round warms caches
                samples[name].append(elapsed)
    base = statistics.median(samples[pages[0][0]])
    print(f"\n{'page':36} {'median ms':>10} {'x trivial':>10}   (median of {args.repeat})")
    for name, _url in pages:
        median = statistics.median(samples[name])
        print(f"{name:36} {median * 1000:10.2f} {median / base:10.1f}")

    bench_search(client, args.repeat)

    print("\nsearch strategies, raw SQL on the posts' search rows (median ms; AND: every "
          "word's LIKE):")
    with connection.cursor() as c:
        c.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_trgm'")
        trgm = c.fetchone()[0] > 0
        if trgm:
            c.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            c.execute("CREATE INDEX IF NOT EXISTS bench_post_trgm ON messaging_postsearch "
                      "USING gin (text gin_trgm_ops)")
            c.execute("ANALYZE messaging_postsearch")

        def sql_time(sql: str, params) -> tuple[float, int]:
            samples, rows = [], 0
            for _ in range(max(5, args.repeat // 3)):
                t = time.perf_counter()
                c.execute(sql, params)
                rows = len(c.fetchall())
                samples.append(time.perf_counter() - t)
            return statistics.median(samples) * 1000, rows

        page = " ORDER BY post_id DESC LIMIT 21"  # one page of results, as the search asks
        print(f"{'query':12} {'bigram GIN':>11} {'LIKE scan':>10} {'pg_trgm':>9} {'rows':>6}")
        for q in ["号", "杀手", "狼毒", "反狙击手", "我觉得杀手", "claim", "龙卷风",
                  "狼毒 金水", "号 他", "毒 号"]:
            words = search.query_words(q)
            likes = ["%" + w + "%" for w in words]
            where = " AND ".join(["text LIKE %s"] * len(words))
            gin, rows = sql_time(
                "SELECT post_id FROM messaging_postsearch WHERE string_to_array(terms, ' ') @> "
                f"%s::text[] AND {where}" + page, [search.query_terms(q), *likes])
            c.execute("SET enable_bitmapscan = off")
            scan, _ = sql_time(f"SELECT post_id FROM messaging_postsearch WHERE {where}" + page,
                               likes)
            c.execute("SET enable_bitmapscan = on")
            tri = sql_time(f"SELECT post_id FROM messaging_postsearch WHERE {where}" + page,
                           likes)[0] if trgm else float("nan")
            c.execute(f"SELECT count(*) FROM messaging_postsearch WHERE {where}", likes)
            hits = c.fetchone()[0]
            print(f"{q:12} {gin:11.2f} {scan:10.2f} {tri:9.2f} {hits:6}")
        c.execute("SELECT pg_size_pretty(pg_relation_size('post_search_terms_gin')), "
                  "pg_size_pretty(pg_relation_size('messaging_postsearch'))")
        gin_size, table_size = c.fetchone()
        trgm_size = "-"
        if trgm:
            c.execute("SELECT pg_size_pretty(pg_relation_size('bench_post_trgm'))")
            trgm_size = c.fetchone()[0]
            c.execute("DROP INDEX bench_post_trgm")
        print(f"sizes: table {table_size}, bigram GIN {gin_size}, pg_trgm GIN {trgm_size}")
    print(f"posts in the database: {Post.objects.count()}")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "scripts"))
    main()
