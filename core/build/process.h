#pragma once
// Subprocesses without a shell: posix_spawn with an argv vector, captured output, a timeout and a
// cancel flag. Two flavours:
//   * runProcess / runProcessesParallel: run to completion, collect stdout/stderr and the status.
//   * InteractiveProcess: a long-lived child with its pipes kept open, for line-delimited
//     request/response protocols (the runner client talks JSON lines to lowerscope-runner).
// Every child is the leader of its own process group; killing it kills the whole group (nvcc's
// cicc/ptxas children included). A child killed by a signal we did not send takes the rest of its
// group with it. Children die with this process (core/build/lifetime.h): an interrupt
// (installInterruptHandlers) cancels every run, and a watchdog kills the groups should this
// process be killed. Nothing here throws: failures are reported in the results.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace lowerscope {

// What to run. argv[0] is the program: a path when it contains '/', else searched on the
// caller's PATH (not the PATH given in `env`).
struct ProcessSpec {
    std::vector<std::string> argv;
    std::string workingDir;                  // "" = the caller's current directory
    std::map<std::string, std::string> env;  // added to (or overriding) the caller's environment
    std::vector<std::string> envRemove;      // variable names removed from the child's environment
    std::string stdinText;                   // written to the child's stdin, then stdin is closed
    std::chrono::milliseconds timeout{0};    // wall-clock limit; 0 = none. Past it the process
                                             // group gets SIGKILL and timedOut is set.
    std::atomic<bool>* cancel = nullptr;     // polled (~every 20 ms); when it becomes true the
                                             // process group gets SIGKILL and cancelled is set;
                                             // an interrupt (lifetime.h) does the same
};

// How a run ended. Exactly one of: startError non-empty (never ran), timedOut, cancelled,
// signal != 0 (killed by a signal not sent by us), or a normal exit with exitCode.
struct ProcessResult {
    int exitCode = -1;        // exit status when it exited; 128+N when killed by signal N; -1 when
                              // it did not start
    int signal = 0;           // terminating signal number, 0 when it exited normally
    bool timedOut = false;    // killed by us because the timeout passed
    bool cancelled = false;   // killed by us because the cancel flag was set
    std::string startError;   // why it could not start ("" when it started), names the program
    std::string stdoutText;
    std::string stderrText;
    double wallMs = 0;        // from spawn to reaping, milliseconds
    bool started() const { return startError.empty(); }
    // Started, exited normally with status 0, not killed.
    bool ok() const { return started() && !timedOut && !cancelled && signal == 0 && exitCode == 0; }
    // One line for error messages: "exit 1", "killed by signal 9", "timed out after 5000 ms", ...
    std::string describe() const;
};

// Runs one process to completion. stdout and stderr are read concurrently (poll) so full pipes
// never deadlock. Thread-safe: may be called from several threads at once.
ProcessResult runProcess(const ProcessSpec& spec);

// Splits `text` into words as a POSIX shell would split a simple command line: blanks separate
// words; '...' keeps everything literally; "..." keeps everything except that \", \\, \$ and \`
// stand for ", \, $ and `; outside quotes a backslash keeps the next character. Nothing is expanded
// ($, `, ~, * stay literal) and nothing is executed. The one rule for every command line Lowerscope
// takes as text (--runner, $LOWERSCOPE_RUNNER, --xcompiler-style flag lists, a compile database's
// "command"). Throws std::invalid_argument on an unterminated quote or a trailing backslash.
std::vector<std::string> splitShellWords(const std::string& text);

// Runs all specs at the same time (one thread each) and returns their results in spec order.
std::vector<ProcessResult> runProcessesParallel(const std::vector<ProcessSpec>& specs);

// A long-lived child with open pipes. Usage:
//   InteractiveProcess p;
//   if (!p.start(spec)) error(p.startError());
//   p.writeLine(R"({"op":"hello"})", 1s);
//   std::string line; if (p.readLine(line, 5s) == InteractiveProcess::ReadStatus::Line) ...
//   p.closeStdin(); ProcessResult r = p.wait(2s);   // or p.kill()
// stderr is drained in the background of every call (kept, capped at 1 MiB, see stderrText()), so
// a chatty child never blocks. Not thread-safe: one thread drives one object. The destructor
// kills the child (process group) if it still runs and reaps it.
class InteractiveProcess {
public:
    enum class ReadStatus {
        Line,      // `line` holds one line without its '\n'
        Timeout,   // no complete line before the deadline
        Eof,       // the child closed stdout (usually: it exited); a last partial line is returned
                   // as Line first
        Cancelled, // the cancel flag became true
        NotRunning,// start() was not called or failed
        TooLong    // the next line is longer than setMaxLineBytes() allows (nothing is returned;
                   // the caller should kill the child: the stream cannot be resynchronised)
    };

    InteractiveProcess() = default;
    ~InteractiveProcess();
    InteractiveProcess(const InteractiveProcess&) = delete;
    InteractiveProcess& operator=(const InteractiveProcess&) = delete;

    // Spawns the child (spec.stdinText, spec.timeout and spec.cancel are ignored). False on failure,
    // see startError(). Calling start() on a running object kills the old child first.
    bool start(const ProcessSpec& spec);
    const std::string& startError() const { return m_startError; }
    pid_t pid() const { return m_pid; }
    // True while the child has not been reaped (may have exited already; checked without blocking).
    bool running();

    // Writes `line` + '\n'. False when stdin is closed, the child is gone, or the write did not
    // complete within `timeout` (the child is not reading).
    bool writeLine(const std::string& line, std::chrono::milliseconds timeout);
    // The longest line readLine() accepts, bytes without the '\n' (0 = no limit, the default). What
    // is buffered of stdout stays within about this plus 1 MiB, however the child writes.
    void setMaxLineBytes(size_t bytes) { m_maxLine = bytes; }
    // Reads one line from stdout, waiting at most `timeout`.
    ReadStatus readLine(std::string& line, std::chrono::milliseconds timeout,
                        std::atomic<bool>* cancel = nullptr);
    // Closes the child's stdin (it sees EOF).
    void closeStdin();
    // stderr received so far (the newest 1 MiB).
    const std::string& stderrText() const { return m_stderr; }

    // Waits up to `timeout` for the child to exit (draining its output), then SIGKILLs its group.
    // Returns the status; stdoutText holds unread stdout, stderrText all stderr kept.
    ProcessResult wait(std::chrono::milliseconds timeout);
    // SIGKILLs the process group and reaps the child. Safe to call when not running.
    void kill();

private:
    // Polls stdout/stderr (and stdin for writing when `wantWrite`) once, for at most `waitMs`.
    // Returns false when nothing is open any more.
    bool pump(int waitMs, bool wantWrite, bool* writable);
    void closeFd(int& fd);
    bool reap(bool block);

    pid_t m_pid = -1;
    int m_in = -1, m_out = -1, m_err = -1;
    std::string m_outBuf;
    size_t m_scanned = 0; // bytes of m_outBuf known to hold no '\n'
    size_t m_maxLine = 0;
    std::string m_stderr;
    std::string m_startError;
    bool m_reaped = true;
    int m_status = 0;
    bool m_killed = false;
    std::chrono::steady_clock::time_point m_startTime;
};

} // namespace lowerscope
