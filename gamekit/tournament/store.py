"""The tournament's database: one SQLite file with the set-up, the entrants and every finished game.

A game's row is written and committed the moment it finishes (write-ahead log, one transaction
per game), so a run that is stopped — Ctrl-C, a crash, a power cut — loses at most the games that
were still being played, and `resume` plays exactly the ones that are missing. A game id is the
primary key: a finished game is never stored, and so never played, twice.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS agents (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL,
    source TEXT NOT NULL, status TEXT NOT NULL, reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, first TEXT NOT NULL, second TEXT NOT NULL, winner INTEGER,
    score REAL NOT NULL, forfeit INTEGER, reason TEXT NOT NULL, moves INTEGER NOT NULL,
    record TEXT NOT NULL, finished TEXT NOT NULL DEFAULT (datetime('now'))
);
"""


class Store:
    """Read and write one tournament database (thread-safe; writes are serialised)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self.lock = threading.Lock()
        with self.lock:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # --- set-up ---
    def get_meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        with self.lock:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    # --- entrants ---
    def put_agent(self, row: dict[str, Any]) -> None:
        with self.lock:
            self.db.execute(
                "INSERT OR REPLACE INTO agents VALUES (:id, :name, :path, :sha256, :source, :status, :reason)", row
            )

    def agents(self) -> list[dict[str, Any]]:
        cur = self.db.execute("SELECT id, name, path, sha256, source, status, reason FROM agents ORDER BY id")
        keys = [c[0] for c in cur.description]
        return [dict(zip(keys, row)) for row in cur.fetchall()]

    # --- games ---
    def put_game(self, record: dict[str, Any]) -> bool:
        """Store a finished game (committed at once); False if a game with this id is already stored."""
        row = (
            record["id"],
            record["agents"][0],
            record["agents"][1],
            record["winner"],
            record["score"][0],
            record["forfeit"],
            record["reason"],
            len(record["moves"]),
            json.dumps(record, sort_keys=True),
        )
        with self.lock:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO games (id, first, second, winner, score, forfeit, reason, "
                "moves, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
            return cur.rowcount == 1

    def finished(self) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT id FROM games")}

    def records(self) -> list[dict[str, Any]]:
        """Every finished game's record, in id order."""
        return [json.loads(row[0]) for row in self.db.execute("SELECT record FROM games ORDER BY id")]
