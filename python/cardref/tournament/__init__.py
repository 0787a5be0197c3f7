"""Tournaments: a TOML config in, a ranked table people can trust out.

``config`` reads and checks the file, ``schedule`` lays out the games,
``runner`` plays them (in a process pool), ``store`` keeps every finished game
in one SQLite file so a run can resume, ``ratings`` computes the standings with
bootstrap confidence intervals, and ``report`` publishes them.
"""
