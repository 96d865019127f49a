"""Hostile: imports gamekit and changes the rules, so that its illegal move would look legal."""

import gamekit
import gamekit.games.tictactoe as ttt

NAME = "rule bender"


def anything_goes(self, state, move):
    return state[:0] + ("X",) * 9


ttt.TicTacToe.play = anything_goes
ttt.TicTacToe.legal_moves = lambda self, state: tuple(range(9))
gamekit.TicTacToe = ttt.TicTacToe


def agent(game, state):
    taken = [i for i, c in enumerate(state) if c != "."]
    return taken[0] if taken else 4  # a taken square once there is one
