"""Bots that play the games through the observation API."""
