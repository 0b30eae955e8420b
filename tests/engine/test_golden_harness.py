"""The golden harness itself: a missing or changed file fails; only the flag writes."""

from __future__ import annotations

import pytest

from .golden import check_golden


def test_a_matching_file_passes(tmp_path):
    path = tmp_path / "game.txt"
    path.write_bytes("== setup\n猫\n".encode())
    check_golden(path, "== setup\n猫\n", regen=False)


def test_a_missing_file_fails_and_is_not_written(tmp_path):
    path = tmp_path / "game.txt"
    with pytest.raises(pytest.fail.Exception, match="is missing"):
        check_golden(path, "text\n", regen=False)
    assert not path.exists()


def test_a_changed_file_fails_with_the_diff_and_is_left_alone(tmp_path):
    path = tmp_path / "game.txt"
    path.write_bytes(b"line 1\nline 2\n")
    with pytest.raises(pytest.fail.Exception, match=r"changed(.|\n)*-line 2(.|\n)*\+line two"):
        check_golden(path, "line 1\nline two\n", regen=False)
    assert path.read_bytes() == b"line 1\nline 2\n"


def test_a_different_line_ending_is_a_change(tmp_path):
    path = tmp_path / "game.txt"
    path.write_bytes(b"line 1\r\n")
    with pytest.raises(pytest.fail.Exception, match="changed"):
        check_golden(path, "line 1\n", regen=False)


def test_only_the_flag_writes_and_then_the_test_skips(tmp_path):
    path = tmp_path / "sub" / "game.txt"
    with pytest.raises(pytest.skip.Exception):
        check_golden(path, "new\n", regen=True)
    assert path.read_bytes() == b"new\n"


def test_the_flag_is_read_from_the_environment(tmp_path, monkeypatch):
    path = tmp_path / "game.txt"
    monkeypatch.setenv("UPDATE_GOLDEN", "1")
    with pytest.raises(pytest.skip.Exception):
        check_golden(path, "new\n")
    monkeypatch.setenv("UPDATE_GOLDEN", "0")
    path.unlink()
    with pytest.raises(pytest.fail.Exception, match="is missing"):
        check_golden(path, "new\n")
