#!/usr/bin/env bash
# `make run`: the development server with a Celery worker and beat beside it.
#
# Ctrl-C stops both once and cleanly:
# 1. the worker runs in its own session (setsid), so the terminal's Ctrl-C reaches only the
#    web server, never the worker;
# 2. when the server ends (Ctrl-C, or it fails), the trap runs once (it removes itself first)
#    and sends the worker ONE SIGTERM, Celery's warm shutdown, then waits for it. Signalling the
#    whole process group again and again (the old `trap 'kill 0' INT TERM EXIT`) made Celery log
#    "Unrecoverable error: RecursionError".
# The worker's log, with every email the site sends in development (the console email
# backend prints them there), is var/celery.log; staff can also read them at /dev/outbox/.
set -u
VENV=${VENV:-.venv}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
mkdir -p var

setsid "$VENV/bin/celery" -A config worker --beat --loglevel=INFO --concurrency=2 \
    --schedule=var/celerybeat-schedule >var/celery.log 2>&1 &
worker=$!

stop() {
    trap - INT TERM EXIT
    if kill -0 "$worker" 2>/dev/null; then
        echo "Stopping the Celery worker (pid $worker)…"
        kill -TERM "$worker" 2>/dev/null
        for _ in $(seq 1 30); do kill -0 "$worker" 2>/dev/null || break; sleep 1; done
        kill -0 "$worker" 2>/dev/null && kill -KILL "$worker" 2>/dev/null
        wait "$worker" 2>/dev/null
    fi
    echo "Stopped."
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "Serving on http://$HOST:$PORT/  (demo accounts: see README.md)"
echo "Worker log and the emails sent: var/celery.log · staff: http://$HOST:$PORT/dev/outbox/"
"$VENV/bin/python" manage.py runserver "$HOST:$PORT"
