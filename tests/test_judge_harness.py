"""bench/judge.py: the searches it is given, and the verdict it prints."""

from __future__ import annotations

import pytest

from bench import judge
from games.bots.deep import Rollout, Stage


def test_a_search_is_written_as_the_characters_stages() -> None:
    assert judge.parse_search("3:6:0.16, r:3:0.06") == (Stage(3, 6, 0.16), Rollout(3, 0.06))


@pytest.mark.parametrize("text", ["3:6", "r:3", "x:3:0.1", "3:6:wide", ""])
def test_a_malformed_search_is_a_usage_error(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        judge.main(["--a", text, "--b", "r:3:0.06"])
    assert stopped.value.code == 2
    assert "--a" in capsys.readouterr().err


def test_the_verdict_counts_only_the_decisions_where_the_searches_differ() -> None:
    same = {"seconds": {"a": 0.1, "b": 0.2}, "judge": None}
    rows = [
        same,
        same,
        {"seconds": {"a": 1.0, "b": 0.5}, "judge": {"a": 0.30, "b": 0.31}},
        {"seconds": {"a": 2.0, "b": 1.5}, "judge": {"a": 0.10, "b": 0.13}},
    ]
    text = judge.summary(rows)
    assert "4 decisions" in text
    assert "they differ in 2" in text
    # b better by 10 and 30 mEMG: +20 where they differ, +10 per decision.
    assert "+20.00 ± 10.00 mEMG where they differ, +10.00 per decision" in text
