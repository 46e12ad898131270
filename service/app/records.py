"""A game's metadata record (as kept beside its log) and the summaries built from it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from engines.contract import AnyGame, GameConfig
from engines.registry import REGISTRY, Registry
from parlour.v1 import game_pb2, game_service_pb2
from service.app.errors import ServiceError
from service.app.meta_fields import FINISHED, RUNNING, pending_of
from service.app.time_control import TimeControl
from service.app.timestamps import timestamp
from service.app.tokens import hash_token, new_token

__all__ = ["RELEASED", "GameRecord", "SeatClaim", "new_meta", "rules_unavailable"]

STATUS = {RUNNING: game_pb2.GAME_STATUS_RUNNING, FINISHED: game_pb2.GAME_STATUS_FINISHED}
#: The after-the-end policy of a game held hidden until released, and the field that releases it.
HELD, RELEASED = "held", "released"


@dataclass(frozen=True)
class SeatClaim:
    """Who holds a seat: the player's name and the hash of the seat token."""

    name: str
    token_hash: str


@dataclass(frozen=True)
class GameRecord:
    """A game's metadata, parsed. ``game`` is the engine of the rules version the game began under; a
    server that does not hold that version still reads the record (its summary), but :attr:`game` refuses
    with ``game/rules_unavailable``: a game is never decided, folded or viewed by other rules."""

    game_id: str
    name: str
    rules_version: str
    engine: AnyGame | None
    config: GameConfig
    status: str
    version: int
    created_ms: int
    updated_ms: int
    claims: dict[int, SeatClaim]
    results: tuple[dict[str, int], ...]
    reveal_after_end: bool = True
    time_control: TimeControl | None = None
    abandoned: bool = False
    #: The seats that must act now, as the last command left them (empty for a game stored before it was kept).
    pending: tuple[int, ...] = ()
    #: Seats the server plays itself, by seat: the built-in strategy's name.
    house_bots: dict[int, str] = field(default_factory=dict)
    policy: str = "true"
    #: Whether the game is over.
    finished: bool = field(init=False)
    #: Whether every seat is claimed.
    full: bool = field(init=False)
    #: Whether the game is hidden after its end only until it is released (a duplicate deal's table).
    held: bool = field(init=False)
    #: Whether everything about the game may be shown: it is over and its policy reveals it.
    public: bool = field(init=False)
    #: Whether the game is a held table that is over but not yet released: a table of a tournament's
    #: duplicate deal while another table of the deal is still being played. Only its own seats (with
    #: their tokens) read it then, and nobody sees its result (see ``Games``).
    withheld: bool = field(init=False)

    def __post_init__(self) -> None:
        """Work out the flags above once: the request paths read them often."""
        finished = self.status == FINISHED
        held = self.policy == HELD and not self.reveal_after_end
        flags = {
            "finished": finished,
            "full": len(self.claims) == self.config.seats,
            "held": held,
            "public": finished and self.reveal_after_end,
            "withheld": finished and held,
        }
        for name, value in flags.items():
            object.__setattr__(self, name, value)  # the dataclass is frozen to everyone else

    @property
    def game(self) -> AnyGame:
        """The engine of the game's own rules version; game/rules_unavailable if this server lacks it."""
        if self.engine is None:
            raise rules_unavailable(self.rules_version, f"game {self.game_id}")
        return self.engine

    @classmethod
    def parse(cls, game_id: str, meta: dict[str, str], registry: Registry = REGISTRY) -> GameRecord:
        """The record stored by :func:`new_meta` and later updates; its engine is ``registry``'s for the
        game's own rules version (None when ``registry`` lacks it)."""
        name, rules_version = meta["game"], meta["rules_version"]
        options = json.loads(meta.get("options", "{}"))
        config = GameConfig(seats=int(meta["seats"]), options=tuple(sorted(options.items())))
        claims = {
            int(name.split(":")[1]): SeatClaim(**json.loads(value))
            for name, value in meta.items()
            if name.startswith("seat:")
        }
        house_bots = {int(name.split(":")[1]): value for name, value in meta.items() if name.startswith("house:")}
        return cls(
            game_id=game_id,
            name=name,
            rules_version=rules_version,
            engine=registry.get(name, rules_version),
            config=config,
            status=meta.get("status", RUNNING),
            version=int(meta.get("version", 0)),
            created_ms=int(meta.get("created_ms", 0)),
            updated_ms=int(meta.get("updated_ms", 0)),
            claims=claims,
            results=tuple(json.loads(meta.get("result", "[]"))),
            reveal_after_end=_reveals(meta),
            policy=meta.get("reveal_after_end", "true"),
            time_control=TimeControl.from_json(meta["time_control"]) if "time_control" in meta else None,
            house_bots=house_bots,
            abandoned="abandoned_ms" in meta,
            pending=pending_of(meta),
        )

    def summary(self) -> game_service_pb2.GameSummary:
        """The public summary of the game (no tokens). A :attr:`withheld` game's says so and shows neither
        its length (version 0) nor its results: both tell something of the deal its other tables play."""
        withheld = self.withheld
        summary = game_service_pb2.GameSummary(
            game_id=self.game_id,
            game=self.name,
            rules_version=self.rules_version,
            status=STATUS[self.status],
            version=0 if withheld else self.version,
            withheld=withheld,
            options=dict(self.config.options),
            created_at=timestamp(self.created_ms),
            updated_at=timestamp(self.updated_ms),
            abandoned=self.abandoned,
            pending_seats=() if self.finished else self.pending,
            keep_hidden_after_end=not self.reveal_after_end,
        )
        for seat in range(self.config.seats):
            claim = self.claims.get(seat)
            summary.seats.add(
                seat=seat,
                claimed=claim is not None,
                player_name=claim.name if claim else "",
                house_bot=self.house_bots.get(seat, ""),
            )
        if not withheld:
            summary.results.extend(self.seat_results())
        if self.time_control is not None:
            summary.time_control.CopyFrom(self.time_control.to_proto())
        return summary

    def seat_results(self) -> list[game_pb2.SeatResult]:
        """Final standings with player names (empty while the game runs)."""
        return [
            game_pb2.SeatResult(
                seat=r["seat"],
                score=r["score"],
                rank=r["rank"],
                player_name=self.claims[r["seat"]].name if r["seat"] in self.claims else "",
            )
            for r in self.results
        ]


def _reveals(meta: dict[str, str]) -> bool:
    policy = meta.get("reveal_after_end", "true")
    return policy == "true" or (policy == HELD and meta.get(RELEASED) == "true")


def new_meta(
    game: AnyGame,
    config: GameConfig,
    *,
    reveal_after_end: bool = True,
    time_control: TimeControl | None = None,
    house_bots: Mapping[int, str] | None = None,
    held: bool = False,
) -> dict[str, str]:
    """The metadata of a new game. Each house bot's seat is claimed at once, named after its strategy, with
    the hash of a token nobody is given (the server plays it with its own authority). ``held``: hidden
    after the end until the field RELEASED is set."""
    meta = {
        "game": game.spec.name,
        "rules_version": game.spec.rules_version,
        "seats": str(config.seats),
        "options": json.dumps(dict(config.options), sort_keys=True),
        "status": RUNNING,
        "reveal_after_end": HELD if held else "true" if reveal_after_end else "false",
    }
    if time_control is not None:
        meta["time_control"] = time_control.to_json()
    for seat, strategy in (house_bots or {}).items():
        meta[f"house:{seat}"] = strategy
        meta[f"seat:{seat}"] = json.dumps(
            SeatClaim(name=f"{strategy} bot", token_hash=hash_token(new_token())).__dict__
        )
    return meta


def rules_unavailable(rules_version: str, what: str) -> ServiceError:
    """game/rules_unavailable: ``what`` (a game, an export) was made under ``rules_version``, which this
    server does not hold."""
    return ServiceError(
        "game/rules_unavailable",
        f"{what} is played under the rules {rules_version}, which this server does not have: it never plays a "
        "game by other rules; use a server of a release that has them (in a rolling upgrade, retry: an "
        "upgraded server serves it)",
    )
