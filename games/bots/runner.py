"""A bot's next action in a match, read off the match state. Pure.

The Celery task that plays the bot's turns loads the match, asks
``next_action`` and hands the answer to the matching service (``roll`` ->
``game_roll``, which rolls the dice itself; ``play`` -> ``game_play``...).
``None`` means there is nothing for the bot to do: it is the other side's
turn, the table rolls by itself (the opening), or the game or match is over
(rematches are answered by ``bot.accept_rematch()``).
"""

from __future__ import annotations

from games.engine import Action, ActionKind, Format, MatchState, Phase

from .context import SINGLE_GAME, BotContext
from .players import Player


def context_for(state: MatchState, side: int) -> BotContext:
    """The cube and score of ``state`` as ``side`` sees them."""
    rules = state.rules
    if rules.format is Format.SINGLE:
        return SINGLE_GAME
    if state.cube_owner is None:
        owner = "centered"
    else:
        owner = "me" if state.cube_owner == side else "them"
    if rules.format is Format.MATCH:
        return BotContext(
            cube_value=state.cube_value,
            cube_owner=owner,
            cube_in_play=not state.crawford_game,
            match_length=rules.length,
            score=(state.score[side], state.score[1 - side]),
            crawford=state.crawford_game,
        )
    return BotContext(
        cube_value=state.cube_value,
        cube_owner=owner,
        cube_in_play=True,
        jacoby=rules.jacoby,
        beavers=rules.beavers,
    )


def next_action(
    bot: Player, state: MatchState, side: int, *, deadline: float | None = None
) -> Action | None:
    """What ``bot``, sitting on ``side``, does now; None when it is not the bot's move.

    ``deadline`` bounds a checker play's search (``Bot.choose_play``) and a
    cube decision's deeper look (``Bot.should_double``, ``should_take``...).
    """
    if state.turn != side or state.phase in (Phase.OPENING, Phase.GAME_OVER, Phase.MATCH_OVER):
        return None
    position = state.position_for(side)
    context = context_for(state, side)
    phase = state.phase
    if phase is Phase.ROLL:
        if state.may_double(side) and bot.should_double(position, context, deadline=deadline):
            return Action(ActionKind.DOUBLE, side)
        return Action(ActionKind.ROLL, side)
    if phase is Phase.MOVE:
        assert state.dice is not None
        play = bot.choose_play(position, state.dice, context, deadline=deadline)
        return Action(ActionKind.PLAY, side, play=tuple(play))
    if phase is Phase.DOUBLED:
        if state.beaver_pending:
            # The bot doubled and was beavered; the stake now is the cube after the beaver.
            taken = bot.should_accept_beaver(position, context)
        else:
            if state.may_beaver() and bot.should_beaver(position, context, deadline=deadline):
                return Action(ActionKind.BEAVER, side)
            taken = bot.should_take(position, context, deadline=deadline)
        return Action(ActionKind.TAKE if taken else ActionKind.DROP, side)
    if phase is Phase.RESIGN_OFFERED:
        assert state.resign_value is not None
        accepted = bot.accept_resign(position, state.resign_value, context)
        return Action(ActionKind.RESIGN_ACCEPT if accepted else ActionKind.RESIGN_DECLINE, side)
    return None
