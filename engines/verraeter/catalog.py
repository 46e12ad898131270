"""Verräter's components in sentences (see :mod:`engines.texts`): the land types and every land card of
the rules version, the action cards, the supply cards' values, the two buildings and the two houses, and a
line per phase; every number from the version's data."""

from __future__ import annotations

from engines.texts import Catalog, Entry, fill, load_texts
from engines.verraeter.data import ACTION_IDS, VerraeterRules, action_name, house_name

__all__ = ["catalog"]

_TEXTS = load_texts(__package__)


def catalog(rules: VerraeterRules) -> Catalog:
    """Every component of ``rules``' version, named and explained."""
    limits = {
        "hand_limit": rules.hand_limit,
        "max_play": rules.max_play,
        "buildings_per_player": rules.buildings_per_player,
        "trading_post_limit": rules.trading_post_limit,
        "trading_post_bonus_cap": rules.trading_post_bonus_cap,
    }
    entries = [*_lands(rules), *_actions(rules)]
    effect, description = _TEXTS["supply"]
    for value in sorted(set(rules.supply_base + rules.supply_five_player)):
        values = {"value": value, **limits}
        entries.append(
            Entry("supply_card", str(value), f"supply {value}", fill(effect, values), fill(description, values))
        )
    for side, (effect, description) in _TEXTS["buildings"].items():
        name = side.replace("_", " ")
        entries.append(Entry("building", side, name, fill(effect, limits), fill(description, limits)))
    for house, (effect, description) in _TEXTS["houses"].items():
        entries.append(Entry("house", house, house.capitalize(), effect, description))
    return Catalog(tuple(entries), tuple(_TEXTS["phases"].items()))


def _lands(rules: VerraeterRules) -> list[Entry]:
    """Each land type, and each land card (its type's text, with its starting house)."""
    effect, description = _TEXTS["land"]
    entries, by_type = [], {}
    for land_type in rules.land_types:
        name = _TEXTS["land_types"].get(land_type.id, land_type.id)
        table = ", ".join(f"{k} winner{'s' if k > 1 else ''}: {vp} each" for k, vp in enumerate(land_type.vp, 1))
        values = {"type": name, "base": land_type.base, "vp_one": land_type.vp[0], "vp_two": land_type.vp[1]}
        values["vp_table"] = table
        by_type[land_type.id] = entry = Entry(
            "land_type", land_type.id, name, fill(effect, values), fill(description, values)
        )
        entries.append(entry)
    for land in rules.lands:
        kind = by_type[land.type]
        starts = f" It starts in House {house_name(land.start)}."
        entries.append(Entry("land", land.id, kind.name, kind.effect, kind.description + starts))
    return entries


def _actions(rules: VerraeterRules) -> list[Entry]:
    entries = []
    for name, action in ACTION_IDS.items():
        effect_of = rules.actions.get(action)
        if effect_of is None:
            continue
        values = {"strength": effect_of.strength, "vp": effect_of.vp, "draws": effect_of.draws}
        effect, description = _TEXTS["actions"][name]
        entries.append(Entry("action_card", name, action_name(action), fill(effect, values), fill(description, values)))
    return entries
