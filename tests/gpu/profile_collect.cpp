// lowerscope_profile_collect: sends the runner's profile requests (kernel metrics, instruction
// counts, stall samples) for one kernel and writes what comes back, with the wall time of each
// request. It is the GPU side's tool for bench/profile_vs_ncu.sh and for recording the examples
// under tests/data/profile/ until the CLI's `profile` command drives the same requests.
//
//   lowerscope_profile_collect FILE [--kernel K] [--arg NAME=VALUE ...] [--collect
//   kernel,instructions,samples]
//                              [--metrics m1,m2] [--arch sm_90] [--out OUT.json]
// Exit 0 when every collection succeeded, 1 when one failed (its error is in the JSON), 2 usage,
// 77 no device.
#include "core/build/build.h"
#include "core/build/toolchain.h"
#include "core/parse/ptx_parser.h"
#include "core/run/argspec.h"
#include "core/run/runner_client.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace lowerscope;
using nlohmann::json;

namespace {

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (!item.empty()) {
            out.push_back(item);
        }
    }
    return out;
}

int usage(const char* msg) {
    std::fprintf(stderr, "lowerscope_profile_collect: %s\n", msg);
    std::fprintf(
        stderr,
        "usage: lowerscope_profile_collect FILE [--kernel K] [--arg NAME=VALUE ...] "
        "[--collect kernel,instructions,samples] [--metrics m1,m2] [--arch sm_90] [--out OUT.json]\n");
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        return usage("no file");
    }
    std::string file = argv[1];
    std::string kernel, out, arch = "sm_90";
    std::vector<std::string> args;
    std::vector<std::string> collections = {"kernel", "instructions", "samples"};
    std::vector<std::string> metrics;
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::exit(usage((a + " needs a value").c_str()));
            }
            return argv[++i];
        };
        if (a == "--kernel") {
            kernel = value();
        } else if (a == "--arg") {
            args.push_back(value());
        } else if (a == "--collect") {
            collections = splitComma(value());
        } else if (a == "--metrics") {
            metrics = splitComma(value());
        } else if (a == "--arch") {
            arch = value();
        } else if (a == "--out") {
            out = value();
        } else {
            return usage(("unknown option " + a).c_str());
        }
    }
    // The launch from the sidecar, --arg overriding by name (as `lowerscope-cli run` does).
    LaunchSpec spec;
    try {
        auto sidecar = loadSidecar(sidecarPathFor(file));
        bool found = false;
        for (const auto& s : sidecar) {
            if (kernel.empty() || s.kernel == kernel) {
                spec = s;
                found = true;
                break;
            }
        }
        if (!found) {
            return usage(("no sidecar entry for kernel " + kernel).c_str());
        }
    } catch (const std::exception& e) {
        return usage(e.what());
    }
    for (const auto& text : args) {
        ArgSpec given = parseArgSpec(text);
        for (auto& s : spec.args) {
            if (parseArgSpec(s).name == given.name) {
                s = text;
            }
        }
    }
    Toolchain tc = discoverToolchain();
    BuildOptions options;
    options.arch = arch;
    options.lineinfo = true;
    BuildResult b = buildFile(tc, file, options);
    if (b.cubin.empty()) {
        std::fprintf(stderr, "build of %s failed: %s\n", file.c_str(), b.error.c_str());
        return 1;
    }
    PtxListing ptx = parsePtx(b.ptx);
    std::optional<LaunchVariant> variant;
    for (const auto& k : b.kernels) {
        if (k.name.substr(0, k.name.find('(')) == spec.kernel || k.mangled == spec.kernel) {
            for (const auto& f : ptx.functions) {
                if (f.name == k.mangled) {
                    variant = makeVariant(resolveLaunch(spec, f.params, k.name), b.cubin, k.mangled, "");
                }
            }
        }
    }
    if (!variant) {
        return usage(("kernel " + spec.kernel + " not found").c_str());
    }
    RunnerConfig config;
    config.command = {RUNNER_BIN};
    config.deadline = std::chrono::milliseconds(60000);
    ProcessRunner runner(config);
    DeviceInfo device;
    RunError startError;
    if (!runner.device(device, startError)) {
        std::fprintf(stderr, "%s: %s\n", runErrorKindName(startError.kind), startError.message.c_str());
        return 77;
    }
    json doc{{"schema", "lowerscope.runner-profile/1"},
             {"file", std::filesystem::path(file).filename().string()},
             {"kernel", variant->kernel},
             {"grid", variant->grid},
             {"block", variant->block},
             {"args", spec.args},
             {"device", toJson(device)}};
    int rc = 0;
    double total = 0;
    for (const auto& name : collections) {
        auto c = parseProfileCollection(name);
        if (!c || *c == ProfileCollection::None) {
            return usage(("unknown collection " + name).c_str());
        }
        RunRequest req;
        req.profile = *c;
        req.profileMetrics = metrics;
        req.variants.push_back(*variant);
        const auto t0 = std::chrono::steady_clock::now();
        RunOutcome o = runner.run(req);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        total += wall;
        json entry{{"wall_s", wall}};
        if (o.ok && !o.result.variants.empty() && o.result.variants[0].profile) {
            entry["profile"] = toJson(*o.result.variants[0].profile);
            entry["runner_wall_s"] = o.result.wallS;
        } else {
            entry["error"] = toJson(o.error);
            rc = 1;
        }
        std::fprintf(stderr, "%s: %s in %.3f s\n", name.c_str(), o.ok ? "ok" : o.error.message.c_str(), wall);
        doc["collections"][name] = entry;
    }
    doc["total_wall_s"] = total;
    const std::string text = doc.dump(1);
    if (out.empty()) {
        std::cout << text << '\n';
    } else {
        std::ofstream(out) << text << '\n';
    }
    return rc;
}
