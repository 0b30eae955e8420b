"""The texts simulated and scripted players write are real sentences (games/engine/prose.py):
whole sentences, long enough for their field, the same for the same seed."""

from __future__ import annotations

import random

from games.engine import conformance
from games.engine.base import Choice, TextField
from games.engine.ninelives.rules import MANIFESTO_MIN
from games.engine.ninelives.simulate import play
from games.engine.prose import GM_REASONS, MANIFESTO, WORDS, fill, prose
from tests.factories.ninelives import MANIFESTO as SERVICE_MANIFESTO

from .ninelives.helpers import MANIFESTO as ENGINE_MANIFESTO

ATTACK = Choice("use_card", {"card": "KILLER", "target": 1},
                (TextField("manifesto", min_chars=MANIFESTO_MIN, max_chars=20_000),))


def sentences_of(text: str, sentences: tuple[str, ...]) -> list[str]:
    """`text` cut into its sentences; fails unless every one is from `sentences`."""
    parts = [part + "。" for part in text.split("。")[:-1]]
    assert "".join(parts) == text and parts, text
    assert all(part in sentences for part in parts), text
    return parts


def test_a_text_is_whole_sentences_at_least_as_long_as_asked():
    for n in (1, 36, MANIFESTO_MIN, 400):
        text = prose(random.Random(n), n)
        assert len(text) >= n
        sentences_of(text, MANIFESTO)
    assert prose(random.Random(1), 0) == ""


def test_no_sentence_comes_twice_before_every_one_has_been_used():
    text = prose(random.Random(7), sum(map(len, MANIFESTO)))
    assert sorted(sentences_of(text, MANIFESTO)) == sorted(MANIFESTO)


def test_the_same_seed_writes_the_same_text_and_another_seed_another():
    assert prose(random.Random("a"), 100) == prose(random.Random("a"), 100)
    assert prose(random.Random("a"), 100) != prose(random.Random("b"), 100)


def test_every_sentence_of_every_list_is_chinese_and_ends_its_sentence():
    for sentence in MANIFESTO + WORDS + GM_REASONS:
        assert sentence.endswith("。") and sentence.count("。") == 1
        assert not any("a" <= c.lower() <= "z" for c in sentence)


def test_fill_draws_from_the_generator_exactly_what_the_conformance_fill_draws():
    """So a seeded simulation plays the same steps as it did with random characters."""
    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        step = fill(ATTACK, 0, ours)
        plain = conformance.fill(ATTACK, 0, theirs)
        assert ours.getstate() == theirs.getstate()
        text = step["params"]["manifesto"]
        assert len(text) >= len(plain["params"]["manifesto"]) >= MANIFESTO_MIN
        sentences_of(text, MANIFESTO)
        assert {k: v for k, v in step["params"].items() if k != "manifesto"} == ATTACK.params


def test_simulated_kill_statements_and_stories_are_sentences_of_legal_length():
    played = play(6, 21, policy="informed")
    texts = [(key, step["params"][key]) for step in played.steps
             for key in ("manifesto", "story") if step["params"].get(key)]
    assert {key for key, _ in texts} == {"manifesto", "story"}
    for key, text in texts:
        sentences_of(text, MANIFESTO)
        assert key == "story" or len(text) >= MANIFESTO_MIN


def test_the_fixtures_kill_statements_are_real_sentences_of_100_characters():
    for text in (ENGINE_MANIFESTO, SERVICE_MANIFESTO):
        assert len(text) >= MANIFESTO_MIN
        sentences_of(text, MANIFESTO)
