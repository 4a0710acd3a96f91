"""Dice Race: a toy ice-envs game shipped as its own package (the plug-in example of docs/CONTRIBUTING_GAMES.md)."""
