"""The results file: one SQLite database (WAL) per tournament.

It holds the config as given (and its fingerprint), the schedule, and for
every finished game its key, seed, seating, statuses, result and every action
with the time it took; per seat, a failed bot's traceback and the tail of its
standard error (``seat_logs``, only for seats that have either). Each game is
committed in one transaction, so a killed run loses at most the games in
flight, and a rerun skips what is stored.

Seeds are stored as decimal text: SQLite integers are signed 64-bit and a
seed may be as large as 2**64 - 1.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any, Optional

from .config import changes, fingerprint_of
from .referee import GameRecord
from .schedule import ScheduledGame

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (
    idx INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, kind TEXT NOT NULL,
    target TEXT NOT NULL, source TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule (
    key TEXT PRIMARY KEY, ord INTEGER UNIQUE NOT NULL, deal_group INTEGER NOT NULL,
    lineup INTEGER NOT NULL, seating_index INTEGER NOT NULL, seed TEXT NOT NULL,
    seating TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY REFERENCES schedule(key), seed TEXT NOT NULL,
    seating TEXT NOT NULL, statuses TEXT NOT NULL, messages TEXT NOT NULL,
    engine_placements TEXT NOT NULL, placements TEXT NOT NULL, scores TEXT NOT NULL,
    seconds REAL NOT NULL, finished_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS actions (
    game TEXT NOT NULL REFERENCES games(key), step INTEGER NOT NULL, seat INTEGER NOT NULL,
    actor TEXT NOT NULL, action TEXT NOT NULL, seconds REAL NOT NULL,
    PRIMARY KEY (game, step));
CREATE TABLE IF NOT EXISTS seat_logs (
    game TEXT NOT NULL REFERENCES games(key), seat INTEGER NOT NULL, traceback TEXT,
    stderr TEXT, PRIMARY KEY (game, seat));
"""


class StoreError(Exception):
    """The results file cannot be used for this run; the message says why."""


class Store:
    """A tournament's results file."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: not a usable results file: {e}") from None

    def _migrate(self) -> None:
        """Columns added since a file was written (older files keep loading)."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(actions)")}
        if "cpu_seconds" not in columns:
            self.db.execute("ALTER TABLE actions ADD COLUMN cpu_seconds REAL")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # Creation and resumption ---------------------------------------------------

    def meta(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT key, value FROM meta"))

    def initialise(self, config: Any, schedule: list[ScheduledGame]) -> bool:
        """Record the config and schedule of a new file; for an existing file,
        check it belongs to this config. Returns True when resuming."""
        meta = self.meta()
        meaning = config.meaning()
        fingerprint = fingerprint_of(meaning)
        if meta:
            if meta.get("fingerprint") != fingerprint:
                raise StoreError(self._changed(meta, meaning))
            return True
        with self._transaction():
            rows = {
                "schema": SCHEMA_VERSION, "fingerprint": fingerprint,
                "meaning": json.dumps(meaning, sort_keys=True),
                "config_path": str(config.path), "config_text": config.text,
                "game": config.game, "players": str(config.players),
                "params": json.dumps(config.params, sort_keys=True),
                "engine": config.engine, "seed": str(config.seed),
                "deal_groups": str(config.deal_groups), "format": config.format,
                "teams": json.dumps(config.teams), "bootstrap": str(config.bootstrap),
                "decision_seconds": repr(config.decision_seconds),
                "sandbox": config.sandbox.describe() if config.submitted() else "",
                "created_at": repr(time.time()),
            }
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", rows.items())
            self.db.executemany(
                "INSERT INTO bots VALUES (?, ?, ?, ?, ?)",
                [(i, b.name, b.kind, b.target, b.source) for i, b in enumerate(config.bots)],
            )
            self.db.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(g.key, g.order, g.group, g.lineup, g.seating_index, str(g.seed),
                  json.dumps(list(g.seating))) for g in schedule],
            )
        return False

    def _changed(self, meta: dict[str, str], meaning: dict[str, Any]) -> str:
        """The refusal of a config that no longer matches the stored results,
        naming what changed when the file recorded its config key by key."""
        what = "the config or a bot file has changed since"
        if "meaning" in meta:
            lines = changes(json.loads(meta["meaning"]), meaning)
            if lines:
                what = "what changed since: " + "; ".join(lines)
        return (f"{self.path} holds results of a different config (first written from "
                f"{meta.get('config_path', '?')}); {what}. Run with --restart to discard "
                "those results and start over, or set a new output file.")

    def _transaction(self) -> Any:
        db = self.db

        class _Tx:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: Any, *rest: Any) -> None:
                db.execute("COMMIT" if kind is None else "ROLLBACK")

        return _Tx()

    # Games -------------------------------------------------------------------

    def schedule(self) -> list[ScheduledGame]:
        rows = self.db.execute(
            "SELECT key, ord, deal_group, lineup, seating_index, seed, seating "
            "FROM schedule ORDER BY ord"
        )
        return [ScheduledGame(key=k, order=o, group=g, lineup=li, seating_index=si,
                              seed=int(s), seating=tuple(json.loads(st)))
                for k, o, g, li, si, s, st in rows]

    def finished_keys(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT key FROM games")}

    def save_game(self, record: GameRecord) -> None:
        """Store a finished game and its actions in one transaction."""
        with self._transaction():
            self.db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (record.key, str(record.seed), json.dumps(record.seating),
                 json.dumps(record.statuses), json.dumps(record.messages),
                 json.dumps(record.engine_placements), json.dumps(record.placements),
                 json.dumps(record.scores), record.seconds, time.time()),
            )
            cpu = record.cpu or [None] * len(record.actions)
            self.db.executemany(
                "INSERT INTO actions (game, step, seat, actor, action, seconds, cpu_seconds) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(record.key, i, seat, actor, action, seconds, used) for i, ((seat, actor,
                 action, seconds), used) in enumerate(zip(record.actions, cpu))],
            )
            self.db.executemany(
                "INSERT INTO seat_logs (game, seat, traceback, stderr) VALUES (?, ?, ?, ?)",
                _seat_logs(record))

    def games(self) -> list[dict[str, Any]]:
        """Finished games in schedule order, with their deal group."""
        rows = self.db.execute(
            "SELECT g.key, s.deal_group, s.lineup, g.seed, g.seating, g.statuses, g.messages, "
            "g.engine_placements, g.placements, g.scores, g.seconds FROM games g "
            "JOIN schedule s ON s.key = g.key ORDER BY s.ord"
        )
        games = [
            {"key": k, "group": grp, "lineup": li, "seed": int(seed),
             "seating": json.loads(seating), "statuses": json.loads(statuses),
             "messages": json.loads(messages), "engine_placements": json.loads(ep),
             "placements": json.loads(pl), "scores": json.loads(sc), "seconds": secs}
            for k, grp, li, seed, seating, statuses, messages, ep, pl, sc, secs in rows
        ]
        logs: dict[str, dict[int, tuple[Optional[str], Optional[str]]]] = {}
        for key, seat, trace, err in self.db.execute(
                "SELECT game, seat, traceback, stderr FROM seat_logs"):
            logs.setdefault(key, {})[seat] = (trace, err)
        for game in games:
            mine = logs.get(game["key"], {})
            seats = range(len(game["seating"]))
            game["tracebacks"] = [mine.get(seat, (None, None))[0] for seat in seats]
            game["stderr"] = [mine.get(seat, (None, None))[1] for seat in seats]
        return games

    def game(self, key: str) -> Optional[dict[str, Any]]:
        for game in self.games():
            if game["key"] == key:
                return game
        return None

    def cpu_seconds(self, key: str) -> list[Optional[float]]:
        """The CPU time of each action's decision (None in files from before it
        was recorded, and for actions the fallback chose: 0)."""
        return [row[0] for row in self.db.execute(
            "SELECT cpu_seconds FROM actions WHERE game = ? ORDER BY step", (key,))]

    def actions(self, key: str) -> list[tuple[int, str, str, float]]:
        return list(self.db.execute(
            "SELECT seat, actor, action, seconds FROM actions WHERE game = ? ORDER BY step",
            (key,),
        ))

    def bot_names(self) -> list[str]:
        return [row[0] for row in self.db.execute("SELECT name FROM bots ORDER BY idx")]


def _seat_logs(record: GameRecord) -> list[tuple[str, int, Optional[str], Optional[str]]]:
    """The seat_logs rows of a record: seats with a traceback or standard error."""
    seats = len(record.seating)
    traces = record.tracebacks or [None] * seats
    errors = record.stderr or [None] * seats
    return [(record.key, seat, trace, err)
            for seat, (trace, err) in enumerate(zip(traces, errors)) if trace or err]


def open_existing(path: Path | str) -> Store:
    """A results file that must already exist and hold a tournament."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"{path}: no such results file")
    store = Store(path)
    if not store.meta():
        store.close()
        raise StoreError(f"{path}: not a cardref tournament results file")
    return store


def remove_results(path: Path) -> None:
    """Delete a results file with its WAL and shared-memory companions."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
