#pragma once
// Children die with their parent. Two mechanisms, both used by runProcess and InteractiveProcess
// (core/build/process.h) for every child they start:
//   * an interrupt flag: installInterruptHandlers() makes SIGINT, SIGTERM and SIGHUP set it (a
//     second one of them kills the process as usual); while it is set every running child's
//     process group is killed and its run ends as cancelled, so the caller unwinds, removes its
//     temporary folders and exits (lowerscope-cli does this).
//   * a watchdog: a small process (in a process group of its own, so that killing the parent's
//     group spares it) forked on first use that holds the read end of a pipe. Every
//     child's process group and every registered temporary folder is announced to it; when this
//     process dies in any way (SIGKILL included) the pipe reaches EOF and the watchdog kills the
//     announced process groups (nvcc and the cicc/ptxas it started) and removes the folders.
// Thread-safe. Nothing here throws.

#include <string>
#include <sys/types.h>

namespace lowerscope {

// Installs the SIGINT/SIGTERM/SIGHUP handlers described above (for command-line programs; a GUI
// keeps its own handling). Idempotent.
void installInterruptHandlers();
// Sets the interrupt flag as the handler would (`signal` is reported by interruptSignal()).
void requestInterrupt(int signal);
// The signal that set the flag, 0 when it is not set.
int interruptSignal();

// Announces a child's process group (its pid: every child leads its own group) to the watchdog,
// starting the watchdog when needed; `watchGroup` after spawning, `unwatchGroup` after reaping.
void watchGroup(pid_t pgid);
void unwatchGroup(pid_t pgid);
// Announces a temporary folder to remove should this process die before `unwatchDirectory`.
void watchDirectory(const std::string& dir);
void unwatchDirectory(const std::string& dir);

// The watchdog's pid, -1 when it is not running (for tests).
pid_t watchdogPid();

} // namespace lowerscope
