import numpy as np  # needs the brain tier: not collected without it
from demo_app import Score, normalized


def test_normalized_spans_zero_to_one() -> None:
    assert normalized([Score("a", 2.0), Score("b", 4.0), Score("c", 3.0)]) == [0.0, 1.0, 0.5]


def test_numpy_is_the_compiled_one() -> None:
    assert np.add(1, 2) == 3
