"""A fix as data: the actions that repair one finding, in the target environment.

Kinds of action (`Action.kind`):
- `pip`: run the target interpreter's pip with these arguments (`PYTHON -m pip ARGS...`);
- `hook`: shell lines written into the environment's activation (a venv's bin/activate, a conda
  env's etc/conda/activate.d/), so every activation sets them;
- `env`: a setting the user exports (`export NAME=value`; `set NAME=value` in Windows' cmd); stated, not
  applied;
- `system`: a step outside the environment (a driver, a container flag, WSL2, a reboot): stated,
  never run by tfdoctor;
- `note`: prose around the steps (why, an alternative).

`fix` runs the `pip` and `hook` actions only; everything else is printed. The text a report shows
(`Finding.fix`) is rendered from the plan, so every view says the same.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

KINDS = ("pip", "hook", "env", "system", "note")
RUNNABLE = ("pip", "hook")
MAX_ACTIONS = 32
MAX_TEXT = 4000


@dataclass(frozen=True)
class Action:
    kind: str
    args: tuple[str, ...] = ()  # pip: the arguments after `-m pip`; hook: the shell lines
    text: str = ""  # system: the step as stated; note: prose; env: NAME=value
    why: str = ""  # a short reason, shown as a comment after the command

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "args": list(self.args), "text": self.text, "why": self.why}

    @classmethod
    def from_dict(cls, data: Any) -> Action | None:
        """An action from a saved report; None for anything malformed (never an exception)."""
        if not isinstance(data, dict) or data.get("kind") not in KINDS:
            return None
        args = data.get("args") or []
        if not isinstance(args, list) or len(args) > 256 or not all(isinstance(a, str) for a in args):
            return None
        text, why = data.get("text") or "", data.get("why") or ""
        if not isinstance(text, str) or not isinstance(why, str):
            return None
        return cls(str(data["kind"]), tuple(a[:MAX_TEXT] for a in args), text[:MAX_TEXT], why[:MAX_TEXT])


def pip(*args: str, why: str = "") -> Action:
    return Action("pip", tuple(args), why=why)


def hook(*lines: str, why: str = "") -> Action:
    return Action("hook", tuple(lines), why=why)


def env(name: str, value: str, why: str = "") -> Action:
    return Action("env", text=f"{name}={value}", why=why)


def system(text: str, why: str = "") -> Action:
    return Action("system", text=text, why=why)


def note(text: str) -> Action:
    return Action("note", text=text)


@dataclass(frozen=True)
class Plan:
    """The actions of one fix; `python` is the target interpreter as the user types it, `windows`
    picks cmd.exe's syntax (its quoting, `set`, `&&`; conda's Anaconda Prompt) over a POSIX shell's."""

    actions: tuple[Action, ...]
    python: str = "python"
    windows: bool = False

    def __add__(self, other: Plan) -> Plan:
        return Plan(self.actions + other.actions, self.python, self.windows)

    def quote(self, word: str) -> str:
        if self.windows:
            return f'"{word}"' if any(c in word for c in ' <>|&^"') else word
        if "$(" in word:  # our own shell text (the installed version read by the shell)
            return f'"{word}"'
        return shlex.quote(word)

    def python_cmd(self) -> str:
        return self.quote(self.python)

    def command(self, action: Action) -> str:
        """One action as the line to type: pip as the target interpreter's, hooks and settings as
        exports, system steps as stated."""
        if action.kind == "pip":
            return f"{self.python_cmd()} -m pip " + " ".join(self.quote(a) for a in action.args)
        if action.kind == "hook":
            return " && ".join(action.args)
        if action.kind == "env":
            name, _, value = action.text.partition("=")
            return f"set {name}={value}" if self.windows else f"export {name}={value}"
        return action.text

    def commands(self) -> list[str]:
        """The lines to run, in order (pip, hook lines, exports, system commands)."""
        return [self.command(a) for a in self.actions if a.kind != "note"]

    def whys(self) -> list[str]:
        """Each step's reason, in order."""
        return [a.why for a in self.actions if a.why and a.kind != "note"]

    def notes(self) -> list[str]:
        """Prose: each action's reason, then the notes."""
        return self.whys() + [a.text for a in self.actions if a.kind == "note" and a.text]

    def _with_notes(self, out: str) -> str:
        for note_ in (a.text for a in self.actions if a.kind == "note" and a.text):
            out += note_ if not out or note_[:1] in " ,;." else f" {note_}"
        return out

    def prose(self) -> str:
        """The words around the commands, as every view shows them: the reasons, then the notes."""
        return self._with_notes("; ".join(self.whys())).strip().lstrip(".;,—- ")

    def text(self) -> str:
        """The plan as one line of text: the commands joined with `&&`, their reasons as a shell
        comment, then the notes."""
        out = " && ".join(self.commands())
        if self.whys():
            out += "  # " + "; ".join(self.whys())
        return self._with_notes(out)

    @property
    def runnable(self) -> tuple[Action, ...]:
        return tuple(a for a in self.actions if a.kind in RUNNABLE)

    @property
    def stated(self) -> tuple[Action, ...]:
        return tuple(a for a in self.actions if a.kind in ("env", "system"))

    def to_dict(self) -> dict[str, Any]:
        actions = [a.to_dict() for a in self.actions]
        return {"python": self.python, "windows": self.windows, "actions": actions}

    @classmethod
    def from_dict(cls, data: Any) -> Plan | None:
        """A plan from a saved report; None when malformed."""
        if not isinstance(data, dict) or not isinstance(data.get("actions"), list):
            return None
        python = data.get("python")
        if not isinstance(python, str) or not python or len(python) > MAX_TEXT:
            return None
        actions = [Action.from_dict(a) for a in data["actions"][:MAX_ACTIONS]]
        if any(a is None for a in actions):
            return None
        size = sum(len(a.text) + len(a.why) + sum(len(x) for x in a.args) for a in actions if a is not None)
        if size > MAX_TEXT * 2:
            return None
        return cls(tuple(a for a in actions if a is not None), python, data.get("windows") is True)


def make(python: str, *actions: Action, windows: bool = False) -> Plan:
    return Plan(tuple(actions), python, windows)
