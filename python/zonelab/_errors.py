"""The exception a bad experiment raises (defined in Python so it pickles: Dask workers send it back)."""

from __future__ import annotations


class ConfigError(ValueError):
    """An experiment, override or sweep file that does not validate.

    ``str(error)`` is the message ``zonelab run`` prints after ``error:`` (``in FILE: `` first when
    the experiment came from a file); ``field`` is the dotted path of the offending field
    (``job[0].bs``, ``firmware.t_free``), or None for TOML syntax errors.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message, field)

    @property
    def message(self) -> str:
        return self.args[0]

    @property
    def field(self) -> str | None:
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


class RunError(RuntimeError):
    """A run that could not finish: a trace that cannot be read or opened, or host tasks that
    wait for each other forever. ``str(error)`` is the message ``zonelab run`` prints."""
