"""Building ``parlour-protocol`` generates its ``parlour.v1`` modules from the .proto files, so a wheel
built from a clean checkout (or from the sdist) works alone with grpcio and protobuf.

The metadata is in ``pyproject.toml``; this file only adds the generation step:

- ``sdist`` copies the vendored ``google/api`` protos and ``codegen.py`` into the archive
  (``parlour/v1/*.proto`` are package data and travel anyway), so the sdist builds without the repository
  around it;
- ``build_py`` runs ``codegen.py`` (the same recipe as ``make proto``: grpcio-tools and mypy-protobuf,
  build requirements pinned in ``pyproject.toml``) on them, writing the modules, their ``.pyi`` stubs and
  ``descriptors.binpb`` (the files with their comments) into the build, never into the source tree.
  Editable installs leave generation to ``make proto``, which runs the same recipe in place.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # codegen.py, beside this file (in the repository and in the sdist)

from codegen import generate, google_root  # noqa: E402


class BuildWithProtos(build_py):
    """``build_py`` plus the generated ``parlour.v1`` modules."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            generate(Path(self.build_lib))


class SdistWithProtos(sdist):
    """An sdist that carries the google/api .proto files Parlour's protos import, and the recipe that
    generates the code from them."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        shutil.copy2(HERE / "codegen.py", Path(base_dir) / "codegen.py")
        release = Path(base_dir) / "google" / "api"
        release.mkdir(parents=True, exist_ok=True)
        for proto in (google_root() / "google" / "api").glob("*.proto"):
            shutil.copy2(proto, release / proto.name)


setup(cmdclass={"build_py": BuildWithProtos, "sdist": SdistWithProtos})
