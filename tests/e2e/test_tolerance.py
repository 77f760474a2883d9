"""The comparison helpers can fail: a suite whose comparisons always pass would prove nothing."""

import ml_dtypes
import numpy as np
import pytest

from tolerance import assert_close, max_difference, tolerance


def test_exact_class_rejects_one_ulp():
    a = np.array([1.0, 2.0], np.float32)
    b = np.nextafter(a, np.float32(3.0))
    with pytest.raises(AssertionError):
        assert_close(b, a, "exact")


def test_integers_are_exact_whatever_the_class():
    assert tolerance(np.int32, "transcendental") == (0, 0)
    with pytest.raises(AssertionError):
        assert_close(np.array([5], np.int8), np.array([4], np.int8), "accumulate")


def test_float32_default_tolerance():
    want = np.array([1.0, 100.0, 0.0], np.float32)
    assert_close(want * np.float32(1 + 3e-6), want, "default")
    with pytest.raises(AssertionError):
        assert_close(want * np.float32(1 + 1e-4), want, "default")
    with pytest.raises(AssertionError):
        assert_close(want + np.float32(1e-5), want, "default")  # atol 1e-6 near zero


def test_nans_match_nans_only():
    want = np.array([np.nan, 1.0], np.float32)
    assert_close(want.copy(), want, "exact")
    assert_close(want.copy(), want, "default")
    with pytest.raises(AssertionError):
        assert_close(np.array([0.0, 1.0], np.float32), want, "default")


def test_dtype_and_shape_must_match():
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(np.zeros(3, np.float64), np.zeros(3, np.float32), "default")
    with pytest.raises(AssertionError, match="shape"):
        assert_close(np.zeros((3, 1), np.float32), np.zeros(3, np.float32), "default")


def test_half_precision_is_looser_but_bounded():
    want = np.array([1.0, 2.0], ml_dtypes.bfloat16)
    assert_close(np.array([1.0078125, 2.0], ml_dtypes.bfloat16), want, "default")  # one bf16 ulp at 1.0
    with pytest.raises(AssertionError):
        assert_close(np.array([1.25, 2.0], ml_dtypes.bfloat16), want, "default")


def test_unknown_class_is_an_error():
    with pytest.raises(ValueError):
        tolerance(np.float32, "close enough")


def test_max_difference():
    assert max_difference(np.array([1.0, np.nan]), np.array([1.5, np.nan])) == 0.5
