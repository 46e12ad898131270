"""The one recipe for the code generated from ``parlour/v1/*.proto``, used both by ``make proto`` (in place,
beside the .proto files, for the editable install) and by ``setup.py`` (into the build of a wheel), so an
editable install and a built wheel hold the same files:

- ``*_pb2.py`` and ``*_pb2_grpc.py`` (protoc's Python and gRPC generators, from grpcio-tools);
- ``*_pb2.pyi`` and ``*_pb2_grpc.pyi`` (mypy-protobuf's stubs: typed enum values, typed gRPC stubs and
  servicers, which protoc's own ``--pyi_out`` does not write, so a type checker sees the same types in an
  installed wheel as in this repository's strict mypy run);
- ``descriptors.binpb`` (every file compiled with its comments), ``__init__.py`` and ``py.typed``.

Run it as ``python codegen.py OUT`` (OUT: the folder that holds ``parlour/v1``); it needs grpcio-tools and
mypy-protobuf in the running interpreter (development dependencies, and build requirements of the wheel).
"""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: Where the google/api protos are: inside an unpacked sdist, or vendored in the repository.
GOOGLE_ROOTS = (HERE, HERE.parent / "third_party" / "googleapis")
#: mypy-protobuf's two protoc plugins, by the name protoc knows them under, and their entry points.
_PLUGINS = {"mypy": "main", "mypy_grpc": "grpc"}


def google_root() -> Path:
    """The include root of the google/api protos that Parlour's protos import."""
    for root in GOOGLE_ROOTS:
        if (root / "google" / "api" / "annotations.proto").is_file():
            return root
    raise SystemExit("parlour-protocol: google/api/*.proto not found (expected in the sdist or third_party/)")


def _plugin(folder: Path, name: str) -> Path:
    """An executable protoc can run as ``protoc-gen-<name>``: mypy-protobuf's entry point on this very
    interpreter (so it works in an isolated build environment, whose scripts need not be on PATH)."""
    path = folder / f"protoc-gen-{name}"
    code = f"import sys; from mypy_protobuf.main import {_PLUGINS[name]}; sys.exit({_PLUGINS[name]}())"
    path.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c {shlex.quote(code)}\n")
    path.chmod(0o755)
    return path


def generate(out: Path) -> None:
    """Write the ``parlour.v1`` modules, stubs and descriptor set generated from ``parlour/v1/*.proto`` into
    ``out/parlour/v1``, after removing whatever else is there (a previous generation) but the .proto files."""
    import mypy_protobuf.main  # noqa: F401  (fails here, clearly, when the stub generator is missing)
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(HERE)) for p in (HERE / "parlour" / "v1").glob("*.proto"))
    if not protos:
        raise SystemExit("parlour-protocol: no .proto files found in parlour/v1")
    target = out / "parlour" / "v1"
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.iterdir():
        if stale.is_dir():
            shutil.rmtree(stale)
        elif stale.suffix != ".proto":
            stale.unlink()
    builtin = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto shipped with grpcio-tools
    with tempfile.TemporaryDirectory() as plugins:
        args = ["protoc", f"-I{HERE}", f"-I{google_root()}", f"-I{builtin}", "--include_source_info"]
        args += [f"--plugin=protoc-gen-{name}={_plugin(Path(plugins), name)}" for name in _PLUGINS]
        args += [f"--python_out={out}", f"--grpc_python_out={out}", f"--mypy_out={out}", f"--mypy_grpc_out={out}"]
        args += [f"--descriptor_set_out={target / 'descriptors.binpb'}", *protos]
        if protoc.main(args) != 0:
            raise SystemExit("parlour-protocol: generating the protobuf code failed (see protoc's message above)")
    (target / "__init__.py").touch()
    (target / "py.typed").touch()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: {sys.argv[0]} OUT  (the folder that holds parlour/v1)")
    generate(Path(sys.argv[1]).resolve())
