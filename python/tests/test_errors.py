"""Errors are Python exceptions carrying the CLI's message and exit code for the same failure."""

from __future__ import annotations

import pytest

import lowerscope as ls
from conftest import SAXPY, run_cli

_BROKEN = """__global__ void broken(float* y)
{
    y[threadIdx.x] = undeclared_name;
}
"""


def _cli_error_line(stderr: str, command: str) -> str:
    """The CLI's error line, without its "lowerscope-cli COMMAND: " prefix."""
    prefix = f"lowerscope-cli {command}: "
    lines = [l[len(prefix):] for l in stderr.splitlines() if l.startswith(prefix)]
    assert lines, f"no '{prefix}' line in: {stderr!r}"
    return lines[-1]


def test_compile_error(toolchain, cli, tmp_path):
    src = tmp_path / "broken.cu"
    src.write_text(_BROKEN)
    with pytest.raises(ls.CompileError) as e:
        ls.build(src)
    err = e.value
    assert isinstance(err, ls.BuildError) and isinstance(err, ls.LowerscopeError)
    assert any("undeclared_name" in d for d in err.diagnostics)
    p = run_cli(cli, "build", str(src))
    assert p.returncode == err.code == 1
    assert _cli_error_line(p.stderr, "build") == err.message == f"{src}: compilation failed"
    # The diagnostics are the lines the CLI prints before its error line.
    for d in err.diagnostics:
        assert d in p.stderr.splitlines()
    assert str(err).startswith(err.message + "\n")
    # inspect raises the same.
    with pytest.raises(ls.CompileError) as e2:
        ls.inspect(src)
    assert e2.value.message == err.message


@pytest.mark.parametrize("command", ["build", "inspect"])
def test_missing_file(cli, tmp_path, command):
    missing = tmp_path / "no_such_kernel.cu"
    with pytest.raises(ls.LowerscopeError) as e:
        getattr(ls, command)(missing)
    err = e.value
    p = run_cli(cli, command, str(missing), "--json", "-")
    assert p.returncode == err.code != 0
    assert _cli_error_line(p.stderr, command) == err.message
    assert "no_such_kernel.cu" in err.message


def test_unknown_kernel(toolchain, cli):
    with pytest.raises(ls.UsageError) as e:
        ls.inspect(SAXPY, kernel="no_such_kernel")
    p = run_cli(cli, "inspect", str(SAXPY), "--kernel", "no_such_kernel", "--json", "-")
    assert p.returncode == e.value.code == 2
    assert _cli_error_line(p.stderr, "inspect") == e.value.message


def test_bad_options():
    with pytest.raises(ls.UsageError, match="unknown build option 'fastmath'"):
        ls.build(SAXPY, fastmath=True)
    with pytest.raises(ValueError):  # UsageError is a ValueError too
        ls.inspect(SAXPY, frame="nowhere")


def test_open_capture_not_available():
    with pytest.raises(ls.NotAvailable, match="not available"):
        ls.open_capture(1234)
