"""Triton kernels: compile through Triton, then open the cache entry Triton wrote.

    k = lowerscope.from_triton(add_kernel, target="sm_90",
                               signature={"x": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                               constexprs={"BLOCK": 128})
    k.kernels[0].sass

With `signature` (or `target`) the kernel is compiled by triton.compile for that target, with no
GPU needed; otherwise `jit_fn.warmup(*args, grid=...)` compiles it for the current GPU from real
arguments (tensors). An already compiled kernel (triton.compile's result) is opened as it is.
"""

from __future__ import annotations

import json
import os

from ._errors import NotAvailable, UsageError


def cache_dir() -> str:
    """Where Triton keeps its cache: $TRITON_CACHE_DIR, else ~/.triton/cache."""
    try:
        from triton import knobs  # Triton >= 3.3
        d = knobs.cache.dir
        if d:
            return d
    except Exception:
        pass
    return os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache")


def find_cache_entry(kernel_hash: str, name: str, root: str = "") -> str:
    """The cache folder whose NAME.json records `kernel_hash`."""
    root = root or cache_dir()
    try:
        entries = sorted(os.listdir(root))
    except OSError as e:
        raise UsageError(f"Triton cache {root} cannot be read: {e}") from None
    for entry in entries:
        meta = os.path.join(root, entry, name + ".json")
        try:
            with open(meta, "rb") as f:
                if json.loads(f.read(1 << 20)).get("hash") == kernel_hash:
                    return os.path.join(root, entry)
        except (OSError, ValueError, AttributeError):
            continue
    raise UsageError(f"no entry of Triton kernel {name} (hash {kernel_hash}) in the cache {root}")


def _target(target):
    from triton.backends.compiler import GPUTarget
    if isinstance(target, str):
        t = target.lower().removeprefix("sm_").rstrip("af")
        if not t.isdigit():
            raise UsageError(f"target '{target}' is not sm_XX")
        return GPUTarget("cuda", int(t), 32)
    return target


def compile_triton(kernel, *args, target=None, signature=None, constexprs=None, grid=(1,), **kwargs):
    """Compiles through Triton; returns Triton's compiled kernel."""
    if hasattr(kernel, "asm") and hasattr(kernel, "hash"):
        return kernel  # already compiled
    try:
        import triton
    except ImportError:
        raise NotAvailable("from_triton needs the triton package (pip install triton)", kind="not_available") from None
    if signature is not None or target is not None:
        if signature is None:
            raise UsageError("compiling for a target needs the signature, e.g. {'x': '*fp32', 'n': 'i32'}")
        src = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs or {})
        return triton.compile(src, target=_target(target or "sm_90"), options=kwargs or None)
    return kernel.warmup(*args, grid=grid, **kwargs)


def from_triton(kernel, *args, target=None, signature=None, constexprs=None, grid=(1,), inspect=False, **kwargs):
    """Compiles `kernel` through Triton and opens the cache entry it produced with lowerscope.build
    (or lowerscope.inspect with inspect=True)."""
    import lowerscope
    compiled = compile_triton(kernel, *args, target=target, signature=signature, constexprs=constexprs, grid=grid,
                              **kwargs)
    name = getattr(compiled, "name", None) or compiled.metadata.name
    folder = find_cache_entry(compiled.hash, name)
    return lowerscope.inspect(folder) if inspect else lowerscope.build(folder)
