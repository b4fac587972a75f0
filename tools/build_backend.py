"""The PEP 517 build backend of vmaplab: setuptools (which runs setup.py, which runs CMake),
plus CMake and Ninja from PyPI as build requirements when the machine has no usable ones,
so `pip install -e .` works on a machine with only a C++ compiler."""
import re
import shutil
import subprocess

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F401,F403

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
