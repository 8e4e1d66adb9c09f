"""A real build and inspection of kernels/saxpy.cu through the package, checked against the CLI."""

from __future__ import annotations

import json
import re
import shutil

import pytest

import lowerscope as ls
from conftest import SAXPY, cli_json, run_cli

# The line of saxpy.cu that does the work: its FFMA must map to it.
_FMA_LINE = next(n for n, text in enumerate(SAXPY.read_text().splitlines(), 1) if "y[i] = a * x[i] + y[i]" in text)


@pytest.fixture(scope="module")
def built(toolchain):
    return ls.build(SAXPY)


@pytest.fixture(scope="module")
def inspected(toolchain):
    return ls.inspect(SAXPY)


def test_build_result_is_typed(built):
    assert isinstance(built, ls.Build)
    assert built.ok and built.schema == "lowerscope.build/1"
    assert built.arch.startswith("sm_")
    assert len(built.kernels) == 1
    k = built.kernel("saxpy")
    assert k is built.kernels[0]
    assert k.name.startswith("saxpy(") and k.mangled.startswith("_Z")
    assert isinstance(k.resources, ls.Resources)
    assert isinstance(k.resources.registers, int) and 0 < k.resources.registers <= 255
    assert k.resources.spill_stores == 0 and k.resources.spill_loads == 0
    assert ".entry " + k.mangled in built.ptx
    assert re.search(r"\bFFMA\b", built.sass), "saxpy's a*x+y is one FFMA"


def test_build_document_is_the_clis(built, cli):
    doc = json.loads(built.to_json())
    cli_doc = cli_json(cli, "build", str(SAXPY))
    # The CLI's keys, plus the provenance every package result carries.
    assert set(doc) == set(cli_doc) | {"provenance"}
    # The same build: same cache key (toolchain, options, input), kernels, PTX and source files.
    for key in ("schema", "source", "arch", "ok", "options", "nvcc_args", "cache_key", "kernels", "ptx", "files"):
        assert doc[key] == cli_doc[key], key


def test_provenance_follows_the_source(built, tmp_path, toolchain):
    p = built.provenance
    assert p["source"] == str(SAXPY)
    assert p["source_digest"].startswith("xxh3-128:") and p["source_bytes"] == SAXPY.stat().st_size
    assert p["options"] == built.document["options"]
    assert p["toolchain"]["nvcc"] and p["toolchain"]["nvdisasm"]
    # Same bytes elsewhere: the same digest; one byte more: another.
    copy = tmp_path / "saxpy.cu"
    shutil.copy(SAXPY, copy)
    assert ls.build(copy).provenance["source_digest"] == p["source_digest"]
    copy.write_text(SAXPY.read_text() + "\n")
    assert ls.build(copy).provenance["source_digest"] != p["source_digest"]


def test_inspection_objects(inspected):
    assert isinstance(inspected, ls.Inspection)
    k = inspected.kernel()  # the only kernel
    assert k is inspected.kernel("saxpy")
    ins = k.instructions
    assert len(ins) > 5 and all(isinstance(i, ls.Instruction) for i in ins)
    addresses = [i.address for i in ins]
    assert addresses == sorted(set(addresses)), "addresses increase"
    assert all(b - a == 16 for a, b in zip(addresses, addresses[1:])), "Volta+ instructions are 16 bytes"
    opcodes = {i.opcode.split(".")[0] for i in ins}
    assert {"FFMA", "EXIT"} <= opcodes
    assert any(o.startswith("LDG") for o in opcodes) and any(o.startswith("STG") for o in opcodes)
    # Control codes on every instruction, in their field ranges.
    for i in ins:
        c = i.control
        assert isinstance(c, ls.ControlCode), i.text
        assert 0 <= c.stall <= 15 and 0 <= c.wait_mask < 64
        assert c.read_barrier is None or 0 <= c.read_barrier <= 5
        assert c.write_barrier is None or 0 <= c.write_barrier <= 5
    # Text is opcode + operands as the document has them.
    ffma = next(i for i in ins if i.opcode.startswith("FFMA"))
    assert ffma.text.startswith(ffma.opcode) and len(ffma.operands) == 4
    assert ffma.source is not None and ffma.source.file.endswith("saxpy.cu")
    assert ffma.source.line == _FMA_LINE
    assert ffma in k.instructions_at(_FMA_LINE)
    assert all(i.source.line == _FMA_LINE for i in k.instructions_at(_FMA_LINE))


def test_lines_and_dependencies(inspected):
    k = inspected.kernel("saxpy")
    by_line = {l.line: l for l in k.lines if l.file.endswith("saxpy.cu")}
    assert _FMA_LINE in by_line
    line = by_line[_FMA_LINE]
    assert isinstance(line, ls.Line)
    assert line.instructions == len(k.instructions_at(_FMA_LINE))
    deps = k.dependencies
    assert deps and all(isinstance(d, ls.Dependency) for d in deps)
    addresses = {i.address for i in k.instructions}
    assert all(d.source in addresses and d.target in addresses for d in deps)
    # The FFMA consumes the loads: register dependencies from LDGs into it.
    at = {i.address: i for i in k.instructions}
    ffma = next(i for i in k.instructions if i.opcode.startswith("FFMA"))
    into = [d for d in deps if d.target == ffma.address]
    loads = {d.source for d in into if at[d.source].opcode.startswith("LDG")}
    assert len(loads) == 2, [(at[d.source].text, d.kind, d.resource) for d in into]
    # Each load reaches it through its destination register (and its scoreboard).
    for a in loads:
        dest = at[a].operands[0]
        assert any(d.source == a and d.resource == dest for d in into), (at[a].text, into)
    assert inspected.dependencies == deps and inspected.instructions == k.instructions


def test_inspection_document_is_the_clis(inspected, cli):
    doc = json.loads(inspected.to_json())
    cli_doc = cli_json(cli, "inspect", str(SAXPY))
    assert doc.pop("provenance")["source"] == str(SAXPY)
    assert doc == cli_doc


def test_line_report_is_the_clis(toolchain, cli):
    i = ls.inspect(SAXPY, line=_FMA_LINE)
    p = run_cli(cli, "inspect", str(SAXPY), "--line", str(_FMA_LINE))
    assert p.returncode == 0, p.stderr
    assert i.line_report and i.line_report == p.stdout


def test_options_reach_the_build(toolchain):
    a = ls.build(SAXPY, max_reg_count=16, defines={"UNUSED": 1})
    assert a.document["options"]["max_reg_count"] == 16
    assert "-maxrregcount=16" in " ".join(a.document["nvcc_args"]) or "--maxrregcount=16" in " ".join(
        a.document["nvcc_args"])
    assert a.kernels[0].resources.registers <= 16


def test_html(inspected, built):
    k = inspected.kernel("saxpy")
    h = k._repr_html_()
    assert h.startswith("<table") and h.count("<tr>") == len(k.instructions) + 1
    assert f"{len(k.instructions)} SASS instructions" in h
    for i in k.instructions:
        assert "%04x" % i.address in h
    assert inspected._repr_html_() == h  # one kernel: the same table
    b = built._repr_html_()
    assert "<table" in b and "saxpy(" in b and f">{built.kernels[0].resources.registers}<" in b
