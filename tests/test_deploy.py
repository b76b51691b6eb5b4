"""``compose.yaml`` without Docker: its bot services differ only in SHARD_IDS, which together cover every shard
once, and every variable it gives the bot is one the bot reads. (``tests/e2e/test_shards.py`` runs the same
configuration as processes.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from dotenv import dotenv_values

from bot.settings import LaunchSettings, Settings

COMPOSE = Path(__file__).resolve().parents[1] / "compose.yaml"
HEALTHCHECK = ["CMD-SHELL", "python -m bot health || exit 1"]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def bots() -> dict[str, dict[str, Any]]:
    return {name: service for name, service in compose()["services"].items() if name.startswith("bot")}


def known_variables() -> set[str]:
    fields = {*Settings.model_fields, *LaunchSettings.model_fields}
    return {name.upper() for name in fields}


def test_bot_services_differ_only_in_their_shard_ids() -> None:
    services = bots()
    assert len(services) >= 2
    without_ids = []
    for service in services.values():
        environment = dict(service["environment"])
        environment.pop("SHARD_IDS")
        without_ids.append({**service, "environment": environment})
    assert all(service == without_ids[0] for service in without_ids)


def test_the_shard_ids_cover_every_shard_once() -> None:
    services = bots()
    counts = {int(service["environment"]["SHARD_COUNT"]) for service in services.values()}
    assert len(counts) == 1
    ids = sorted(
        int(shard) for service in services.values() for shard in service["environment"]["SHARD_IDS"].split(",")
    )
    assert ids == list(range(counts.pop()))


def test_every_bot_variable_is_a_setting() -> None:
    for service in bots().values():
        assert set(service["environment"]) <= known_variables()
        assert service["env_file"] == ".env"


def test_bots_wait_for_a_healthy_database_restart_and_check_their_health() -> None:
    document = compose()
    database = document["services"]["postgres"]
    assert "healthcheck" in database and database["volumes"]
    for service in bots().values():
        assert service["depends_on"] == {"postgres": {"condition": "service_healthy"}}
        assert service["restart"] == "unless-stopped"
        assert service["healthcheck"]["test"] == HEALTHCHECK
        assert service["environment"]["HEALTH_FILE"]
        assert service["environment"]["DATABASE_URL"].startswith("postgresql://")
        for volume in service["volumes"]:
            assert volume.split(":")[0] in document["volumes"]


def test_the_health_check_answers_only_what_docker_reads(tmp_path: Path) -> None:
    """Docker reads 0 as healthy, 1 as unhealthy and reserves every other code; ``health`` exits 2 for an unusable
    ``HEALTH_FILE`` (one line for an admin at a shell), which the service's check must turn into 1."""
    kind, command = HEALTHCHECK
    assert kind == "CMD-SHELL"
    clean = {key: value for key, value in os.environ.items() if key != "HEALTH_FILE"}
    path = tmp_path / "dicebot.health"
    python = str(Path(sys.executable).parent)
    shell = {**clean, "PATH": os.pathsep.join((python, clean.get("PATH", "")))}
    codes = []
    for environment in ({}, {"HEALTH_FILE": str(tmp_path)}, {"HEALTH_FILE": str(path)}):
        codes.append(subprocess.run(["sh", "-c", command], env={**shell, **environment}, cwd=tmp_path).returncode)
    path.touch()
    codes.append(subprocess.run(["sh", "-c", command], env={**shell, "HEALTH_FILE": str(path)}).returncode)
    assert codes == [1, 1, 1, 0]


def test_the_tables_volume_is_where_the_bots_keep_their_files() -> None:
    """With PostgreSQL there is no SQLite file to keep the strategy tables beside: DATA_DIR must name the volume."""
    for service in bots().values():
        mounts = dict(volume.split(":")[::-1] for volume in service["volumes"])
        assert mounts[service["environment"]["DATA_DIR"]] == "tables"


def test_the_env_example_lists_the_sharding_settings() -> None:
    example = (COMPOSE.parent / ".env.example").read_text()
    for name in ("SHARD_COUNT=", "SHARD_IDS=", "HEALTH_FILE="):
        assert f"\n{name}" in example


def image_environment() -> dict[str, str]:
    """The variables the Dockerfile's ``ENV`` sets (``NAME=value`` pairs, continued lines included)."""
    text = (COMPOSE.parent / "Dockerfile").read_text().replace("\\\n", " ")
    pairs = [word for line in text.splitlines() if line.startswith("ENV ") for word in line.split()[1:]]
    return dict(pair.split("=", 1) for pair in pairs)


def test_the_env_example_overrides_nothing_the_image_sets() -> None:
    """``docker run --env-file .env`` (and compose's ``env_file``) beat the image's ``ENV``: an example that sets
    ``DATABASE_URL`` or ``REQUIRE_TOKEN`` moves the database off the volume and turns a missing token into a
    playground nobody can reach. Those lines stay commented out, so following docs/deploy.md keeps the image's.
    ``DATA_DIR`` is the image's too: with a PostgreSQL ``DATABASE_URL`` its default, ``data`` in ``/app``, was not
    the bot's to write (QA)."""
    example = dotenv_values(COMPOSE.parent / ".env.example")
    image = image_environment()
    assert {"DATABASE_URL", "DATA_DIR", "REQUIRE_TOKEN"} <= set(image)
    assert image["DATA_DIR"] == "/data"
    assert not set(example) & set(image)


def test_the_build_context_holds_what_the_image_copies_and_no_secret() -> None:
    """No .dockerignore: ``docker build .`` sent the virtualenv, .git and .env with the token to the builder (QA)."""
    ignore = (COMPOSE.parent / ".dockerignore").read_text().splitlines()
    kept = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    dockerfile = (COMPOSE.parent / "Dockerfile").read_text().splitlines()
    copied = {word.rstrip("/") for line in dockerfile if line.startswith("COPY ") for word in line.split()[1:-1]}
    assert "*" in ignore  # everything left out first, then what the image copies let back in
    assert kept == copied
