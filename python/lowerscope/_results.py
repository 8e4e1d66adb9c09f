"""Typed results of the lowerscope package.

Each result keeps the document the CLI writes for the same command (``document``, ``to_json()``)
and exposes it as typed objects: a build's kernels and resources, an inspection's instructions
(with control codes and operands), lines and dependencies, a measurement's launches with their
samples as NumPy arrays. Results render as HTML tables (and a plot of the samples) in a notebook.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from . import _html
from ._errors import TimingRefused, UsageError


class Document:
    """A result backed by one JSON document."""

    def __init__(self, document: dict, warnings=None):
        self.document = document
        self.warnings: List[str] = list(warnings or [])

    @property
    def schema(self) -> str:
        return self.document.get("schema", "")

    @property
    def provenance(self) -> dict:
        """Source digest, options, toolchain versions (and for measurements the device, clock, mode
        and L2 state) of this result."""
        return self.document.get("provenance", {})

    def to_json(self, indent: Optional[int] = 2) -> str:
        """The document, as the CLI's --json writes it (plus "provenance")."""
        return json.dumps(self.document, indent=indent)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.schema}>"


# ---------------------------------------------------------------------------- builds


@dataclass(frozen=True)
class Resources:
    registers: Optional[int]
    shared_bytes: Optional[int]
    local_bytes: Optional[int]
    stack_bytes: Optional[int]
    constant_bytes: Optional[int]
    spill_stores: Optional[int]
    spill_loads: Optional[int]

    @staticmethod
    def of(j: dict) -> "Resources":
        j = j or {}
        return Resources(*(j.get(k) for k in ("registers", "shared_bytes", "local_bytes", "stack_bytes",
                                               "constant_bytes", "spill_stores", "spill_loads")))


@dataclass(frozen=True)
class BuiltKernel:
    name: str
    mangled: str
    resources: Resources
    ptx: str
    sass: str


class Build(Document):
    """A build: ``lowerscope.build/1``."""

    def __init__(self, document: dict, warnings=None):
        super().__init__(document, warnings)
        self.kernels = [BuiltKernel(k.get("name", ""), k.get("mangled", ""), Resources.of(k.get("resources")),
                                    k.get("ptx", ""), k.get("sass", "")) for k in document.get("kernels", [])]

    ok = property(lambda self: bool(self.document.get("ok")))
    arch = property(lambda self: self.document.get("arch", ""))
    ptx = property(lambda self: self.document.get("ptx", ""))
    diagnostics = property(lambda self: self.document.get("diagnostics", []))
    files = property(lambda self: self.document.get("files", []))

    @property
    def sass(self) -> str:
        return "".join(k.sass for k in self.kernels)

    def kernel(self, name: str) -> BuiltKernel:
        return _pick(self.kernels, name)

    def _repr_html_(self) -> str:
        rows = [[k.name, k.resources.registers, k.resources.shared_bytes, k.resources.local_bytes,
                 k.resources.spill_stores, k.resources.spill_loads] for k in self.kernels]
        return _html.table(f"Build for {self.arch}: {len(self.kernels)} kernel(s)",
                           ["kernel", "registers", "shared", "local", "spill st", "spill ld"], rows)


# ---------------------------------------------------------------------------- inspection


@dataclass(frozen=True)
class ControlCode:
    """The scheduling control bits of one SASS instruction."""
    text: str
    stall: int
    yield_hint: bool
    read_barrier: Optional[int]
    write_barrier: Optional[int]
    wait_mask: int
    reuse: int

    @staticmethod
    def of(j: dict) -> Optional["ControlCode"]:
        if not j:
            return None
        return ControlCode(j.get("text", ""), j.get("stall", 0), bool(j.get("yield_hint")), j.get("read_barrier"),
                           j.get("write_barrier"), j.get("wait_mask", 0), j.get("reuse", 0))


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int
    inlined_at: List[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Instruction:
    address: int
    opcode: str
    text: str
    predicate: str
    operands: List[str]
    control: Optional[ControlCode]
    source: Optional[SourceLocation]
    ptx_line: Optional[int]
    live_gpr: Optional[int]
    defs: List[str]
    uses: List[str]
    encoding: str

    @staticmethod
    def of(j: dict) -> "Instruction":
        src = j.get("source")
        operands = [o.get("text", "") for o in j.get("operands", [])]
        text = (j.get("predicate", "") + " " if j.get("predicate") else "") + j.get("opcode", "")
        if operands:
            text += " " + ", ".join(operands)
        return Instruction(
            address=j.get("address", 0), opcode=j.get("opcode", ""), text=text, predicate=j.get("predicate", ""),
            operands=operands, control=ControlCode.of(j.get("control")),
            source=SourceLocation(src.get("file", ""), src.get("line", 0), src.get("inlined_at", [])) if src else None,
            ptx_line=j.get("ptx_line"), live_gpr=(j.get("live") or {}).get("gpr"),
            defs=[str(d) for d in j.get("defs", [])], uses=[str(u) for u in j.get("uses", [])],
            encoding=j.get("encoding", ""))


@dataclass(frozen=True)
class Dependency:
    """A producer → consumer edge between two instructions (addresses) through a resource."""
    source: int
    target: int
    kind: str
    resource: str
    distance: Optional[int]


@dataclass(frozen=True)
class Line:
    """One source line's share of a kernel, under each attribution of inlined code."""
    file: str
    line: int
    call_site: dict
    callee: dict
    any_frame: dict

    @property
    def instructions(self) -> int:
        return int(self.any_frame.get("instructions", 0))


@dataclass(frozen=True)
class PtxLine:
    line: int
    text: str
    source: Optional[dict]


class Kernel:
    """One kernel of an inspection."""

    def __init__(self, j: dict):
        self.document = j
        self.name: str = j.get("name", "")
        self.mangled: str = j.get("mangled", "")
        self.resources = Resources.of(j.get("resources"))
        self.instructions = [Instruction.of(i) for i in (j.get("sass") or {}).get("instructions", [])]
        self.dependencies = [Dependency(d.get("from"), d.get("to"), d.get("kind", ""), d.get("resource", ""),
                                        d.get("distance")) for d in j.get("deps", [])]
        self.lines = [Line(l.get("file", ""), l.get("line", 0), l.get("call_site", {}), l.get("callee", {}),
                           l.get("any_frame", {})) for l in j.get("lines", [])]
        self.ptx = [PtxLine(p.get("line", 0), p.get("text", ""), p.get("source"))
                    for p in (j.get("ptx") or {}).get("lines", [])]
        self.launch_bounds: dict = j.get("launch_bounds", {})

    def instructions_at(self, line: int, file: Optional[str] = None) -> List[Instruction]:
        """The instructions written on (or inlined at) a source line."""
        out = []
        for i in self.instructions:
            if i.source and i.source.line == line and (file is None or i.source.file.endswith(file)):
                out.append(i)
        return out

    def __repr__(self) -> str:
        return f"<Kernel {self.name}: {len(self.instructions)} instructions>"

    def _repr_html_(self) -> str:
        return _html.instructions(self)


class Inspection(Document):
    """An inspection: ``lowerscope.inspect/2`` (the CLI's ``inspect --json``)."""

    def __init__(self, document: dict, warnings=None, line_report: str = ""):
        super().__init__(document, warnings)
        self.kernels = [Kernel(k) for k in document.get("kernels", [])]
        self.line_report = line_report

    arch = property(lambda self: self.document.get("arch", ""))
    files = property(lambda self: self.document.get("files", []))

    def kernel(self, name: Optional[str] = None) -> Kernel:
        """The kernel of that name (mangled, demangled or plain); the only one when not given."""
        if name is None:
            if len(self.kernels) != 1:
                raise UsageError("the inspection has %d kernels: name one (%s)" %
                                 (len(self.kernels), ", ".join(k.name for k in self.kernels)))
            return self.kernels[0]
        return _pick(self.kernels, name)

    @property
    def instructions(self) -> List[Instruction]:
        return [i for k in self.kernels for i in k.instructions]

    @property
    def lines(self) -> List[Line]:
        return [l for k in self.kernels for l in k.lines]

    @property
    def dependencies(self) -> List[Dependency]:
        return [d for k in self.kernels for d in k.dependencies]

    def _repr_html_(self) -> str:
        return "".join(_html.instructions(k) for k in self.kernels)


# ---------------------------------------------------------------------------- measurements


@dataclass(frozen=True)
class Guards:
    """What a tuning loop must check before it trusts a time (core/run/provenance.h)."""
    outputs_checked: bool
    outputs_fully_written: Optional[bool]
    unwritten: List[dict]
    l2: str
    throttled_samples: int
    time_valid: bool
    refusal: str

    @staticmethod
    def of(j: Optional[dict]) -> "Guards":
        j = j or {}
        return Guards(bool(j.get("outputs_checked")), j.get("outputs_fully_written"), list(j.get("unwritten", [])),
                      j.get("l2", "unknown"), int(j.get("throttled_samples", 0)), bool(j.get("time_valid", False)),
                      j.get("refusal", "the document carries no guards (written by an older version)"))


class Launch:
    """One measured launch (a ``lowerscope.run/1`` document): its samples and statistics."""

    def __init__(self, j: dict, allow_unwritten: bool = False):
        self.document = j
        self._allow = allow_unwritten
        self.file: str = j.get("file", "")
        self.kernel: str = j.get("kernel", "")
        self.build_options: str = j.get("build_options", "")
        self.device: dict = j.get("device", {})
        self.launch: dict = j.get("launch", {})
        self.mode: str = self.launch.get("mode", "")
        self.duration_clock: str = j.get("duration_clock", "")
        self.samples_ms = np.asarray(j.get("samples_ms", []), dtype=np.float64)
        self.samples_by_clock = {k: np.asarray(v, dtype=np.float64) for k, v in (j.get("samples_by_clock") or {}).items()}
        self.sample_clock_mhz = np.asarray(j.get("sample_clock_mhz", []), dtype=np.float64)
        self.stats: dict = j.get("stats", {})
        self.outputs: List[dict] = j.get("outputs", [])
        self.guards = Guards.of(j.get("guards"))

    def _checked(self, value):
        if not self.guards.time_valid and not self._allow:
            raise TimingRefused(self.guards.refusal, code=1, kind="refused")
        return value

    @property
    def median_ms(self) -> float:
        """The median time per launch, ms; raises TimingRefused when the guards refuse a time."""
        return self._checked(float(self.stats.get("median_ms", float("nan"))))

    @property
    def ci95_ms(self):
        lo, hi = self.stats.get("ci95_ms", [float("nan"), float("nan")])
        return self._checked((float(lo), float(hi)))

    def __repr__(self) -> str:
        state = "%.4g ms" % self.stats.get("median_ms", float("nan")) if self.guards.time_valid else "time refused"
        return f"<Launch {self.kernel} {self.mode}: {len(self.samples_ms)} samples, {state}>"


class Measurement(Document):
    """A measurement: ``lowerscope.run/1`` (one launch) or ``lowerscope.compare/1`` (A and B)."""

    def __init__(self, document: dict, warnings=None, allow_unwritten: bool = False):
        super().__init__(document, warnings)
        if document.get("schema") == "lowerscope.compare/1":
            self.launches = [Launch(document["a"], allow_unwritten), Launch(document["b"], allow_unwritten)]
        else:
            self.launches = [Launch(document, allow_unwritten)]

    is_comparison = property(lambda self: len(self.launches) == 2)
    a = property(lambda self: self.launches[0])
    b = property(lambda self: self.launches[-1])
    samples_ms = property(lambda self: self.launches[0].samples_ms)
    guards = property(lambda self: self.launches[0].guards)
    median_ms = property(lambda self: self.launches[0].median_ms)
    device = property(lambda self: self.launches[0].device)
    duration_clock = property(lambda self: self.launches[0].duration_clock)

    @property
    def ratio(self) -> Optional[dict]:
        """B/A with its 95 % interval and the verdict (comparisons only)."""
        return self.document.get("ratio")

    @property
    def outputs_agree(self) -> Optional[bool]:
        return self.document.get("outputs_agree")

    def _repr_html_(self) -> str:
        return _html.measurement(self)


class Profile(Document):
    """A profile: ``lowerscope.profile/1``."""

    def __init__(self, document: dict, warnings=None, errors=None):
        super().__init__(document, warnings)
        self.errors = list(errors or [])

    @property
    def metrics(self) -> List[dict]:
        return self.document.get("metrics", [])

    def _repr_html_(self) -> str:
        rows = [[m.get("name"), m.get("value"), m.get("unit", "")] for m in self.metrics]
        return _html.table("Kernel metrics", ["metric", "value", "unit"], rows)


class Series(Document):
    """A parameter series: ``lowerscope.series/1``."""

    @property
    def points(self) -> List[dict]:
        pts = []
        for p in self.document.get("points", []):
            p = dict(p)
            p["samples"] = np.asarray(p.get("samples", []), dtype=np.float64)
            pts.append(p)
        return pts

    def _repr_html_(self) -> str:
        rows = [[p.get("label"), p.get("registers"), p.get("median_ms"), p.get("ratio_to_first")]
                for p in self.document.get("points", [])]
        return _html.table(f"Series {self.document.get('vary', '')}", ["point", "registers", "median ms", "ratio"], rows)


def _pick(items, name: str):
    for it in items:
        if name in (it.name, it.mangled) or it.name.split("(")[0] == name:
            return it
    raise UsageError("no kernel '%s' (there are: %s)" % (name, ", ".join(i.name for i in items)))


def document_result(document: dict, **kw) -> Document:
    """The typed result for a document read from a file."""
    schema = document.get("schema", "")
    if schema in ("lowerscope.run/1", "lowerscope.compare/1"):
        return Measurement(document, **kw)
    if schema.startswith("lowerscope.inspect/"):
        return Inspection(document)
    if schema.startswith("lowerscope.build/"):
        return Build(document)
    if schema.startswith("lowerscope.profile/"):
        return Profile(document)
    if schema.startswith("lowerscope.series/"):
        return Series(document)
    return Document(document)

