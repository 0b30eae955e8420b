#!/bin/sh
# Refresh the Chinese catalogue from the code (GNU gettext needed): see locale/README.md.
set -eu
cd "$(dirname "$0")/.."
PO=locale/zh_Hans/LC_MESSAGES/django.po
PREVIOUS=$(mktemp)
trap 'rm -f "$PREVIOUS"' EXIT
cp "$PO" "$PREVIOUS"
.venv/bin/python manage.py makemessages -l zh_Hans --ignore=.venv --ignore=var --ignore=tests \
    --ignore=scripts
msgattrib --no-obsolete --clear-previous -o "$PO" "$PO"
.venv/bin/python locale/keep_runtime.py "$PO" "$PREVIOUS"
msgcat -o "$PO" "$PO"
msgfmt --check-format --statistics -o /dev/null "$PO"
msgattrib --only-fuzzy "$PO" | grep -c '^#, fuzzy' | sed 's/^/fuzzy entries to resolve by hand: /' || true
