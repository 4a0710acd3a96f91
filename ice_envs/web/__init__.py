"""``ice-envs serve``: a local web app to play against the agents, step through replays and read leagues.

* :mod:`ice_envs.web.app` — the Starlette app: pages, forms and error answers;
* :mod:`ice_envs.web.sessions` — games played in the browser (recorded as ``ice-envs play --record`` does);
* :mod:`ice_envs.web.replays` — game records verified as ``ice-envs replay`` does, stepped to any decision;
* :mod:`ice_envs.web.reports` — league and evaluation reports laid out as tables and a heat map;
* :mod:`ice_envs.web.library` — the files the app may open, by name, under ``--runs`` and the shipped docs;
* :mod:`ice_envs.web.tables` — the table's picture (SVG, clickable) and the grouped move list;
* :mod:`ice_envs.web.cli` — the ``serve`` subcommand.

Needs the ``web`` extra (``pip install 'ice-envs[web]'``: Starlette, Uvicorn, Jinja2).
"""
