#pragma once
// Helpers for the parser golden tests: reading tests/data, comparing with expected files (with a
// unified diff on mismatch) and regenerating them with LOWERSCOPE_UPDATE_GOLDEN=1.

#include "core/parse/listing_json.h"
#include "core/build/process.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace lowerscope::golden {

inline std::filesystem::path sourceDir() { return LOWERSCOPE_SOURCE_DIR; }
inline std::filesystem::path dataDir() { return sourceDir() / "tests" / "data"; }

inline std::string readFile(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

inline void writeFile(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << text;
}

inline bool updateMode() {
    const char* v = std::getenv("LOWERSCOPE_UPDATE_GOLDEN");
    return v && std::string(v) == "1";
}

// Archs and kernels present under tests/data (sorted).
inline std::vector<std::string> archs() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dataDir()))
        if (e.is_directory() && e.path().filename().string().rfind("sm_", 0) == 0) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
}
inline std::vector<std::string> kernels(const std::string& arch) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dataDir() / arch))
        if (e.path().extension() == ".ptx") out.push_back(e.path().stem());
    std::sort(out.begin(), out.end());
    return out;
}

// A unified diff of two texts: `diff -u` when available, else the first differing line.
inline std::string unifiedDiff(const std::string& expected, const std::string& actual, const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("lowerscope-golden-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto a = dir / (name + ".expected");
    const auto b = dir / (name + ".actual");
    writeFile(a, expected);
    writeFile(b, actual);
    ProcessSpec spec;
    spec.argv = {"diff", "-u", a.string(), b.string()};
    spec.timeout = std::chrono::milliseconds(20000);
    const ProcessResult r = runProcess(spec);
    std::filesystem::remove_all(dir);
    if (r.started() && !r.stdoutText.empty()) {
        std::string d = r.stdoutText;
        if (d.size() > 20000) d = d.substr(0, 20000) + "\n... (diff truncated)\n";
        return d;
    }
    std::istringstream ea(expected), aa(actual);
    std::string le, la;
    for (int n = 1;; ++n) {
        const bool ge = static_cast<bool>(std::getline(ea, le));
        const bool ga = static_cast<bool>(std::getline(aa, la));
        if (!ge && !ga) return "(no textual difference found)";
        if (ge != ga || le != la)
            return "first difference at line " + std::to_string(n) + ":\n-" + (ge ? le : "<eof>") + "\n+" + (ga ? la : "<eof>") + "\n";
    }
}

// Compares `actual` with the expected file; in update mode rewrites the file instead.
inline ::testing::AssertionResult matchesGolden(const std::string& actual, const std::filesystem::path& expectedPath) {
    if (updateMode()) {
        writeFile(expectedPath, actual);
        return ::testing::AssertionSuccess() << "updated " << expectedPath;
    }
    if (!std::filesystem::exists(expectedPath))
        return ::testing::AssertionFailure() << "missing expected file " << expectedPath
                                             << " (run with LOWERSCOPE_UPDATE_GOLDEN=1 and review it)";
    const std::string expected = readFile(expectedPath);
    if (expected == actual) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "golden mismatch for " << expectedPath << " (rerun with LOWERSCOPE_UPDATE_GOLDEN=1 "
                                         << "to accept, then review):\n"
                                         << unifiedDiff(expected, actual, expectedPath.filename().string());
}

// Golden form of a SASS listing: valid JSON with one instruction per line, so diffs stay readable.
inline std::string sassGoldenText(const SassListing& l) {
    std::string out = "{\"arch\":" + nlohmann::json(l.arch).dump() + ",\"functions\":[\n";
    for (size_t f = 0; f < l.functions.size(); ++f) {
        const auto& fn = l.functions[f];
        nlohmann::json labels = nlohmann::json::object();
        for (const auto& [name, addr] : fn.labels) labels[name] = addr;
        out += "{\"name\":" + nlohmann::json(fn.name).dump() + ",\"labels\":" + labels.dump() + ",\"instructions\":[\n";
        for (size_t i = 0; i < fn.instructions.size(); ++i) {
            out += nlohmann::json(fn.instructions[i]).dump();
            out += i + 1 < fn.instructions.size() ? ",\n" : "\n";
        }
        out += f + 1 < l.functions.size() ? "]},\n" : "]}\n";
    }
    out += "]}\n";
    return out;
}

// Golden form of a PTX listing: header, functions, then one line per instruction line
// ({line, text, source} plus nothing else; non-instruction lines are left out).
inline std::string ptxGoldenText(const PtxListing& l) {
    nlohmann::json head = l;
    head.erase("lines");
    std::string out = "{\"header\":" + head.dump() + ",\n\"instruction_lines\":[\n";
    bool first = true;
    for (const auto& line : l.lines) {
        if (!line.isInstruction) continue;
        if (!first) out += ",\n";
        first = false;
        out += nlohmann::json(line).dump();
    }
    out += "\n]}\n";
    return out;
}

} // namespace lowerscope::golden
