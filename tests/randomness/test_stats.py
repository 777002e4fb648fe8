"""The statistics against brute force on small packs, and each test's null law."""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np
import pytest

from harness.randomness import power, stats
from harness.randomness.battery import holm
from harness.randomness.models import ShufflerModel, compose, positions, riffle


def all_perms(n: int) -> np.ndarray:
    return np.asarray(list(itertools.permutations(range(n))))


@pytest.mark.parametrize("n", [3, 5, 7])
def test_successions_pmf_matches_every_permutation(n: int) -> None:
    counts = np.bincount(stats.successions(all_perms(n)), minlength=n)
    pmf = stats.successions_pmf(n)
    assert np.allclose(np.asarray(pmf), counts[: len(pmf)] / factorial(n))


@pytest.mark.parametrize("n", [4, 6])
def test_rising_sequences_exact_riffle_law_against_enumeration(n: int) -> None:
    # P(pi) after k GSR passes is C(2^k + n - r, n) / 2^(kn), r its rising sequences: the mean over
    # every permutation weighted so must equal the closed-form moments
    from math import comb

    perms = all_perms(n)
    r = stats.rising_sequences(perms)
    for k in (1, 2, 3):
        a = 2**k
        w = np.asarray([comb(a + n - int(x), n) for x in r], dtype=float) / a**n
        assert w.sum() == pytest.approx(1.0)
        mean, var = power.riffle_rising_moments(n, k)
        assert (w * r).sum() == pytest.approx(mean)
        assert (w * r * r).sum() - mean**2 == pytest.approx(var)


def test_riffle_model_never_exceeds_two_to_the_k_rising_sequences() -> None:
    rng = np.random.default_rng(3)
    for k in (1, 2, 3, 4):
        pos = riffle(rng, 500, 52, k)
        assert stats.rising_sequences(pos).max() <= 2**k
        assert (np.sort(pos, axis=1) == np.arange(52)).all()  # each row a permutation


def test_riffle_model_matches_the_exact_law() -> None:
    rng = np.random.default_rng(4)
    r = stats.rising_sequences(riffle(rng, 20_000, 52, 3))
    mean, var = power.riffle_rising_moments(52, 3)
    assert r.mean() == pytest.approx(mean, abs=4 * (var / 20_000) ** 0.5)


def test_stuck_model_puts_the_bottom_card_where_declared() -> None:
    rng = np.random.default_rng(5)
    pos = ShufflerModel("stuck", probability=0.5, span=10).shuffle(rng, 20_000, 100)
    assert (np.sort(pos, axis=1) == np.arange(100)).all()
    share = (pos[:, -1] >= 90).mean()
    assert share == pytest.approx(0.5 + 0.5 * 0.1, abs=0.015)


def test_period_model_repeats() -> None:
    pos = ShufflerModel("period", period=7).shuffle(np.random.default_rng(1), 30, 52)
    assert (pos[0] == pos[7]).all() and not (pos[0] == pos[1]).all()
    assert stats.repeated_shuffles(pos).p_value < 1e-50
    assert stats.repeated_shuffles(pos[:7]).p_value == 1.0


def test_positions_and_compose_are_inverse() -> None:
    pre = ["KS#1", "9H#1", "2C#2", "AD#1"]
    post = ["2C#2", "KS#1", "AD#1", "9H#1"]
    pos = positions(pre, post)
    assert list(compose(np.asarray(pre, dtype=object), pos)) == post
    with pytest.raises(ValueError):
        positions(pre, ["2C#2", "KS#1", "AD#1", "AD#1"])


def test_pool_cells_leaves_no_small_expected_count() -> None:
    obs, exp = stats.pool_cells(np.asarray([1, 2, 30, 1, 0, 1.0]), np.asarray([1, 2, 30, 2, 1, 1.0]))
    assert exp.min() >= stats.MIN_EXPECTED
    assert obs.sum() == 35 and exp.sum() == 37


def test_chi_square_gof_rejects_a_wrong_law_and_not_the_right_one() -> None:
    rng = np.random.default_rng(6)
    probs = np.asarray([0.5, 0.3, 0.15, 0.05])
    fair = np.bincount(rng.choice(4, 4000, p=probs), minlength=4)
    assert stats.chi_square_gof(fair, probs).p_value > 0.001
    assert stats.chi_square_gof(np.asarray([1000, 1000, 1000, 1000]), probs).p_value < 1e-10


def test_ks_uniform() -> None:
    rng = np.random.default_rng(7)
    assert stats.ks_uniform(rng.uniform(10, 20, 500), 10, 20).p_value > 0.001
    assert stats.ks_uniform(rng.uniform(10, 15, 100), 10, 20).p_value < 1e-10


def test_runs_and_serial_correlation_moments_are_exact() -> None:
    # every arrangement of a small multiset: the standardised statistics have mean 0, variance 1
    base = [0, 0, 0, 1, 1, 1, 1]
    arrangements = np.asarray(sorted(set(itertools.permutations(base))))
    values = np.asarray(sorted(set(itertools.permutations([1, 2, 2, 5, 7, 7]))), dtype=float)
    for test, rows in ((stats.runs_test, arrangements), (stats.serial_correlation, values)):
        z = np.asarray([test(row[None, :]).statistic for row in rows])
        assert z.mean() == pytest.approx(0.0, abs=1e-9)
        assert (z**2).mean() == pytest.approx(1.0, rel=1e-9)


def test_serial_correlation_sees_sorted_shoes() -> None:
    rng = np.random.default_rng(8)
    shoes = np.stack([rng.permutation(np.repeat(np.arange(1, 14), 32)) for _ in range(5)])
    assert stats.serial_correlation(shoes).p_value > 0.001
    clumped = np.sort(shoes, axis=1)
    assert stats.serial_correlation(clumped).p_value < 1e-10
    assert stats.rank_positions(clumped).p_value < 1e-10


def test_holm_step_down() -> None:
    rejected, levels = holm({"a": 0.001, "b": 0.03, "c": 0.04}, 0.05)
    assert rejected == ["a"]  # b: 0.03 > 0.05/2 stops the procedure, c is not tested
    assert levels == {"a": 0.05 / 3, "b": 0.05 / 2, "c": 0.05}
    assert holm({"a": 0.001, "b": 0.02, "c": 0.04}, 0.1)[0] == ["a", "b", "c"]
