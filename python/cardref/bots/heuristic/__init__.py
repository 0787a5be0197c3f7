"""Heuristic built-in bots, one module per game id (``heuristic/<game>.py``).

Each defines ``class Bot`` with ``act(observation, legal_actions) -> str``;
the only per-game code of the tournament runner lives here.
"""
