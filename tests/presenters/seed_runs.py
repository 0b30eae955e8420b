"""Fingerprints of the seed rule texts, so the rules pages can be checked against them without a
copy of them in the project.

A page must share no run of RUN characters (whitespace removed) with a seed. The seeds are not
in the project (no sentence of theirs may be), so the project keeps a 40-bit digest of every
such run of every seed, in `seed_runs.bin` beside this file; a digest cannot be read back into
the text. A page run whose digest is in the set is a copied run (a chance match of 40 bits
between some 20,000 seed runs and a page's runs: about 1 in 3,000 per page).

Made again when the seeds change: `python -m tests.presenters.seed_runs PATH/TO/seeds`.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

RUN = 15
DIGEST_BYTES = 5
DATA = Path(__file__).with_name("seed_runs.bin")


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def runs(text: str) -> Iterator[str]:
    """Every run of RUN characters of `text`, whitespace removed."""
    text = squash(text)
    return (text[i:i + RUN] for i in range(len(text) - RUN + 1))


def fingerprint(run: str) -> bytes:
    return hashlib.blake2b(run.encode("utf-8"), digest_size=DIGEST_BYTES).digest()


def fingerprints(texts: Iterable[str]) -> set[bytes]:
    return {fingerprint(run) for text in texts for run in runs(text)}


def load() -> set[bytes]:
    data = DATA.read_bytes()
    return {data[i:i + DIGEST_BYTES] for i in range(0, len(data), DIGEST_BYTES)}


def shared(text: str, known: set[bytes]) -> list[str]:
    """The runs of `text` whose fingerprint is in `known`."""
    return sorted({run for run in runs(text) if fingerprint(run) in known})


def seed_fingerprints(folder: Path) -> set[bytes]:
    """The fingerprints of every seed text (`*.txt`) in `folder`, each text on its own."""
    return fingerprints(p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.txt")))


def write(folder: Path) -> int:
    found = seed_fingerprints(folder)
    if not found:
        raise SystemExit(f"no seed texts (*.txt) in {folder}")
    DATA.write_bytes(b"".join(sorted(found)))
    return len(found)


if __name__ == "__main__":
    print(f"{write(Path(sys.argv[1]))} fingerprints written to {DATA}")
