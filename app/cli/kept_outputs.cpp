// `lowerscope-cli compare-outputs` and the --keep-outputs files it reads: DIR/<name>.bin with the
// raw bytes of each output and DIR/outputs.json ("lowerscope.outputs/1") naming them.
#include "app/cli/kept_outputs.h"

#include "app/cli/commands.h"
#include "core/run/argspec.h"
#include "core/run/buffer_data.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace lowerscope::cli {

namespace {

using nlohmann::json;

constexpr int kOk = 0, kKernelError = 1, kUsage = 2;

struct CompareOutputsArgs {
    std::string dirA, dirB;
    double atol = 1e-5, rtol = 1e-4;
    std::string jsonOut;
};

// Reads DIR/outputs.json and the .bin files it names.
std::vector<std::pair<OutputReport, std::vector<uint8_t>>> readKept(const std::string& dir) {
    std::ifstream in((std::filesystem::path(dir) / "outputs.json").string());
    if (!in) {
        throw CliFailure{kUsage, "cannot read " + dir + "/outputs.json"};
    }
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("outputs") || !j["outputs"].is_array()) {
        throw CliFailure{kUsage, dir + "/outputs.json is not a lowerscope.outputs/1 document"};
    }
    std::vector<std::pair<OutputReport, std::vector<uint8_t>>> out;
    for (const auto& o : j["outputs"]) {
        OutputReport r;
        r.name = o.value("name", "");
        auto t = parseElemType(o.value("type", ""));
        if (!t || r.name.empty()) {
            throw CliFailure{kUsage, dir + "/outputs.json: bad entry"};
        }
        r.type = *t;
        r.count = o.value("count", int64_t(0));
        std::ifstream bin((std::filesystem::path(dir) / o.value("file", r.name + ".bin")).string(), std::ios::binary);
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
        out.emplace_back(r, std::move(data));
    }
    return out;
}

int runCompareOutputs(const CompareOutputsArgs& a) {
    try {
        auto A = readKept(a.dirA);
        auto B = readKept(a.dirB);
        json results = json::array();
        bool all = true;
        for (const auto& [ra, da] : A) {
            const std::vector<uint8_t>* db = nullptr;
            const OutputReport* rb = nullptr;
            for (const auto& [r, d] : B) {
                if (r.name == ra.name) {
                    db = &d;
                    rb = &r;
                }
            }
            if (!db) {
                std::printf("output %s: missing in %s\n", ra.name.c_str(), a.dirB.c_str());
                all = false;
                continue;
            }
            BufferComparison c = rb->type == ra.type ? compareBuffers(ra.type, da, *db, a.atol, a.rtol)
                                                     : BufferComparison{0, 0, 0, 0, -1, true};
            all = all && c.agree();
            results.push_back(json{{"name", ra.name},
                                   {"agree", c.agree()},
                                   {"size_mismatch", c.sizeMismatch},
                                   {"count", c.count},
                                   {"mismatches", c.mismatches},
                                   {"max_abs_error", c.maxAbsError},
                                   {"max_rel_error", c.maxRelError},
                                   {"first_mismatch", c.firstMismatch}});
            if (a.jsonOut != "-") {
                std::printf("output %s: %s (max abs error %.3g, max rel error %.3g, %lld of %lld beyond tolerance)\n",
                            ra.name.c_str(), c.sizeMismatch ? "DIFFERENT SIZE/TYPE" : c.agree() ? "agree" : "DIFFER",
                            c.maxAbsError, c.maxRelError, static_cast<long long>(c.mismatches),
                            static_cast<long long>(c.count));
            }
        }
        if (!a.jsonOut.empty() &&
            !writeJson(json{{"schema", "lowerscope.compare-outputs/1"}, {"agree", all}, {"outputs", results}},
                       a.jsonOut)) {
            return kUsage;
        }
        return all ? kOk : kKernelError;
    } catch (const CliFailure& f) {
        std::cerr << "lowerscope-cli compare-outputs: " << f.message << '\n';
        return f.code;
    }
}

} // namespace

void keepOutputs(const std::string& dir, const VariantResult& v) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        throw CliFailure{kUsage, "cannot create " + dir + ": " + ec.message()};
    }
    json index = json::array();
    for (const auto& o : v.outputs) {
        std::string path = (std::filesystem::path(dir) / (o.name + ".bin")).string();
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(o.data.data()), static_cast<std::streamsize>(o.data.size()));
        if (!out) {
            throw CliFailure{kUsage, "cannot write " + path};
        }
        index.push_back(json{{"name", o.name},
                             {"type", elemTypeName(o.type)},
                             {"count", o.count},
                             {"digest", o.digest},
                             {"file", o.name + ".bin"}});
    }
    if (!writeJson(json{{"schema", "lowerscope.outputs/1"}, {"kernel", v.kernel}, {"outputs", index}},
                   (std::filesystem::path(dir) / "outputs.json").string())) {
        throw CliFailure{kUsage, "cannot write " + dir + "/outputs.json"};
    }
}

void registerCompareOutputsCommand(CLI::App& app, int& exitCode) {
    auto coArgs = std::make_shared<CompareOutputsArgs>();
    CLI::App* co = app.add_subcommand(
        "compare-outputs", "Compare outputs saved by run/compare --keep-outputs: max abs/rel error and the count of "
                           "elements beyond atol + rtol*|a|. Exit 0 when all agree, 1 when not, 2 on errors.");
    co->add_option("dir_a", coArgs->dirA, "outputs of A (reference)")->required()->type_name("DIR");
    co->add_option("dir_b", coArgs->dirB, "outputs of B")->required()->type_name("DIR");
    co->add_option("--atol", coArgs->atol, "absolute tolerance (default 1e-5)");
    co->add_option("--rtol", coArgs->rtol, "relative tolerance (default 1e-4)");
    co->add_option("--json", coArgs->jsonOut, "write the result as JSON to OUT ('-' = stdout)")->type_name("OUT");
    co->callback([coArgs, &exitCode] { exitCode = runCompareOutputs(*coArgs); });
}

} // namespace lowerscope::cli
