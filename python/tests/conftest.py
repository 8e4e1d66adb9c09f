"""Fixtures of the lowerscope package's test suite.

Run against a build folder (CTest's python_pytest does this):
    PYTHONPATH=BUILD/python python3 -m pytest -q python/tests
or against an installed package (`pip install ./python`). The environment may name:
    LOWERSCOPE_CLI        the lowerscope-cli of the same build, for the CLI-equivalence tests
    LOWERSCOPE_FAKE_GPU   the fake libcuda/CUPTI (tests/core/run_fakes), for the fake-GPU runs
    LOWERSCOPE_TOOLS_DIR  a folder with nvdisasm/cuobjdump (default: the checkout's .tools/bin)
Tests that need what is missing (nvcc, nvdisasm, the CLI, the fake GPU) skip, saying which.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(os.environ.get("LOWERSCOPE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SAXPY = REPO / "kernels" / "saxpy.cu"
TRITON_CACHE = REPO / "tests" / "data" / "triton" / "cache"

# Before lowerscope is imported (the core reads these when it runs, but be safe): the checkout's
# tool folder (scripts/bootstrap puts nvdisasm and cuobjdump there; the Python module, like an
# installed program, does not look in build-folder paths by itself) and a build cache of our own,
# so that a run neither reads nor fills the user's cache.
if not os.environ.get("LOWERSCOPE_TOOLS_DIR") and (REPO / ".tools" / "bin").is_dir():
    os.environ["LOWERSCOPE_TOOLS_DIR"] = str(REPO / ".tools" / "bin")
_CACHE = tempfile.TemporaryDirectory(prefix="lowerscope-pytest-cache-")
os.environ["LOWERSCOPE_CACHE_DIR"] = _CACHE.name

import lowerscope as ls  # noqa: E402  (an import failure is a failure, not a skip)


def _tool_found(doc: dict, name: str) -> bool:
    t = doc.get("toolchain", {}).get(name) or {}
    return bool(t.get("path"))


@pytest.fixture(scope="session")
def doctor() -> dict:
    return ls.doctor()


@pytest.fixture(scope="session")
def toolchain(doctor):
    """Skips unless nvcc, ptxas and nvdisasm are found (what a build to SASS needs)."""
    missing = [t for t in ("nvcc", "ptxas", "nvdisasm") if not _tool_found(doctor, t)]
    if missing:
        pytest.skip("no " + ", ".join(missing) + " (the CUDA toolkit; scripts/bootstrap puts nvdisasm in .tools/)")
    return doctor


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("LOWERSCOPE_CLI", "")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("LOWERSCOPE_CLI does not name the build's lowerscope-cli")
    return path


@pytest.fixture(scope="session")
def fake_gpu() -> str:
    path = os.environ.get("LOWERSCOPE_FAKE_GPU", "")
    if not path or not os.path.isfile(path):
        pytest.skip("LOWERSCOPE_FAKE_GPU does not name the fake libcuda (target lowerscope_fake_gpu)")
    return path


@pytest.fixture
def on_fake_gpu(fake_gpu, monkeypatch):
    """The runner (a child process: it inherits os.environ) loads the fake GPU."""
    monkeypatch.setenv("LOWERSCOPE_LIBCUDA", fake_gpu)
    monkeypatch.setenv("LOWERSCOPE_LIBCUPTI", fake_gpu)
    monkeypatch.delenv("LOWERSCOPE_RUNNER", raising=False)
    return fake_gpu


def run_cli(cli: str, *args: str, env=None) -> subprocess.CompletedProcess:
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([cli, *args], capture_output=True, text=True, env=e, timeout=300)


def cli_json(cli: str, *args: str, env=None) -> dict:
    p = run_cli(cli, *args, "--json", "-", env=env)
    assert p.returncode == 0, f"lowerscope-cli {' '.join(args)} failed ({p.returncode}): {p.stderr}"
    return json.loads(p.stdout)
