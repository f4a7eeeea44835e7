"""What the players agree on before a match: the format, its length, the cube's options.

``MatchRules`` is checked once, when it is made; the limits here bound it
and the cube (``CUBE_LIMIT``) for the whole match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .enums import Format

__all__ = ["CUBE_LIMIT", "MAX_AUTO_DOUBLES", "MAX_MATCH_LENGTH", "MatchRules"]

CUBE_LIMIT = 64
MAX_MATCH_LENGTH = 25
# Six automatic doubles already reach the cube's limit of 64.
MAX_AUTO_DOUBLES = 6


@dataclass(frozen=True)
class MatchRules:
    """What the players agreed on when the room was created."""

    format: Format = Format.SINGLE
    length: int = 0
    auto_doubles: bool = False
    max_auto_doubles: int = 1
    beavers: bool = False
    jacoby: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "format", Format(self.format))
        except ValueError:
            raise ValueError(f"unknown format {self.format!r}") from None
        for name in ("length", "max_auto_doubles"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be a whole number, got {value!r}")
        for name in ("auto_doubles", "beavers", "jacoby"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false")
        if self.format is Format.MATCH:
            if not 1 <= self.length <= MAX_MATCH_LENGTH:
                raise ValueError(f"a match is played to 1-{MAX_MATCH_LENGTH} points")
        elif self.length != 0:
            raise ValueError("only a match has a length")
        if self.format is not Format.SESSION and (self.auto_doubles or self.beavers or self.jacoby):
            raise ValueError("automatic doubles, beavers and Jacoby belong to a sesión libre")
        if not 1 <= self.max_auto_doubles <= MAX_AUTO_DOUBLES:
            raise ValueError(f"at most 1-{MAX_AUTO_DOUBLES} automatic doubles per game")

    @property
    def uses_cube(self) -> bool:
        return self.format is not Format.SINGLE

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format.value,
            "length": self.length,
            "auto_doubles": self.auto_doubles,
            "max_auto_doubles": self.max_auto_doubles,
            "beavers": self.beavers,
            "jacoby": self.jacoby,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchRules:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})
