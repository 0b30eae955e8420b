# Two commands matter: `make run` and `make test`. Both work on a fresh machine with Python 3.11+.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Compiled translations (.mo) are built, not committed (Babel needs no system gettext): by
# `install`, and again by every command below whenever a .po is newer than its .mo.
PO := $(wildcard locale/*/LC_MESSAGES/django.po)
MO := $(PO:.po=.mo)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install messages migrate demo worker bench bench-writes bench-live lint clean ci loadtest services stop-services crawl

# The optional dependencies installed beside the project's: the tests' and the local servers'
# (config/devstack.py). A production deploy takes none: `make install EXTRAS=`.
EXTRAS ?= test,local

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.$(if $(EXTRAS),[$(EXTRAS)])'
	touch $(STAMP)

# The virtualenv and the compiled translations: every deploy runs this (docs/operations.md
# "Deploy"), so a server never mails in the msgids' English.
install: $(STAMP) $(MO)

$(MO): %.mo: %.po $(STAMP)
	$(VENV)/bin/pybabel compile --use-fuzzy -D django -d locale --statistics

messages: $(MO)

# Every command below runs against PostgreSQL and Redis: those DATABASE_URL and REDIS_URL
# name, else the project's own under var/, started here when they are not running
# (config/devstack.py). `make services` starts them and leaves them running;
# `make stop-services` stops them.
STACK := $(PY) -m config.devstack

services: $(STAMP)
	$(STACK) up

stop-services: $(STAMP)
	$(STACK) down

migrate: messages
	$(STACK) exec -- $(PY) manage.py migrate --noinput

demo: migrate
	$(STACK) exec -- $(PY) manage.py load_demo

# The service with a Celery worker and beat beside it, each restarted if it exits; the
# database is migrated and the demo loaded first. Ctrl-C stops everything it started.
# Emails sent go to var/log/worker.log and, for staff, /dev/outbox/.
run: messages
	$(STACK) run --host $(HOST) --port $(PORT)

worker: migrate
	$(STACK) exec -- $(VENV)/bin/celery -A config worker --beat --loglevel=INFO

# The suite in parallel (pytest-xdist): one worker process per core, each with its own test
# database (cloned from one migrated template), cache prefix and Celery queue
# (docs/operations.md "Tests"). PYTEST_WORKERS=0 runs it in this one process; a single test:
# make test PYTEST_ARGS=tests/path.py::test_name PYTEST_WORKERS=0
PYTEST_WORKERS ?= auto
test: messages
	$(STACK) exec --test -- $(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup \
		--durations=25 $(PYTEST_ARGS)

# The leak crawl at every phase, every seat and every id (the suite crawls four moments of each
# game), then the stamp of the files that shape pages it passed on: the suite runs the full
# crawl again only when they differ (tests/proof/crawl_stamp.py; commit the stamp).
crawl: messages
	CRAWL=full $(STACK) exec --test -- $(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup \
		--durations=10 tests/proof/test_leak_crawler.py
	$(PY) -m tests.proof.crawl_stamp

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# What CI runs (.ci/run): Chromium, ruff, then the whole suite against the machine's own
# PostgreSQL and Redis.
ci:
	bash .ci/run

# Read pages against /healthz under gunicorn (docs/operations.md, "Read pages vs a trivial
# view"); options through BENCH_ARGS="--seconds 4". A client that dies or a page that
# answers an error stops it, non-zero; it always stops its gunicorn (Ctrl-C included:
# `exec` waits for its cleanup).
bench: migrate
	$(STACK) exec -- $(PY) scripts/bench_http.py $(BENCH_ARGS)

# Replies to one busy thread, 20 posters at 20 replies/s for 60 s, under gunicorn: p50, p99
# and their ratio (docs/operations.md, "Replies under a steady stream"). The machine's own
# PostgreSQL and Redis (DATABASE_URL and REDIS_URL override them); options through
# BENCH_ARGS="--variants as-is,fastupdate-off --rounds 2".
bench-writes: messages
	$(PY) scripts/bench_replies.py $(BENCH_ARGS)

# Live pages: 1,000 idle /live/ streams (the live server's memory, the other pages' p99 with
# and without them, one event to all), commit-to-event delivery for 200 replies and 50 phase
# changes, then bench_http's read-page ratios (docs/operations.md, "Live pages"). The
# machine's own PostgreSQL and Redis; options through BENCH_ARGS="--pages 500 --no-http".
bench-live: messages
	$(PY) scripts/bench_live.py $(BENCH_ARGS)

# 5 games of 猫有n条命, 30 players, 2 minutes with a Celery worker and beat; the long run is
# in docs/operations.md ("Load test"). Exits non-zero if a check fails.
loadtest: migrate
	$(STACK) exec -- $(PY) scripts/loadtest/run.py $(LOADTEST_ARGS)

clean:
	-$(STACK) down
	rm -rf $(VENV) var
