"""Experiments and overrides as the CLI reads them: a file path, TOML text or a dict, and
``--set key=value`` assignments, normalised before they reach the core's parser."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from . import _zonelab
from ._errors import ConfigError

#: What ``run`` and ``sweep`` accept as an experiment.
ExperimentLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
#: What they accept as overrides: ``{"device.zones.max_open_zones": 8}`` or ``["key=value", ...]``.
OverridesLike = Union[Mapping[str, Any], Iterable[str], str, None]


@dataclass(frozen=True)
class Source:
    """An experiment's TOML text, the name it gets when it gives none (a file's stem, as the CLI
    does), and the file it came from (for messages and for paths relative to it)."""

    text: str
    default_name: str
    path: str | None = None

    @property
    def directory(self) -> Path:
        return Path(self.path).parent if self.path else Path.cwd()

    def table(self) -> dict[str, Any]:
        try:
            return tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as e:
            prefix = f"in {self.path}: " if self.path else ""
            raise ConfigError(f"{prefix}the experiment file is not valid TOML: {e}") from None


def looks_like_toml(text: str) -> bool:
    """A str with a newline or an ``=`` is TOML text; any other str is a path."""
    return "\n" in text or "=" in text


def source(experiment: ExperimentLike, name: str = "experiment") -> Source:
    """Normalises an experiment argument. ``name`` is the default name of text and dicts."""
    if isinstance(experiment, Source):
        return experiment
    if isinstance(experiment, Mapping):
        return Source(_zonelab.dict_to_toml(_plain(experiment)), name)
    if isinstance(experiment, str) and looks_like_toml(experiment):
        return Source(experiment, name)
    if isinstance(experiment, (str, os.PathLike)):
        path = os.fspath(experiment)
        text = Path(path).read_text(encoding="utf-8")
        return Source(text, Path(path).stem or "experiment", path)
    raise TypeError(f"an experiment is a path, TOML text or a dict, not {type(experiment).__name__}")


def _plain(value: Any) -> Any:
    """Mappings as dicts and tuples as lists, all the way down, for the TOML writer."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def assignments(overrides: OverridesLike) -> list[str]:
    """Overrides as the CLI's ``--set`` strings. Dict values are Python values (``"512MiB"``,
    ``8``, ``True``); strings are ``key=value`` with the value read as the CLI reads it."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [_zonelab.override_assignment(str(k), _plain(v)) for k, v in overrides.items()]
    out = []
    for o in overrides:
        if not isinstance(o, str):
            raise TypeError(f"an override is a 'key=value' string, not {o!r}")
        out.append(o)
    return out
