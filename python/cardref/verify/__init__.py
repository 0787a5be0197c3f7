"""Rule verification for rule designers: both engines in lockstep with every
invariant checked (``cardref verify``), failures shrunk to a scenario file,
scenario files checked against both engines (``cardref scenario``), and the
rule points each engine counts (``docs/rules/``, §11 of every game).
"""
