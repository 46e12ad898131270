"""The seeded PRNG every engine draws from: pinned output, uniform ranges, permutations, independent streams."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.prng import Prng


def test_golden_u64_values() -> None:
    """The first values for a fixed seed and labels never change, so old games replay identically."""
    prng = Prng(b"golden", "a", "b")
    assert [prng.next_u64() for _ in range(4)] == [
        14315311959509262046,
        6974692305954715011,
        5894555034108548673,
        9287343217721687313,
    ]


def test_golden_values_without_labels_and_with_empty_seed() -> None:
    """Seeds without labels, and the empty seed, are pinned too."""
    no_labels = Prng(b"golden")
    assert [no_labels.next_u64() for _ in range(2)] == [128828630212666411, 13766082088319798392]
    empty = Prng(b"")
    assert [empty.next_u64() for _ in range(2)] == [14855928512728931124, 6359362588134046785]


def test_golden_below_sequence() -> None:
    """below(10) gives a pinned sequence for a fixed seed."""
    prng = Prng(b"golden", "a", "b")
    assert [prng.below(10) for _ in range(12)] == [6, 5, 8, 6, 9, 5, 5, 0, 4, 4, 9, 4]


def test_golden_shuffle() -> None:
    """shuffled gives a pinned order for a fixed seed."""
    assert Prng(b"golden", "shuffle").shuffled(list(range(10))) == [1, 9, 3, 5, 0, 6, 4, 8, 2, 7]


def test_generator_matches_the_xoshiro256starstar_reference() -> None:
    """From the state (1, 2, 3, 4) the output equals the reference xoshiro256** implementation's."""
    prng = Prng(b"")
    prng._s = [1, 2, 3, 4]
    assert [prng.next_u64() for _ in range(4)] == [11520, 0, 1509978240, 1215971899390074240]


def test_state_is_sha256_of_seed_and_labels() -> None:
    """The documented derivation: SHA-256 of the prefix and the length-prefixed seed and labels, as
    little-endian words."""
    material = b"parlour-prng-v1" + b"\0\0\0\x04seed" + b"\0\0\0\x01x" + b"\0\0\0\x01y"
    digest = hashlib.sha256(material).digest()
    words = [int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8)]
    assert Prng(b"seed", "x", "y")._s == words


def test_seed_and_label_boundaries_cannot_be_confused() -> None:
    """Moving bytes between the seed and a label gives another stream."""
    assert Prng(b"s\0x")._s != Prng(b"s", "x")._s
    assert Prng(b"s", "a\0b")._s != Prng(b"s", "a", "b")._s


def test_same_seed_same_stream() -> None:
    """Two generators with the same seed and labels give the same numbers."""
    a, b = Prng(b"s", "l"), Prng(b"s", "l")
    assert [a.next_u64() for _ in range(20)] == [b.next_u64() for _ in range(20)]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ((b"s", "deal-1"), (b"s", "deal-2")),
        ((b"s", "a", "b"), (b"s", "ab")),
        ((b"s", "a", "b"), (b"s", "b", "a")),
        ((b"s",), (b"s", "")),
        ((b"s",), (b"t",)),
    ],
)
def test_different_labels_or_seeds_give_different_streams(one: tuple[Any, ...], other: tuple[Any, ...]) -> None:
    """Labels (and their order and boundaries) and seeds select independent streams."""
    a, b = Prng(*one), Prng(*other)
    assert [a.next_u64() for _ in range(4)] != [b.next_u64() for _ in range(4)]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 50, 1 << 33, (1 << 64) - 1, 1 << 64])
def test_below_stays_in_range(n: int) -> None:
    """below(n) is always in [0, n)."""
    prng = Prng(b"range", str(n))
    assert all(0 <= prng.below(n) < n for _ in range(500))


def test_below_one_is_zero() -> None:
    """below(1) can only be 0."""
    prng = Prng(b"one")
    assert {prng.below(1) for _ in range(10)} == {0}


@pytest.mark.parametrize("n", [0, -1, (1 << 64) + 1])
def test_below_refuses_an_empty_or_too_large_range(n: int) -> None:
    """below(n) needs 1 <= n <= 2**64."""
    with pytest.raises(ValueError, match="1 <= n <= 2\\*\\*64"):
        Prng(b"x").below(n)


def test_below_covers_every_value_about_evenly() -> None:
    """Each value of below(6) comes up roughly equally often."""
    prng = Prng(b"even")
    counts = Counter(prng.below(6) for _ in range(6000))
    assert set(counts) == set(range(6))
    assert all(800 < c < 1200 for c in counts.values())


def test_shuffled_is_a_permutation_and_leaves_the_input_alone() -> None:
    """shuffled returns a new list with the same items and does not change its argument."""
    items = list(range(50))
    result = Prng(b"perm").shuffled(items)
    assert sorted(result) == items and result != items
    assert items == list(range(50))


def test_choice_picks_an_element_and_refuses_empty() -> None:
    """choice returns one of the items and refuses an empty sequence."""
    prng = Prng(b"choice")
    assert {prng.choice("abc") for _ in range(60)} == {"a", "b", "c"}
    with pytest.raises(ValueError, match="non-empty"):
        prng.choice([])


@given(seed=st.binary(max_size=16), items=st.lists(st.integers(), max_size=60))
def test_shuffled_is_always_a_permutation(seed: bytes, items: list[int]) -> None:
    """For any seed and any list, shuffled returns the same multiset of items."""
    assert Counter(Prng(seed).shuffled(items)) == Counter(items)


@given(seed=st.binary(max_size=16), n=st.integers(min_value=1, max_value=1 << 64))
def test_below_is_always_in_range(seed: bytes, n: int) -> None:
    """For any seed and any allowed n, below(n) is in [0, n)."""
    prng = Prng(seed)
    assert all(0 <= prng.below(n) < n for _ in range(5))
