# Two commands matter: `make run` and `make test`. Both work on a fresh machine with Python 3.11+.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install messages migrate demo worker bench lint clean ci loadtest

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Compiled translations (.mo) are built, not committed; Babel needs no system gettext.
messages: $(STAMP)
	$(VENV)/bin/pybabel compile --use-fuzzy -D django -d locale --statistics 2>&1 | tail -n 2

migrate: messages
	$(PY) manage.py migrate --noinput
	$(PY) manage.py createcachetable

demo: migrate
	$(PY) manage.py load_demo

# The service with a Celery worker and beat beside it (embedded broker under var/ by default).
# Ctrl-C stops both cleanly (scripts/run_dev.sh); emails sent go to var/celery.log and, for
# staff, /dev/outbox/.
run: demo
	@VENV=$(VENV) HOST=$(HOST) PORT=$(PORT) bash scripts/run_dev.sh

worker: migrate
	$(VENV)/bin/celery -A config worker --beat --loglevel=INFO

# The suite in parallel (pytest-xdist): one worker process per core, each with its own test
# database, cache prefix and Celery queue (docs/operations.md "Tests"). PYTEST_WORKERS=0 runs
# it in this one process; a single test: .venv/bin/pytest tests/path.py::test_name
PYTEST_WORKERS ?= auto
test: messages
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup --durations=25 $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# What CI runs (.ci/run): services, Chromium, ruff, then the whole suite on PostgreSQL + Redis.
ci:
	bash .ci/run

bench: migrate
	$(PY) scripts/bench_http.py

# Issue 9: 5 games of 猫有n条命, 30 players, 2 minutes on PostgreSQL + Redis + Celery; the
# long run is in docs/operations.md ("Load test"). Exits non-zero if a check fails.
loadtest: migrate
	$(PY) scripts/loadtest/run.py $(LOADTEST_ARGS)

clean:
	rm -rf $(VENV) var
