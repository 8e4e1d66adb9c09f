// lowerscope-runner: the only Lowerscope process that touches the GPU.
//
// Protocol mode (default): prints a hello line (or an error line and exits when there is no
// driver or device), then answers line-delimited JSON requests from stdin (see
// core/run/protocol.h). `--info` prints the device as JSON and exits (0, or 3 = no driver,
// 4 = no device). The CUDA driver is loaded at run time, so this starts on any machine.
#include "app/runner/address_hold.h"
#include "app/runner/device_context.h"
#include "app/runner/request.h"
#include "core/run/protocol.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/personality.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr const char* kVersion = "lowerscope-runner 0.1.0";

void writeLine(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void usage() {
    std::fputs("usage: lowerscope-runner [--info | --version | --help] [--fixed-addresses [--hold-addresses LIST]]\n"
               "  (no option)  speak the line-delimited JSON protocol on stdin/stdout\n"
               "  --info       print the CUDA device as JSON; exit 3 without a driver, 4 without a device\n"
               "  --fixed-addresses  run without address space randomisation and load the helpers after a\n"
               "               replay's captured memory is mapped at its original addresses\n"
               "  --hold-addresses 0xADDR+BYTES,...  keep these address ranges free from the start for the\n"
               "               captured memory of the replays to come (lowerscope passes them)\n",
               stderr);
}

} // namespace

int main(int argc, char** argv) {
    using namespace lowerscope;
    using namespace lowerscope::runner;
    bool info = false;
    bool fixedAddresses = false;
    std::vector<AddressRange> hold;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--version") {
            std::puts(kVersion);
            return 0;
        }
        if (a == "--help" || a == "-h") {
            usage();
            return 0;
        }
        if (a == "--info") {
            info = true;
        } else if (a == "--fixed-addresses") {
            fixedAddresses = true;
        } else if (a == "--hold-addresses" && i + 1 < argc) {
            std::string error;
            const auto ranges = parseAddressRanges(argv[++i], error);
            if (!ranges) {
                std::fprintf(stderr, "lowerscope-runner: --hold-addresses: %s\n", error.c_str());
                return kExitUsage;
            }
            hold = *ranges;
        } else {
            std::fprintf(stderr, "lowerscope-runner: unknown option '%s'\n", argv[i]);
            usage();
            return kExitUsage;
        }
    }

    if (fixedAddresses && !(personality(0xffffffff) & ADDR_NO_RANDOMIZE)) {
        // Replays map captured memory back at its device addresses (restored_memory.h); they
        // repeat only in a process without address space randomisation, as the captured program
        // ran. Set it and start again: the layout is fixed at exec. stdin/stdout stay the same.
        if (personality(ADDR_NO_RANDOMIZE) != -1) {
            execv("/proc/self/exe", argv);
        }
        std::fprintf(stderr, "lowerscope-runner: cannot turn off address space randomisation (%s); "
                             "replayed memory may not get its original addresses\n",
                     std::strerror(errno));
    }
    if (!hold.empty() && !fixedAddresses) {
        std::fputs("lowerscope-runner: --hold-addresses needs --fixed-addresses\n", stderr);
        return kExitUsage;
    }
    // Before CUDA is loaded and before anything of this process is allocated (address_hold.h).
    holdAddressRanges(hold);
    DeviceContext device;
    device.setFixedAddresses(fixedAddresses);
    RunError openError;
    int code = device.open(openError);
    if (code != 0) {
        writeLine(errorLine(openError));
        std::fprintf(stderr, "lowerscope-runner: %s\n", openError.message.c_str());
        return code;
    }
    if (info) {
        try {
            device.measureCopyBandwidth();
        } catch (const RequestFailure& f) {
            writeLine(errorLine(f.error));
            return f.exitCode ? f.exitCode : kExitCudaError;
        }
        writeLine(nlohmann::json{{"info", {{"device", toJson(device.device())}}}}.dump(2));
        return 0;
    }

    writeLine(hello(device.device(), kVersion));
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        nlohmann::json j;
        std::string id;
        try {
            j = nlohmann::json::parse(line);
            if (!j.is_object()) {
                throw ProtocolError("a request must be a JSON object");
            }
            if (j.contains("id") && j["id"].is_string()) {
                id = j["id"].get<std::string>();
            }
        } catch (const std::exception& e) {
            writeLine(errorLine(RunError{RunErrorKind::BadRequest, std::string("not a JSON request: ") + e.what(), "", 0, "", "",
                                         false},
                                id));
            continue;
        }
        std::string op = j.contains("op") && j["op"].is_string() ? j["op"].get<std::string>() : "";
        if (op == "quit") {
            return 0;
        }
        if (op == "info") {
            try {
                device.measureCopyBandwidth();
            } catch (const RequestFailure& f) {
                writeLine(errorLine(f.error, id));
                if (f.exitCode) {
                    _exit(f.exitCode);
                }
                continue;
            }
            writeLine(nlohmann::json{{"info", {{"device", toJson(device.device())}}}, {"id", id}}.dump());
            continue;
        }
        if (op != "run") {
            writeLine(errorLine(RunError{RunErrorKind::BadRequest, "unknown op '" + op + "' (run, info, quit)", "", 0, "", "", false},
                                id));
            continue;
        }
        RunRequest req;
        try {
            fromJson(j, req);
        } catch (const std::exception& e) {
            writeLine(errorLine(RunError{RunErrorKind::BadRequest, e.what(), "", 0, "", "", false}, id));
            continue;
        }
        RequestProgress::Fn progress = [](const RunProgress& p) { writeLine(progressLine(p)); };
        try {
            RunResult r = runRequest(device, req, progress);
            writeLine(resultLine(r));
            if (r.runnerExits) {
                // Instruction counts and stall samples: CUPTI's SASS state is only reset by a new
                // process (profile_request.h); the client starts one for the next request.
                std::fflush(stdout);
                return 0;
            }
        } catch (const RequestFailure& f) {
            writeLine(errorLine(f.error, id));
            if (f.exitCode) {
                // The context is poisoned (or a kernel still runs): leave without cleanup; the
                // driver tears the context down with the process.
                std::fflush(stdout);
                _exit(f.exitCode);
            }
        } catch (const std::exception& e) {
            writeLine(errorLine(RunError{RunErrorKind::Internal, e.what(), "", 0, "", "", false}, id));
        }
    }
    return 0;
}
