"""Reasons as data for games stored before: their `because` chains were English sentences and
their results an English summary. Each game is replayed from its setup and its replay log by
today's engine, which writes the same events with reasons (codes with typed arguments); the
stored events, the state snapshot and the result take them. The GM's own log entries get the
code of their act. A game whose replay no longer matches its stored log (none is expected)
keeps its events without explanation rather than English ones."""

from django.db import migrations


def forwards(apps, schema_editor):
    from games.engine import registry
    from games.engine.base import replay
    from games.engine.reasons import is_reason

    Game = apps.get_model("games", "Game")
    Event = apps.get_model("games", "Event")
    Action = apps.get_model("games", "Action")
    Rollback = apps.get_model("games", "Rollback")
    for game in Game.objects.exclude(state=None).iterator():
        try:
            engine = registry.get(game.ruleset)
        except Exception:  # noqa: BLE001 - a rule set no longer installed: leave the game
            continue
        steps = []
        for a in Action.objects.filter(game=game).order_by("seq"):
            actor = int(a.actor) if a.actor.isdigit() else a.actor
            steps.append({"actor": actor, "kind": a.kind, "params": a.params})
        try:
            state = replay(engine, {"seats": game.seat_count, "config": game.config,
                                    "seed": game.seed}, steps)
        except Exception:  # noqa: BLE001 - a log that no longer replays: drop the English only
            state = None
        log = state["log"] if state else []
        for event in Event.objects.filter(game=game):
            if event.seq is None:
                if event.kind.startswith("gm_"):
                    event.because = [{"code": "gm_action", "args": {"act": event.kind[3:]}}]
            elif event.seq < len(log) and log[event.seq]["kind"] == event.kind:
                event.because = log[event.seq]["because"]
            else:
                event.because = [b for b in event.because if is_reason(b)]
            event.save(update_fields=["because"])
        if state is not None and len(state["log"]) == len(game.state.get("log", [])):
            game.state = state
        outcome = game.outcome or {}
        if "summary" in outcome:
            summary = outcome.pop("summary")
            if outcome.get("result") == "aborted":
                if summary and summary != "aborted":
                    outcome["note"] = summary
            else:
                found = engine.outcome(state) if state else None
                outcome["reason"] = found.reason if found else None
            game.outcome = outcome
        game.save(update_fields=["state", "outcome"])
    for rollback in Rollback.objects.all().iterator():
        events = rollback.events or []
        for event in events:
            if isinstance(event, dict):
                event["because"] = [b for b in event.get("because") or [] if is_reason(b)]
        rollback.events = events
        rollback.save(update_fields=["events"])


class Migration(migrations.Migration):
    dependencies = [("games", "0024_services_write_versions")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
