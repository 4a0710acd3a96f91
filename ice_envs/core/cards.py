"""Seat helpers shared by the card and dice games."""

from __future__ import annotations

import numpy as np


def relative_seats(seat: int, num_players: int) -> np.ndarray:
    """Seats in relative order starting at ``seat`` (self first, then to the left)."""
    return (seat + np.arange(num_players)) % num_players
