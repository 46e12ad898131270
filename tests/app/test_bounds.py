"""The bounds the API description states are the server's own rules, written as regular expressions."""

from __future__ import annotations

import random
import re

import pytest

from service.app.bounds import digits_between, player_name_pattern
from service.app.errors import ServiceError
from service.app.sizes import SizeLimits


@pytest.mark.parametrize(("low", "high"), [(0, 0), (0, 9), (1, 1), (5, 123), (19, 20), (99, 1001), (100, 100)])
def test_a_range_pattern_matches_exactly_the_numbers_of_the_range(low: int, high: int) -> None:
    pattern = re.compile(digits_between(low, high))
    assert [n for n in range(0, 3000) if bool(pattern.fullmatch(str(n))) != (low <= n <= high)] == []


@pytest.mark.parametrize(("low", "high"), [(1000, 3_600_000), (0, 86_400_000), (1, 3_600_000), (5000, 10_000)])
def test_the_clock_patterns_match_their_edges_and_nothing_past_them(low: int, high: int) -> None:
    pattern = re.compile(digits_between(low, high))
    rng = random.Random(low)
    inside = [low, high, *(rng.randint(low, high) for _ in range(2000))]
    outside = [
        n for n in (low - 1, high + 1, high * 10, *(rng.randint(high + 1, high * 100) for _ in range(500))) if n >= 0
    ]
    assert all(pattern.fullmatch(str(n)) for n in inside)
    assert not any(pattern.fullmatch(str(n)) for n in outside)
    assert not any(pattern.fullmatch(text) for text in ("", "-1", "+5000", f"0{high}", f"{low} ", "1e4"))


def _accepted(name: str) -> bool:
    """Whether ClaimSeat takes ``name`` (it strips surrounding whitespace, then checks the rest)."""
    try:
        SizeLimits().check_player_name(name.strip())
    except ServiceError:
        return False
    return True


def test_the_player_name_pattern_is_the_servers_rule_for_every_character_of_the_plane() -> None:
    """Alone (first and last character) and between two letters (inside a name), each character of the
    Basic Multilingual Plane is in the pattern exactly when the server takes it. Surrounding whitespace,
    which the server strips, the pattern leaves out."""
    pattern = re.compile(player_name_pattern())
    disagree = []
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        alone = _accepted(char) and not char.isspace()
        if bool(pattern.fullmatch(char)) != alone or bool(pattern.fullmatch(f"a{char}b")) != _accepted(f"a{char}b"):
            disagree.append(hex(code))
    assert disagree == []


@pytest.mark.parametrize("name", [" ", "\u0000", "", "a\u202eb", "a\nb", "x" * 65, " a", "a "])
def test_names_the_pattern_refuses(name: str) -> None:
    assert not re.fullmatch(player_name_pattern(), name)


@pytest.mark.parametrize("name", ["a", "Zoë", "王小明", "a b", "x" * 64, "R2-D2 (bot)"])
def test_names_the_pattern_and_the_server_take(name: str) -> None:
    assert re.fullmatch(player_name_pattern(), name) and _accepted(name)


@pytest.mark.parametrize("longest", [1, 2, 5, 64])
def test_the_pattern_follows_the_configured_name_length(longest: int) -> None:
    pattern = re.compile(player_name_pattern(longest))
    assert pattern.fullmatch("x" * longest) and not pattern.fullmatch("x" * (longest + 1))
