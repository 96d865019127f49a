"""gamekit: games and the algorithms that play and learn them — the package behind the course.

Everything a notebook needs is importable from here, e.g.
`from gamekit import SubtractionGame, solve, play_game`.
"""

# `python -m gamekit.<tool>` put the current folder first on sys.path: in a folder of students'
# files, their `random.py` would run at the first import below. Dropped before any import (sys and
# os are loaded already); see gamekit.sandbox.importpath.
import os as _os
import sys as _sys

if _sys.argv[:1] == ["-m"]:  # runpy is importing this package for `python -m`
    _here = _os.path.realpath(_os.getcwd())
    _sys.path[:] = [_p for _p in _sys.path if _p and _os.path.realpath(_p) != _here]
    del _here

# --- foundation (protocol, solving, players, matches) ---------------------------------
# --- chapter 8: the arena ------------------------------------------------------------------
from .arena import (
    Arena,
    ArenaResult,
    GameTable,
    TimedPlayer,
    expected_score,
    fit_bradley_terry,
    fit_elo,
    load_runs,
    save_runs,
)
from .counting import (
    ExhaustiveCheck,
    OutcomeCounts,
    OutcomeProbabilities,
    against_every_opponent,
    count_outcomes,
    count_outcomes_plain,
    games_by_length,
    line_probability,
    outcome_probabilities,
    reachable_positions,
    terminal_positions,
    tree_size,
)
from .course.lineup import class_arena, course_arena, course_games
from .course.teaching import show_source
from .games.generalized_nim import GeneralizedNim, GNimState, grundy_numbers, mex, small_games, sum_is_lost, took_last

# --- chapters 4-5: game trees, minimax, alpha-beta, Nim, generalised Nim -----------------
# --- chapter 6: Q-learning --------------------------------------------------------------
from .games.nim import Nim, NimState, is_p_position, nim_sum, parse_piles, winning_nim_moves
from .games.random_tree import RandomTree, TreeGame

# --- chapters 1-2: the subtraction game -------------------------------------------------
from .games.subtraction import (
    Periodicity,
    RedBlue,
    StrategyTable,
    SubtractionGame,
    SubtractionState,
    periodicity,
    red_blue,
    strategy_table,
    winning_moves,
)

# --- chapter 3: TicTacToe by recursion ---------------------------------------------------
from .games.tictactoe import (
    TicTacToe,
    board_from_string,
    board_text,
    canonical,
    game_classes_up_to_symmetry,
    games_in_symmetry_reduced_tree,
    h1,
    h1_scaled,
    lines_order,
    open_lines,
    winner,
    winning_mark,
)
from .i18n import get_language, set_language, use_language
from .match import GameRecord, PlayerError, TournamentResult, draw_start, play_game, playout, random_start, tournament

# --- chapter 7: Monte Carlo Tree Search ---------------------------------------------------
from .mcts import MCTS, ChildStats, MCTSPlayer, estimate_history, random_rollout
from .mcts_fast import BitboardMCTS, BitboardMCTSPlayer
from .players import (
    LossAversePlayer,
    MixedPlayer,
    PerfectPlayer,
    RandomPlayer,
    RawCountPlayer,
    SmartRandomPlayer,
    player_name,
)
from .protocol import Game, IllegalMoveError, MoveTypeError
from .qlearning import QLearner, QPlayer, TrainingResult, WinningPositions
from .search import (
    GameTooDeepError,
    SearchPlayer,
    SearchResult,
    TranspositionTable,
    alphabeta,
    heuristic_order,
    iterative_deepening,
    minimax,
    oracle_order,
    random_order,
    textbook_alphabeta,
    trace_alphabeta,
)
from .solve import best_moves, move_values, solve
from .sources.java_tictactoe import source_encoding, source_winner, source_x_to_move
from .sources.julia_nim import find_counterexample, source_alphabeta, source_alphabeta_max_repaired, source_minmax
from .sources.q_nim import PolePositionPlayer, pile_tuple, sorted_piles, source_learner, source_pole_position
from .stats import SPRT, Ratings, bootstrap_ratings, fit_ratings, rate_text, sprt, wilson

__version__ = "0.1.0"


# The fast search with TicTacToe's bitboard form bound (the algorithm takes the form as an
# argument, so it names no game; the lessons use these two).
class FastTicTacToeMCTS(BitboardMCTS):
    """`BitboardMCTS` on TicTacToe's bitboard form (`gamekit.games.tictactoe.BITBOARD`): the same
    trees as `MCTS(TicTacToe(), ...)`, about twice as fast."""

    def __init__(self, c: float = 2**0.5, seed: int | None = None):
        from .games.tictactoe import BITBOARD

        super().__init__(BITBOARD, c=c, seed=seed)


class FastTicTacToePlayer(BitboardMCTSPlayer):
    """A TicTacToe player running `FastTicTacToeMCTS` for `iterations` per move."""

    def __init__(self, iterations: int = 2000, c: float = 2**0.5, seed: int | None = None, name: str | None = None):
        from .games.tictactoe import BITBOARD

        super().__init__(BITBOARD, iterations=iterations, c=c, seed=seed, name=name or f"MCTS-fast({iterations})")


__all__ = [
    "get_language",
    "set_language",
    "use_language",
    "source_pole_position",
    "source_learner",
    "sorted_piles",
    "pile_tuple",
    "PolePositionPlayer",
    "bootstrap_ratings",
    "class_arena",
    "load_runs",
    "save_runs",
    "fit_ratings",
    "rate_text",
    "Ratings",
    "sprt",
    "SPRT",
    "wilson",
    "against_every_opponent",
    "alphabeta",
    "Arena",
    "ArenaResult",
    "best_moves",
    "board_from_string",
    "board_text",
    "canonical",
    "ChildStats",
    "count_outcomes",
    "count_outcomes_plain",
    "course_arena",
    "course_games",
    "estimate_history",
    "ExhaustiveCheck",
    "expected_score",
    "BitboardMCTS",
    "BitboardMCTSPlayer",
    "FastTicTacToeMCTS",
    "FastTicTacToePlayer",
    "find_counterexample",
    "fit_bradley_terry",
    "fit_elo",
    "Game",
    "game_classes_up_to_symmetry",
    "GameRecord",
    "games_by_length",
    "games_in_symmetry_reduced_tree",
    "GameTable",
    "GeneralizedNim",
    "GNimState",
    "grundy_numbers",
    "h1",
    "h1_scaled",
    "heuristic_order",
    "IllegalMoveError",
    "MoveTypeError",
    "is_p_position",
    "iterative_deepening",
    "line_probability",
    "lines_order",
    "LossAversePlayer",
    "MCTS",
    "MCTSPlayer",
    "mex",
    "minimax",
    "MixedPlayer",
    "move_values",
    "Nim",
    "nim_sum",
    "NimState",
    "open_lines",
    "oracle_order",
    "outcome_probabilities",
    "OutcomeCounts",
    "OutcomeProbabilities",
    "parse_piles",
    "PerfectPlayer",
    "periodicity",
    "Periodicity",
    "play_game",
    "PlayerError",
    "draw_start",
    "player_name",
    "playout",
    "QLearner",
    "QPlayer",
    "random_order",
    "random_rollout",
    "random_start",
    "RandomPlayer",
    "RandomTree",
    "RawCountPlayer",
    "reachable_positions",
    "red_blue",
    "RedBlue",
    "SearchPlayer",
    "SearchResult",
    "show_source",
    "small_games",
    "SmartRandomPlayer",
    "solve",
    "source_alphabeta",
    "source_alphabeta_max_repaired",
    "source_minmax",
    "strategy_table",
    "StrategyTable",
    "SubtractionGame",
    "SubtractionState",
    "sum_is_lost",
    "terminal_positions",
    "TicTacToe",
    "TimedPlayer",
    "took_last",
    "tournament",
    "TournamentResult",
    "trace_alphabeta",
    "textbook_alphabeta",
    "GameTooDeepError",
    "source_encoding",
    "source_winner",
    "source_x_to_move",
    "TrainingResult",
    "TranspositionTable",
    "tree_size",
    "TreeGame",
    "winner",
    "winning_mark",
    "winning_moves",
    "winning_nim_moves",
    "WinningPositions",
]
