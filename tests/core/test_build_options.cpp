// BuildOptions → nvcc argv, option checks, JSON round trip, and the CLI flag parser that fills them.
#include "app/cli/build_flags.h"
#include "core/build/build.h"
#include "core/build/json_io.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace lowerscope;

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Index of `s` in v, or -1.
int indexOf(const std::vector<std::string>& v, const std::string& s) {
    auto it = std::find(v.begin(), v.end(), s);
    return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

} // namespace

TEST(BuildOptions, DefaultsMapToExactArgv) {
    BuildOptions o;
    EXPECT_EQ(toNvccArgs(o),
              (std::vector<std::string>{"-arch=sm_90", "-O3", "-Xptxas", "-O3", "-lineinfo", "-std=c++17"}));
}

TEST(BuildOptions, EachOptionMapsToItsFlag) {
    struct Case {
        const char* what;
        void (*set)(BuildOptions&);
        std::vector<std::string> expected; // a contiguous run in the argv
    };
    std::vector<Case> cases = {
        {"arch", [](BuildOptions& o) { o.arch = "sm_100a"; }, {"-arch=sm_100a"}},
        {"host opt", [](BuildOptions& o) { o.hostOpt = 1; }, {"-O1"}},
        {"ptxas opt", [](BuildOptions& o) { o.ptxasOpt = 0; }, {"-Xptxas", "-O0"}},
        {"device debug", [](BuildOptions& o) { o.deviceDebug = true; }, {"-G"}},
        {"fast math", [](BuildOptions& o) { o.fastMath = true; }, {"--use_fast_math"}},
        {"ftz on", [](BuildOptions& o) { o.ftz = 1; }, {"-ftz=true"}},
        {"ftz off", [](BuildOptions& o) { o.ftz = 0; }, {"-ftz=false"}},
        {"prec-div", [](BuildOptions& o) { o.precDiv = 0; }, {"-prec-div=false"}},
        {"prec-sqrt", [](BuildOptions& o) { o.precSqrt = 1; }, {"-prec-sqrt=true"}},
        {"fmad", [](BuildOptions& o) { o.fmad = 0; }, {"-fmad=false"}},
        {"maxrregcount", [](BuildOptions& o) { o.maxRegCount = 64; }, {"-maxrregcount=64"}},
        {"extra vectorization", [](BuildOptions& o) { o.extraDeviceVectorization = true; }, {"--extra-device-vectorization"}},
        {"std", [](BuildOptions& o) { o.cppStd = "c++20"; }, {"-std=c++20"}},
        {"defines", [](BuildOptions& o) { o.defines = {"N=4", "FAST"}; }, {"-DN=4", "-DFAST"}},
        {"include dirs", [](BuildOptions& o) { o.includeDirs = {"inc", "/opt/x y"}; }, {"-Iinc", "-I/opt/x y"}},
        {"nvcc flags", [](BuildOptions& o) { o.extraNvccFlags = {"-Xcompiler", "-Wall"}; }, {"-Xcompiler", "-Wall"}},
        {"ptxas flags", [](BuildOptions& o) { o.extraPtxasFlags = {"-warn-spills", "--allow-expensive-optimizations=true"}; },
         {"-Xptxas", "-warn-spills", "-Xptxas", "--allow-expensive-optimizations=true"}},
    };
    for (const auto& c : cases) {
        BuildOptions o;
        c.set(o);
        std::vector<std::string> argv = toNvccArgs(o);
        auto it = std::search(argv.begin(), argv.end(), c.expected.begin(), c.expected.end());
        EXPECT_NE(it, argv.end()) << c.what << ": " << shellQuote(argv);
    }
}

TEST(BuildOptions, OmittedFlagsForDefaults) {
    BuildOptions o;
    auto argv = toNvccArgs(o);
    for (const char* prefix : {"-ftz", "-prec-div", "-prec-sqrt", "-fmad", "-maxrregcount", "--use_fast_math", "-G"})
        for (const auto& a : argv) EXPECT_NE(a.rfind(prefix, 0), 0u) << prefix << " present by default";
    o.lineinfo = false;
    EXPECT_FALSE(contains(toNvccArgs(o), "-lineinfo"));
    o.cppStd = "";
    for (const auto& a : toNvccArgs(o)) EXPECT_NE(a.rfind("-std", 0), 0u);
    // -G carries line info itself; nvcc warns if -lineinfo is added, so it is not.
    BuildOptions g;
    g.deviceDebug = true;
    EXPECT_TRUE(contains(toNvccArgs(g), "-G"));
    EXPECT_FALSE(contains(toNvccArgs(g), "-lineinfo"));
}

TEST(BuildOptions, ExtraFlagsComeAfterTheMappedOnes) {
    BuildOptions o;
    o.extraNvccFlags = {"-arch=sm_80"}; // verbatim, last: the user's flag wins where nvcc allows
    auto argv = toNvccArgs(o);
    EXPECT_LT(indexOf(argv, "-arch=sm_90"), indexOf(argv, "-arch=sm_80"));
}

TEST(BuildOptions, ShellQuoteIsForDisplay) {
    EXPECT_EQ(shellQuote({"nvcc", "-arch=sm_90", "-DX=1"}), "nvcc -arch=sm_90 -DX=1");
    EXPECT_EQ(shellQuote({"a b", "it's", "", "$HOME"}), "'a b' 'it'\\''s' '' '$HOME'");
}

TEST(BuildOptions, CheckRejectsBadValues) {
    BuildOptions o;
    EXPECT_EQ(checkBuildOptions(o), "");
    for (const char* arch : {"sm_90", "sm_90a", "sm_100f", "sm_120"}) {
        o.arch = arch;
        EXPECT_EQ(checkBuildOptions(o), "") << arch;
    }
    for (const char* arch : {"", "sm90", "compute_90", "sm_9", "sm_90b", "sm_90 ", "sm_90;rm"}) {
        o.arch = arch;
        EXPECT_NE(checkBuildOptions(o).find("arch"), std::string::npos) << arch;
    }
    o = BuildOptions{};
    o.hostOpt = 4;
    EXPECT_NE(checkBuildOptions(o), "");
    o = BuildOptions{};
    o.ptxasOpt = -1;
    EXPECT_NE(checkBuildOptions(o), "");
    o = BuildOptions{};
    o.maxRegCount = -5;
    EXPECT_NE(checkBuildOptions(o), "");
    o = BuildOptions{};
    o.fmad = 2;
    EXPECT_NE(checkBuildOptions(o), "");
    o = BuildOptions{};
    o.defines = {"=1"};
    EXPECT_NE(checkBuildOptions(o), "");
    o = BuildOptions{};
    o.cppStd = "c++17; rm -rf";
    EXPECT_NE(checkBuildOptions(o), "");
}

TEST(BuildOptionsJson, RoundTripsEveryField) {
    BuildOptions o;
    o.arch = "sm_80";
    o.hostOpt = 2;
    o.ptxasOpt = 1;
    o.lineinfo = false;
    o.deviceDebug = true;
    o.fastMath = true;
    o.ftz = 1;
    o.precDiv = 0;
    o.precSqrt = -1;
    o.fmad = 0;
    o.maxRegCount = 40;
    o.extraDeviceVectorization = true;
    o.cppStd = "c++20";
    o.defines = {"A=1", "B"};
    o.includeDirs = {"inc"};
    o.extraNvccFlags = {"-Xcompiler", "-O2"};
    o.extraPtxasFlags = {"-warn-spills"};
    nlohmann::json j = o;
    EXPECT_EQ(j["ftz"], true);
    EXPECT_EQ(j["prec_div"], false);
    EXPECT_TRUE(j["prec_sqrt"].is_null());
    BuildOptions back = nlohmann::json::parse(j.dump()).get<BuildOptions>();
    EXPECT_EQ(back, o);
    EXPECT_EQ(nlohmann::json(BuildOptions{}).get<BuildOptions>(), BuildOptions{});
}

TEST(BuildOptionsJson, MissingKeysTakeDefaultsWrongTypesThrow) {
    auto o = nlohmann::json::parse(R"({"arch":"sm_80","fast_math":true})").get<BuildOptions>();
    BuildOptions expected;
    expected.arch = "sm_80";
    expected.fastMath = true;
    EXPECT_EQ(o, expected);
    EXPECT_THROW(nlohmann::json::parse(R"({"arch":7})").get<BuildOptions>(), nlohmann::json::exception);
    EXPECT_THROW(nlohmann::json::parse(R"([1,2])").get<BuildOptions>(), nlohmann::json::exception);
}

TEST(ResultJson, DiagnosticsResourcesAndResultRoundTrip) {
    BuildResult r;
    r.ok = true;
    r.cacheKey = "abc";
    r.toolchainFingerprint = "nvcc 13.0.88";
    r.diagnostics = {{"k.cu", 6, 12, Severity::Error, "identifier \"foo\" is undefined", "nvcc"},
                     {"", 0, 0, Severity::Warning, "w", "ptxas"}};
    CommandRecord c;
    c.stage = "cubin";
    c.argv = {"nvcc", "-cubin"};
    c.exitCode = 0;
    c.wallMs = 12.5;
    c.stderrText = "ptxas info";
    r.commands = {c};
    r.timingsMs = {{"compile", 10}, {"total", 11}};
    r.ptx = ".version 9.0\n";
    KernelArtifacts k;
    k.name = "saxpy(int)";
    k.mangled = "_Z5saxpyi";
    k.resources = {32, 2048, 0, 8, 400, 4, 8, 1};
    k.ptx = ".entry x";
    k.ptxFirstLine = 12;
    k.sass = "S";
    k.sassPtxLines = "SP";
    r.kernels = {k};
    nlohmann::json j = r;
    EXPECT_EQ(j["kernels"][0]["resources"]["shared_bytes"], 2048);
    EXPECT_EQ(j["kernels"][0]["resources"]["spill_stores"], 4);
    EXPECT_EQ(j["diagnostics"][0]["severity"], "error");
    EXPECT_EQ(j["commands"][0]["command"], "nvcc -cubin");
    BuildResult back = nlohmann::json::parse(j.dump()).get<BuildResult>();
    EXPECT_EQ(nlohmann::json(back), j);
    EXPECT_EQ(back.kernels[0].resources, k.resources);
    EXPECT_EQ(back.diagnostics, r.diagnostics);
}

// ------------------------------------------------------------------------------- CLI flag parser

TEST(BuildFlags, ParseStringUsesTheSharedFlags) {
    BuildOptions o = cli::parseBuildOptionString(
        "--arch sm_80 --opt 1 --ptxas-opt 2 --fast-math --ftz true --prec-div false --prec-sqrt true --fmad false "
        "--maxrregcount 64 --no-lineinfo -G --extra-device-vectorization --std c++20 -D N=4 -DFAST -I inc "
        "--nvcc-flag=-Xcompiler --nvcc-flag -Wall --ptxas-flag=-warn-spills");
    BuildOptions e;
    e.arch = "sm_80";
    e.hostOpt = 1;
    e.ptxasOpt = 2;
    e.fastMath = true;
    e.ftz = 1;
    e.precDiv = 0;
    e.precSqrt = 1;
    e.fmad = 0;
    e.maxRegCount = 64;
    e.lineinfo = false;
    e.deviceDebug = true;
    e.extraDeviceVectorization = true;
    e.cppStd = "c++20";
    e.defines = {"N=4", "FAST"};
    e.includeDirs = {"inc"};
    e.extraNvccFlags = {"-Xcompiler", "-Wall"};
    e.extraPtxasFlags = {"-warn-spills"};
    EXPECT_EQ(o, e);
    EXPECT_EQ(cli::parseBuildOptionString(""), BuildOptions{});
    EXPECT_EQ(cli::parseBuildOptionString("  --arch   sm_90  "), BuildOptions{});
}

TEST(BuildFlags, QuotesGroupWords) {
    BuildOptions o = cli::parseBuildOptionString(R"(-D 'MSG="a b"' -I "dir with space" -D X=\ y)");
    EXPECT_EQ(o.defines, (std::vector<std::string>{"MSG=\"a b\"", "X= y"}));
    EXPECT_EQ(o.includeDirs, (std::vector<std::string>{"dir with space"}));
    EXPECT_EQ(cli::splitShellWords(R"(a "b \" c" 'd\e' f\ g "")"),
              (std::vector<std::string>{"a", "b \" c", "d\\e", "f g", ""}));
    // Inside "...", \$ and \` are their characters, as in POSIX sh; other backslashes stay. The same
    // rule splits a compile database's "command".
    EXPECT_EQ(cli::splitShellWords(R"("\$HOME \`id\` \n")"), (std::vector<std::string>{"$HOME `id` \\n"}));
    EXPECT_EQ(splitCommandLine(R"(nvcc "-DX=\$Y")"), (std::vector<std::string>{"nvcc", "-DX=$Y"}));
}

TEST(BuildFlags, BadInputThrowsInvalidArgument) {
    for (const char* bad : {"--arch", "--opt 9", "--opt x", "--bogus", "stray.cu", "--ftz maybe", "--arch sm_9x",
                            "--arch 'sm_90", "-D \"unterminated", "trailing\\", "--maxrregcount -1"}) {
        try {
            cli::parseBuildOptionString(bad);
            ADD_FAILURE() << "accepted: " << bad;
        } catch (const std::invalid_argument& e) {
            EXPECT_GT(std::string(e.what()).size(), 10u) << bad;
        }
    }
}

TEST(BuildOptionsJson, OneReaderReportsEachWrongTypeByPathAndKeepsTheDefault) {
    // The lenient use (GUI settings): every wrongly typed field is reported and keeps its default,
    // the others are read.
    const auto j = nlohmann::json::parse(
        R"({"arch":"sm_90","host_opt":"3","lineinfo":1,"ftz":0,"fmad":false,"defines":["A",2],"std":null,
            "max_reg_count":4294967296,"include_dirs":["inc"]})");
    std::vector<std::string> reports;
    const BuildOptions o = readBuildOptions(j, "x.options", [&](const std::string& path, const char* expected,
                                                                 const nlohmann::json& found) {
        reports.push_back(path + ": " + expected + " / " + found.type_name());
    });
    const BuildOptions defaults;
    EXPECT_EQ(o.arch, "sm_90");
    EXPECT_EQ(o.fmad, 0);
    EXPECT_EQ(o.includeDirs, std::vector<std::string>{"inc"});
    EXPECT_EQ(o.hostOpt, defaults.hostOpt);
    EXPECT_EQ(o.lineinfo, defaults.lineinfo);
    EXPECT_EQ(o.ftz, defaults.ftz);
    EXPECT_EQ(o.defines, defaults.defines);
    EXPECT_EQ(o.cppStd, defaults.cppStd);
    EXPECT_EQ(o.maxRegCount, defaults.maxRegCount);
    const std::vector<std::string> expected = {
        "x.options.host_opt: an integer / string",        "x.options.lineinfo: true or false / number",
        "x.options.ftz: true, false or null / number",    "x.options.max_reg_count: a 32-bit integer / number",
        "x.options.std: a string / null",                 "x.options.defines[1]: a string / number"};
    std::vector<std::string> sortedReports = reports, sortedExpected = expected;
    std::sort(sortedReports.begin(), sortedReports.end());
    std::sort(sortedExpected.begin(), sortedExpected.end());
    EXPECT_EQ(sortedReports, sortedExpected);

    // from_json names the key in nlohmann's exception.
    try {
        (void)nlohmann::json::parse(R"({"fast_math":"yes"})").get<BuildOptions>();
        ADD_FAILURE() << "no exception";
    } catch (const nlohmann::json::type_error& e) {
        EXPECT_NE(std::string(e.what()).find("build options.fast_math: expected true or false, found string"),
                  std::string::npos)
            << e.what();
    }
}
