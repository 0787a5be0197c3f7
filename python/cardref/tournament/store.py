"""The results file: one SQLite database (WAL) per tournament.

It holds the config as given (and its fingerprint), the schedule, and for
every finished game its key, seed, seating, statuses, result and every action
with the time it took; per seat, a failed bot's traceback and the tail of its
standard error (``seat_logs``, only for seats that have either). Each game is
committed in one transaction, so a killed run loses at most the games in
flight, and a rerun skips what is stored. A config that raises
``deal_groups`` or adds bots extends the file (growth.py).

Files of schema 1 (game keys numbering lineups by position) are migrated to
schema 2 when opened: the keys are renamed (``schedule.game_key``) and the
actions refer to their game by number.

Seeds are stored as decimal text: SQLite integers are signed 64-bit and a
seed may be as large as 2**64 - 1.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Optional

from . import growth
from .config import fingerprint_of
from .referee import GameRecord
from .schedule import ScheduledGame, game_key

SCHEMA_VERSION = "2"

#: Actions name their game by its number (``schedule.ord``, never reused): a
#: game key names the bots of its lineup, far too long to repeat per action.
ACTIONS = """CREATE TABLE IF NOT EXISTS {name} (
    game INTEGER NOT NULL, step INTEGER NOT NULL, seat INTEGER NOT NULL,
    actor TEXT NOT NULL, action TEXT NOT NULL, seconds REAL NOT NULL, cpu_seconds REAL,
    PRIMARY KEY (game, step)) WITHOUT ROWID"""

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
""" + ACTIONS.format(name="actions") + """;
CREATE TABLE IF NOT EXISTS seat_logs (
    game TEXT NOT NULL REFERENCES games(key), seat INTEGER NOT NULL, traceback TEXT,
    stderr TEXT, PRIMARY KEY (game, seat));
"""


SQLITE_HEADER = b"SQLite format 3\x00"


class StoreError(Exception):
    """The results file cannot be used for this run; the message says why."""


class StoreWriteError(StoreError):
    """Storing a game failed part-way through a run (a full disk, a file
    deleted or damaged meanwhile): the games stored before are kept."""


def explain(path: Path, error: sqlite3.Error) -> StoreError:
    """What a SQLite error on the results file means, and what to do."""
    text = str(error)
    if "full" in text:
        return StoreWriteError(
            f"{path}: the disk is full ({text}); the games stored before are kept. Free "
            "some space (or move the file and its -wal companion elsewhere and use "
            "--output) and run the same command again to resume.")
    if "readonly" in text or "unable to open" in text or "read-only" in text:
        return StoreError(
            f"{path}: cannot write the results file ({text}): cardref tournament stores "
            "every game in it, so it and its folder must be writable (its -wal and -shm "
            "companions are made beside it). Make them writable, or set another output "
            "file with --output. cardref report reads a read-only file.")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return StoreError(
            f"{path}: the results file is damaged ({text}). SQLite can often save what "
            f"it holds: sqlite3 {path} .recover | sqlite3 recovered.sqlite. Or run with "
            "--restart to discard it and start over, or set another output file.")
    return StoreError(f"{path}: {text}")


class Store:
    """A tournament's results file.

    With ``exclusive``, the file is locked for this process (an advisory
    ``flock`` held until ``close``): a second run on the same file is refused
    rather than playing and storing the same games."""

    def __init__(self, path: Path | str, exclusive: bool = False,
                 read_only: bool = False, fresh: bool = False) -> None:
        self.path = Path(path)
        self._lock: Optional[int] = _lock(self.path) if exclusive else None
        try:
            if fresh:  # --restart: emptied in place, so the lock still holds it
                _discard(self.path)
            if read_only:  # read-only media: nothing may be written, not even a -shm
                self.db = sqlite3.connect(f"{self.path.resolve().as_uri()}?immutable=1",
                                          uri=True, isolation_level=None)
            else:
                self.db = sqlite3.connect(str(self.path), isolation_level=None)
            self._refuse_foreign()
            if not read_only:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(SCHEMA)
            if self.meta().get("schema") == "1":
                try:
                    self._migrate_keys()
                except sqlite3.OperationalError as e:
                    raise StoreError(
                        f"{self.path}: written by an older cardref (game keys numbering "
                        f"lineups); it is brought up to date when opened, which failed: {e}. "
                        "Make the file writable, or open a writable copy.") from None
            if not read_only:
                self._migrate()
        except (sqlite3.Error, StoreError) as e:
            self.close()
            if isinstance(e, StoreError):
                raise
            raise explain(self.path, e) from None
        self.identity = _identity(self.path)
        self.extended: list[str] = []  # how initialise() extended the tournament

    def _refuse_foreign(self) -> None:
        """Never write the tournament into a file that is something else:
        another program's database, or no database at all."""
        if not self.path.is_file():
            return
        with open(self.path, "rb") as file:
            head = file.read(len(SQLITE_HEADER))
        if head and head != SQLITE_HEADER:
            raise StoreError(f"{self.path}: not a cardref results file (not an SQLite "
                             "database); nothing was written to it. Set another output file, "
                             "or move this one away.")
        tables = {row[0] for row in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "meta" not in tables:
            raise StoreError(f"{self.path}: an SQLite database but not a cardref results file "
                             f"(it has tables {', '.join(sorted(tables))}); nothing was "
                             "written to it. Set another output file.")

    def check_in_place(self) -> None:
        """Stop a run whose results file was deleted or replaced meanwhile.

        SQLite would go on writing to the deleted file, and every game would
        vanish when the run ends; instead the games stored so far are written
        back to the path (or beside it, when something else took the path)."""
        if _identity(self.path) == self.identity:
            return
        target = self.path if not self.path.exists() else Path(f"{self.path}.recovered")
        copy = sqlite3.connect(str(target))
        try:
            self.db.backup(copy)
        finally:
            copy.close()
        resume = ("Run the same command again to resume." if target == self.path else
                  f"To resume from them, put it back in place or run with --output {target}.")
        raise StoreWriteError(
            f"{self.path} was deleted or replaced while the tournament was writing it; the "
            f"{len(self.finished_keys())} games stored so far were written to {target}. "
            + resume)

    def _migrate(self) -> None:
        """Columns added since a file was written (older files keep loading)."""
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(actions)")}
        if "cpu_seconds" not in columns:
            self.db.execute("ALTER TABLE actions ADD COLUMN cpu_seconds REAL")

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()
        if self._lock is not None:  # after SQLite: closing it drops SQLite's own locks
            os.close(self._lock)
            self._lock = None

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
                self._extend(config, schedule, meta, meaning)
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

    def _changed(self, meta: dict[str, str], lines: list[str]) -> str:
        """The refusal of a config that no longer matches the stored results,
        naming what changed when the file recorded its config key by key."""
        what = "the config or a bot file has changed since"
        if lines:
            what = "what changed since: " + "; ".join(lines)
        return (f"{self.path} holds results of a different config (first written from "
                f"{meta.get('config_path', '?')}); {what}. Raising deal_groups and adding "
                "bots extend a tournament; other changes would change results already "
                "stored. Run with --restart to discard those results and start over, or "
                "set a new output file.")

    def _extend(self, config: Any, schedule: list[ScheduledGame], meta: dict[str, str],
                meaning: dict[str, Any]) -> None:
        """Grow the tournament to ``config`` (more deal groups, more bots),
        keeping every stored game, or refuse (growth.py says which changes
        may be played on)."""
        if "meaning" not in meta:
            raise StoreError(self._changed(meta, []))
        old = json.loads(meta["meaning"])
        refused = growth.refusals(old, meaning)
        if refused:
            raise StoreError(self._changed(meta, refused))
        new = {g.key: g for g in schedule}
        lost = [g.key for g in self.schedule()
                if g.key not in new or (new[g.key].seed, new[g.key].seating) != (g.seed, g.seating)]
        if lost:
            raise StoreError(
                f"{self.path}: the new field changes {len(lost)} scheduled games (e.g. "
                f"{lost[0]}): with fewer bots than seats a table repeats bots, so adding a "
                "bot changes every lineup. Run with --restart, or set a new output file.")
        known = set(self.bot_names())
        with self._transaction():
            last = self.db.execute("SELECT COALESCE(MAX(ord), -1) FROM schedule").fetchone()[0]
            stored = self._keys()
            added = [g for g in schedule if g.key not in stored]
            self.db.executemany(
                "INSERT INTO schedule VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(g.key, last + 1 + i, g.group, g.lineup, g.seating_index, str(g.seed),
                  json.dumps(list(g.seating))) for i, g in enumerate(added)])
            first = len(known)
            self.db.executemany(
                "INSERT INTO bots VALUES (?, ?, ?, ?, ?)",
                [(first + i, b.name, b.kind, b.target, b.source)
                 for i, b in enumerate(b for b in config.bots if b.name not in known)])
            self.db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", [
                ("fingerprint", fingerprint_of(meaning)),
                ("meaning", json.dumps(meaning, sort_keys=True)),
                ("deal_groups", str(config.deal_groups)),
                ("config_path", str(config.path)), ("config_text", config.text)])
        self.extended = growth.extension(old, meaning)

    def _keys(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT key FROM schedule")}

    def _migrate_keys(self) -> None:
        """A file of schema 1 (keys ``g<group>-l<lineup>-s<seating>``, actions
        by key) to schema 2: keys naming the lineup's bots (``game_key``;
        seating 0 of each lineup is the lineup itself), actions by number."""
        rows = list(self.db.execute(
            "SELECT key, deal_group, lineup, seating_index, seating FROM schedule"))
        lineup = {li: tuple(json.loads(seating)) for _, _, li, si, seating in rows if si == 0}
        renamed = [(game_key(group, lineup[li], si), key) for key, group, li, si, _ in rows]
        with self._transaction():
            self.db.execute(ACTIONS.format(name="actions_by_number"))
            old = {row[1] for row in self.db.execute("PRAGMA table_info(actions)")}
            cpu = "a.cpu_seconds" if "cpu_seconds" in old else "NULL"
            self.db.execute(
                "INSERT INTO actions_by_number SELECT s.ord, a.step, a.seat, a.actor, "
                f"a.action, a.seconds, {cpu} FROM actions a JOIN schedule s ON s.key = a.game")
            self.db.execute("DROP TABLE actions")
            self.db.execute("ALTER TABLE actions_by_number RENAME TO actions")
            self.db.executemany("UPDATE schedule SET key = ? WHERE key = ?", renamed)
            self.db.executemany("UPDATE games SET key = ? WHERE key = ?", renamed)
            self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (SCHEMA_VERSION,))

    def _transaction(self) -> Any:
        db = self.db

        class _Tx:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: Any, *rest: Any) -> None:
                try:
                    if kind is None:
                        db.execute("COMMIT")
                finally:  # SQLite may have rolled back already (a full disk, say)
                    if db.in_transaction:
                        db.execute("ROLLBACK")

        return _Tx()

    # Games -------------------------------------------------------------------

    def schedule(self) -> list[ScheduledGame]:
        """Every scheduled game, deal group by deal group (games added to a
        group when a bot joined come after its first games)."""
        rows = self.db.execute(
            "SELECT key, ord, deal_group, lineup, seating_index, seed, seating "
            "FROM schedule ORDER BY deal_group, ord"
        )
        seatings: dict[str, tuple[str, ...]] = {}
        for *_, text in self.db.execute("SELECT DISTINCT seating FROM schedule"):
            seatings[text] = tuple(json.loads(text))
        return [ScheduledGame(key=k, order=o, group=g, lineup=li, seating_index=si,
                              seed=int(s), seating=seatings[st])
                for k, o, g, li, si, s, st in rows]

    def scheduled(self) -> int:
        """How many games the schedule has."""
        return int(self.db.execute("SELECT COUNT(*) FROM schedule").fetchone()[0])

    def group_sizes(self) -> dict[int, int]:
        """Scheduled games per deal group."""
        return dict(self.db.execute(
            "SELECT deal_group, COUNT(*) FROM schedule GROUP BY deal_group"))

    def finished_keys(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT key FROM games")}

    def save_game(self, record: GameRecord) -> None:
        """Store a finished game and its actions in one transaction."""
        self.save_games([record])

    def save_games(self, records: list[GameRecord]) -> None:
        """Store finished games and their actions in one transaction, then
        make sure they went into the file at ``path`` (``check_in_place``)."""
        try:
            self._insert(records)
        except sqlite3.Error as e:
            raise explain(self.path, e) from None
        self.check_in_place()

    def _insert(self, records: list[GameRecord]) -> None:
        with self._transaction():
            for record in records:
                self.db.execute(
                    "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (record.key, str(record.seed), json.dumps(record.seating),
                     json.dumps(record.statuses), json.dumps(record.messages),
                     json.dumps(record.engine_placements), json.dumps(record.placements),
                     json.dumps(record.scores), record.seconds, time.time()),
                )
                number = self.db.execute("SELECT ord FROM schedule WHERE key = ?",
                                         (record.key,)).fetchone()[0]
                cpu = record.cpu or [None] * len(record.actions)
                self.db.executemany(
                    "INSERT INTO actions (game, step, seat, actor, action, seconds, "
                    "cpu_seconds) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(number, i, seat, actor, action, seconds, used) for i, ((seat, actor,
                     action, seconds), used) in enumerate(zip(record.actions, cpu))],
                )
                self.db.executemany(
                    "INSERT INTO seat_logs (game, seat, traceback, stderr) VALUES (?, ?, ?, ?)",
                    _seat_logs(record))

    def checkpoint(self) -> None:
        """Move the write-ahead log into the file (its size is then the data's)."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def games(self) -> list[dict[str, Any]]:
        """Finished games in schedule order, with their deal group.

        The lists of a game are read-only: games that stored the same text
        (a seating, all statuses "ok") share one list, which makes reading a
        big tournament several times faster."""
        rows = self.db.execute(
            "SELECT g.key, s.deal_group, s.lineup, g.seed, g.seating, g.statuses, g.messages, "
            "g.engine_placements, g.placements, g.scores, g.seconds FROM games g "
            "JOIN schedule s ON s.key = g.key ORDER BY s.deal_group, s.ord"
        )
        seen: dict[str, Any] = {}

        def parse(text: str) -> Any:
            value = seen.get(text)
            if value is None:
                value = seen[text] = json.loads(text)
            return value

        games = [
            {"key": k, "group": grp, "lineup": li, "seed": int(seed),
             "seating": parse(seating), "statuses": parse(statuses),
             "messages": parse(messages), "engine_placements": parse(ep),
             "placements": parse(pl), "scores": parse(sc), "seconds": secs}
            for k, grp, li, seed, seating, statuses, messages, ep, pl, sc, secs in rows
        ]
        logs: dict[str, dict[int, tuple[Optional[str], Optional[str]]]] = {}
        for key, seat, trace, err in self.db.execute(
                "SELECT game, seat, traceback, stderr FROM seat_logs"):
            logs.setdefault(key, {})[seat] = (trace, err)
        nothing: dict[int, list[None]] = {}  # shared, like the parsed lists above
        for game in games:
            mine = logs.get(game["key"])
            seats = len(game["seating"])
            if mine is None:
                game["tracebacks"] = game["stderr"] = nothing.setdefault(seats, [None] * seats)
                continue
            game["tracebacks"] = [mine.get(seat, (None, None))[0] for seat in range(seats)]
            game["stderr"] = [mine.get(seat, (None, None))[1] for seat in range(seats)]
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
            "SELECT a.cpu_seconds FROM actions a JOIN schedule s ON s.ord = a.game "
            "WHERE s.key = ? ORDER BY a.step", (key,))]

    def actions(self, key: str) -> list[tuple[int, str, str, float]]:
        return list(self.db.execute(
            "SELECT a.seat, a.actor, a.action, a.seconds FROM actions a "
            "JOIN schedule s ON s.ord = a.game WHERE s.key = ? ORDER BY a.step",
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


def _identity(path: Path) -> Optional[tuple[int, int]]:
    """The file at ``path`` (device and inode), None if there is none."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino


def _lock(path: Path) -> int:
    """Lock ``path`` (created if missing) for this process, or refuse."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise StoreError(f"{path}: cannot open the results file: {e.strerror}. Make it and "
                         "its folder writable, or set another output file with --output.") \
            from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreError(f"{path}: another cardref tournament is playing into this results "
                         "file right now; wait for it to finish (or stop it: it resumes "
                         "later), or set another output file.") from None
    return fd


def open_existing(path: Path | str) -> Store:
    """A results file that must already exist and hold a tournament."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"{path}: no such results file")
    store = Store(path, read_only=_read_only(path))
    if not store.meta():
        store.close()
        raise StoreError(f"{path}: not a cardref tournament results file")
    return store


def _read_only(path: Path) -> bool:
    """A results file that can only be read where it is (read-only media, a
    folder not writable), with no write-ahead log left to read."""
    writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    wal = Path(f"{path}-wal")
    return not writable and not (wal.exists() and wal.stat().st_size > 0)


def _discard(path: Path) -> None:
    """Empty a results file (with its -wal and -shm); refuse any other file."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with open(path, "rb") as file:
        cardref = file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    if cardref:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            cardref = not tables or "meta" in tables
        except sqlite3.DatabaseError:
            pass  # a damaged results file: starting over is the remedy
        finally:
            db.close()
    if not cardref:
        raise StoreError(f"{path}: not a cardref results file, so --restart does not "
                         "delete it; set another output file, or remove it yourself.")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    os.truncate(path, 0)
