# A small suite for tests/t3060-triage-runners.sh: two pass, two fail,
# one errors in its fixture, one is skipped.
import pytest


def div(a, b):
    return a / b


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_add():
    assert 1 + 1 == 2


def test_div():
    assert div(1, 0) == 0


def test_sub():
    assert 3 - 1 == 2


def test_mul():
    assert 2 * 3 == 7, "two times three"


def test_err(broken):
    assert broken


@pytest.mark.skip(reason="not today")
def test_skip():
    assert False
