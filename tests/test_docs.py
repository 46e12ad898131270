"""The documentation site builds with no broken link or missing page (``mkdocs build --strict``), with the
reference pages generated from the sources (every .proto file, the error table, the CLI, the rules
versions, the OpenAPI document)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_documentation_site_builds_strictly_with_its_generated_reference(tmp_path: Path) -> None:
    site = tmp_path / "site"
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    game_service = (site / "reference/api/game_service/index.html").read_text(encoding="utf-8")
    assert "SubmitCommand" in game_service and "expected_version" in game_service
    assert "game/rules_unavailable" in (site / "reference/errors/index.html").read_text(encoding="utf-8")
    assert "libertalia/1" in (site / "reference/rules/index.html").read_text(encoding="utf-8")
    assert "parlour serve" in (site / "reference/cli/index.html").read_text(encoding="utf-8")
    assert (site / "reference/openapi/swagger-ui-bundle.js").stat().st_size > 100_000
    assert '"openapi": "3.1' in (site / "reference/openapi/openapi.json").read_text(encoding="utf-8")
