"""Tournaments: a TOML config in, a ranked table people can trust out.

One job per module (``docs/architecture.md`` has the map):

- ``config``: the config file's schema, checked before any game;
- ``entries``: the bots entered, resolved and checked the way they will run;
- ``schedule``: which bots meet, in which seats, on which deals;
- ``referee``: one game, from its seed and seating to a ``GameRecord``;
- ``seats``: how the referee reaches a bot (in-process or its own process);
- ``sandbox``: a submitted bot's seat process and its protocol;
- ``botserver``: the warm servers that make those processes, one per bot;
- ``confine``, ``seccomp``, ``stage``: the sandbox bubblewrap builds for them;
- ``weaker`` and ``jail``: the weaker isolation an organiser may opt in to;
- ``executor``: where games are played (this process, or a process pool);
- ``cluster`` and ``gamehost``: the Dask executor, and the process that
  plays a worker's games;
- ``runner``: a run: the games not yet stored, the failure policy;
- ``sprt``: early stopping of a gauntlet (a sequential probability ratio test);
- ``store``: the results file (SQLite), one transaction per game;
- ``growth``: which config changes extend a results file;
- ``stats``: every statistic, computed once from the stored games;
- ``rating`` and ``bootstrap``: the batch Plackett–Luce rating, and the
  bootstrap's exact sums over deal groups;
- ``tables``: the report's tables, laid out once;
- ``report`` and ``htmlpage``: the terminal, Markdown, CSV, JSON and HTML renderers.
"""
