"""The processes the tests start (``python -m bot`` and friends) run this tree's code.

They run in a test's own folder, where Python finds the packages through the environment's install, which can
be another checkout of the project (an editable install of the main working tree, while a branch is tested):
the children then ran that tree's code, failing or passing for changes that are not the ones under test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "cogs", "fakediscord")


def test_a_child_python_imports_the_packages_of_this_tree(tmp_path: Path) -> None:
    where = f"import {', '.join(PACKAGES)}; print({', '.join(f'{name}.__file__' for name in PACKAGES)})"
    checked = subprocess.run([sys.executable, "-c", where], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert [Path(path) for path in checked.stdout.split()] == [ROOT / name / "__init__.py" for name in PACKAGES]
