"""Lowerscope from Python: build, inspect, time, profile and compare CUDA kernels.

    import lowerscope as ls
    b = ls.build("kernels/saxpy.cu", arch="sm_90")          # Build: kernels, resources, PTX, SASS
    i = ls.inspect("kernels/saxpy.cu")                       # Inspection: instructions, lines, deps
    m = ls.run("kernels/saxpy.cu", args={"n": "1<<20"})      # Measurement (needs a GPU)
    c = ls.compare("kernels/fast_math.cu", b={"fast_math": True})

Every function wraps the core's C++ API (the same calls as lowerscope-cli) and returns a typed
result whose ``to_json()`` is the CLI's document; errors are exceptions carrying the CLI's message
(lowerscope.LowerscopeError and its subclasses). Results render as HTML in a notebook.

Build options are keywords named like the JSON keys of the build document's "options"
(arch, host_opt, ptxas_opt, lineinfo, device_debug, fast_math, ftz, prec_div, prec_sqrt, fmad,
max_reg_count, extra_device_vectorization, std, defines, include_dirs, extra_nvcc_flags,
extra_ptxas_flags); ``defines`` may be a dict.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Dict, Iterable, List, Optional, Sequence, Union

from . import _native
from ._errors import (BuildError, CompileError, LowerscopeError, NotAvailable, ProfileError, RunError,
                      TimingRefused, ToolError, UsageError, raise_from_answer)
from ._results import (Build, BuiltKernel, ControlCode, Dependency, Document, Guards, Inspection, Instruction,
                       Kernel, Launch, Line, Measurement, Profile, Resources, Series, document_result)

__version__ = _native.version
__all__ = [
    "build", "inspect", "run", "compare", "profile", "series", "doctor", "load", "open_capture", "from_triton",
    "Build", "BuiltKernel", "Inspection", "Kernel", "Instruction", "ControlCode", "Dependency", "Line", "Resources",
    "Measurement", "Launch", "Guards", "Profile", "Series", "Document",
    "LowerscopeError", "UsageError", "ToolError", "BuildError", "CompileError", "RunError", "ProfileError",
    "TimingRefused", "NotAvailable",
]

_OPTION_KEYS = set(json.loads(_native.default_options()).keys())


def _options(arch: Optional[str], options: dict) -> str:
    o = json.loads(_native.default_options())
    if arch is not None:
        o["arch"] = arch
    for k, v in options.items():
        if k not in _OPTION_KEYS:
            raise UsageError("unknown build option '%s' (options: %s)" % (k, ", ".join(sorted(_OPTION_KEYS))))
        if k == "defines" and isinstance(v, dict):
            v = [f"{n}={x}" if x is not None else str(n) for n, x in v.items()]
        elif k in ("defines", "include_dirs", "extra_nvcc_flags", "extra_ptxas_flags") and isinstance(v, str):
            v = [v]
        o[k] = v
    return json.dumps(o)


def _answer(text: str) -> dict:
    a = json.loads(text)
    if not a.get("ok"):
        raise_from_answer(a.get("error", {}))
    return a


def _tools_dir() -> str:
    return os.environ.get("LOWERSCOPE_TOOLS_DIR", "")


def runner_command(runner: Union[None, str, Sequence[str]] = None) -> List[str]:
    """The command that starts lowerscope-runner: `runner` (a list of words or one path), else
    $LOWERSCOPE_RUNNER (left to the core, which splits it like the CLI), else the runner shipped in
    this package, else lowerscope-runner on PATH."""
    if runner is not None:
        return [runner] if isinstance(runner, str) else list(runner)
    if os.environ.get("LOWERSCOPE_RUNNER"):
        return []
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "lowerscope-runner")
    if os.access(here, os.X_OK):
        return [here]
    found = shutil.which("lowerscope-runner")
    if found:
        return [found]
    raise ToolError("lowerscope-runner not found: not in this package, not on PATH and $LOWERSCOPE_RUNNER is not set")


def doctor() -> dict:
    """The toolchain as `lowerscope-cli doctor --json` reports it, with "problems"."""
    a = _answer(_native.doctor(_tools_dir()))
    doc = a["document"]
    doc["problems"] = a.get("problems", [])
    return doc


def build(path: Union[str, os.PathLike], arch: Optional[str] = None, *, member: str = "", cache: bool = True,
          cache_dir: str = "", timeout_s: float = 120, **options) -> Build:
    """Builds a .cu, .ptx, cubin, fatbin, object, library, program or Triton cache folder
    (`lowerscope-cli build --json`). Raises CompileError, BuildError, ToolError, UsageError."""
    a = _answer(_native.build(os.fspath(path), _options(arch, options), member, cache, cache_dir, float(timeout_s),
                              _tools_dir()))
    return Build(a["document"], a.get("warnings"))


def inspect(path: Union[str, os.PathLike], arch: Optional[str] = None, *, kernel: str = "",
            line: Union[None, int, str] = None, frame: str = "any", member: str = "", cache: bool = True,
            **options) -> Inspection:
    """The lowering model: instructions with control codes, dependencies, CFG, per-line aggregates
    (`lowerscope-cli inspect --json`); with `line`, `line_report` is the CLI's --line text."""
    a = _answer(_native.inspect(os.fspath(path), _options(arch, options), member, kernel,
                                "" if line is None else str(line), frame, cache, _tools_dir()))
    return Inspection(a["document"], a.get("warnings"), a.get("line_report", ""))


def _launch(kernel, grid, block, shared, args, outputs, bytes, flops) -> dict:
    def dims(v):
        if v is None:
            return []
        if isinstance(v, (int, str)):
            return [str(v)]
        return [str(x) for x in v]

    if isinstance(args, dict):
        args = [f"{k}={v}" for k, v in args.items()]
    return {"kernel": kernel or "", "grid": dims(grid), "block": dims(block),
            "shared": "" if shared is None else str(shared), "args": [str(a) for a in (args or [])],
            "outputs": list(outputs or []), "bytes": "" if bytes is None else str(bytes),
            "flops": "" if flops is None else str(flops)}


def _settings(mode, min_samples, min_time_s, max_time_s, max_noise_pct, atol, rtol) -> dict:
    s = {"mode": mode, "atol": atol, "rtol": rtol}
    for k, v in (("min_samples", min_samples), ("min_time_s", min_time_s), ("max_time_s", max_time_s),
                 ("max_noise_pct", max_noise_pct)):
        if v is not None:
            s[k] = v
    return s


def run(path: Union[str, os.PathLike], arch: Optional[str] = None, *, kernel: str = "", grid=None, block=None,
        shared=None, args: Union[None, Dict[str, str], Iterable[str]] = None, outputs=None, bytes=None, flops=None,
        mode: str = "auto", min_samples: Optional[int] = None, min_time_s: Optional[float] = None,
        max_time_s: Optional[float] = None, max_noise_pct: Optional[float] = None, timeout_s: float = 10,
        runner=None, allow_unwritten: bool = False, **options) -> Measurement:
    """Builds the kernel and times it through lowerscope-runner (`lowerscope-cli run --json`). The
    launch comes from the sidecar FILE.json (else a guess from the PTX signature), overridden by
    `grid`, `block`, `shared` and `args` ({"n": "4096"} or ["n=4096"], the CLI's spec language).
    The result's times raise TimingRefused when an output was left unwritten, unless
    `allow_unwritten`. Raises RunError (no GPU, kernel fault, timeout) and the build's errors."""
    req = {"file": os.fspath(path), "options": json.loads(_options(arch, options)),
           "launch": _launch(kernel, grid, block, shared, args, outputs, bytes, flops),
           "settings": _settings(mode, min_samples, min_time_s, max_time_s, max_noise_pct, 1e-5, 1e-4),
           "deadline_s": float(timeout_s), "tools_dir": _tools_dir()}
    a = _answer(_native.run(json.dumps(req), runner_command(runner)))
    return Measurement(a["document"], a.get("warnings"), allow_unwritten=allow_unwritten)


def compare(path: Union[str, os.PathLike], a: Optional[dict] = None, b: Optional[dict] = None, *,
            path_b: Union[None, str, os.PathLike] = None, kernel: str = "", kernel_b: str = "", grid=None,
            block=None, shared=None, args=None, outputs=None, mode: str = "auto", atol: float = 1e-5,
            rtol: float = 1e-4, min_samples: Optional[int] = None, min_time_s: Optional[float] = None,
            max_time_s: Optional[float] = None, max_noise_pct: Optional[float] = None, timeout_s: float = 10,
            runner=None, allow_unwritten: bool = False) -> Measurement:
    """Times A and B interleaved on the same buffers (`lowerscope-cli compare --json`): `a` and `b`
    are build option dicts (e.g. b={"fast_math": True}); `path_b`/`kernel_b` make B another file or
    kernel. B's outputs are compared with A's (the reference run) within atol + rtol·|a|."""
    a = dict(a or {})
    b = dict(b or {})
    req = {"file": os.fspath(path), "options": json.loads(_options(a.pop("arch", None), a)),
           "options_b": json.loads(_options(b.pop("arch", None), b)),
           "file_b": os.fspath(path_b) if path_b else "", "kernel_b": kernel_b,
           "launch": _launch(kernel, grid, block, shared, args, outputs, None, None),
           "settings": _settings(mode, min_samples, min_time_s, max_time_s, max_noise_pct, atol, rtol),
           "deadline_s": float(timeout_s), "tools_dir": _tools_dir()}
    ans = _answer(_native.compare(json.dumps(req), runner_command(runner)))
    return Measurement(ans["document"], ans.get("warnings"), allow_unwritten=allow_unwritten)


def profile(path: Union[str, os.PathLike], arch: Optional[str] = None, *, kernel: str = "", grid=None, block=None,
            shared=None, args=None, collect: str = "kernel,instructions,samples", partial: bool = False,
            timeout_s: float = 60, runner=None, **options) -> Profile:
    """Hardware counters, per-instruction counts and stall samples of one launch
    (`lowerscope-cli profile --json`). Raises ProfileError when a collection fails, unless `partial`."""
    req = {"file": os.fspath(path), "options": json.loads(_options(arch, options)),
           "launch": _launch(kernel, grid, block, shared, args, None, None, None), "collect": collect,
           "partial": partial, "deadline_s": float(timeout_s), "tools_dir": _tools_dir()}
    a = _answer(_native.profile(json.dumps(req), runner_command(runner)))
    return Profile(a["document"], a.get("warnings"), a.get("errors"))


def series(path: Union[str, os.PathLike], vary: str, arch: Optional[str] = None, *, kernel: str = "", grid=None,
           block=None, shared=None, args=None, mode: str = "auto", min_samples: Optional[int] = None,
           min_time_s: Optional[float] = None, max_time_s: Optional[float] = None, timeout_s: float = 10,
           runner=None, **options) -> Series:
    """A parameter series (`lowerscope-cli experiment --vary`): `vary` is the CLI's spec, e.g.
    "-D CHAINS=1,2,4,8", "--maxrregcount=32,64", "--arg n=1024,4096" or "--block=32;64"."""
    req = {"file": os.fspath(path), "vary": vary, "options": json.loads(_options(arch, options)),
           "launch": _launch(kernel, grid, block, shared, args, None, None, None),
           "settings": _settings(mode, min_samples, min_time_s, max_time_s, None, 1e-5, 1e-4),
           "deadline_s": float(timeout_s), "tools_dir": _tools_dir()}
    a = _answer(_native.series(json.dumps(req), runner_command(runner)))
    return Series(a["document"], a.get("warnings"))


def load(path: Union[str, os.PathLike], allow_unwritten: bool = False) -> Document:
    """Reads a document the CLI (or this package's to_json) wrote: measurements go through the
    core's one reader, which checks them; others are typed by their schema."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    doc = json.loads(text)
    if isinstance(doc, dict) and doc.get("schema") in ("lowerscope.run/1", "lowerscope.compare/1"):
        return Measurement(_answer(_native.read_measurement(text))["document"], allow_unwritten=allow_unwritten)
    if not isinstance(doc, dict):
        raise UsageError(f"{os.fspath(path)}: not a Lowerscope document")
    return document_result(doc)


def open_capture(*_args, **_kwargs):
    """Opening a capture of a running application's kernels is not part of this version."""
    raise NotAvailable("open_capture is not available in this version of Lowerscope: capturing kernels from a "
                       "running program is not implemented yet", code=2, kind="not_available")


def from_triton(kernel, *args, **kwargs):
    """Compiles a Triton kernel through Triton and opens the cache entry it produced (see
    lowerscope.triton.from_triton)."""
    from .triton import from_triton as _from_triton
    return _from_triton(kernel, *args, **kwargs)
