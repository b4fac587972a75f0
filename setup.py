"""Builds vmaplab's C++ kernels (CMakeLists.txt) as part of `pip install` / `pip install -e .`.

The project metadata is in pyproject.toml; this file only adds one build step: CMake builds
the kernel library into the package directory lowering/runtime/ (in an editable install,
setuptools copies it next to the sources, where lowering/runtime/native.py looks for it).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
LIBRARY = {"win32": "vmaplab_kernels.dll", "darwin": "libvmaplab_kernels.dylib"}.get(
    sys.platform, "libvmaplab_kernels.so")


class CMakeLibrary(Extension):
    """The kernel library: built by CMake, not by setuptools' compiler."""

    def __init__(self):
        super().__init__("lowering.runtime.vmaplab_kernels", sources=[])


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


setup(ext_modules=[CMakeLibrary()], cmdclass={"build_ext": BuildWithCMake})
