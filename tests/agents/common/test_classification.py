"""The classification book and the halving tie-break shared by the Pareto agents."""

from __future__ import annotations

import pickle

import numpy as np

from agents.common.classification import ClassificationBook, halving_keep


def test_settle_moves_arms_out_of_the_active_set_in_index_order():
    book = ClassificationBook(6)
    book.settle(np.array([1, 0, 0, 0, 1, 0], bool), np.array([0, 0, 1, 0, 0, 0], bool))
    assert book.active.tolist() == [1, 3, 5]
    assert book.accepted == [0, 4] and book.rejected == [2]
    # masks are over the current active arms (1, 3, 5)
    book.settle(np.array([0, 0, 1], bool), np.array([1, 0, 0], bool))
    assert book.active.tolist() == [3]
    assert book.accepted == [0, 4, 5] and book.rejected == [1, 2]


def test_reject_then_accept_is_two_steps_over_the_shrinking_active_set():
    book = ClassificationBook(4)
    book.reject(np.array([False, True, False, False]))
    book.accept(np.array([True, False, True]))  # over (0, 2, 3)
    assert book.active.tolist() == [2]
    assert book.accepted == [0, 3] and book.rejected == [1]


def test_lists_are_copies_and_answers_add_chosen_arms():
    book = ClassificationBook(3)
    book.accept(np.array([False, True, False]))
    book.accepted.append(7)
    assert book.accepted == [1]
    assert book.answer(np.array([2])) == frozenset({1, 2})
    assert book.answer(np.zeros(0, dtype=int)) == frozenset({1})
    assert all(type(i) is int for i in book.answer(np.array([2], dtype=np.int64)))
    clone = pickle.loads(pickle.dumps(book))
    assert clone.accepted == [1] and clone.active.tolist() == [0, 2]


def test_accepting_the_last_arm_leaves_an_empty_int_array():
    book = ClassificationBook(1)
    book.accept(np.ones(1, dtype=bool))
    assert book.accepted == [0] and book.active.size == 0
    assert book.active.dtype == np.arange(1).dtype


def test_halving_keeps_the_smallest_gaps_and_prefers_empirically_optimal_arms_on_ties():
    gaps = np.array([0.1, 0.3, 0.1, 0.3])
    pareto = np.array([True, False, False, True])
    assert halving_keep(gaps, pareto, 2).tolist() == [0, 2]
    assert halving_keep(gaps, pareto, 3).tolist() == [0, 2, 3]  # 3 (optimal) before 1
    assert halving_keep(gaps, ~pareto, 3).tolist() == [0, 1, 2]
    assert halving_keep(gaps, pareto, 4).tolist() == [0, 1, 2, 3]
