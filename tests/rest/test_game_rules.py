"""GetGameRules over REST: a rules version's components named and explained, with its own numbers, for any
frontend to show; an older version's texts; clear refusals."""

from __future__ import annotations

import pytest

from tests.rest.harness import HttpError, JsonClient


async def test_the_current_rules_name_every_character_with_its_own_numbers(api: JsonClient) -> None:
    rules = await api.call("GET", "/v1/gameTypes/libertalia/rules")
    assert rules["rulesVersion"] == "libertalia/2"
    officer = next(e for e in rules["entries"] if (e["kind"], e["id"]) == ("character", "12"))
    assert officer["name"] == "Officer" and "12" in officer["effect"] and officer["description"]
    kinds = {e["kind"] for e in rules["entries"]}
    assert {"character", "loot", "track_space"} <= kinds
    assert {p["phase"] for p in rules["phases"]} >= {"LIBERTALIA_PHASE_SELECT", "LIBERTALIA_PHASE_ANCHOR"}


async def test_an_earlier_version_and_the_other_games_have_texts_too(api: JsonClient) -> None:
    older = await api.call("GET", "/v1/gameTypes/libertalia/rules", rulesVersion="libertalia/1")
    assert older["rulesVersion"] == "libertalia/1" and len(older["entries"]) >= 62
    oldmen = await api.call("GET", "/v1/gameTypes/oldmen/rules")
    assert any(e["kind"] == "orangutan" and "points" in e["effect"] for e in oldmen["entries"])
    verraeter = await api.call("GET", "/v1/gameTypes/verraeter/rules")
    assert any(e["kind"] == "action_card" and e["name"] == "Traitor" for e in verraeter["entries"])


async def test_an_unknown_game_or_version_is_refused_in_a_sentence(api: JsonClient) -> None:
    with pytest.raises(HttpError) as unknown:
        await api.call("GET", "/v1/gameTypes/chess/rules")
    assert (unknown.value.status, unknown.value.body["reason"]) == (400, "game/unknown_type")
    with pytest.raises(HttpError) as missing:
        await api.call("GET", "/v1/gameTypes/libertalia/rules", rulesVersion="libertalia/9")
    assert (missing.value.status, missing.value.body["reason"]) == (404, "rules/not_found")
    assert "libertalia/1, libertalia/2" in missing.value.body["message"]
    with pytest.raises(HttpError) as other:
        await api.call("GET", "/v1/gameTypes/oldmen/rules", rulesVersion="libertalia/2")
    assert (other.value.status, other.value.body["reason"]) == (404, "rules/not_found")
