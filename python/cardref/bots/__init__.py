"""Bots that play the games through observations and legal actions."""
