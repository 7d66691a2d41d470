from demo_app import Score, mean


def test_mean_of_scores() -> None:
    assert mean([Score("a", 1.0), Score("b", 3.0)]) == 2.0


def test_mean_of_nothing_is_zero() -> None:
    assert mean([]) == 0.0
