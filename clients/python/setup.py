"""Building ``parlour-client`` generates its ``parlour.v1`` modules from the .proto files, so a wheel
built from a clean checkout (or from the sdist) works alone with grpcio and protobuf.

The metadata is in ``pyproject.toml``; this file only adds the generation step:

- ``sdist`` copies ``proto/parlour/v1/*.proto`` and the vendored ``google/api`` protos into the archive
  (under ``proto/``), so the sdist builds without the repository around it;
- ``build_py`` runs ``grpc_tools.protoc`` (a build requirement, pinned in ``pyproject.toml``) on them,
  writing the modules, their ``.pyi`` stubs and ``descriptors.binpb`` (the files with their comments)
  into the build, never into the source tree. Editable installs leave generation to ``make proto``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
#: Where the protos are: inside an unpacked sdist, or in the repository this directory belongs to.
BUNDLED = (HERE / "proto", HERE / "proto")
REPOSITORY = (HERE.parent.parent / "proto", HERE.parent.parent / "third_party" / "googleapis")


def _sources() -> tuple[Path, Path]:
    """The include roots of Parlour's protos and of the google/api protos."""
    for ours, google in (BUNDLED, REPOSITORY):
        if (ours / "parlour" / "v1").is_dir() and (google / "google" / "api").is_dir():
            return ours, google
    raise SystemExit("parlour-client: no .proto files found (expected proto/ in the sdist or the repository)")


def _generate(out: Path) -> None:
    from grpc_tools import protoc

    ours, google = _sources()
    target = out / "parlour" / "v1"
    target.mkdir(parents=True, exist_ok=True)
    protos = sorted(str(p.relative_to(ours)) for p in (ours / "parlour" / "v1").glob("*.proto"))
    builtin = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto shipped with grpcio-tools
    args = ["protoc", f"-I{ours}", f"-I{google}", f"-I{builtin}", "--include_source_info"]
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}"]
    args += [f"--descriptor_set_out={target / 'descriptors.binpb'}", *protos]
    if protoc.main(args) != 0:
        raise SystemExit("parlour-client: generating the protobuf code failed (see protoc's message above)")
    (target / "__init__.py").touch()


class BuildWithProtos(build_py):
    """``build_py`` plus the generated ``parlour.v1`` package."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            _generate(Path(self.build_lib))


class SdistWithProtos(sdist):
    """An sdist that carries the .proto files it is built from."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        ours, google = _sources()
        release = Path(base_dir) / "proto"
        shutil.copytree(ours / "parlour", release / "parlour", dirs_exist_ok=True)
        shutil.copytree(google / "google", release / "google", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithProtos, "sdist": SdistWithProtos})
