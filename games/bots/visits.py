"""How many visits to the board conditional answers and forced plays save (botvisits).

Two bots play matches with the cube. At the end of each of its turns a bot
writes its answer to the opponent's possible double (the answer it would
give then: the position and the cube cannot change in between), and the
table plays that answer when the double comes; forced plays are made for
both. Every action is logged with who did it: a player in person, the
table rolling, a written answer, a forced play.

A visit is a run of a player's own actions with no action of the opponent's
in between: a correspondence player comes to the board, acts, and leaves
until the other side has done something. The same log is counted three
ways: as if nothing were played for the players (the written answers and
the forced plays counted as actions in person, the writing itself
dropped), with written answers, and with both. The bot's decisions are the
same in all three, so the difference is exactly the visits saved. Pure: no
Django, no I/O.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from games.engine import (
    CONDITIONAL,
    FORCED,
    Action,
    ActionKind,
    Format,
    MatchRules,
    MatchState,
    Phase,
)

from .players import Player
from .runner import context_for, next_action

MAX_ACTIONS = 20000

# Who did an action in the log.
PERSON = "person"
TABLE = "table"  # the table's own rolls: the opening, a player who may not double
WRITTEN = "written"  # a written answer, played when the double came
WRITING = "writing"  # the writing of an answer, during the writer's own visit


@dataclass(frozen=True, slots=True)
class Entry:
    side: int
    game: int
    by: str  # PERSON, TABLE, WRITTEN, FORCED or WRITING


@dataclass
class VisitReport:
    matches: int = 0
    games: int = 0
    # Visits per regime: "none" (nothing played for the players), "answers", "both".
    visits: dict[str, int] = field(default_factory=lambda: {"none": 0, "answers": 0, "both": 0})
    written_answers_played: int = 0
    forced_plays: int = 0
    answers_written: int = 0

    def add(self, other: VisitReport) -> None:
        """Count ``other``'s matches in this report (the parts of one measurement run apart)."""
        self.matches += other.matches
        self.games += other.games
        for regime, count in other.visits.items():
            self.visits[regime] += count
        self.written_answers_played += other.written_answers_played
        self.forced_plays += other.forced_plays
        self.answers_written += other.answers_written

    def saved_per_game(self, regime: str) -> float:
        """Visits saved per game (both players together) against playing everything in person."""
        return (self.visits["none"] - self.visits[regime]) / self.games if self.games else 0.0

    def summary(self) -> str:
        per_game = {k: v / self.games for k, v in self.visits.items()} if self.games else {}
        return (
            f"{self.matches} matches, {self.games} games; visits per game (both players): "
            f"in person {per_game.get('none', 0):.2f}, with written answers "
            f"{per_game.get('answers', 0):.2f}, with answers and forced plays "
            f"{per_game.get('both', 0):.2f}; saved per game: "
            f"{self.saved_per_game('answers'):.3f} by answers, "
            f"{self.saved_per_game('both'):.3f} by both "
            f"({self.saved_per_game('answers') / 2:.3f} and "
            f"{self.saved_per_game('both') / 2:.3f} per player); "
            f"{self.answers_written} answers written, {self.written_answers_played} played, "
            f"{self.forced_plays} forced plays; visits in all: {self.visits['none']} in person, "
            f"{self.visits['answers']} with answers, {self.visits['both']} with both"
        )


def write_answer(bot: Player, state: MatchState, side: int) -> Action | None:
    """The answer ``side`` writes now for the opponent's next double, None if none can be."""
    if not state.may_record_answer(side):
        return None
    # The double would come in exactly this position and cube: the taker's view now.
    position = state.position_for(side)
    context = context_for(state, side)
    if state.rules.beavers and state.cube_value * 4 <= 64 and bot.should_beaver(position, context):
        answer = "beaver"
    else:
        answer = "take" if bot.should_take(position, context) else "drop"
    return Action(ActionKind.CONDITIONAL_ANSWER, side, reason=answer)


def play_match(
    players: Sequence[Player], rules: MatchRules, seed: int
) -> tuple[MatchState, list[Entry]]:
    """One match between two bots that write their answers ahead; the log of who acted."""
    dice = random.Random(f"mesa-botvisits:{seed}")
    state = MatchState.new(rules)
    log: list[Entry] = []
    for _ in range(MAX_ACTIONS):
        if state.phase is Phase.MATCH_OVER:
            return state, log
        if state.phase is Phase.GAME_OVER:
            state = state.apply(Action(ActionKind.NEXT_GAME, 0))
            continue
        game = state.game_number
        if state.needs_auto_roll():
            side = 0 if state.phase is Phase.OPENING else state.turn
            roll = (dice.randint(1, 6), dice.randint(1, 6))
            state = state.apply(Action(ActionKind.ROLL, side, roll))
            log.append(Entry(side, game, TABLE))
            continue
        planned = state.planned_action(forced_for=(0, 1))
        if planned is not None:
            state = state.apply(planned)
            by = WRITTEN if planned.reason == CONDITIONAL else FORCED
            log.append(Entry(planned.side, game, by))
            continue
        side = state.turn
        action = next_action(players[side], state, side)
        if action is None:
            raise RuntimeError(f"no action for side {side} in phase {state.phase}")
        if action.kind == ActionKind.ROLL:
            action = Action(ActionKind.ROLL, side, (dice.randint(1, 6), dice.randint(1, 6)))
        state = state.apply(action)
        log.append(Entry(side, game, PERSON))
        if state.phase is Phase.ROLL and state.turn != side:
            # Its turn done (played, or rolled and blocked), the bot writes its
            # answer to the next double before leaving the board.
            written = write_answer(players[side], state, side)
            if written is not None:
                state = state.apply(written)
                log.append(Entry(side, game, WRITING))
    raise RuntimeError(f"the match did not end after {MAX_ACTIONS} actions")


def count_visits(log: Iterable[Entry], in_person: frozenset[str]) -> int:
    """Visits in ``log``: runs of actions in person by one side.

    What the table plays happens inside the acting player's request, so a
    player whose opponent's turn was all played by the table stays on the
    board: no new visit.

    ``in_person`` names what counts as done in person besides PERSON (a
    written answer or a forced play, when nothing is played for the player).
    WRITING is dropped unless answers are played for the player.
    """
    visits = 0
    last: int | None = None  # the side of the last action in person
    for entry in log:
        if entry.by == WRITING and WRITTEN in in_person:
            continue  # nobody writes an answer that the table will not play
        if entry.by not in in_person and entry.by not in (PERSON, WRITING):
            continue
        if entry.side != last:
            visits += 1
            last = entry.side
    return visits


def measure(
    players: Sequence[Player],
    rules: MatchRules,
    matches: int,
    seed: int,
    seconds: float | None = None,
    first: int = 0,
) -> VisitReport:
    """Play ``matches`` matches (fewer if ``seconds`` run out) and count each regime's visits.

    Match ``n`` of a seed always has the same dice, so a measurement split
    in parts (``first`` is the number of a part's first match) plays the
    same matches as one run; only the bots' own noise differs.
    """
    report = VisitReport()
    started = time.monotonic()
    regimes = {
        "none": frozenset({WRITTEN, FORCED}),
        "answers": frozenset({FORCED}),
        "both": frozenset(),
    }
    for number in range(first, first + matches):
        if seconds is not None and time.monotonic() - started > seconds:
            break
        state, log = play_match(players, rules, seed * 100_003 + number)
        report.matches += 1
        report.games += len(state.games)
        for name, in_person in regimes.items():
            report.visits[name] += count_visits(log, in_person)
        report.written_answers_played += sum(entry.by == WRITTEN for entry in log)
        report.forced_plays += sum(entry.by == FORCED for entry in log)
        report.answers_written += sum(entry.by == WRITING for entry in log)
    return report


MATCH5 = MatchRules(format=Format.MATCH, length=5)
