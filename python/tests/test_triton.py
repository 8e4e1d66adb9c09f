"""from_triton on the recorded Triton cache (tests/data/triton/cache, made by scripts/gen-triton-cache).

Without the triton package, Triton's compile step is replaced by what it returns: an object with
.hash, .name and .asm, which from_triton takes as already compiled; the cache lookup (by the hash
in NAME.json) and the opening of the entry are the package's own code either way.
"""

from __future__ import annotations

import importlib.util
import json
from types import SimpleNamespace

import pytest

import lowerscope as ls
from lowerscope import triton as ls_triton
from conftest import TRITON_CACHE


def _entries():
    if not TRITON_CACHE.is_dir():
        return []
    out = []
    for d in sorted(TRITON_CACHE.iterdir()):
        for meta in d.glob("*.json"):
            out.append((d, meta.stem, json.loads(meta.read_text())["hash"]))
    return out


ENTRIES = _entries()
pytestmark = pytest.mark.skipif(not ENTRIES, reason="no recorded Triton cache in tests/data/triton/cache")


def _compiled(name, kernel_hash):
    return SimpleNamespace(hash=kernel_hash, name=name, asm={}, metadata=SimpleNamespace(name=name))


@pytest.mark.parametrize("folder,name,kernel_hash", ENTRIES, ids=[e[1] for e in ENTRIES])
def test_find_cache_entry(folder, name, kernel_hash):
    assert ls_triton.find_cache_entry(kernel_hash, name, str(TRITON_CACHE)) == str(folder)
    with pytest.raises(ls.UsageError, match="no entry of Triton kernel"):
        ls_triton.find_cache_entry("0" * 64, name, str(TRITON_CACHE))


@pytest.mark.parametrize("folder,name,kernel_hash", ENTRIES, ids=[e[1] for e in ENTRIES])
def test_from_triton_opens_the_entry(folder, name, kernel_hash, toolchain, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(TRITON_CACHE))
    if importlib.util.find_spec("triton") is None:
        assert ls_triton.cache_dir() == str(TRITON_CACHE)
    b = ls.from_triton(_compiled(name, kernel_hash))
    assert isinstance(b, ls.Build) and b.ok
    assert [k.name for k in b.kernels] == [name]
    assert b.kernels[0].resources.registers > 0
    assert b.arch == "sm_90"  # the entry's target
    i = ls.from_triton(_compiled(name, kernel_hash), inspect=True)
    k = i.kernel(name)
    assert "EXIT" in {i.opcode for i in k.instructions}
    # Triton's line info names its Python file.
    assert any(i.source and i.source.file.endswith("kernels.py") for i in k.instructions)


def test_from_triton_needs_triton_to_compile():
    if importlib.util.find_spec("triton") is not None:
        pytest.skip("triton is installed: nothing to refuse")

    def plain_function():
        pass

    with pytest.raises(ls.NotAvailable, match="needs the triton package"):
        ls.from_triton(plain_function)
