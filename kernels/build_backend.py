"""The PEP 517 build backend of vmaplab: setuptools, whose build_ext step runs CMake on
CMakeLists.txt (the C++ kernels, built against the XLA FFI headers of the installed jaxlib),
plus CMake and Ninja from PyPI as build requirements when the machine has no usable ones,
so `pip install -e .` works on a machine with only a C++ compiler.

pyproject.toml names this module as the backend (backend-path = ["kernels"]), declares the
kernel library as the one extension module and ``BuildWithCMake`` as its build_ext command.
In an editable install setuptools copies the library next to the sources, into
lowering/runtime/, where lowering/runtime/native.py looks for it.
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F401,F403
from setuptools.command.build_ext import build_ext

CMAKE_MIN = (3, 18)


def _cmake_ok() -> bool:
    exe = shutil.which("cmake")
    if exe is None:
        return False
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return False
    m = re.search(r"(\d+)\.(\d+)", out)
    return bool(m) and (int(m.group(1)), int(m.group(2))) >= CMAKE_MIN


def _extra() -> list:
    extra = [] if _cmake_ok() else ["cmake>=3.18"]
    if not (shutil.which("ninja") or shutil.which("make")):
        extra.append("ninja")
    return extra


def get_requires_for_build_wheel(config_settings=None):
    return _orig.get_requires_for_build_wheel(config_settings) + _extra()


def get_requires_for_build_editable(config_settings=None):
    return _orig.get_requires_for_build_editable(config_settings) + _extra()


# ----------------------------------------------------------------------------- build_ext

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY = {"win32": "vmaplab_kernels.dll", "darwin": "libvmaplab_kernels.dylib"}.get(
    sys.platform, "libvmaplab_kernels.so")


class BuildWithCMake(build_ext):
    def get_ext_filename(self, fullname):
        # the name CMake gives the library, in the extension's package directory
        return os.path.join(*fullname.split(".")[:-1], LIBRARY)

    def build_extension(self, ext):
        out_dir = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        build_dir = os.path.join(os.path.abspath(self.build_temp), "cmake")
        import jax.ffi  # the build requirements (pyproject.toml) bring jax

        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                     f"-DPython3_EXECUTABLE={sys.executable}",
                     f"-DXLA_FFI_INCLUDE_DIR={jax.ffi.include_dir()}",
                     f"-DVMAPLAB_KERNELS_OUTPUT_DIR={out_dir}"]
        generator = os.environ.get("CMAKE_GENERATOR")
        if not generator and shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build_dir, "--config", "Release", "--parallel"],
                       check=True)
