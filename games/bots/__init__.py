"""Mesa's computer players, on top of the engine and bgsage. Pure: no Django.

>>> get_bot("Chofer").name
'Chofer'
"""

from .context import CUBELESS_MONEY, SINGLE_GAME, BotContext
from .players import BOT_NAMES, CHARACTERS, Bot, Character, RandomPlayer, get_bot

__all__ = [
    "BOT_NAMES",
    "CHARACTERS",
    "CUBELESS_MONEY",
    "SINGLE_GAME",
    "Bot",
    "BotContext",
    "Character",
    "RandomPlayer",
    "get_bot",
]
