"""Tests of ice-envs with the libraries users bring: Gymnasium, SB3, RLlib/Ray, Tianshou, CleanRL, PettingZoo."""
