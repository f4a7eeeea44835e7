"""Match records in the Jellyfish ``.mat`` text format, which GNU Backgammon imports.

A file is a few ``;`` comment lines, `` N point match`` (0 for money play),
then for each game `` Game N``, a score line and numbered lines of two
columns, side 0 on the left and side 1 on the right::

     5 point match

     Game 1
     Chapas : 0                     Neumaticos : 0
      1)                             52: 13/8 13/11
      2) 41: 24/23 13/9              Doubles => 2
      3)  Takes                      63: 24/18* 13/10
     ...
                                      Wins 2 points

Plays are written one die at a time with 25 for the bar and 0 for off, a
``*`` after a step that hits, as GNU Backgammon's own export does. A taken
beaver is ``Beavers => 4`` with the take implied by the next roll; a dropped
one is written as a double answered by a double. What the format cannot say
is left out:
opening ties (and the automatic doubles they cause), declined resignations
and forfeits. See ``docs/MAT_FORMAT.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from .enums import ActionKind, Format, Phase
from .errors import EngineError
from .match import MatchState
from .position import BAR, OFF, Position, Step
from .record import Action
from .rules import MatchRules

__all__ = [
    "MatGame",
    "MatMove",
    "MatRecord",
    "actions_from_mat",
    "export_mat",
    "mat_moves",
    "parse_mat",
]

DEFAULT_NAMES = ("Chapas", "Neumaticos")  # side 0 plays the bottle caps, side 1 the tyres
LEFT_WIDTH = 27  # the left column after "nnn) "
WIN_INDENT = (6, 34)  # where a "Wins" line starts for side 0 and side 1


@dataclass(frozen=True)
class MatMove:
    """One entry of a game record.

    ``kind`` is ``roll`` (``dice`` higher first, ``play`` its steps, ``()``
    when nothing could move), ``double`` or ``beaver`` (``value`` = the cube
    offered), ``take``, ``drop`` or ``win`` (``value`` = points won).
    """

    side: int
    kind: str
    dice: tuple[int, int] | None = None
    play: tuple[Step, ...] | None = None
    value: int | None = None


@dataclass(frozen=True)
class MatGame:
    number: int
    score: tuple[int, int]  # before the game
    moves: tuple[MatMove, ...]


@dataclass(frozen=True)
class MatRecord:
    length: int
    names: tuple[str, str]
    games: tuple[MatGame, ...]
    comments: tuple[str, ...] = field(default=())


# -- from actions -----------------------------------------------------------


@dataclass
class _Game:
    number: int
    score: tuple[int, int]
    entries: list[tuple[MatMove, str]] = field(default_factory=list)


def _walk(rules: MatchRules, actions: Iterable[Action]) -> list[_Game]:
    """Replay the actions and note what the record shows of each, with its text."""
    state = MatchState.new(rules)
    games = [_Game(1, (0, 0))]
    for action in actions:
        before, state = state, state.apply(action)
        recorded = state.last_action
        assert recorded is not None
        entries = games[-1].entries
        kind = recorded.kind
        if kind == ActionKind.NEXT_GAME:
            games.append(_Game(state.game_number, state.score))
        elif kind == ActionKind.ROLL:
            if before.phase is Phase.OPENING and state.phase is Phase.OPENING:
                continue  # a tie is rolled again and not recorded
            if recorded.play == ():  # nothing could move: the roll is the whole turn
                dice = _high_first(recorded.dice)
                move = MatMove(recorded.side, "roll", dice, ())
                entries.append((move, _roll_text(dice, before.position, ())))
        elif kind == ActionKind.PLAY:
            assert before.dice is not None and recorded.play is not None
            dice = _high_first(before.dice)
            move = MatMove(recorded.side, "roll", dice, recorded.play)
            entries.append((move, _roll_text(dice, before.position, recorded.play)))
        elif kind == ActionKind.DOUBLE:
            move = MatMove(recorded.side, "double", value=before.cube_value * 2)
            entries.append((move, f" Doubles => {move.value}"))
        elif kind == ActionKind.BEAVER:
            move = MatMove(recorded.side, "beaver", value=state.cube_value * 2)
            entries.append((move, f" Beavers => {move.value}"))
        elif kind == ActionKind.TAKE and not before.beaver_pending:
            # A taken beaver is not written: the next roll says it (and GNU
            # Backgammon misreads an explicit one).
            entries.append((MatMove(recorded.side, "take"), " Takes"))
        elif kind == ActionKind.DROP:
            if before.beaver_pending:
                # GNU Backgammon reads a dropped "Beavers" badly (the games after
                # it lose their rolls); a double answered by a double it reads well.
                beaver, _text = entries[-1]
                entries[-1] = (beaver, f" Doubles => {beaver.value}")
            entries.append((MatMove(recorded.side, "drop"), " Drops"))
        if state.games and len(state.games) > len(before.games) and kind != ActionKind.FORFEIT:
            result = state.games[-1]
            plural = "" if result.points == 1 else "s"
            move = MatMove(result.winner, "win", value=result.points)
            entries.append((move, f"Wins {result.points} point{plural}"))
    return games


def _high_first(dice: tuple[int, int] | None) -> tuple[int, int]:
    assert dice is not None
    return (max(dice), min(dice))


def _roll_text(dice: tuple[int, int], position: Position, play: Sequence[Step]) -> str:
    words = []
    for src, dst in play:
        hit = dst != OFF and position.them[25 - dst] == 1
        position = position.apply(((src, dst),))
        words.append(f"{src}/{dst}{'*' if hit else ''}")
    return f"{dice[0]}{dice[1]}: " + " ".join(words)


def mat_moves(rules: MatchRules, actions: Iterable[Action]) -> list[MatGame]:
    """The games as a ``.mat`` file records them, straight from the action list."""
    return [
        MatGame(game.number, game.score, tuple(move for move, _text in game.entries))
        for game in _walk(rules, actions)
    ]


def export_mat(
    rules: MatchRules,
    actions: Iterable[Action],
    names: tuple[str, str] = DEFAULT_NAMES,
    *,
    played_on: date | None = None,
    site: str = "Mesa",
) -> str:
    """The match (finished or running) as ``.mat`` text.

    A partida simple is written as a one-point match, a sesión libre as money
    play (a zero-point match).
    """
    header = [f'; [Site "{_clean(site, "Mesa")}"]']
    if played_on is not None:
        header.append(f'; [EventDate "{played_on:%Y.%m.%d}"]')
    header.append('; [Variation "Backgammon"]')
    if rules.format is Format.MATCH:
        header.append('; [Crawford "On"]')
    if rules.format is Format.SESSION:
        header.append(f'; [Jacoby "{"On" if rules.jacoby else "Off"}"]')
        header.append(f'; [Beaver "{"On" if rules.beavers else "Off"}"]')
        if rules.auto_doubles:
            header.append(f'; [AutoDoubles "{rules.max_auto_doubles}"]')
    header.append('; [CubeLimit "64"]')
    length = {Format.SINGLE: 1, Format.MATCH: rules.length, Format.SESSION: 0}[rules.format]
    name0 = _clean(names[0], DEFAULT_NAMES[0])
    name1 = _clean(names[1], DEFAULT_NAMES[1])
    lines = header + ["", f" {length} point match", ""]
    for game in _walk(rules, actions):
        lines.append(f" Game {game.number}")
        lines.append(" " + f"{name0} : {game.score[0]}".ljust(31) + f"{name1} : {game.score[1]}")
        lines.extend(_columns(game.entries))
        lines.append("")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _clean(name: str, fallback: str) -> str:
    # Names are single words in the format, and a colon ends one.
    cleaned = "_".join(name.replace(":", " ").replace('"', " ").split())
    return cleaned or fallback


def _columns(entries: list[tuple[MatMove, str]]) -> list[str]:
    """Lay the entries out in numbered lines, side 0 left, side 1 right, in time order."""
    lines: list[str] = []
    cells: list[str | None] = [None, None]
    number = 0

    def flush() -> None:
        nonlocal number
        if cells == [None, None]:
            return
        number += 1
        left = cells[0] or ""
        # At least two spaces before the right column: importers cut there.
        gap = " " if len(left) < LEFT_WIDTH else "  "
        lines.append(f"{number:3d}) {left.ljust(LEFT_WIDTH)}{gap}{cells[1] or ''}")
        cells[0] = cells[1] = None

    for move, text in entries:
        if move.kind == "win" and move.side == 1 and cells[0] is not None and cells[1] is None:
            # Right after side 0's entry (a drop, a resignation), on the same
            # line, where GNU Backgammon puts it and expects it.
            cells[1] = text
            flush()
        elif move.kind == "win":
            flush()
            lines.append(" " * WIN_INDENT[move.side] + text)
        elif move.side == 0:
            flush()
            cells[0] = text
        else:
            if cells[1] is not None:
                flush()
            cells[1] = text
            flush()
    flush()
    return lines


# -- from text --------------------------------------------------------------

_MATCH_LINE = re.compile(r"^\s*(\d+)\s+point\s+match\b", re.IGNORECASE)
_GAME_LINE = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE_LINE = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_ROLL = re.compile(r"^([1-6])([1-6]):\s*(.*)$")
_CUBE = re.compile(r"^(doubles|beavers|raccoons)\s*=>\s*(\d+)$", re.IGNORECASE)
_WINS = re.compile(r"^wins\s+(\d+)\s+points?\b", re.IGNORECASE)
_STEP_POINT = {"bar": BAR, "off": OFF}


def parse_mat(text: str) -> MatRecord:
    """Read ``.mat`` text back into its games and moves; ValueError on what it cannot read."""
    comments: list[str] = []
    length: int | None = None
    names = DEFAULT_NAMES
    games: list[MatGame] = []
    current: tuple[int, tuple[int, int], list[MatMove]] | None = None
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        index += 1
        if not line.strip():
            continue
        if length is None:
            if line.startswith((";", "#")):
                comments.append(line[1:].strip())
                continue
            found = _MATCH_LINE.match(line)
            if not found:
                raise ValueError(f"line {index}: expected 'N point match', got {line!r}")
            length = int(found.group(1))
            continue
        game_line = _GAME_LINE.match(line)
        if game_line:
            if current is not None:
                games.append(MatGame(current[0], current[1], tuple(current[2])))
            while index < len(lines) and not lines[index].strip():
                index += 1
            score_line = _SCORE_LINE.match(lines[index]) if index < len(lines) else None
            if not score_line:
                raise ValueError(f"line {index + 1}: expected the score line of a game")
            index += 1
            names = (score_line.group(1), score_line.group(3))
            score = (int(score_line.group(2)), int(score_line.group(4)))
            current = (int(game_line.group(1)), score, [])
            continue
        if current is None:
            raise ValueError(f"line {index}: a move before the first 'Game' line")
        for side, cell in enumerate(_split_columns(line)):
            move = _parse_cell(cell.strip(), side, index)
            if move is None:
                continue
            moves = current[2]
            if move.kind == "double" and moves and moves[-1].kind in ("double", "beaver"):
                move = MatMove(side, "beaver", value=move.value)  # doubled straight back
            moves.append(move)
    if length is None:
        raise ValueError("not a .mat file: no 'N point match' line")
    if current is not None:
        games.append(MatGame(current[0], current[1], tuple(current[2])))
    return MatRecord(length, names, tuple(games), tuple(comments))


def _split_columns(line: str) -> tuple[str, str]:
    """Cut a move line into its two columns, the way GNU Backgammon's importer does."""
    right = ""
    colons = [i for i, char in enumerate(line) if char == ":"]
    if len(colons) >= 2 and colons[1] > 3:
        cut = colons[1] - 2  # the second roll's two dice
        line, right = line[:cut], line[cut:]
    elif len(line) > 15 and "  " in line[15:]:
        cut = line.index("  ", 15)
        line, right = line[:cut], line[cut:]
    left = line.split(")", 1)[1] if ")" in line else line
    return left, right


def _parse_cell(cell: str, side: int, line_number: int) -> MatMove | None:
    if not cell:
        return None
    roll = _ROLL.match(cell)
    if roll:
        dice = (int(roll.group(1)), int(roll.group(2)))
        return MatMove(side, "roll", dice, _parse_steps(roll.group(3), line_number))
    cube = _CUBE.match(cell)
    if cube:
        kind = "double" if cube.group(1).lower() == "doubles" else "beaver"
        return MatMove(side, kind, value=int(cube.group(2)))
    lowered = cell.lower()
    if lowered.startswith("take"):
        return MatMove(side, "take")
    if lowered.startswith(("drop", "pass")):
        return MatMove(side, "drop")
    wins = _WINS.match(cell)
    if wins:
        return MatMove(side, "win", value=int(wins.group(1)))
    raise ValueError(f"line {line_number}: cannot read {cell!r}")


def _parse_steps(text: str, line_number: int) -> tuple[Step, ...]:
    """``13/8 24/18*/13 bar/22 6/off 8/5(2)`` into steps, each point as written."""
    steps: list[Step] = []
    for word in text.split():
        found = re.fullmatch(r"([^()]+?)(?:\((\d)\))?", word)
        if not found:
            raise ValueError(f"line {line_number}: cannot read the step {word!r}")
        points = []
        for part in found.group(1).split("/"):
            name = part.rstrip("*").lower()
            if name in _STEP_POINT:
                points.append(_STEP_POINT[name])
            elif name.isdigit() and 0 <= int(name) <= BAR:
                points.append(int(name))
            else:
                raise ValueError(f"line {line_number}: no point {part!r} in {word!r}")
        if len(points) < 2:
            raise ValueError(f"line {line_number}: a step goes from one point to another")
        chain = list(zip(points, points[1:], strict=False))
        steps.extend(chain * int(found.group(2) or 1))
    return tuple(steps)


# -- back to actions ----------------------------------------------------------


def actions_from_mat(record: MatRecord, rules: MatchRules) -> list[Action]:
    """Actions that replay the recorded games under `rules`; ValueError if they do not fit.

    Opening rolls become the pair (die of side 0, die of side 1) that lets
    the recorded player start; a "Wins" line in a game still being played is
    an accepted resignation, worth the points over the cube.
    """
    state = MatchState.new(rules)
    actions: list[Action] = []

    def do(action: Action) -> None:
        nonlocal state
        try:
            state = state.apply(action)
        except EngineError as exc:
            raise ValueError(f"game {state.game_number}: {action} does not fit: {exc}") from exc
        actions.append(action)

    for number, game in enumerate(record.games):
        if number:
            do(Action(ActionKind.NEXT_GAME, 0))
        for move in game.moves:
            if state.phase is Phase.DOUBLED and state.beaver_pending and move.kind == "roll":
                do(Action(ActionKind.TAKE, state.turn))  # a beaver taken without a word
            if move.kind == "roll":
                assert move.dice is not None and move.play is not None
                if state.phase is Phase.OPENING:
                    high, low = max(move.dice), min(move.dice)
                    if high == low:
                        raise ValueError(f"game {game.number} opens with a double {move.dice}")
                    do(Action(ActionKind.ROLL, 0, (high, low) if move.side == 0 else (low, high)))
                else:
                    passed = () if not move.play else None
                    do(Action(ActionKind.ROLL, move.side, move.dice, play=passed))
                if move.play:
                    do(Action(ActionKind.PLAY, move.side, play=move.play))
            elif move.kind in ("double", "beaver", "take", "drop"):
                do(Action(move.kind, move.side))
            elif move.kind == "win" and state.phase not in (Phase.GAME_OVER, Phase.MATCH_OVER):
                assert move.value is not None
                value = min(3, max(1, -(-move.value // state.cube_value)))
                do(Action(ActionKind.RESIGN_OFFER, 1 - move.side, value=value))
                do(Action(ActionKind.RESIGN_ACCEPT, move.side))
    return actions
