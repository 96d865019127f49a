"""Players and the match runner: optimal play, the source's strategies, records and tournaments."""

import pytest

from gamekit import (
    IllegalMoveError,
    MixedPlayer,
    PerfectPlayer,
    RandomPlayer,
    SmartRandomPlayer,
    SubtractionGame,
    SubtractionState,
    play_game,
    playout,
    random_start,
    red_blue,
)
from gamekit.match import tournament  # (the attribute gamekit.tournament becomes the package once that is imported)

RB = red_blue(200)


@pytest.mark.parametrize("start", [n for n in range(1, 120) if not RB.is_red[n]])
def test_optimal_never_loses_from_a_blue_start(start):
    game = SubtractionGame(start)
    for seed in range(5):
        for opponent in (SmartRandomPlayer(seed), RandomPlayer(seed), PerfectPlayer()):
            record = play_game(game, [PerfectPlayer(), opponent])
            assert record.winner == 0


@pytest.mark.parametrize("start", [n for n in range(1, 120) if RB.is_red[n]])
def test_from_a_red_start_the_second_player_wins_with_optimal_play(start):
    record = play_game(SubtractionGame(start), [PerfectPlayer(), PerfectPlayer()])
    assert record.winner == 1
    # the optimal strategy always produces red numbers: every state after player 1's moves is red
    assert all(RB.is_red[s.n] for s in record.states[2::2] if s.n >= 0)


def test_perfect_player_is_the_sources_optimal_strategy():
    """Smallest winning move; 3 when no win can be forced (the source's switch statement)."""
    source_switch = {0: 3, 1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 5, 7: 5}
    player, game = PerfectPlayer(), SubtractionGame(200)
    for n in range(1, 200):
        assert player(game, SubtractionState(n, n % 2)) == source_switch[n % 8], n


def test_smart_random_player_follows_the_sources_intent():
    game = SubtractionGame(100)
    p = SmartRandomPlayer(seed=1)
    assert p(game, SubtractionState(5, 0)) == 5 and p(game, SubtractionState(11, 0)) == 11
    assert p(game, SubtractionState(3, 0)) == 3 and p(game, SubtractionState(4, 0)) == 3
    assert p(game, SubtractionState(2, 0)) == 3  # every move goes below zero: the smallest
    for n in range(6, 11):
        assert {p(game, SubtractionState(n, 0)) for _ in range(200)} == {3, 5}
    assert {p(game, SubtractionState(40, 0)) for _ in range(300)} == {3, 5, 11}


def test_players_are_reproducible_from_their_seed():
    game = SubtractionGame(50)

    def run(seed):
        return play_game(game, [SmartRandomPlayer(seed), MixedPlayer(0.5, seed=seed + 100)]).states

    assert run(7) == run(7)
    assert len({run(s) for s in range(20)}) > 5  # different seeds, different games


@pytest.mark.parametrize("p, error", [(-0.1, ValueError), (1.5, ValueError), ("0.5", TypeError), (None, TypeError)])
def test_mixed_player_rejects_bad_probabilities(p, error):
    with pytest.raises(error, match="probability between 0 and 1"):
        MixedPlayer(p)


def test_mixed_player_extremes():
    game = SubtractionGame(100)
    always, never = MixedPlayer(1.0, seed=1), MixedPlayer(0.0, seed=1)
    perfect = PerfectPlayer()
    for n in range(12, 100):
        assert always(game, SubtractionState(n, 0)) == perfect(game, SubtractionState(n, 0))
    assert {never(game, SubtractionState(40, 0)) for _ in range(300)} == {3, 5, 11}


def test_record_holds_the_full_course():
    game = SubtractionGame(22)
    moves = iter([5, 5, 3, 3, 5, 3])
    scripted = lambda g, s: next(moves)
    rec = play_game(game, [scripted, scripted], names=["A", "B"])
    assert [s.n for s in rec.states] == [22, 17, 12, 9, 6, 1, -2]  # the source's table 1, then B must go below 0
    assert rec.movers == (0, 1, 0, 1, 0, 1)
    assert rec.winner == 0 and rec.utilities == (1.0, -1.0)
    assert "A (player 0) wins" in str(rec)


def test_a_player_making_an_illegal_move_is_named():
    with pytest.raises(IllegalMoveError, match="cheat \\(player 0\\) chose an illegal move"):

        def cheat(game, state):
            return 4

        play_game(SubtractionGame(22), [cheat, PerfectPlayer()])


def test_playout_starts_in_20_to_50_and_is_seeded():
    game = SubtractionGame(22)
    starts = {playout(game, RandomPlayer(s), RandomPlayer(s + 1), seed=s).states[0].n for s in range(300)}
    assert min(starts) >= 20 and max(starts) <= 50 and len(starts) > 25
    r1 = playout(game, RandomPlayer(1), RandomPlayer(2), seed=3)
    r2 = playout(game, RandomPlayer(1), RandomPlayer(2), seed=3)
    assert r1 == r2


def test_tournament_counts_add_up_and_seats_alternate():
    game = SubtractionGame(22)
    res = tournament(
        game,
        PerfectPlayer(),
        SmartRandomPlayer(1),
        games=101,
        seed=5,
        start=random_start(20, 50),
        keep_records=True,
        paired=False,
    )
    assert res.games == 101 == sum(res.wins) + res.draws
    assert res.seat_games == [[51, 50], [50, 51]]
    assert sum(map(sum, res.seat_wins)) == sum(res.wins)
    assert [r.names[0] for r in res.records[:4]] == ["perfect", "random (smart end)"] * 2
    # the perfect player wins every game it can force
    for rec in res.records:
        perfect_seat = 0 if rec.names[0] == "perfect" else 1
        start_is_blue = not RB.is_red[rec.states[0].n]
        if start_is_blue == (perfect_seat == 0):
            assert rec.winner == perfect_seat


def test_tournament_rejects_bad_counts():
    with pytest.raises(ValueError, match="games must be a whole number >= 1"):
        tournament(SubtractionGame(9), RandomPlayer(1), RandomPlayer(2), games=0)


# --- regression (issue 12, defect 1): PerfectPlayer's cache must be keyed by the game's rules, not id() ---


def _mover_wins(n, moves, memo):
    """Independent oracle: the mover at n > 0 wins iff some move reaches 0 or a losing n' > 0."""
    if (n, moves) not in memo:
        memo[n, moves] = any(n == d or (n > d and not _mover_wins(n - d, moves, memo)) for d in moves)
    return memo[n, moves]


def test_one_perfect_player_over_200_fresh_subtraction_games():
    import random

    rng, player, memo = random.Random(12), PerfectPlayer(), {}
    for _ in range(200):
        moves = tuple(sorted(rng.sample(range(1, 10), rng.randint(1, 3))))
        start = rng.randint(1, 40)
        game = SubtractionGame(start, moves)
        move = player(game, game.initial_state())  # must not raise KeyError
        if _mover_wins(start, moves, memo):
            after = start - move
            assert after == 0 or (after > 0 and not _mover_wins(after, moves, memo)), (moves, start, move)
        del game  # freed: CPython may hand its address to the next game


def test_perfect_player_on_normal_then_misere_nim():
    from gamekit import Nim, is_p_position

    player = PerfectPlayer()
    game = Nim([1, 1, 2])
    assert player(game, game.initial_state()) == (2, 2)
    del game
    misere = Nim([1, 1, 2], misere=True)
    move = player(misere, misere.initial_state())
    assert move != (2, 2)
    after = misere.play(misere.initial_state(), move)
    assert is_p_position(after.piles, misere=True)  # Bouton's misère rule: the opponent now loses


def test_games_built_alike_are_equal_and_hash_alike():
    from gamekit import Nim

    assert SubtractionGame(22, (5, 3, 11)) == SubtractionGame(22) and hash(SubtractionGame(22)) == hash(
        SubtractionGame(22, [3, 5, 11])
    )
    assert SubtractionGame(22) != SubtractionGame(23) and SubtractionGame(22) != SubtractionGame(22, (3, 5))
    assert Nim([1, 2]) == Nim((1, 2)) and hash(Nim([1, 2])) == hash(Nim((1, 2)))
    assert Nim([1, 2]) != Nim([1, 2], misere=True) and Nim([1, 2]) != Nim([2, 1])
    with pytest.raises(AttributeError):
        SubtractionGame(22).moves = (1, 2)  # a game is a value: its rules cannot change under a cache


def test_perfect_player_many_starts_of_one_game_cost_one_walk():
    """nb02 asks for n in 1..2000: values found for one start are reused for the next."""
    import time

    game, player = SubtractionGame(2000), PerfectPlayer()
    t = time.perf_counter()
    moves = [player(game, game.state(n, 0)) for n in range(1, 2001)]
    assert time.perf_counter() - t < 1.0
    source_switch = {0: 3, 1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 5, 7: 5}
    assert all(m == source_switch[n % 8] for n, m in zip(range(12, 2001), moves[11:]))
    assert len(player.values(game, game.state(2000, 0))) < 3 * 2011  # each position solved once


def test_smart_random_player_knows_the_game_only_through_the_protocol():
    """The same one-move look-ahead works on Nim: take the last stick if you can (normal play), and
    in misère Nim never take the last stick while another move exists."""
    from gamekit import Nim

    p = SmartRandomPlayer(seed=3)
    normal, misere = Nim([0, 4]), Nim([1, 3], misere=True)
    assert p(normal, normal.initial_state()) == (1, 4)
    picks = {p(misere, misere.initial_state()) for _ in range(200)}
    assert picks == {(0, 1), (1, 1), (1, 2), (1, 3)}  # no move ends the game, all are safe
    last = misere.state([0, 1], 0)
    assert p(misere, last) == (1, 1)  # the only move, though it loses
    assert p(misere, misere.state([1, 1], 0)) in {(0, 1), (1, 1)}


def test_players_module_does_not_read_subtraction_states():
    import inspect

    import gamekit.players

    assert ".n " not in inspect.getsource(gamekit.players) and "state.n" not in inspect.getsource(gamekit.players)
