#pragma once
// Which failed tool runs are the compiler's verdict on the code (deterministic: cached like a
// success) and which are accidents of this run (a signal, a timeout, cancellation, a full disk, an
// I/O error, a crashed or killed tool: never cached, the next build tries again). nvcc exits 1 for
// all of them, so the verdict also reads what it and its steps wrote (measured with nvcc 13:
// "nvcc error : 'cicc' died due to signal 11", "... No space left on device", ...).

#include "core/build/process.h"

#include <string>

namespace lowerscope {

// "" when `run` (an nvcc compile run that did not succeed) failed because the compiler rejected the
// code: it started, was not killed, timed out or cancelled, exited normally with a non-zero status,
// and its output names no transient cause. Otherwise one phrase saying why the failure must not be
// cached ("killed by signal 9", "timed out", "a tool died (signal 11)", "the disk is full", ...).
std::string transientFailureReason(const ProcessResult& run);

} // namespace lowerscope
