"""Measurements through the real lowerscope-runner on the fake GPU (tests/core/run_fakes/fake_gpu.cpp).

The fake GPU runs no kernel code: every launch takes a fixed virtual time and device memory keeps
what the runner put there. So saxpy's output y is never written, and the measurement guards must
refuse its time; the samples stay readable (as NumPy arrays).
"""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

import lowerscope as ls
from conftest import SAXPY, cli_json, run_cli

_QUICK = dict(args={"n": "4096"}, min_samples=12, min_time_s=0.0, max_time_s=5.0, timeout_s=30)


@pytest.fixture(scope="module")
def measured(toolchain, fake_gpu):
    env = {"LOWERSCOPE_LIBCUDA": fake_gpu, "LOWERSCOPE_LIBCUPTI": fake_gpu}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield ls.run(SAXPY, mode="cold", **_QUICK)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_the_package_ships_its_runner():
    cmd = ls.runner_command()
    assert len(cmd) == 1 and os.access(cmd[0], os.X_OK)


def test_samples_are_numpy(measured):
    assert isinstance(measured, ls.Measurement) and not measured.is_comparison
    s = measured.samples_ms
    assert isinstance(s, np.ndarray) and s.dtype == np.float64
    assert s.size >= _QUICK["min_samples"]
    assert np.all(np.isfinite(s)) and np.all(s > 0)
    assert s.tolist() == measured.document["samples_ms"]
    launch = measured.a
    assert launch.kernel.startswith("saxpy") and launch.mode == "cold"
    assert launch.launch["grid"] and launch.launch["block"]
    assert measured.device.get("name"), "the fake GPU names itself"
    assert measured.duration_clock


def test_unwritten_output_refuses_the_time(measured):
    g = measured.guards
    assert isinstance(g, ls.Guards)
    assert g.outputs_checked and g.outputs_fully_written is False
    assert [u["name"] for u in g.unwritten] == ["y"]
    assert g.unwritten[0]["unwritten"] == g.unwritten[0]["count"] == 4096
    assert not g.time_valid and "y" in g.refusal and "unwritten" in g.refusal
    assert g.l2 == "flushed"  # cold mode
    with pytest.raises(ls.TimingRefused) as e:
        measured.median_ms
    assert e.value.message == g.refusal
    with pytest.raises(ls.TimingRefused):
        measured.a.ci95_ms
    # Asked for explicitly, the refused statistics are still those of the samples.
    m = ls.Measurement(measured.document, allow_unwritten=True)
    assert m.median_ms == pytest.approx(float(np.median(m.samples_ms)), rel=1e-9)
    lo, hi = m.a.ci95_ms
    assert lo <= m.median_ms <= hi


def test_provenance(measured):
    p = measured.provenance
    assert p["device"]["name"] == measured.device["name"]
    assert p["mode"] == ["cold"] and p["l2"] == ["flushed"]
    assert p["duration_clock"] == [measured.duration_clock]
    assert [b["source"] for b in p["builds"]] == [str(SAXPY)]
    assert p["builds"][0]["source_digest"].startswith("xxh3-128:")


def test_document_is_the_clis(measured, cli, fake_gpu):
    env = {"LOWERSCOPE_LIBCUDA": fake_gpu, "LOWERSCOPE_LIBCUPTI": fake_gpu}
    args = ["run", str(SAXPY), "--arg", "n=4096", "--mode", "cold", "--min-samples", "12", "--min-time", "0",
            "--max-time", "5"]
    cli_doc = cli_json(cli, *args, env=env)
    doc = json.loads(measured.to_json())
    assert doc.pop("provenance")
    cli_doc.pop("provenance", None)
    assert set(doc) == set(cli_doc)
    assert doc["schema"] == cli_doc["schema"] == "lowerscope.run/1"
    assert doc["guards"]["refusal"] == cli_doc["guards"]["refusal"]
    assert doc["launch"]["grid"] == cli_doc["launch"]["grid"]


def test_load_round_trip(measured, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(measured.to_json())
    back = ls.load(path)
    assert isinstance(back, ls.Measurement)
    np.testing.assert_array_equal(back.samples_ms, measured.samples_ms)
    assert back.guards == measured.guards and back.provenance == measured.provenance


def test_html_plot(measured):
    h = measured._repr_html_()
    assert "<table" in h and "refused" in h and "<svg" in h
    # One plotted point per sample.
    pts = re.search(r'<polyline points="([^"]*)"', h).group(1).split()
    assert len(pts) == measured.samples_ms.size
    assert measured.guards.refusal.split(":")[0] in h


def test_compare_on_the_fake_gpu(on_fake_gpu, toolchain):
    c = ls.compare(SAXPY, b={"fast_math": True}, **_QUICK)
    assert c.is_comparison and c.schema == "lowerscope.compare/1"
    assert isinstance(c.a.samples_ms, np.ndarray) and isinstance(c.b.samples_ms, np.ndarray)
    assert c.a.samples_ms.size > 0 and c.b.samples_ms.size > 0
    assert len(c.provenance["builds"]) == 2
    assert c.provenance["builds"][1]["options"]["fast_math"] is True
    with pytest.raises(ls.TimingRefused):
        c.b.median_ms


def test_runner_failure_is_the_clis(toolchain, cli, on_fake_gpu, tmp_path):
    # A runner that exits at once: the same RunError message as the CLI's.
    with pytest.raises(ls.RunError) as e:
        ls.run(SAXPY, runner=["/bin/false"], **_QUICK)
    err = e.value
    p = run_cli(cli, "run", str(SAXPY), "--arg", "n=4096", "--min-samples", "12", "--runner", "/bin/false")
    assert p.returncode == err.code != 0
    assert f"lowerscope-cli run: {err.message}" in p.stderr.splitlines()
    assert err.run_error_kind
