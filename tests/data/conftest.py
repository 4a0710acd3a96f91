"""Test data, not tests: the plug-in example's own test file runs only from its installed copy
(``tests/test_plugin_game.py``), where its game is registered."""

collect_ignore_glob = ["plugin_game/*"]
