"""Building ``parlour-protocol`` generates its ``parlour.v1`` modules from the .proto files, so a wheel
built from a clean checkout (or from the sdist) works alone with grpcio and protobuf.

The metadata is in ``pyproject.toml``; this file only adds the generation step:

- ``sdist`` copies the vendored ``google/api`` protos into the archive (``parlour/v1/*.proto`` are
  package data and travel anyway), so the sdist builds without the repository around it;
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
#: Where the google/api protos are: inside an unpacked sdist, or vendored in the repository.
GOOGLE_ROOTS = (HERE, HERE.parent / "third_party" / "googleapis")


def _google_root() -> Path:
    """The include root of the google/api protos that Parlour's protos import."""
    for root in GOOGLE_ROOTS:
        if (root / "google" / "api" / "annotations.proto").is_file():
            return root
    raise SystemExit("parlour-protocol: google/api/*.proto not found (expected in the sdist or third_party/)")


def _generate(out: Path) -> None:
    """Write the ``parlour.v1`` modules, stubs and descriptor set generated from ``parlour/v1/*.proto``
    into the package tree under ``out``."""
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(HERE)) for p in (HERE / "parlour" / "v1").glob("*.proto"))
    if not protos:
        raise SystemExit("parlour-protocol: no .proto files found in parlour/v1")
    target = out / "parlour" / "v1"
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*_pb2*.py*"):  # copied from a source tree that had `make proto` run in it
        stale.unlink()
    builtin = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto shipped with grpcio-tools
    args = ["protoc", f"-I{HERE}", f"-I{_google_root()}", f"-I{builtin}", "--include_source_info"]
    args += [f"--python_out={out}", f"--pyi_out={out}", f"--grpc_python_out={out}"]
    args += [f"--descriptor_set_out={target / 'descriptors.binpb'}", *protos]
    if protoc.main(args) != 0:
        raise SystemExit("parlour-protocol: generating the protobuf code failed (see protoc's message above)")
    (target / "__init__.py").touch()
    (target / "py.typed").touch()


class BuildWithProtos(build_py):
    """``build_py`` plus the generated ``parlour.v1`` modules."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            _generate(Path(self.build_lib))


class SdistWithProtos(sdist):
    """An sdist that carries the google/api .proto files Parlour's protos import."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        release = Path(base_dir) / "google" / "api"
        release.mkdir(parents=True, exist_ok=True)
        for proto in (_google_root() / "google" / "api").glob("*.proto"):
            shutil.copy2(proto, release / proto.name)


setup(cmdclass={"build_py": BuildWithProtos, "sdist": SdistWithProtos})
