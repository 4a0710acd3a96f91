"""Card helpers shared by the card games: decks as integer arrays, dealing, counts."""

from __future__ import annotations

import numpy as np


def make_deck(values_counts: dict[int, int] | np.ndarray) -> np.ndarray:
    """A deck as an int array: ``{value: copies}`` or a counts vector indexed by value."""
    if isinstance(values_counts, dict):
        return np.repeat(np.array(list(values_counts), dtype=np.int64), list(values_counts.values()))
    counts = np.asarray(values_counts)
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def shuffled(rng: np.random.Generator, deck: np.ndarray) -> np.ndarray:
    """A shuffled copy of ``deck``."""
    out = deck.copy()
    rng.shuffle(out)
    return out


def deal(deck: np.ndarray, num_hands: int, hand_size: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Deal ``hand_size`` cards round-robin into ``num_hands`` hands; returns (hands, rest)."""
    need = num_hands * hand_size
    if need > deck.size:
        raise ValueError(f"cannot deal {num_hands} hands of {hand_size} from {deck.size} cards")
    hands = [deck[i:need:num_hands].copy() for i in range(num_hands)]
    return hands, deck[need:].copy()


def counts(cards: np.ndarray | list[int], size: int) -> np.ndarray:
    """Count vector of ``cards`` (integer ids in ``0..size-1``)."""
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=size)[:size]


def relative_seats(seat: int, num_players: int) -> np.ndarray:
    """Seats in relative order starting at ``seat`` (self first, then to the left)."""
    return (seat + np.arange(num_players)) % num_players
