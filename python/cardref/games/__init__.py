"""The readable reference engines, one module per game."""
