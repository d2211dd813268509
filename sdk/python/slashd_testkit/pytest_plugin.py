"""slashd's pytest plugin: `slashd` and `slashd_world` fixtures.

Enable it in a conftest.py (`pytest_plugins = ["slashd_testkit.pytest_plugin"]`),
or with `-p slashd_testkit.pytest_plugin`; installed as a package, it is
registered by its pytest11 entry point.

- `slashd` (session): the server of `slashd test` when SLASHD_URL and
  SLASHD_ADMIN_TOKEN are set, else a `slashd serve` started for the session
  (found as slashd_testkit.find_binary says) and stopped after it.
- `slashd_world` (each test): a fresh world made from the test's spec and
  deleted after the test. The spec is the `slashd_world` marker's argument
  (`@pytest.mark.slashd_world({...})` or a file's path, relative to the test
  file), else the `slashd_world_spec` fixture (override it in a conftest.py
  or a module for many tests). The world's name is the spec's name (or the
  test's) with a random suffix, so that it never meets another world's.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any, Iterator

import pytest

from . import core


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slashd_world(spec): the spec (a dict, JSON text, or a JSON/YAML file's "
                                       "path relative to the test file) of the slashd_world fixture's world")


@pytest.fixture(scope="session")
def slashd() -> Iterator[core.Server]:
    if os.environ.get("SLASHD_URL") and os.environ.get("SLASHD_ADMIN_TOKEN"):
        yield core.connect()
        return
    with core.start() as server:
        yield server


@pytest.fixture
def slashd_world_spec() -> Any:
    """The spec of the slashd_world fixture's world when the test has no
    slashd_world marker: override it. This default is a user alice and a
    guild `club` with a channel `general`."""
    return {"users": {"alice": {}}, "guilds": {"club": {"owner": "alice", "channels": {"general": {}}}}}


def _load(spec: Any, test_file: Path) -> Any:
    if isinstance(spec, (str, Path)) and not str(spec).lstrip().startswith("{"):
        path = test_file.parent / spec
        if path.suffix in (".yaml", ".yml"):
            return path  # sent as YAML; its name is then the file's own
        return json.loads(path.read_text())
    if isinstance(spec, str):
        return json.loads(spec)
    return copy.deepcopy(spec)


@pytest.fixture
def slashd_world(request: pytest.FixtureRequest, slashd: core.Server) -> Iterator[core.World]:
    marker = request.node.get_closest_marker("slashd_world")
    if marker is not None:
        spec = marker.args[0] if marker.args else marker.kwargs["spec"]
    else:
        spec = request.getfixturevalue("slashd_world_spec")
    spec = _load(spec, Path(str(request.node.fspath)))
    if isinstance(spec, dict):
        spec["name"] = core.world_name(spec.get("name") or request.node.name)
    world = slashd.world(spec)
    yield world
    try:
        world.delete()
    except core.SlashdError as err:
        if err.status != 404:  # the test deleted it itself
            raise
