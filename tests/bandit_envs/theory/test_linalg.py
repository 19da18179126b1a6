from __future__ import annotations

import numpy as np
import pytest

from bandit_envs.theory.linalg import (
    IncrementalLeastSquares,
    SingularDesignError,
    matrix_norms_sq,
    projected_least_squares,
    reduce_features,
    sherman_morrison,
    span_basis,
)


def _rank_deficient(rng: np.random.Generator, k: int, h: int, r: int) -> np.ndarray:
    return rng.standard_normal((k, r)) @ rng.standard_normal((r, h))


# --------------------------------------------------------------------------- spans
@pytest.mark.parametrize(("k", "h", "r"), [(10, 4, 4), (12, 6, 3), (5, 8, 5), (30, 5, 1)])
def test_span_basis_is_orthonormal_and_spans_rows(k: int, h: int, r: int) -> None:
    rng = np.random.default_rng(k * 100 + h)
    x = _rank_deficient(rng, k, h, r)
    u = span_basis(x)
    assert u.shape == (h, r)
    np.testing.assert_allclose(u.T @ u, np.eye(r), atol=1e-12)
    # every row is reproduced by its projection on the span
    np.testing.assert_allclose(x @ u @ u.T, x, atol=1e-10)


def test_span_basis_of_zero_matrix_is_empty() -> None:
    assert span_basis(np.zeros((3, 4))).shape == (4, 0)


def test_reduce_features_preserves_inner_products() -> None:
    rng = np.random.default_rng(1)
    x = _rank_deficient(rng, 9, 6, 3)
    z, u = reduce_features(x)
    assert z.shape == (9, 3)
    np.testing.assert_allclose(z @ z.T, x @ x.T, atol=1e-10)
    np.testing.assert_allclose(z @ u.T, x, atol=1e-10)


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((2, 2, 2)), np.array([[1.0, np.nan]])])
def test_span_basis_rejects_bad_input(bad: np.ndarray) -> None:
    with pytest.raises(ValueError, match="features"):
        span_basis(bad)


# --------------------------------------------------------------------------- Sherman-Morrison
@pytest.mark.parametrize("weight", [1.0, 3.5, 0.25])
def test_sherman_morrison_matches_explicit_inverse(weight: float) -> None:
    rng = np.random.default_rng(2)
    m = rng.standard_normal((6, 6))
    a = m @ m.T + np.eye(6)
    x = rng.standard_normal(6)
    out = sherman_morrison(np.linalg.inv(a), x, weight)
    np.testing.assert_allclose(
        out, np.linalg.inv(a + weight * np.outer(x, x)), rtol=1e-9, atol=1e-12
    )


def test_sherman_morrison_downdate_and_input_not_modified() -> None:
    rng = np.random.default_rng(3)
    m = rng.standard_normal((5, 5))
    a = m @ m.T + np.eye(5)
    x = rng.standard_normal(5)
    inv = np.linalg.inv(a + np.outer(x, x))
    before = inv.copy()
    out = sherman_morrison(inv, x, weight=-1.0)
    np.testing.assert_allclose(out, np.linalg.inv(a), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(inv, before)


def test_sherman_morrison_errors() -> None:
    with pytest.raises(ValueError, match="x is expected to have shape"):
        sherman_morrison(np.eye(3), np.ones(2))
    with pytest.raises(ValueError, match="square"):
        sherman_morrison(np.ones((2, 3)), np.ones(2))
    with pytest.raises(SingularDesignError, match="singular"):
        sherman_morrison(np.eye(2), np.array([1.0, 0.0]), weight=-1.0)


def test_matrix_norms_sq() -> None:
    rng = np.random.default_rng(4)
    m = rng.standard_normal((4, 4))
    inv = m @ m.T
    y = rng.standard_normal((7, 4))
    expected = np.array([v @ inv @ v for v in y])
    np.testing.assert_allclose(matrix_norms_sq(y, inv), expected, rtol=1e-12)
    assert matrix_norms_sq(y[0], inv).shape == ()
    # clipped at zero for (numerically) indefinite matrices
    assert matrix_norms_sq(np.array([[1.0, 0.0]]), -np.eye(2))[0] == 0.0
    with pytest.raises(ValueError, match="vectors"):
        matrix_norms_sq(np.ones((2, 3)), np.eye(4))


# --------------------------------------------------------------------------- incremental LS
def test_incremental_least_squares_matches_explicit_solution() -> None:
    rng = np.random.default_rng(5)
    h = 5
    ls = IncrementalLeastSquares(h, refresh_every=7)
    xs = rng.standard_normal((60, h))
    ys = xs @ rng.standard_normal(h) + 0.1 * rng.standard_normal(60)
    for t, (x, y) in enumerate(zip(xs, ys, strict=True)):
        ls.add(x, y)
        assert ls.n_updates == t + 1
        if t + 1 < h:
            assert not ls.invertible
    assert ls.invertible
    gram = xs.T @ xs
    np.testing.assert_allclose(ls.gram, gram, rtol=1e-12)
    np.testing.assert_allclose(ls.inverse, np.linalg.inv(gram), rtol=1e-9, atol=1e-12)
    expected = np.linalg.lstsq(xs, ys, rcond=None)[0]
    np.testing.assert_allclose(ls.theta(), expected, rtol=1e-9, atol=1e-12)


def test_incremental_least_squares_singular_until_spanning() -> None:
    ls = IncrementalLeastSquares(3)
    for _ in range(10):
        ls.add(np.array([1.0, 0.0, 0.0]), 1.0)
        ls.add(np.array([0.0, 1.0, 0.0]), 2.0)
    assert not ls.invertible
    with pytest.raises(SingularDesignError, match="does not span R\\^3"):
        _ = ls.inverse
    with pytest.raises(np.linalg.LinAlgError):
        ls.theta()
    with pytest.raises(ValueError):  # SingularDesignError is also a ValueError
        ls.theta()
    ls.add(np.array([0.0, 0.0, 2.0]), 4.0)
    assert ls.invertible
    np.testing.assert_allclose(ls.theta(), [1.0, 2.0, 2.0], rtol=1e-12)


def test_incremental_least_squares_ridge_and_multi_output() -> None:
    rng = np.random.default_rng(6)
    h, m = 4, 3
    ls = IncrementalLeastSquares(h, ridge=0.5, outputs=m)
    assert ls.invertible  # ridge > 0: invertible from the start
    xs = rng.standard_normal((3, h))  # fewer observations than dimensions
    ys = rng.standard_normal((3, m))
    for x, y in zip(xs, ys, strict=True):
        ls.add(x, y)
    assert ls.b.shape == (h, m)
    expected = np.linalg.solve(xs.T @ xs + 0.5 * np.eye(h), xs.T @ ys)
    np.testing.assert_allclose(ls.theta(), expected, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="y is expected to have shape"):
        ls.add(xs[0], np.ones(2))


def test_add_batch_equals_repeated_single_adds() -> None:
    rng = np.random.default_rng(7)
    k, h = 6, 4
    feats = rng.standard_normal((k, h))
    counts = np.array([3, 0, 5, 1, 2, 4])
    single = IncrementalLeastSquares(h, refresh_every=3)
    sums = np.zeros(k)
    for arm in range(k):
        for _ in range(counts[arm]):
            y = float(rng.standard_normal())
            single.add(feats[arm], y)
            sums[arm] += y
    batch = IncrementalLeastSquares(h)
    batch.add_batch(feats, counts, sums)
    assert batch.n_updates == single.n_updates == counts.sum()
    np.testing.assert_allclose(batch.gram, single.gram, rtol=1e-12)
    np.testing.assert_allclose(batch.b, single.b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(batch.inverse, single.inverse, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(batch.theta(), single.theta(), rtol=1e-9, atol=1e-12)
    # mixing both paths
    batch.add(feats[1], 0.7)
    single.add(feats[1], 0.7)
    np.testing.assert_allclose(batch.theta(), single.theta(), rtol=1e-9, atol=1e-12)


def test_add_batch_singular_then_single_add_completes_span() -> None:
    ls = IncrementalLeastSquares(2)
    ls.add_batch(np.eye(2), np.array([4, 0]), np.array([8.0, 0.0]))
    assert not ls.invertible
    ls.add(np.array([0.0, 1.0]), -1.0)
    assert ls.invertible
    np.testing.assert_allclose(ls.theta(), [2.0, -1.0], rtol=1e-12)


def test_incremental_least_squares_argument_errors() -> None:
    with pytest.raises(ValueError, match="dim"):
        IncrementalLeastSquares(0)
    with pytest.raises(ValueError, match="ridge"):
        IncrementalLeastSquares(2, ridge=-1.0)
    with pytest.raises(ValueError, match="refresh_every"):
        IncrementalLeastSquares(2, refresh_every=0)
    ls = IncrementalLeastSquares(2)
    with pytest.raises(ValueError, match="x is expected to have shape"):
        ls.add(np.ones(3), 1.0)
    with pytest.raises(ValueError, match="counts"):
        ls.add_batch(np.eye(2), np.array([-1, 1]), np.zeros(2))
    with pytest.raises(ValueError, match="sums"):
        ls.add_batch(np.eye(2), np.array([1, 1]), np.zeros(3))


# --------------------------------------------------------------------------- projected LS
def test_projected_least_squares_recovers_projection_of_theta() -> None:
    rng = np.random.default_rng(8)
    k, h, r = 12, 6, 3
    feats = _rank_deficient(rng, k, h, r)
    theta = rng.standard_normal(h)
    counts = rng.integers(1, 6, size=k).astype(float)
    sums = counts * (feats @ theta)  # noiseless sums
    est = projected_least_squares(feats, counts, sums)
    u = span_basis(feats)
    np.testing.assert_allclose(est, u @ u.T @ theta, rtol=1e-9, atol=1e-10)
    # minimum norm: no component outside the span; predictions exact
    np.testing.assert_allclose(feats @ est, feats @ theta, rtol=1e-9, atol=1e-10)


def test_projected_least_squares_matches_pinv_with_unpulled_arms_and_multi_output() -> None:
    rng = np.random.default_rng(9)
    feats = rng.standard_normal((8, 5))
    counts = np.array([2, 0, 3, 1, 0, 0, 4, 0], dtype=float)  # pulled arms span 4 < 5 dims
    sums = rng.standard_normal((8, 2)) * counts[:, None]
    a = (feats.T * counts) @ feats
    expected = np.linalg.pinv(a) @ (feats.T @ sums)
    np.testing.assert_allclose(
        projected_least_squares(feats, counts, sums), expected, rtol=1e-8, atol=1e-10
    )
    np.testing.assert_array_equal(projected_least_squares(feats, np.zeros(8), sums), 0.0)
    with pytest.raises(ValueError, match="counts"):
        projected_least_squares(feats, -counts, sums)
    with pytest.raises(ValueError, match="sums"):
        projected_least_squares(feats, counts, np.zeros(3))
