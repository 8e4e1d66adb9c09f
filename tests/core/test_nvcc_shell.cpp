// The option safety rule (core/build/option_safety.h) against the installed nvcc: every value the
// rule accepts is run through nvcc with a canary command inside and no canary may appear; and, for
// nvcc 13, the payloads the rule refuses do run a command when handed to nvcc raw (the rule is
// needed, and the table in docs/SECURITY.md is still true). Skips without nvcc.
#include "core/build/option_safety.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "tests/core/build_fixture.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;

namespace {

// A scratch folder holding the kernel k.cu.
struct Scratch : ScratchDir {
    Scratch() : ScratchDir("lowerscope-shell") { write("k.cu", "__global__ void k(float* p) { p[0] = 1; }\n"); }
};

// Runs nvcc the way buildFile does (-cubin, -Xptxas -v, -keep) with `extra` added; returns the
// canaries (files named canary-*) that appeared in `dir`.
std::vector<std::string> runNvcc(const fs::path& dir, const std::vector<std::string>& extra,
                                 const std::string& source = "k.cu") {
    ProcessSpec spec;
    spec.argv = {realToolchain().nvcc.path, "-arch=sm_90", "-O3", "-lineinfo"};
    spec.argv.insert(spec.argv.end(), extra.begin(), extra.end());
    for (const char* a : {"-cubin", "-Xptxas", "-v", "-o", "out.cubin"}) spec.argv.push_back(a);
    spec.argv.push_back(source);
    spec.workingDir = dir.string();
    spec.timeout = std::chrono::seconds(120);
    runProcess(spec);
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind("canary-", 0) == 0)
            found.push_back(e.path().filename().string());
    return found;
}

// Payload templates: each tries to run `touch canary-N` (relative: nvcc's steps run in `dir`) by
// one shell construct, with CH standing for the character under test.
const std::vector<std::string> kTemplates = {
    "aCHtouch canary-NCHb",       // separators: ; & | newline
    "aCH touch canary-N CHb",     // the same with spaces
    "CHtouch canary-N",           // at word start: # ~ ( ...
    "a\"CH touch canary-N CH\"b", // inside balanced double quotes
    "a'CH touch canary-N CH'b",   // inside balanced single quotes
    "aCH(touch canary-N)b",       // $( ) and <( )
    "aCH>canary-N",               // redirection
};

// Every accepted value for `slot` built from the templates and all printable ASCII characters.
std::vector<std::string> acceptedPayloads(OptionSlot slot, const std::string& prefix, int& serial) {
    std::vector<std::string> out;
    for (int c = 0x20; c < 0x7f; ++c) {
        if (std::isalnum(c)) continue;
        for (const auto& t : kTemplates) {
            std::string v = prefix + t;
            const std::string n = std::to_string(serial);
            for (size_t p; (p = v.find("CH")) != std::string::npos;) v.replace(p, 2, std::string(1, char(c)));
            for (size_t p; (p = v.find("-N")) != std::string::npos;) v.replace(p, 2, "-" + n);
            if (!checkOptionValue("x", v, slot).empty()) continue;
            out.push_back(v);
            ++serial;
        }
    }
    return out;
}

} // namespace

TEST(NvccShell, NothingTheRuleAcceptsRunsACommand) {
    if (!realToolchain().nvcc.found()) GTEST_SKIP() << "nvcc not found";
    Scratch s;
    int serial = 0;
    size_t tried = 0;
    // One nvcc run per slot and template family: every accepted value at once (a value that ends
    // the command early would hide the later ones, so they are also run in small groups below when
    // this finds nothing).
    struct Family {
        OptionSlot slot;
        std::string prefix;
        std::vector<std::string> (*argv)(const std::string&);
    };
    const std::vector<Family> families = {
        {OptionSlot::Define, "X=", [](const std::string& v) { return std::vector<std::string>{"-D" + v}; }},
        {OptionSlot::IncludeDir, "/nonexistent/",
         [](const std::string& v) { return std::vector<std::string>{"-I" + v}; }},
        {OptionSlot::PtxasFlag, "--x=",
         [](const std::string& v) {
             return std::vector<std::string>{"-Xptxas", v};
         }},
        {OptionSlot::NvccFlag,
         "-Xcompiler=-DY=", [](const std::string& v) { return std::vector<std::string>{v}; }},
    };
    for (const auto& f : families) {
        const auto values = acceptedPayloads(f.slot, f.prefix, serial);
        tried += values.size();
        // Groups of 8 so that one value that stops the line cannot mask many others.
        for (size_t i = 0; i < values.size(); i += 8) {
            std::vector<std::string> argv;
            for (size_t k = i; k < std::min(values.size(), i + 8); ++k)
                for (auto& a : f.argv(values[k])) argv.push_back(a);
            const auto canaries = runNvcc(s.dir, argv);
            EXPECT_TRUE(canaries.empty())
                << "a command ran from an accepted value; first: " << canaries.front() << " among "
                << ::testing::PrintToString(argv);
            for (const auto& c : canaries) fs::remove(s.dir / c);
        }
    }
    std::cout << "accepted values tried through nvcc: " << tried << "\n";
    EXPECT_GT(tried, 100u);
}

TEST(NvccShell, RefusedValuesDoRunACommandWithNvcc13) {
    if (!realToolchain().nvcc.found()) GTEST_SKIP() << "nvcc not found";
    if (realToolchain().nvcc.version.rfind("13.", 0) != 0)
        GTEST_SKIP() << "the measured table is for nvcc 13 (found " << realToolchain().nvcc.version << ")";
    Scratch s;
    struct Case {
        const char* what;
        OptionSlot slot;
        std::vector<std::string> argv; // with canary-C
    };
    const std::vector<Case> cases = {
        {"define $()", OptionSlot::Define, {"-DX=$(touch canary-C)"}},
        {"define backtick", OptionSlot::Define, {"-DX=`touch canary-C`"}},
        {"include backtick", OptionSlot::IncludeDir, {"-I/x`touch canary-C`"}},
        {"ptxas ;", OptionSlot::PtxasFlag, {"-Xptxas", "--x;touch canary-C;"}},
        {"ptxas |", OptionSlot::PtxasFlag, {"-Xptxas", "--x|touch canary-C|"}},
        {"ptxas newline", OptionSlot::PtxasFlag, {"-Xptxas", "--x\ntouch canary-C\n"}},
        {"xcompiler $()", OptionSlot::NvccFlag, {"-Xcompiler=-DY=$(touch canary-C)"}},
        {"keep-dir $()", OptionSlot::NvccFlag, {"-keep", "--keep-dir=kd$(touch canary-C)"}},
    };
    for (const auto& c : cases) {
        // The rule refuses it...
        std::string refused = checkNvccArgs("x", c.argv);
        if (c.argv.size() == 1 && c.slot != OptionSlot::NvccFlag) {
            std::string v = c.argv[0].substr(2);
            refused = checkOptionValue("x", v, c.slot);
        } else if (c.slot == OptionSlot::PtxasFlag) {
            refused = checkOptionValue("x", c.argv[1], c.slot);
        }
        EXPECT_FALSE(refused.empty()) << c.what;
        // ...and nvcc would have run it.
        const auto canaries = runNvcc(s.dir, c.argv);
        EXPECT_EQ(canaries.size(), 1u) << c.what << ": nvcc no longer runs this; the table may be relaxed";
        for (const auto& f : canaries) fs::remove(s.dir / f);
    }
    // A source file name: nvcc puts it in double quotes, so $() runs (buildFile copies such files).
    std::ofstream(s.dir / "k$(touch canary-S).cu") << "__global__ void k(float* p) { p[0] = 1; }\n";
    EXPECT_FALSE(isShellSafePath("k$(touch canary-S).cu"));
    EXPECT_EQ(runNvcc(s.dir, {}, "k$(touch canary-S).cu").size(), 1u);
}
