"""The local model's fast paths give exactly what the plain code they replace gives.

Ids, schema checks and the policy's reading of tools are cached or computed a faster way (see
``benchmarks/bench_local_model.py`` for what that buys); every reply must stay byte-identical,
because stored notebook outputs print those ids and replies.
"""

from __future__ import annotations

import random
import sys

import pytest

from course_lib.local_model import wire


@pytest.mark.parametrize("alphabet", sorted({style[1] for style in wire.ID_STYLES.values()}))
@pytest.mark.parametrize("seed", [0, 1, 2**40 + 7])
def test_ids_drawn_inline_are_the_characters_random_choice_draws(alphabet, seed):
    fast, reference = random.Random(seed), random.Random(seed)
    for length in (1, 2, 22, 29, 48, 300):
        assert wire.draw_inline(fast, alphabet, length) == wire.draw_by_choice(
            reference, alphabet, length
        )
    assert fast.getstate() == reference.getstate()  # the same bits were consumed


def test_ids_drawn_inline_match_choice_for_an_alphabet_that_is_not_a_power_of_two():
    fast, reference = random.Random(3), random.Random(3)
    for size in (1, 3, 5, 17, 33, 100):
        alphabet = "".join(chr(0x4E00 + i) for i in range(size))
        assert wire.draw_inline(fast, alphabet, 64) == wire.draw_by_choice(reference, alphabet, 64)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="the check is for CPython")
def test_cpython_uses_the_inline_draw_after_checking_it_against_choice():
    assert wire._DRAW is wire.draw_inline
