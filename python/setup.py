"""Builds the package with gRPC stubs generated from hptune's .proto files.

The stubs (hptune/v1/*_pb2.py, *_pb2_grpc.py, *.pyi) are never edited or
committed: build_py runs protoc with the grpc_python_plugin (Debian:
protobuf-compiler and protobuf-compiler-grpc) on the first directory that
holds hptune/v1/study.proto of: $HPTUNE_PROTO_DIR, ../proto (a source
tree), the proto directory `cmake --install` puts under
<prefix>/share/hptune/proto (/usr/local, /usr).
"""

import glob
import os
import shutil
import subprocess

from setuptools import setup
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


class BuildPyWithStubs(build_py):
    """build_py, then the stubs into the build directory."""

    def run(self) -> None:
        super().run()
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


setup(cmdclass={"build_py": BuildPyWithStubs})
