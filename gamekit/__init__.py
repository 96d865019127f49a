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

# --- chapters 4-5: game trees, minimax, alpha-beta, Nim, generalised Nim -----------------
from .games.nim import Nim, NimState, is_p_position, nim_sum, winning_nim_moves

# --- chapter 6: Q-learning --------------------------------------------------------------

# --- chapter 7: Monte Carlo Tree Search ---------------------------------------------------

# --- chapter 8: the arena ------------------------------------------------------------------

__version__ = "0.1.0"
