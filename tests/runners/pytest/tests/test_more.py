# A class and a parametrized test: node IDs with :: and brackets.
import pytest


class TestWords:
    def test_upper(self):
        assert "a".upper() == "A"

    def test_lower(self):
        assert "A".lower() == "b"


@pytest.mark.parametrize("n", [1, 2, 3])
def test_even(n):
    assert n != 2
