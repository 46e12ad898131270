"""Parlour's seeded pseudo-random number generator: xoshiro256** seeded through SHA-256.

Python only promises that ``random.random()`` stays the same across versions, not ``shuffle`` or
``randrange``, and replays must stay exact forever. So the engines draw from this small generator, whose
output is pinned by a golden test.

Algorithm (for re-implementations in other languages):

* state: four unsigned 64-bit words, the SHA-256 digest of ``b"parlour-prng-v1" + field(seed) +
  field(label_1) + field(label_2) ...`` read as four little-endian words, where ``field(x)`` is the length
  of ``x`` as 4 bytes big-endian followed by ``x`` (UTF-8 for labels), so no two (seed, labels) inputs give
  the same material; labels derive independent streams from one seed;
* ``next_u64``: xoshiro256** (Blackman and Vigna, 2018);
* ``below(n)``: rejection sampling on the top bits, so every value in ``[0, n)`` is equally likely;
* ``shuffle``: Fisher-Yates from the last index down, swapping index ``i`` with ``below(i + 1)``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["Prng"]

_MASK = (1 << 64) - 1
T = TypeVar("T")


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _MASK


class Prng:
    """A deterministic stream of random numbers derived from ``seed`` and ``labels``.

    The same seed and labels always give the same stream, on every platform and Python version.
    """

    __slots__ = ("_s",)

    def __init__(self, seed: bytes, *labels: str) -> None:
        material = b"parlour-prng-v1" + _field(seed)
        for label in labels:
            material += _field(label.encode())
        digest = hashlib.sha256(material).digest()
        words = [int.from_bytes(digest[i : i + 8], "little") for i in range(0, 32, 8)]
        if not any(words):  # xoshiro must not start from all zeros; SHA-256 makes this practically impossible
            words[0] = 1
        self._s = words

    def next_u64(self) -> int:
        """The next unsigned 64-bit value."""
        s = self._s
        result = (_rotl((s[1] * 5) & _MASK, 7) * 9) & _MASK
        t = (s[1] << 17) & _MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """A uniformly distributed integer in ``[0, n)``; ``n`` must be between 1 and 2**64."""
        if not 1 <= n <= 1 << 64:
            raise ValueError(f"below() needs 1 <= n <= 2**64, got {n}")
        bits = (n - 1).bit_length()
        while True:
            candidate = self.next_u64() >> (64 - bits) if bits else 0
            if candidate < n:
                return candidate

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list with ``items`` in a uniformly random order (Fisher-Yates)."""
        result = list(items)
        for i in range(len(result) - 1, 0, -1):
            j = self.below(i + 1)
            result[i], result[j] = result[j], result[i]
        return result

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence, each equally likely."""
        if not items:
            raise ValueError("choice() needs a non-empty sequence")
        return items[self.below(len(items))]
