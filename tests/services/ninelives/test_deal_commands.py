"""`manage.py deal` and `manage.py bench_dealing`: thin shells over the 猫有n条命 dealer."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine.ninelives import dealing


def run(*args, stdin: str | None = None, monkeypatch=None) -> str:
    out = io.StringIO()
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("players", [5, 6])
def test_jsonl_prints_one_valid_deal_per_line(players):
    lines = run("deal", "--players", str(players), "--seed", "7", "--count", "3",
                "--format", "jsonl").splitlines()
    assert len(lines) == 3
    for line in lines:
        data = json.loads(line)
        assert set(data) == {"players", "seats", "taints"} and data["players"] == players
        assert all(set(seat) == {"camp", "cards"} for seat in data["seats"])
        assert dealing.validate(dealing.Deal.from_json(data)) == []
    assert len(set(lines)) == 3


def test_the_same_seed_prints_the_same_deals():
    args = ("deal", "--players", "6", "--seed", "11", "--count", "2", "--format", "jsonl")
    assert run(*args) == run(*args)
    assert run(*args) != run("deal", "--players", "6", "--seed", "12", "--count", "2",
                             "--format", "jsonl")


def test_text_names_every_seat_in_chinese_and_english():
    text = run("deal", "--players", "6", "--seed", "3")
    for seat in range(1, 7):
        assert f"Seat {seat} " in text
    assert "杀手 KILLER" in text and "自选立场者 free_agent" in text and "may choose:" in text
    assert "killer taint" in text and "wolf taint" in text
    assert "SAINT" not in text          # §3.5.4


def test_commit_prints_a_commitment_that_matches_the_deal():
    text = run("deal", "--players", "5", "--seed", "5", "--commit")
    digest, salt = text.split("commitment ")[1].split("  (salt ")
    salt = salt.split(":")[0]
    again = dealing.deal(5, random.Random(5))
    assert dealing.commitment(again, salt) == digest.strip()


def test_count_only_prints_the_exact_count():
    assert run("deal", "--players", "5", "--count-only").strip() == str(dealing.count_deals(5))
    assert run("deal", "--players", "6", "--count-only").strip() == str(dealing.count_deals(6))


def test_check_accepts_a_valid_typed_in_deal(monkeypatch):
    line = run("deal", "--players", "5", "--seed", "1", "--format", "jsonl")
    assert run("deal", "--check", "-", stdin=line, monkeypatch=monkeypatch).strip() \
        == "Deal 1: valid"


def test_check_names_the_rule_a_typed_in_deal_breaks(monkeypatch, tmp_path):
    data = dealing.deal(5, random.Random(1)).to_json()
    killer = next(s for s in data["seats"] if s["camp"] == "killer")
    wolf = next(s for s in data["seats"] if s["camp"] == "wolf")
    killer["cards"][killer["cards"].index("DEMON")], wolf["cards"][wolf["cards"].index(
        "SORCERER")] = "SORCERER", "DEMON"
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(data, indent=2))
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1"):
        call_command("deal", "--check", str(path), stdout=out)
    assert "§4.1:" in out.getvalue() and "§4.2:" in out.getvalue()


def test_check_refuses_what_is_not_a_deal(monkeypatch):
    with pytest.raises(CommandError):
        run("deal", "--check", "-", stdin="not json", monkeypatch=monkeypatch)
    with pytest.raises(CommandError):
        run("deal", "--check", "-", stdin='{"players": 5}', monkeypatch=monkeypatch)


def test_bench_dealing_prints_every_figure():
    text = run("bench_dealing", "--players", "5", "--deals", "200", "--seconds", "0.2",
               "--greedy", "100")
    for word in ("floor", "ours", "reject", "greedy", "x a shuffle", "deals/s", "stuck",
                 f"{dealing.count_deals(5):,}"):
        assert word in text, word


def test_bench_dealing_refuses_other_player_counts():
    with pytest.raises(CommandError):
        run("bench_dealing", "--players", "7")
