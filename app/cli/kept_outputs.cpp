// `lowerscope-cli compare-outputs` and the --keep-outputs files it reads: DIR/<name>.bin with the
// raw bytes of each output and DIR/outputs.json ("lowerscope.outputs/1") naming them.
#include "app/cli/kept_outputs.h"

#include "app/cli/commands.h"
#include "core/run/argspec.h"
#include "core/run/buffer_data.h"
#include "core/bounded_json.h"
#include "core/untrusted.h"

#include <algorithm>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>

namespace lowerscope::cli {

namespace {

using nlohmann::json;

constexpr int kOk = 0, kKernelError = 1, kUsage = 2;

struct CompareOutputsArgs {
    std::string dirA, dirB;
    double atol = 1e-5, rtol = 1e-4;
    std::string jsonOut;
};

// Reads DIR/outputs.json (bounded, core/bounded_json.h) and the .bin files it names. The folder may
// come from someone else: a file must be a plain name inside DIR (safeBaseName), exist, and hold
// exactly count elements; anything else is an error (exit 2), never an empty buffer that "agrees".
std::vector<std::pair<OutputReport, std::vector<uint8_t>>> readKept(const std::string& dir) {
    const std::string index = (std::filesystem::path(dir) / "outputs.json").string();
    std::string error;
    const std::optional<json> doc = readJsonFileBounded(index, error);
    if (!doc) {
        throw CliFailure{kUsage, escapeControl(error)};
    }
    const json& j = *doc;
    if (!j.is_object() || !j.contains("outputs") || !j["outputs"].is_array()) {
        throw CliFailure{kUsage, index + " is not a lowerscope.outputs/1 document"};
    }
    std::vector<std::pair<OutputReport, std::vector<uint8_t>>> out;
    size_t n = 0;
    for (const auto& o : j["outputs"]) {
        const std::string where = index + ": outputs[" + std::to_string(n++) + "]";
        auto text = [&](const char* key) {
            return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
        };
        OutputReport r;
        r.name = text("name");
        auto t = parseElemType(text("type"));
        const bool named = o.is_object() && o.contains("name") && o["name"].is_string(); // "" is a name too
        if (!t || !named || !o.contains("count") || !o["count"].is_number_integer()) {
            throw CliFailure{kUsage, where + ": needs a name, a type (f32, ...) and an integer count"};
        }
        r.type = *t;
        r.count = o["count"].get<int64_t>();
        const std::string file = o.contains("file") ? text("file") : safeBaseName(r.name) + ".bin";
        if (file.empty() || file != safeBaseName(file)) {
            throw CliFailure{kUsage, where + ": file \"" + escapeControl(file) + "\" is not a plain file name in " + dir +
                                         "; refused"};
        }
        const std::string binPath = (std::filesystem::path(dir) / file).string();
        std::error_code ec;
        if (!std::filesystem::is_regular_file(binPath, ec)) {
            throw CliFailure{kUsage, "output " + escapeControl(r.name) + ": " + binPath + " is missing"};
        }
        const auto size = std::filesystem::file_size(binPath, ec);
        const int64_t elem = elemSize(r.type);
        if (ec || r.count < 0 || r.count > (int64_t(1) << 40) / elem || size != uint64_t(r.count * elem)) {
            throw CliFailure{kUsage, "output " + escapeControl(r.name) + ": " + binPath + " holds " + std::to_string(size) +
                                         " bytes, not the " + std::to_string(r.count) + " elements outputs.json says"};
        }
        std::ifstream bin(binPath, std::ios::binary);
        std::vector<uint8_t> data((std::istreambuf_iterator<char>(bin)), std::istreambuf_iterator<char>());
        if (!bin.eof() && !bin) {
            throw CliFailure{kUsage, "cannot read " + binPath};
        }
        out.emplace_back(r, std::move(data));
    }
    return out;
}

int runCompareOutputs(const CompareOutputsArgs& a) {
    try {
        auto A = readKept(a.dirA);
        auto B = readKept(a.dirB);
        if (A.empty() && B.empty()) {
            throw CliFailure{kUsage, "no outputs to compare in " + a.dirA + " and " + a.dirB};
        }
        json results = json::array();
        bool all = true;
        // An output only B has is missing in A: it never agrees.
        for (const auto& [rb, db] : B) {
            if (std::none_of(A.begin(), A.end(), [&](const auto& x) { return x.first.name == rb.name; })) {
                std::printf("output %s: missing in %s\n", escapeControl(rb.name).c_str(), a.dirA.c_str());
                results.push_back(json{{"name", rb.name}, {"agree", false}, {"missing_in", "a"}});
                all = false;
            }
        }
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
                std::printf("output %s: missing in %s\n", escapeControl(ra.name).c_str(), a.dirB.c_str());
                results.push_back(json{{"name", ra.name}, {"agree", false}, {"missing_in", "b"}});
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
                            escapeControl(ra.name).c_str(), c.sizeMismatch ? "DIFFERENT SIZE/TYPE" : c.agree() ? "agree" : "DIFFER",
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
    std::set<std::string> taken;
    for (const auto& o : v.outputs) {
        // The runner names the outputs (it may sit on another host): only a safe base name becomes a
        // file, always inside DIR; two names that reduce alike get -2, -3, ...
        std::string file = safeBaseName(o.name);
        for (int k = 2; !taken.insert(file).second; ++k) file = safeBaseName(o.name) + "-" + std::to_string(k);
        file += ".bin";
        std::string path = (std::filesystem::path(dir) / file).string();
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(o.data.data()), static_cast<std::streamsize>(o.data.size()));
        if (!out) {
            throw CliFailure{kUsage, "cannot write " + path};
        }
        index.push_back(json{{"name", o.name},
                             {"type", elemTypeName(o.type)},
                             {"count", o.count},
                             {"digest", o.digest},
                             {"file", file}});
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
