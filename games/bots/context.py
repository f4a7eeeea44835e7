"""What a bot knows about the game around a decision: the cube and the score.

Everything is seen from the bot's own side. Without a context a bot plays a
cubeless money game, which is what ``botmatch`` measures.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BotContext:
    cube_value: int = 1
    cube_owner: str = "centered"  # "centered", "me" or "them"
    cube_in_play: bool = False  # False: cubeless (a single game, the Crawford game...)
    match_length: int = 0  # 0: money (unlimited) play
    score: tuple[int, int] = (0, 0)  # (mine, theirs) before this game
    crawford: bool = False  # this is the Crawford game
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        if self.cube_owner not in ("centered", "me", "them"):
            raise ValueError(f"cube_owner is 'centered', 'me' or 'them', got {self.cube_owner!r}")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    def away(self) -> tuple[int, int]:
        """Points each side still needs, (mine, theirs); (0, 0) for money play."""
        if self.is_money:
            return 0, 0
        return self.match_length - self.score[0], self.match_length - self.score[1]

    def flip(self) -> BotContext:
        """The same context seen by the opponent."""
        owner = {"centered": "centered", "me": "them", "them": "me"}[self.cube_owner]
        return BotContext(
            cube_value=self.cube_value,
            cube_owner=owner,
            cube_in_play=self.cube_in_play,
            match_length=self.match_length,
            score=(self.score[1], self.score[0]),
            crawford=self.crawford,
            jacoby=self.jacoby,
            beavers=self.beavers,
        )


CUBELESS_MONEY = BotContext()
# A game that only counts as a win or a loss (the site's "partida simple") is a
# 1-point match for the evaluator: gammons are worth nothing, the cube is dead.
SINGLE_GAME = BotContext(match_length=1)
