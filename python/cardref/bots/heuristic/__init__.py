"""Simple rule-of-thumb bots, one module per game."""
