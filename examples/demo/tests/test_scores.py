from demo_app import Score, mean, report


def test_mean_of_scores() -> None:
    assert mean([Score("a", 1.0), Score("b", 3.0)]) == 2.0


def test_mean_of_nothing_is_zero() -> None:
    assert mean([]) == 0.0


def test_report_is_a_table_with_a_row_per_score() -> None:
    lines = report([Score("a", 1.0), Score("b", 3.0)]).splitlines()
    assert lines[0].split() == ["name", "score"]
    assert [line.split()[0] for line in lines[2:]] == ["a", "b"]
