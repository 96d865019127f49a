"""gamekit: games and the algorithms that play and learn them — the package behind the course.

Everything a notebook needs is importable from here, e.g.
`from gamekit import SubtractionGame, solve, play_game`.
"""
# --- foundation (protocol, solving, players, matches) ---------------------------------
from .protocol import Game, IllegalMoveError
from .solve import best_moves, move_values, solve
from .counting import reachable_positions, tree_size
from .players import MixedPlayer, PerfectPlayer, RandomPlayer, SmartRandomPlayer, player_name
from .match import GameRecord, TournamentResult, play_game, playout, random_start, tournament
from .course.teaching import check, show_source

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
from .games.tictactoe import TicTacToe, board_text, canonical, winner
from .games.tictactoe import (
    board_from_string,
    game_classes_up_to_symmetry,
    games_in_symmetry_reduced_tree,
    seed_encoding,
    seed_winner,
    seed_x_to_move,
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
    terminal_positions,
)
from .players import LossAversePlayer, RawCountPlayer

# --- chapters 4-5: game trees, minimax, alpha-beta, Nim, generalised Nim -----------------
from .games.nim import Nim, NimState, is_p_position, nim_sum, winning_nim_moves
from .games.random_tree import RandomTree, TreeGame
from .search import (
    AlphaBetaPlayer,
    SearchPlayer,
    SearchResult,
    TranspositionTable,
    alphabeta,
    h1,
    h1_scaled,
    heuristic_order,
    iterative_deepening,
    lines_order,
    minimax,
    open_lines,
    oracle_order,
    random_order,
    trace_alphabeta,
)
from .games.generalized_nim import (
    GeneralizedNim, GNimState, grundy_numbers, mex, minmax_counted, seed_alphabeta_literal, took_last,
)

# --- chapter 6: Q-learning --------------------------------------------------------------
from .games.nim import parse_piles
from .qlearning import QLearner, QPlayer, TrainingResult, WinningPositions, seed_learner

# --- chapter 7: Monte Carlo Tree Search ---------------------------------------------------
from .mcts import MCTS, ChildStats, MCTSPlayer, estimate_history, random_rollout
from .mcts_fast import FastTicTacToeMCTS, FastTicTacToePlayer

# --- chapter 8: the arena ------------------------------------------------------------------
from .arena import (
    Arena, ArenaResult, GameTable, TimedPlayer, course_arena, course_games, expected_score, fit_bradley_terry, fit_elo,
)

__version__ = "0.1.0"
