"""The golden harness itself: a missing or changed file fails; only the flag writes; a view
part is written by the lines a step changed; a presenter's Markdown becomes plain lines."""

from __future__ import annotations

import pytest

from .golden import changes, check_golden, plain


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


def test_a_view_part_is_written_whole_first_then_by_the_lines_a_step_changed():
    first = ["阶段：第1夜", "等待：1号阿猫、2号阿狗", "1号阿猫：未丢牌 · 存活"]
    assert changes(None, first) == first
    assert changes(first, first) == []
    later = ["阶段：第1夜", "等待：2号阿狗", "1号阿猫：未丢牌 · 存活", "待公布的处决：第1天"]
    assert changes(first, later) == ["等待：2号阿狗", "待公布的处决：第1天"]
    assert changes(later, first) == ["等待：1号阿猫、2号阿狗", "待公布的处决：—"]


def test_a_presenter_sentence_becomes_plain_lines():
    """Bold dropped, a player's words as a header line and indented words, no blank line."""
    from django.utils import translation

    from messaging.words import words_block

    text = "**4号老黑** 的遗言：\n\n" + words_block("我是毒药。\n\n过", "4号老黑")
    with translation.override("en"):
        assert plain(text) == ["4号老黑 的遗言：", "【Player's words · 4号老黑】", "    我是毒药。",
                               "    过"]
