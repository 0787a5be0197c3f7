"""Bots that play cardref games through observations and legal actions."""
