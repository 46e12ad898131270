"""The flags of ``parlour serve`` as the command line gives them: the limit and TLS groups parsed into
Settings, and the values that cannot work (a clock range no clock fits in, retention runs without a pause,
a page or name limit of 0, a trusted proxy that is not a network, half a certificate) refused at start with
one sentence naming the flags, without a traceback."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service.cli import _settings, register
from service.config import Settings
from tests.e2e.test_tls import _certificates


@pytest.fixture(autouse=True)
def _no_parlour_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings come from the flags alone here, whatever the environment running the tests sets."""
    for name in list(os.environ):
        if name.startswith("PARLOUR_"):
            monkeypatch.delenv(name)


def _serve(*argv: str) -> Settings:
    """``parlour serve argv`` as Settings (SystemExit for a refused value)."""
    parser = argparse.ArgumentParser(prog="parlour")
    register(parser.add_subparsers())
    return _settings(parser.parse_args(["serve", *argv]))


def test_without_flags_every_limit_is_its_default() -> None:
    assert _serve() == Settings()


#: Every flag of the limits group, a value other than its default, and the Settings field it sets.
LIMIT_FLAGS = [
    ("--max-tournament-bots", "8", "max_tournament_bots", 8),
    ("--max-round-games", "50", "max_round_games", 50),
    ("--rate-create-games", "20/minute", "rate_create_games", "20/minute"),
    ("--rate-claim-seats", "0", "rate_claim_seats", "0"),
    ("--rate-joins", "5/minute", "rate_joins", "5/minute"),
    ("--rate-calls", "5 per second", "rate_calls", "5 per second"),
    ("--max-streams-per-client", "4", "max_streams_per_client", 4),
    ("--max-streams", "5000", "max_streams", 5000),
    ("--stream-stall-seconds", "2.5", "stream_stall_seconds", 2.5),
    ("--abandon-after-hours", "0", "abandon_after_hours", 0.0),
    ("--finished-ttl-hours", "48", "finished_ttl_hours", 48.0),
    ("--retention-seconds", "30", "retention_seconds", 30.0),
    ("--min-move-ms", "200", "min_move_ms", 200),
    ("--max-move-ms", "60000", "max_move_ms", 60_000),
    ("--max-games-page", "20", "max_games_page", 20),
    ("--max-events-page", "200", "max_events_page", 200),
    ("--max-player-name-length", "16", "max_player_name_length", 16),
    ("--max-bot-name-length", "32", "max_bot_name_length", 32),
    ("--max-api-key-name-length", "12", "max_api_key_name_length", 12),
    ("--trusted-proxies", "10.0.0.0/8,fd00::/8", "trusted_proxies", "10.0.0.0/8,fd00::/8"),
    ("--export-dir", "exports", "export_dir", Path("exports")),
    ("--max-export-bytes", "1048576", "max_export_bytes", 1_048_576),
]


@pytest.mark.parametrize(("flag", "text", "field", "value"), LIMIT_FLAGS)
def test_each_limit_flag_sets_its_setting(flag: str, text: str, field: str, value: object) -> None:
    settings = _serve(flag, text)
    assert getattr(settings, field) == value
    assert getattr(Settings(), field) != value, "pick a value other than the default"


def test_the_state_cache_size_comes_from_its_flag_or_its_variable() -> None:
    """``--cache-games`` (or ``PARLOUR_CACHE_GAMES``) sets how many games' states a process keeps in memory;
    a variable that is not a number of games is refused naming it."""
    assert _serve("--cache-games", "500").cache_games == 500 != Settings().cache_games
    assert Settings.from_env({"PARLOUR_CACHE_GAMES": "250"}).cache_games == 250
    with pytest.raises(ValueError, match="PARLOUR_CACHE_GAMES must be a whole number of games"):
        Settings.from_env({"PARLOUR_CACHE_GAMES": "0"})


def test_require_api_key_is_a_switch() -> None:
    assert _serve("--require-api-key").require_api_key is True
    assert _serve().require_api_key is False


def test_every_limit_flag_has_a_parsing_test() -> None:
    parser = argparse.ArgumentParser(prog="parlour")
    register(parser.add_subparsers())
    serve = parser._subparsers._group_actions[0].choices["serve"]
    limits = next(group for group in serve._action_groups if group.title == "limits")
    flags = {action.option_strings[0] for action in limits._group_actions}
    assert flags == {flag for flag, *_ in LIMIT_FLAGS} | {"--require-api-key"}


@pytest.mark.parametrize(
    ("argv", "sentence"),
    [
        (["--min-move-ms", "5000", "--max-move-ms", "10"], "--min-move-ms 5000 is more than --max-move-ms 10"),
        (["--min-move-ms", "4000000"], "--min-move-ms 4000000 is more than --max-move-ms 3600000"),
        (["--max-move-ms", "0"], "--max-move-ms must be 1 to 3600000"),
        (["--max-move-ms", "3600001"], "--max-move-ms must be 1 to 3600000"),
        (["--retention-seconds", "0"], "--retention-seconds must be more than 0"),
        (["--retention-seconds", "inf"], "--retention-seconds must be a finite number"),
        (["--abandon-after-hours", "nan"], "--abandon-after-hours must be a finite number"),
        (["--max-games-page", "0"], "--max-games-page must be 1 or more"),
        (["--max-events-page", "0"], "--max-events-page must be 1 or more"),
        (["--max-player-name-length", "0"], "--max-player-name-length must be 1 or more"),
        (["--max-bot-name-length", "0"], "--max-bot-name-length must be 1 or more"),
        (["--max-api-key-name-length", "0"], "--max-api-key-name-length must be 1 or more"),
        (["--max-streams", "-1"], "--max-streams must be 0 or more"),
        (["--cache-games", "0"], "--cache-games must be 1 or more"),
        (["--rate-calls", "lots"], "--rate-calls must be a rate like 20/minute"),
        (["--trusted-proxies", "10.0.0.0/33"], "--trusted-proxies takes networks like 10.0.0.0/8"),
        (["--tls-cert", "cert.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-key", "key.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-cert", "missing.pem", "--tls-key", "missing.key"], "--tls-cert missing.pem is not a file"),
    ],
)
def test_values_that_cannot_work_are_refused_with_a_sentence_naming_the_flags(argv: list[str], sentence: str) -> None:
    with pytest.raises(SystemExit) as refused:
        _serve(*argv)
    assert str(refused.value.code).startswith("parlour serve: ")
    assert sentence in str(refused.value.code)


def test_the_tls_flags_set_the_certificate_and_key(tmp_path: Path) -> None:
    _, cert, key = _certificates(tmp_path)
    settings = _serve("--tls-cert", str(cert), "--tls-key", str(key))
    assert (settings.tls_cert, settings.tls_key) == (cert, key)
    assert (Settings().tls_cert, Settings().tls_key) == (None, None)


def test_a_certificate_with_a_key_that_is_not_its_own_is_refused(tmp_path: Path) -> None:
    ca, cert, _ = _certificates(tmp_path)
    with pytest.raises(SystemExit) as refused:
        _serve("--tls-cert", str(cert), "--tls-key", str(ca))  # a certificate where the key should be
    assert "are not a PEM certificate and its key" in str(refused.value.code)


def test_a_contradiction_stops_parlour_serve_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "parlour.cli.main", "serve", "--data-dir", str(tmp_path)]
    command += ["--min-move-ms", "5000", "--max-move-ms", "10"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [
        "parlour serve: --min-move-ms 5000 is more than --max-move-ms 10, so every clock would be refused; give "
        "a minimum no larger than the maximum"
    ]
    assert not any(tmp_path.iterdir()), "nothing was started"


def test_rules_pins_name_the_version_new_games_of_a_game_get() -> None:
    settings = _serve("--rules", "libertalia=libertalia/1", "--rules", "oldmen/1")
    assert settings.rules_pins == (("libertalia", "libertalia/1"), ("oldmen", "oldmen/1"))


@pytest.mark.parametrize(
    ("pin", "said"),
    [
        ("libertalia=libertalia/9", "cannot pin libertalia to 'libertalia/9': this server holds the rules versions"),
        ("chess=chess/1", "there is no game 'chess'"),
        ("libertalia=oldmen/1", "takes GAME=VERSION like 'libertalia=libertalia/1'"),
        ("libertalia", "takes GAME=VERSION"),
    ],
)
def test_a_rules_pin_the_server_cannot_keep_is_refused_at_start_in_one_sentence(pin: str, said: str) -> None:
    with pytest.raises(SystemExit) as refused:
        _serve("--rules", pin)
    assert said in str(refused.value)
    assert str(refused.value).startswith("parlour serve: --rules")
