"""Typed errors. Library code raises these; only the CLI turns them into a line and an exit code."""

from __future__ import annotations


class NofaceError(Exception):
    """Base class. `where` is a file (optionally `file:line`) the message is about."""

    exit_code = 2

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class ConfigError(NofaceError):
    """`.noface.toml` is malformed or holds a wrong value."""


class InputError(NofaceError):
    """An issue, manifest or agent-output file could not be read or understood."""


class UsageError(NofaceError):
    """The command line asks for something that cannot be done."""


class InternalError(NofaceError):
    """A bug in noface_ctx itself."""

    exit_code = 3
