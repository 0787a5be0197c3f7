"""Tournaments: a TOML config in, a ranked table people can trust out.

One job per module (``docs/architecture.md`` has the map):

- ``config``: the config file's schema, checked before any game;
- ``entries``: the bots entered, resolved and checked the way they will run;
- ``schedule``: which bots meet, in which seats, on which deals;
- ``referee``: one game, from its seed and seating to a ``GameRecord``;
- ``seats``: how the referee reaches a bot (in-process or its own process);
- ``sandbox`` and ``jail``: a submitted bot's confined process and its protocol;
- ``executor``: where games are played (this process, or a process pool);
- ``runner``: a run: the games not yet stored, the failure policy;
- ``store``: the results file (SQLite), one transaction per game;
- ``stats``: every statistic, computed once from the stored games;
- ``tables``: the report's tables, laid out once;
- ``report`` and ``htmlpage``: the terminal, Markdown, CSV, JSON and HTML renderers.
"""
