// Injection corpus through every entry point that can hand text to nvcc (issue 13): CLI flags
// (build, inspect, run, compare/experiment option strings), a session's options, an experiment card
// and a `--from-json` compare document. Each payload tries to run `touch CANARY` with one shell
// construct; whatever the outcome (refused, or built with the value kept literally), no canary may
// appear. Refusals must name the option and the character. The GUI entry points (options pane,
// session open) are in tests/views/test_experiment_record.cpp. Skips without nvcc.
//
// Only APIs that existed before the fix are used, so this file also builds against the old code,
// where it shows the commands running (see docs/SECURITY.md for the counts).
#include "core/build/build.h"
#include "core/build/json_io.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "core/experiment/experiment_session.h"
#include "tests/core/build_fixture.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// One shell construct each; CANARY is replaced by an absolute path.
const std::vector<std::string> kPayloads = {
    "$(touch CANARY)",     "`touch CANARY`",    ";touch CANARY;",
    "|touch CANARY|",      "&touch CANARY&",    "\ntouch CANARY\n",
    "\"$(touch CANARY)\"", "'$(touch CANARY)'", "${IFS}$(touch CANARY)",
    "\\$(touch CANARY)",   ">CANARY",           "$(touch${IFS}CANARY)",
};

// The places a payload can sit in BuildOptions.
struct Slot {
    const char* name;
    void (*put)(BuildOptions&, const std::string&);
    std::vector<std::string> (*flags)(const std::string&); // the same as CLI flags
};
const std::vector<Slot> kSlots = {
    {"define", [](BuildOptions& o, const std::string& p) { o.defines = {"X=a" + p}; },
     [](const std::string& p) {
         return std::vector<std::string>{"-D", "X=a" + p};
     }},
    {"include dir", [](BuildOptions& o, const std::string& p) { o.includeDirs = {"/nonexistent/" + p}; },
     [](const std::string& p) {
         return std::vector<std::string>{"-I", "/nonexistent/" + p};
     }},
    {"extra nvcc flag",
     [](BuildOptions& o, const std::string& p) { o.extraNvccFlags = {"-Xcompiler=-DY=" + p}; },
     [](const std::string& p) { return std::vector<std::string>{"--nvcc-flag=-Xcompiler=-DY=" + p}; }},
    {"extra ptxas flag", [](BuildOptions& o, const std::string& p) { o.extraPtxasFlags = {"--x" + p}; },
     [](const std::string& p) { return std::vector<std::string>{"--ptxas-flag=--x" + p}; }},
};

struct Case {
    std::string slot, payload, canary;
    BuildOptions options;
    std::vector<std::string> flags;
};

// Every payload in every slot, each with its own canary in `dir`.
std::vector<Case> corpus(const fs::path& dir, const std::string& tag) {
    std::vector<Case> out;
    for (const auto& slot : kSlots) {
        for (size_t i = 0; i < kPayloads.size(); ++i) {
            Case c;
            c.slot = slot.name;
            c.canary = (dir / ("canary-" + tag + "-" + std::to_string(out.size()))).string();
            c.payload = kPayloads[i];
            for (size_t p; (p = c.payload.find("CANARY")) != std::string::npos;)
                c.payload.replace(p, 6, c.canary);
            slot.put(c.options, c.payload);
            c.flags = slot.flags(c.payload);
            out.push_back(std::move(c));
        }
    }
    return out;
}

std::string kernel(const char* name) {
    return std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/" + name;
}

ProcessResult cli(std::vector<std::string> args, const fs::path& cache, const std::string& cwd = {}) {
    ProcessSpec spec;
    spec.argv = {LOWERSCOPE_CLI};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {{"LOWERSCOPE_CACHE_DIR", cache.string()}, {"LOWERSCOPE_RUNNER", "/nonexistent/runner"}};
    spec.workingDir = cwd;
    spec.timeout = std::chrono::seconds(300);
    return runProcess(spec);
}

// A refusal names the option and quotes a character.
void expectNamedRefusal(const std::string& text, const Case& c) {
    if (text.find("would be interpreted by the shell") == std::string::npos) return; // not refused
    EXPECT_NE(text.find(c.slot + " \""), std::string::npos) << text;
    EXPECT_NE(text.find("' would be interpreted"), std::string::npos) << text;
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(Injection, CliBuildFlags) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    int refused = 0;
    const auto cases = corpus(s.dir, "build");
    for (const auto& c : cases) {
        std::vector<std::string> args{"build", kernel("saxpy.cu"), "--no-cache"};
        args.insert(args.end(), c.flags.begin(), c.flags.end());
        ProcessResult r = cli(args, s.dir / "cache");
        EXPECT_FALSE(fs::exists(c.canary))
            << "a command ran: " << c.slot << " " << ::testing::PrintToString(c.payload);
        expectNamedRefusal(r.stderrText, c);
        refused += r.exitCode == 2;
    }
    std::cout << cases.size() << " cases, " << refused << " refused (exit 2)\n";
}

TEST(Injection, CliInspectRunAndOptionStrings) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    const auto cases = corpus(s.dir, "other");
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        // Rotate the entry point so that each sees every slot.
        std::vector<std::string> args;
        switch (i % 3) {
        case 0:
            args = {"inspect", kernel("saxpy.cu"), "--line", "5"};
            args.insert(args.end(), c.flags.begin(), c.flags.end());
            break;
        case 1:
            args = {"run", kernel("saxpy.cu"), "--timeout", "5"};
            args.insert(args.end(), c.flags.begin(), c.flags.end());
            break;
        default: {
            // compare --a takes a flag string split like a shell would (quotes group, nothing expands).
            std::string opts;
            for (const auto& f : c.flags) {
                std::string q = "'";
                for (char ch : f) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
                opts += (opts.empty() ? "" : " ") + q + "'";
            }
            args = {"compare", kernel("saxpy.cu"), "--a", opts, "--b", "--arch sm_90", "--timeout", "5"};
        }
        }
        ProcessResult r = cli(args, s.dir / "cache");
        EXPECT_FALSE(fs::exists(c.canary))
            << "a command ran: " << args[0] << " " << c.slot << " " << ::testing::PrintToString(c.payload);
        expectNamedRefusal(r.stderrText, c);
    }
}

TEST(Injection, SessionOptionsThroughTheBuild) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    const auto cases = corpus(s.dir, "session");
    for (const auto& c : cases) {
        // Someone else's session file: written, read back, its options built as the GUI would.
        ExperimentSession theirs;
        theirs.source = {"k.cu", readFile(kernel("saxpy.cu"))};
        theirs.a.options = c.options;
        const std::string path = (s.dir / "theirs.lowerscope").string();
        saveSession(theirs, path);
        const ExperimentSession opened = loadSession(path);
        BuildControl control;
        control.useCache = false;
        BuildResult r = buildFile(realToolchain(), kernel("saxpy.cu"), opened.a.options, control);
        EXPECT_FALSE(fs::exists(c.canary))
            << "a command ran: " << c.slot << " " << ::testing::PrintToString(c.payload);
        expectNamedRefusal(r.error, c);
        // Whatever the trust answer, every such setting is listed for it.
        EXPECT_FALSE(untrustedSettings(opened).empty()) << c.slot;
    }
}

TEST(Injection, FromJsonDocument) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    const json base =
        json::parse(readFile(fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/data/run/fast_math.compare.json"));
    const auto cases = corpus(s.dir, "json");
    for (const auto& c : cases) {
        json doc = base;
        // The document's option strings are split like a shell would; quote the payload as one word.
        std::string opts;
        for (const auto& f : c.flags) {
            std::string q = "'";
            for (char ch : f) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
            opts += (opts.empty() ? "" : " ") + q + "'";
        }
        doc["build_options_b"] = opts;
        const fs::path docPath = s.dir / "doc.compare.json";
        std::ofstream(docPath) << doc.dump();
        // --trust too: shell syntax must be refused even when the user consents.
        for (bool trust : {false, true}) {
            std::vector<std::string> args{"experiment", "--from-json", docPath.string(), "--out",
                                          (s.dir / "x").string()};
            if (trust) args.push_back("--trust");
            ProcessResult r = cli(args, s.dir / "cache", LOWERSCOPE_SOURCE_DIR);
            EXPECT_FALSE(fs::exists(c.canary))
                << "a command ran: " << c.slot << " " << ::testing::PrintToString(c.payload)
                << (trust ? " (--trust)" : "");
            expectNamedRefusal(r.stderrText, c);
        }
    }
}

TEST(Injection, CardTextIsNeverAnOption) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    const auto cases = corpus(s.dir, "card");
    for (size_t i = 0; i < cases.size(); i += 4) {
        const Case& c = cases[i];
        // A card that is a whole session carrying the payload as options and as text.
        ExperimentSession card;
        card.source = {"k.cu", "x"};
        card.a.options = c.options;
        card.card.hypothesis = c.payload;
        card.card.implementation = c.payload;
        const std::string cardPath = (s.dir / "card.lowerscope").string();
        saveSession(card, cardPath);
        ProcessResult r =
            cli({"experiment", "--from-json",
                 (fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/data/run/fast_math.compare.json").string(),
                 "--card", cardPath, "--out", (s.dir / "x").string(), "--no-diff"},
                s.dir / "cache", LOWERSCOPE_SOURCE_DIR);
        EXPECT_EQ(r.exitCode, 0) << r.stderrText;
        EXPECT_FALSE(fs::exists(c.canary))
            << "a command ran from a card: " << ::testing::PrintToString(c.payload);
        // The text is kept verbatim in the session.
        if (r.exitCode == 0)
            EXPECT_EQ(loadSession((s.dir / "x.lowerscope").string()).card.hypothesis, c.payload);
    }
}

TEST(Injection, FromJsonSourcePathsStayInTheChosenFolders) {
    ScratchDir s;
    // A secret outside both the current directory and the document's folder.
    fs::create_directories(s.dir / "outside");
    fs::create_directories(s.dir / "work" / "docs");
    std::ofstream(s.dir / "outside" / "secret.txt") << "TOP-SECRET-CONTENT";
    const json base =
        json::parse(readFile(fs::path(LOWERSCOPE_SOURCE_DIR) / "tests/data/run/fast_math.compare.json"));
    const std::vector<std::string> names = {"../outside/secret.txt", "../../outside/secret.txt",
                                            (s.dir / "outside" / "secret.txt").string(),
                                            "docs/../../outside/secret.txt"};
    for (const auto& name : names) {
        for (const char* side : {"a", "b"}) {
            json doc = base;
            doc["a"]["file"] = "k.cu";
            doc["b"]["file"] = "k.cu";
            doc[side]["file"] = name;
            std::ofstream(s.dir / "work" / "k.cu") << readFile(kernel("fast_math.cu"));
            const fs::path docPath = s.dir / "work" / "docs" / "doc.compare.json";
            std::ofstream(docPath) << doc.dump();
            fs::remove(s.dir / "work" / "x.lowerscope");
            ProcessResult r = cli({"experiment", "--from-json", docPath.string(), "--out", "x", "--no-diff"},
                                  s.dir / "cache", (s.dir / "work").string());
            const std::string saved = readFile(s.dir / "work" / "x.lowerscope");
            EXPECT_EQ(saved.find("TOP-SECRET-CONTENT"), std::string::npos) << side << ".file = " << name;
            EXPECT_EQ(r.exitCode, 2) << side << ".file = " << name << "\n" << r.stderrText;
            EXPECT_NE(r.stderrText.find(std::string(side) + ".file"), std::string::npos) << r.stderrText;
        }
    }
}

// A source whose path (folder and name) holds shell syntax is built from a copy with a safe name:
// nothing runs, its "..." includes still resolve, and diagnostics and line info name the real path.
TEST(Injection, SourcePathsWithShellSyntax) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    const std::vector<std::string> names = {"$(touch CANARY)", "`touch CANARY`", "it's a;touch CANARY", "a b\"c"};
    int n = 0;
    for (const auto& name : names) {
        const std::string canaryDir = (s.dir / ("canary-dir-" + std::to_string(n))).string();
        const std::string canaryFile = (s.dir / ("canary-file-" + std::to_string(n))).string();
        ++n;
        auto subst = [](std::string text, const std::string& canary) {
            if (size_t p = text.find("CANARY"); p != std::string::npos) text.replace(p, 6, canary);
            return text;
        };
        const std::string dirName = subst(name, fs::path(canaryDir).filename().string());
        const std::string fileName = subst(name, fs::path(canaryFile).filename().string());
        const fs::path dir = s.dir / ("d" + dirName);
        fs::create_directories(dir);
        std::ofstream(dir / "scale.h") << "#define SCALE 2.0f\n";
        const fs::path src = dir / ("k" + fileName + ".cu");
        std::ofstream(src) << "#include \"scale.h\"\n__global__ void k(float* p) { p[threadIdx.x] *= SCALE; }\n";
        // The shell would run "touch canary-..." relative to nvcc's working directory: run there.
        ProcessResult r = cli({"build", src.string(), "--no-cache", "--json", "-"}, s.dir / "cache", s.dir.string());
        EXPECT_FALSE(fs::exists(canaryDir) || fs::exists(canaryFile)) << "a command ran from the path " << src;
        ASSERT_EQ(r.exitCode, 0) << src << "\n" << r.stderrText;
        const json doc = json::parse(r.stdoutText);
        ASSERT_FALSE(doc["kernels"].empty());
        EXPECT_NE(doc["kernels"][0]["sass"].get<std::string>().find(src.string()), std::string::npos)
            << "line info does not name " << src;
        // What the user reads names the real file, never the copy (the command records do name the
        // build's temporary folder: they are what ran).
        for (const char* key : {"kernels", "ptx", "diagnostics"})
            EXPECT_EQ(doc[key].dump().find("lowerscope-build-"), std::string::npos) << "a temporary path leaked into " << key;
        // A compile error names the real file.
        std::ofstream(src) << "#include \"scale.h\"\n__global__ void k(float* p) { p[0] = undefined_name; }\n";
        ProcessResult bad = cli({"build", src.string(), "--no-cache"}, s.dir / "cache", s.dir.string());
        EXPECT_EQ(bad.exitCode, 1);
        EXPECT_NE(bad.stderrText.find(src.filename().string() + ":2"), std::string::npos) << bad.stderrText;
    }
}
