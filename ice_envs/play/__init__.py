"""Playing, recording and replaying games: ``ice-envs play`` and ``ice-envs replay``.

* :mod:`ice_envs.play.terminal` — a person plays against agents in the terminal;
* :mod:`ice_envs.evaluation.record` — game records as JSON lines (:class:`GameRecorder`);
* :mod:`ice_envs.evaluation.replay` — a record replayed to PNG frames and an animated GIF;
* :mod:`ice_envs.play.menu`, :mod:`ice_envs.play.games`, :mod:`ice_envs.play.console` —
  the move menu, what the terminal knows of each game, and the terminal output.
"""

from ice_envs.evaluation.record import GameRecord, GameRecorder, RecordError, load_record

__all__ = ["GameRecord", "GameRecorder", "RecordError", "load_record"]
