"""`cardref play`: a person in a seat, through a real pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import cardref
from cardref.play import choose, describe, labels, shown_action

FIRST = ("class Bot:\n    def act(self, observation, legal_actions):\n"
         "        return legal_actions[0]\n")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = "Your action ("


class Terminal:
    """A command on a pseudo-terminal 120 columns wide: read its screen, type."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.fd, child = pty.openpty()
        fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
        self.process = subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, cwd=cwd,
                                        env=env, close_fds=True, start_new_session=True)
        os.close(child)
        self.text = ""

    def until(self, needle: str, seconds: float = 30.0) -> str:
        """Everything shown up to and including ``needle`` (then forgotten)."""
        deadline = time.monotonic() + seconds
        while needle not in self.text:
            left = deadline - time.monotonic()
            assert left > 0, f"waited for {needle!r}; the screen shows:\n{self.text[-2000:]}"
            if select.select([self.fd], [], [], left)[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the command ended
                    chunk = b""
                assert chunk or needle in self.text, f"ended before {needle!r}:\n{self.text}"
                self.text += ANSI.sub("", chunk.decode("utf-8", "replace")).replace("\r", "")
        end = self.text.index(needle) + len(needle)
        shown, self.text = self.text[:end], self.text[end:]
        return shown

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode() + b"\r")

    def close(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            os.close(self.fd)


@pytest.fixture
def terminal(tmp_path: Path):
    (tmp_path / "first.py").write_text(FIRST)
    opened: list[Terminal] = []

    def start(*args: str) -> Terminal:
        argv = [sys.executable, "-m", "cardref.cli", "play", "take5", "--players", "2",
                "--bots", "first.py", "--seed", "3", "--delay", "0", "--variant", "end_score=5",
                *args]
        opened.append(Terminal(argv, tmp_path))
        return opened[-1]

    yield start
    for t in opened:
        if t.process.poll() is None:
            t.process.kill()


def test_a_person_plays_a_whole_game_in_the_terminal(terminal):
    engine = cardref.load("take5", 2, end_score=5)
    state = engine.new_state(seed=3)
    screen = terminal()
    first = screen.until(PROMPT)
    hand = state.observation(0)["hand"]
    assert "your hand" in first and " ".join(hand) in first
    legal = state.legal_actions()
    for k, action in enumerate(legal, 1):
        assert f"{k:>5}. {action}" in first
    # Anything but a number of a choice or an action's text is refused, with the reason.
    screen.type("0")
    assert f"Refused: 0 is not one of the choices: type a number from 1 to {len(legal)}" in \
        screen.until(PROMPT)
    screen.type("play 105")
    assert "Refused: 'play 105' is not one of your legal actions" in screen.until(PROMPT)
    screen.type("")
    assert "Refused: type a number" in screen.until(PROMPT)
    screen.type("  PLAY   " + legal[1].split()[1])  # the text, however spaced or cased
    state.apply(legal[1])
    shown = screen.until("Revealed: ")
    assert f"You: {legal[1]}" in shown
    assert "seat 1 first: commits a card, face down" in shown  # not which card
    bot_card = state.legal_actions()[0]
    state.apply(bot_card)
    assert screen.until("\n").strip() == f"you {legal[1].split()[1]}, first {bot_card.split()[1]}"
    # From here on: the first choice each time, the bot its first; both as the engine says.
    while not state.is_terminal():
        if state.current_player() == 0:
            screen.until(PROMPT)
            screen.type("1")
        state.apply(state.legal_actions()[0])
    result = screen.until("You placed")
    for seat, name in enumerate(["you", "first"]):
        assert re.search(rf"│\s+{seat} │ {name}\s+│\s+{state.scores()[seat]} │\s+"
                         rf"{state.placements()[seat]} │", result), result
    assert f"{state.placements()[0]} of 2." in screen.until("2.")
    assert screen.close() == 0


def test_ctrl_d_leaves_the_game(terminal):
    screen = terminal("--seat", "1")
    screen.until(PROMPT)
    os.write(screen.fd, b"\x04")
    assert "You left the game." in screen.until("You left the game.")
    assert screen.close() == 1


def test_answers_and_what_is_shown():
    legal = ["play 9C 9S", "play 10D", "discard"]
    assert choose("2", legal) == ("play 10D", "")
    assert choose(" play  9s 9c ", legal) == ("play 9C 9S", "")  # cards in any order
    assert choose("4", legal)[0] is None and "1 to 3" in choose("4", legal)[1]
    assert choose("play", legal)[0] is None
    assert shown_action("twenty_two", "discard 2C 3D") == "discards 2 cards"
    assert shown_action("twenty_two", "discard") == "keeps every card"
    assert shown_action("back_alley", "play 10H") == "play 10H"
    lines = dict(describe({"scores": [3, 7], "to_act": 1, "rows": [["5"], ["9", "12"]],
                           "bids": [[1, "2"], [0, "board"]], "revealed": [["7", 1]],
                           "hand": ["1", "2"], "history": ["x"]}, ["you", "bot"]))
    assert lines == {"scores": "you 3 · bot 7", "to act": "seat 1 (bot)",
                     "rows": "0: 5\n1: 9 12", "bids": "bot: 2\nyou: board",
                     "revealed": "bot: 7", "your hand": "1 2"}
    assert labels(["you", "random", "random"]) == ["you", "random#1", "random#2"]
