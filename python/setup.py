"""Builds the package with gRPC stubs generated from hptune's .proto files.

The stubs (hptune/v1/*_pb2.py, *_pb2_grpc.py, *.pyi) are never edited or
committed: build_py runs protoc with the grpc_python_plugin (Debian:
protobuf-compiler and protobuf-compiler-grpc) on the first directory that
holds hptune/v1/study.proto of: $HPTUNE_PROTO_DIR, ../proto (a source
tree), the proto directory `cmake --install` puts under
<prefix>/share/hptune/proto (/usr/local, /usr).

The engine that Client.local and hptune.optuna start goes into the package
as hptune/bin/hptune when the build finds one: $HPTUNE_BINARY, else the
source tree's build/src/cli/hptune. The wheel is then platform-specific.
Without one the package finds the engine at run time ($HPTUNE_BINARY, PATH;
hptune/local.py), and says so when it cannot.
"""

import glob
import os
import shutil
import subprocess

from typing import Optional

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def _proto_dir() -> str:
    candidates = [os.environ.get("HPTUNE_PROTO_DIR"),
                  os.path.join(HERE, os.pardir, "proto"),
                  "/usr/local/share/hptune/proto", "/usr/share/hptune/proto"]
    for candidate in candidates:
        if candidate and os.path.isfile(
                os.path.join(candidate, "hptune", "v1", "study.proto")):
            return os.path.abspath(candidate)
    raise SystemExit("hptune: no hptune/v1/*.proto found; set "
                     "HPTUNE_PROTO_DIR to hptune's proto directory")


def _tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"hptune: {name} is not on PATH (Debian: {package})")
    return path


def _engine_binary() -> Optional[str]:
    explicit = os.environ.get("HPTUNE_BINARY")
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise SystemExit(f"hptune: HPTUNE_BINARY={explicit!r} is not an "
                             "executable file")
        return explicit
    built = os.path.join(HERE, os.pardir, "build", "src", "cli", "hptune")
    return built if os.access(built, os.X_OK) else None


class WithEngine(Distribution):
    """A distribution that carries the native engine: a platform wheel."""

    def has_ext_modules(self) -> bool:
        return _engine_binary() is not None


class BuildPyWithStubs(build_py):
    """build_py, then the stubs and the engine into the build directory."""

    def run(self) -> None:
        super().run()
        self._copy_engine()
        proto_dir = _proto_dir()
        protos = sorted(
            os.path.relpath(p, proto_dir)
            for p in glob.glob(os.path.join(proto_dir, "hptune", "v1",
                                            "*.proto")))
        out = self.build_lib
        subprocess.run(
            [_tool("protoc", "protobuf-compiler"), f"-I{proto_dir}",
             f"--python_out={out}", f"--pyi_out={out}",
             f"--grpc_python_out={out}",
             "--plugin=protoc-gen-grpc_python=" +
             _tool("grpc_python_plugin", "protobuf-compiler-grpc")] + protos,
            check=True)
        with open(os.path.join(out, "hptune", "v1", "__init__.py"), "w") as f:
            f.write('"""Generated from hptune\'s proto/hptune/v1."""\n')

    def _copy_engine(self) -> None:
        binary = _engine_binary()
        if binary is None:
            print("hptune: no engine binary to bundle (set HPTUNE_BINARY); "
                  "Client.local will look in $HPTUNE_BINARY and PATH")
            return
        target = os.path.join(self.build_lib, "hptune", "bin", "hptune")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(binary, target)
        os.chmod(target, 0o755)


setup(cmdclass={"build_py": BuildPyWithStubs}, distclass=WithEngine)
