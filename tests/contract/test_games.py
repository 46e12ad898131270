"""The engine contract, checked for every registered game, every seat count and every option value.

Each game is played to its end several times with seeded random legal moves; along the way the
invariants every client relies on are checked.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf import text_format

from engines.contract import AnyGame, GameConfig, commit_seed, fold, step
from engines.errors import GameError, GameOverError, NotYourTurnError
from engines.playout import Playout, play
from engines.registry import GAMES, REGISTRY, game_part, hidden_variants
from engines.verify import LoggedEvent, seed_commitment, verify_log
from tests.versions import GOLDEN, golden_name, next_version


@dataclass(frozen=True)
class Case:
    game: AnyGame
    config: GameConfig

    def __str__(self) -> str:
        options = ",".join(f"{k}={v}" for k, v in self.config.options)
        return f"{self.game.spec.rules_version}-{self.config.seats}p{'-' + options if options else ''}"


def _cases() -> list[Case]:
    """Every current version at every seat count and every combination of options; an earlier version
    (whose golden transcript and fingerprint pin it already) at every seat count with the default options
    and with each other option value."""
    cases = []
    for game in REGISTRY.all():
        spec = game.spec
        current = REGISTRY.current(spec.name) is game
        option_values = [[(o.name, v) for v in o.allowed] for o in spec.options]
        combos = list(itertools.product(*option_values)) if current and option_values else [()]
        for seats in range(spec.min_seats, spec.max_seats + 1):
            cases += [Case(game, spec.config(seats, dict(combo))) for combo in combos]
        if not current:
            for option in spec.options:
                others = [v for v in option.allowed if v != option.default]
                cases += [Case(game, spec.config(spec.max_seats, {option.name: v})) for v in others]
    return cases


CASES = _cases()
SEEDS = [b"contract-1", b"contract-2"]


def _key(message: Any) -> bytes:
    return bytes(message.SerializeToString(deterministic=True))


@pytest.fixture(scope="module", params=CASES, ids=str)
def playouts(request: pytest.FixtureRequest) -> tuple[Case, list[Playout]]:
    case: Case = request.param
    return case, [play(case.game, case.config, seed) for seed in SEEDS]


def test_same_seed_same_events(playouts: tuple[Case, list[Playout]]) -> None:
    """A game is a function of its seed and its commands: playing it again gives identical events."""
    case, games = playouts
    again = play(case.game, case.config, SEEDS[0])
    assert [_key(e) for e in again.events] == [_key(e) for e in games[0].events]


def test_different_seeds_deal_differently(playouts: tuple[Case, list[Playout]]) -> None:
    """The seed drives the deal."""
    _, games = playouts
    assert [_key(e) for e in games[0].setup] != [_key(e) for e in games[1].setup]


def test_replay_equals_live_state(playouts: tuple[Case, list[Playout]]) -> None:
    """Folding the whole log from nothing gives the state the game reached live."""
    case, games = playouts
    for game in games:
        assert fold(case.game, game.events) == game.state
        assert case.game.is_over(game.state)
        result = case.game.result(game.state)
        assert result is not None
        assert sorted(s.seat for s in result.standings) == list(range(case.config.seats))
        assert min(s.rank for s in result.standings) == 1


def test_legal_commands_are_exactly_what_decide_accepts(playouts: tuple[Case, list[Playout]]) -> None:
    """At every step: a seat has legal commands exactly when it must act; each one is accepted; every
    other command seen in the game is rejected with a sentence; decide changes neither state nor command."""
    case, games = playouts
    game = case.game
    seen: dict[bytes, Any] = {}
    state = fold(game, games[0].setup)
    for move in games[0].moves:
        pending = game.pending(state)
        for seat in range(case.config.seats):
            legal = game.legal_commands(state, seat)
            assert bool(legal) == (seat in pending), f"seat {seat}: legal commands vs pending {sorted(pending)}"
            legal_keys = {_key(c) for c in legal}
            for command in legal:
                seen.setdefault(_key(command), command)
                before = _key(command)
                step(game, state, seat, command)
                assert _key(command) == before, "decide must not change its command"
            for key, command in itertools.islice(seen.items(), 60):
                if key in legal_keys:
                    continue
                with pytest.raises(GameError) as error:
                    step(game, state, seat, command)
                assert str(error.value), "a rejection carries a sentence"
                if seat not in pending:
                    assert isinstance(error.value, NotYourTurnError)
        state = fold(game, move.events, state)
    with pytest.raises(GameOverError):
        step(game, state, 0, next(iter(seen.values())))


def test_hidden_information_does_not_reach_other_seats(playouts: tuple[Case, list[Playout]]) -> None:
    """A seat's view and its redacted events are the same when only other seats' hidden data differs (the
    game's own ``hidden.py`` says what that is; each variant must differ from the deal)."""
    case, games = playouts
    game = case.game
    setup = games[0].setup
    variants = hidden_variants(game)
    for seat in [*range(case.config.seats), None]:
        base_state = fold(game, setup)
        base_view = _key(game.view(base_state, seat))
        base_events = [_key(game.redact(e, seat)) for e in setup]
        found = variants(setup, seat)
        assert found, "a game hides something from every seat: its hidden.py gives at least one variant"
        for variant in found:
            assert [_key(e) for e in variant] != [_key(e) for e in setup], "a variant that changes nothing"
            assert [_key(game.redact(e, seat)) for e in variant] == base_events
            assert _key(game.view(fold(game, variant), seat)) == base_view


def test_a_missing_part_of_a_game_is_named() -> None:
    """A game without a file the suite needs is told which one (not a bare import error)."""
    game = GAMES[0]
    folder = type(game).__module__.rpartition(".")[0].replace(".", "/")
    with pytest.raises(LookupError, match=rf"^{game.spec.name} has no {folder}/nothing\.py"):
        game_part(game, "nothing")


def test_after_the_end_nothing_hidden_shows_unless_revealed(playouts: tuple[Case, list[Playout]]) -> None:
    """The after-the-end rule in the engines: a finished game's views and events, as redacted, hide as much
    as while it ran (other hands, the seed and its salt, in the final event too); with ``reveal`` (a public
    finished game) every hand shows to everyone and events come whole."""
    case, games = playouts
    game, played = case.game, games[0]
    seed, salt = SEEDS[0], bytes(played.events[0].game_started.seed_salt)
    assert played.state is not None and game.is_over(played.state)
    own = {s: list(game.view(played.state, s).seats[s].hand) for s in range(case.config.seats)}
    for seat in [*range(case.config.seats), None]:
        for event in played.events:
            data = game.redact(event, seat).SerializeToString()
            assert seed not in data and (not salt or salt not in data)
            assert game.redact(event, seat, finished=True) == event
        view = game.view(played.state, seat)
        assert seed not in view.SerializeToString()
        assert all(not v.hand for v in view.seats if v.seat != seat)
        revealed = game.view(played.state, seat, reveal=True)
        assert {v.seat: list(v.hand) for v in revealed.seats} == own


def test_default_command_is_legal(playouts: tuple[Case, list[Playout]]) -> None:
    """What the server plays for a seat out of time is always accepted."""
    case, games = playouts
    state = fold(case.game, games[0].setup)
    for move in games[0].moves[:200]:
        for seat in case.game.pending(state):
            step(case.game, state, seat, case.game.default_command(state, seat))
        state = fold(case.game, move.events, state)


@pytest.mark.parametrize("game", REGISTRY.all(), ids=lambda g: g.spec.rules_version)
def test_golden_transcript(game: AnyGame, request: pytest.FixtureRequest) -> None:
    """One full game per rules version is pinned move by move; a change to it is a change of the rules
    version (a released version never changes: add one instead)."""
    config = game.spec.config(game.spec.max_seats)
    playout = play(game, config, b"golden")
    lines = [f"# {game.spec.rules_version} seats={config.seats} seed=golden"]
    lines += [f"= {text_format.MessageToString(e, as_one_line=True)}" for e in playout.setup]
    for move in playout.moves:
        lines.append(f"> seat {move.seat}: {text_format.MessageToString(move.command, as_one_line=True)}")
        lines += [f"= {text_format.MessageToString(e, as_one_line=True)}" for e in move.events]
    text = "\n".join(lines) + "\n"
    path = GOLDEN / golden_name(game)
    if request.config.getoption("--update-golden") or not path.exists():
        path.write_text(text)
        if not request.config.getoption("--update-golden"):
            pytest.fail(f"wrote the missing golden transcript {path.name}; check it in and run again")
    assert text == path.read_text(), (
        f"{path.name} changed: {game.spec.rules_version} no longer plays as it was released. If the rules "
        f"changed on purpose, keep {game.spec.rules_version} as it was and add {next_version(game)} "
        "(engines/README.md, 'Adding a rules version')"
    )


def test_seed_is_committed_at_start_and_revealed_at_end(playouts: tuple[Case, list[Playout]]) -> None:
    """The first event publishes the seed's commitment (never the seed while running); the last reveals it."""
    case, games = playouts
    for played, seed in zip(games, SEEDS, strict=True):
        rules_version, commitment = seed_commitment(played.events[0])
        assert rules_version == case.game.spec.rules_version
        assert commitment == commit_seed(seed, rules_version)
        assert not case.game.redact(played.events[0], None).game_started.seed
        last = played.events[-1]
        assert getattr(last, last.WhichOneof("kind")).seed == seed


def test_a_played_game_verifies_from_its_revealed_seed(playouts: tuple[Case, list[Playout]]) -> None:
    """Re-deciding every command from the seed gives the same events; one changed event is named."""
    case, games = playouts
    played = games[0]
    log = [LoggedEvent(i + 1, e) for i, e in enumerate(played.setup)]
    for move in played.moves:
        for offset, event in enumerate(move.events):
            first = offset == 0
            log.append(LoggedEvent(len(log) + 1, event, move.seat if first else None, move.command if first else None))
    assert verify_log(case.game, case.config, SEEDS[0], log).ok
    changed = log[len(played.setup) + 2]
    forged = type(changed.event)()
    forged.CopyFrom(played.events[len(played.setup) + 3])
    log[changed.version - 1] = LoggedEvent(changed.version, forged, changed.seat, changed.command)
    verdict = verify_log(case.game, case.config, SEEDS[0], log)
    assert (verdict.ok, verdict.first_bad_version) == (False, changed.version)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
def test_a_log_of_other_rules_is_reported_as_made_by_other_rules(game: AnyGame) -> None:
    """A log whose first event names another rules version is not a forgery: it was made by other rules."""
    config = game.spec.config(game.spec.min_seats)
    playout = play(game, config, b"other-rules")
    log = [LoggedEvent(i + 1, e) for i, e in enumerate(playout.events)]
    started = type(log[0].event)()
    started.CopyFrom(log[0].event)
    started.game_started.rules_version = game.spec.name + "/0"
    verdict = verify_log(game, config, b"other-rules", [LoggedEvent(1, started), *log[1:]])
    assert not verdict.ok and verdict.first_bad_version == 1
    assert "made by other rules" in verdict.message and game.spec.name + "/0" in verdict.message
