"""Exceptions raised by the lowerscope package.

Every error carries the message the CLI prints for the same failure (``message``), the CLI's exit
code for it (``code``: 1 the kernel's or the build's fault, 2 usage, a missing tool or no GPU) and,
for builds, the compiler's diagnostics, one formatted line each.
"""

from __future__ import annotations


class LowerscopeError(Exception):
    """Base class of every error the package raises."""

    def __init__(self, message: str, *, code: int = 2, kind: str = "", diagnostics=None, details=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.kind = kind
        self.diagnostics = list(diagnostics or [])
        self.details = dict(details or {})

    def __str__(self) -> str:
        if not self.diagnostics:
            return self.message
        return self.message + "\n" + "\n".join(self.diagnostics)


class UsageError(LowerscopeError, ValueError):
    """Arguments that cannot work: bad options, no such kernel, a launch that does not fit."""


class ToolError(LowerscopeError):
    """A tool is missing or could not run (nvcc, ptxas, nvdisasm, cuobjdump)."""


class BuildError(LowerscopeError):
    """The build failed (a tool failed on this input)."""


class CompileError(BuildError):
    """The compiler rejected the source; ``diagnostics`` says why."""


class RunError(LowerscopeError):
    """The measurement failed: no driver or device, a kernel fault, a timeout, a runner that broke
    the protocol. ``run_error_kind`` is the runner's kind ("NoDevice", "KernelFault", ...)."""

    @property
    def run_error_kind(self) -> str:
        return self.details.get("run_error_kind", "")

    @property
    def runner_stderr(self) -> str:
        return self.details.get("runner_stderr", "")


class ProfileError(LowerscopeError):
    """A profile collection failed (code 1) or profiling is not available here (code 2);
    ``document`` holds whatever came back."""

    @property
    def document(self):
        return self.details.get("document")


class TimingRefused(LowerscopeError):
    """A time was asked of a measurement whose guards refuse it (an output left unwritten: the
    kernel did not do the work being timed). The samples stay readable."""


class NotAvailable(LowerscopeError):
    """The feature is not part of this version."""


_KINDS = {
    "usage": UsageError,
    "tool": ToolError,
    "build": BuildError,
    "compile": CompileError,
    "run": RunError,
    "profile": ProfileError,
}


def raise_from_answer(error: dict):
    """Raises the exception an error answer of the native module describes."""
    cls = _KINDS.get(error.get("kind", ""), LowerscopeError)
    details = {k: v for k, v in error.items() if k not in ("kind", "code", "message", "diagnostics")}
    raise cls(error.get("message", "unknown error"), code=int(error.get("code", 2)), kind=error.get("kind", ""),
              diagnostics=error.get("diagnostics"), details=details)
