// The build pipeline against the real toolchain: every example kernel, diagnostics, missing tools,
// the cache, cancellation; plus the output parsers on captured real tool output.
#include "core/build/build.h"
#include "core/build/cache.h"
#include "core/build/demangle.h"
#include "core/build/json_io.h"
#include "core/build/process.h"
#include "core/build/toolchain.h"
#include "core/parse/diagnostics.h"
#include "core/parse/tool_output.h"
#include "tests/core/build_fixture.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sys/resource.h>
#include <thread>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Hermetic: tests never write the user's cache directory (memoDir "-" asks the tools directly).
DiscoveryOptions noMemo() {
    DiscoveryOptions o;
    o.memoDir = "-";
    return o;
}

std::vector<std::string> exampleKernels() {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(fs::path(LOWERSCOPE_SOURCE_DIR) / "kernels"))
        if (e.path().extension() == ".cu") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

// Number of `.entry` kernels in the module PTX, counted independently of ptxEntries().
int countEntries(const std::string& ptx) {
    static const std::regex re(R"(^\s*\.visible\s+\.entry\s)");
    int n = 0;
    std::istringstream ss(ptx);
    std::string line;
    while (std::getline(ss, line)) n += std::regex_search(line, re);
    return n;
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream ss(text);
    std::string l;
    while (std::getline(ss, l)) out.push_back(l);
    return out;
}

// Checks the artifacts of one successful build; `what` names it in failure messages.
void checkArtifacts(const BuildResult& r, const std::string& what) {
    ASSERT_TRUE(r.ok) << what << ": " << r.error;
    EXPECT_FALSE(r.compileError);
    EXPECT_FALSE(r.cubin.empty()) << what;
    ASSERT_FALSE(r.ptx.empty()) << what;
    ASSERT_GT(r.kernels.size(), 0u) << what;
    EXPECT_EQ(static_cast<int>(r.kernels.size()), countEntries(r.ptx)) << what;
    for (const auto& k : r.kernels) {
        SCOPED_TRACE(what + " " + k.mangled);
        EXPECT_FALSE(k.name.empty());
        EXPECT_EQ(k.name, demangle(k.mangled));
        EXPECT_NE(k.ptx.find(".entry " + k.mangled), std::string::npos);
        EXPECT_EQ(k.ptx.back(), '\n');
        // The slice sits at ptxFirstLine in the module text.
        auto moduleLines = lines(r.ptx);
        auto sliceLines = lines(k.ptx);
        ASSERT_GE(k.ptxFirstLine, 1);
        ASSERT_LE(k.ptxFirstLine - 1 + sliceLines.size(), moduleLines.size());
        for (size_t i = 0; i < sliceLines.size(); ++i) ASSERT_EQ(sliceLines[i], moduleLines[k.ptxFirstLine - 1 + i]);
        EXPECT_EQ(sliceLines.back().find('}'), 0u) << sliceLines.back();
        EXPECT_NE(k.sass.find(".text." + k.mangled), std::string::npos);
        EXPECT_NE(k.sass.find("EXIT"), std::string::npos);
        EXPECT_NE(k.sass.find("//## File"), std::string::npos) << "no line info";
        EXPECT_EQ(k.sass.find(".nv_debug_ptx_txt"), std::string::npos);
        EXPECT_NE(k.sassPtxLines.find(".nv_debug_ptx_txt"), std::string::npos);
        EXPECT_GT(k.resources.registers, 0);
        EXPECT_GE(k.resources.sharedBytes, 0);
        EXPECT_GE(k.resources.localBytes, 0);
        EXPECT_GE(k.resources.stackBytes, 0);
        EXPECT_GE(k.resources.spillStores, 0);
        EXPECT_GE(k.resources.spillLoads, 0);
        EXPECT_GT(k.resources.constantBytes, 0);
        EXPECT_GE(k.resources.barriers, 0);
    }
    // Every command ran and is recorded with its argv.
    ASSERT_GE(r.commands.size(), 3u);
    for (const auto& c : r.commands) {
        EXPECT_EQ(c.exitCode, 0) << c.stage;
        EXPECT_FALSE(c.argv.empty());
        // Live registers come from the core: nvdisasm -lrm (slow on big kernels, refuses 255
        // registers) is never run.
        EXPECT_EQ(std::find(c.argv.begin(), c.argv.end(), "-lrm"), c.argv.end()) << c.stage;
    }
    EXPECT_EQ(r.commands[0].stage, "cubin");
    for (const char* stage : {"compile", "disassemble", "parse", "total"}) EXPECT_TRUE(r.timingsMs.count(stage)) << stage;
}

std::string cubinToFile(const BuildResult& r, const ScratchDir& s, const std::string& name) {
    fs::path p = s.dir / name;
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(r.cubin.data()), r.cubin.size());
    return p.string();
}

} // namespace

// ------------------------------------------------------------------------------ real toolchain

TEST(Toolchain, DiscoversToolsVersionsAndArchs) {
    const Toolchain& tc = realToolchain();
    if (!tc.nvcc.found()) GTEST_SKIP() << "no nvcc";
    EXPECT_TRUE(fs::path(tc.nvcc.path).is_absolute());
    EXPECT_TRUE(std::regex_match(tc.nvcc.version, std::regex(R"(\d+\.\d+\.\d+)"))) << tc.nvcc.version;
    EXPECT_FALSE(tc.nvcc.origin.empty());
    EXPECT_NE(std::find(tc.gpuArchs.begin(), tc.gpuArchs.end(), "sm_90"), tc.gpuArchs.end());
    for (const auto& a : tc.gpuArchs) EXPECT_EQ(a.rfind("sm_", 0), 0u) << a;
    EXPECT_NE(tc.fingerprint().find("nvcc " + tc.nvcc.version), std::string::npos);
}

TEST(Toolchain, ExplicitEnvironmentWinsAndAMissingPathIsReported) {
    if (!realToolchain().nvcc.found()) GTEST_SKIP() << "no nvcc";
    ::setenv("LOWERSCOPE_NVDISASM", "/nonexistent/bin/nvdisasm", 1);
    ::setenv("LOWERSCOPE_CUOBJDUMP", realToolchain().nvcc.path.c_str(), 1); // any executable will do
    DiscoveryOptions opts = noMemo();
    opts.queryArchs = false;
    opts.queryVersions = false;
    Toolchain tc = discoverToolchain(opts);
    ::unsetenv("LOWERSCOPE_NVDISASM");
    ::unsetenv("LOWERSCOPE_CUOBJDUMP");
    EXPECT_FALSE(tc.nvdisasm.found());
    EXPECT_EQ(tc.nvdisasm.origin, "env");
    EXPECT_EQ(tc.cuobjdump.path, realToolchain().nvcc.path);
    EXPECT_EQ(tc.cuobjdump.origin, "env");
    auto problems = tc.problems();
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("nvdisasm not found"), std::string::npos);
    EXPECT_NE(problems[0].find("/nonexistent/bin/nvdisasm"), std::string::npos);
    EXPECT_NE(problems[0].find("scripts/bootstrap"), std::string::npos);
    EXPECT_NE(problems[0].find("nvidia-cuda-nvdisasm"), std::string::npos);
    EXPECT_NE(problems[0].find("LOWERSCOPE_NVDISASM"), std::string::npos);
}

TEST(Toolchain, ProjectToolsDirComesBeforeTheToolkit) {
    ScratchDir s;
    std::string fake = s.write("bin/cuobjdump", "#!/bin/sh\necho 'Cuda compilation tools, release 99.1, V99.1.7'\n");
    fs::permissions(fake, fs::perms::owner_all);
    DiscoveryOptions opts = noMemo();
    opts.projectToolsDir = (s.dir / "bin").string();
    opts.queryArchs = false;
    Toolchain tc = discoverToolchain(opts);
    EXPECT_EQ(tc.cuobjdump.path, fake);
    EXPECT_EQ(tc.cuobjdump.origin, "project");
    EXPECT_EQ(tc.cuobjdump.version, "99.1.7");
}

TEST(Toolchain, RememberedAnswersAreUsedUntilTheBinaryChanges) {
    ScratchDir s;
    std::string fake = s.write("bin/nvcc", "#!/bin/sh\n"
                                           "case \"$1\" in --version) echo 'Cuda compilation tools, release 42.0, V42.0.1';;\n"
                                           "--list-gpu-code) echo sm_80 sm_90;; esac\n");
    fs::permissions(fake, fs::perms::owner_all);
    DiscoveryOptions opts;
    opts.projectToolsDir = (s.dir / "bin").string();
    opts.memoDir = (s.dir / "memo").string();
    ::setenv("LOWERSCOPE_NVCC", fake.c_str(), 1);
    Toolchain first = discoverToolchain(opts);
    EXPECT_EQ(first.nvcc.version, "42.0.1");
    EXPECT_EQ(first.gpuArchs, (std::vector<std::string>{"sm_80", "sm_90"}));
    ASSERT_TRUE(fs::exists(s.dir / "memo" / "toolchain-memo-v1.json"));
    // Same file, different answers: the memo answers (no process is started).
    fs::path same = fake + ".new";
    std::ofstream(same) << "#!/bin/sh\necho 'release 43.0, V43.0.0'\necho sm_100\n";
    auto mtime = fs::last_write_time(fake);
    Toolchain second = discoverToolchain(opts);
    EXPECT_EQ(second.nvcc.version, "42.0.1");
    // Replaced binary (new inode and mtime): asked again.
    fs::rename(same, fake);
    fs::permissions(fake, fs::perms::owner_all);
    fs::last_write_time(fake, mtime + std::chrono::seconds(5));
    Toolchain third = discoverToolchain(opts);
    ::unsetenv("LOWERSCOPE_NVCC");
    EXPECT_EQ(third.nvcc.version, "43.0.0");
    EXPECT_EQ(third.gpuArchs, (std::vector<std::string>{"sm_100"}));
    // A corrupt memo is ignored.
    std::ofstream(s.dir / "memo" / "toolchain-memo-v1.json") << "{broken";
    ::setenv("LOWERSCOPE_NVCC", fake.c_str(), 1);
    Toolchain fourth = discoverToolchain(opts);
    ::unsetenv("LOWERSCOPE_NVCC");
    EXPECT_EQ(fourth.nvcc.version, "43.0.0");
}

TEST(Toolchain, OlderDisassemblerThanNvccIsAProblem) {
    Toolchain tc;
    tc.nvcc = {"nvcc", "/x/nvcc", "13.0.88", "toolkit"};
    tc.ptxas = {"ptxas", "/x/ptxas", "13.0.88", "toolkit"};
    tc.nvdisasm = {"nvdisasm", "/y/nvdisasm", "11.8.89", "path"};
    tc.cuobjdump = {"cuobjdump", "/x/cuobjdump", "13.2.51", "project"};
    auto p = tc.problems();
    ASSERT_EQ(p.size(), 1u);
    EXPECT_NE(p[0].find("nvdisasm 11.8.89"), std::string::npos);
    EXPECT_NE(p[0].find("older"), std::string::npos);
}

TEST(Build, EveryExampleKernelForSm80AndSm90) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    auto files = exampleKernels();
    ASSERT_GE(files.size(), 6u);
    for (const auto& file : files) {
        for (const char* arch : {"sm_80", "sm_90"}) {
            BuildOptions o;
            o.arch = arch;
            BuildResult r = buildFile(realToolchain(), file, o, uncached());
            std::string what = fs::path(file).filename().string() + " " + arch;
            checkArtifacts(r, what);
            EXPECT_NE(r.ptx.find(std::string(".target ") + arch), std::string::npos) << what;
            EXPECT_NE(r.commands[0].stderrText.find(std::string("for '") + arch + "'"), std::string::npos) << what;

            // The pipeline derives the `-gi` text from the `-gi -gp` run; check it against a real
            // `nvdisasm -c -hex -gi` of the same cubin, function by function.
            ProcessSpec gi;
            gi.argv = {realToolchain().nvdisasm.path, "-c", "-hex", "-gi", cubinToFile(r, s, "k.cubin")};
            ProcessResult pr = runProcess(gi);
            ASSERT_TRUE(pr.ok()) << pr.describe() << pr.stderrText;
            auto real = splitNvdisasmFunctions(pr.stdoutText);
            for (const auto& k : r.kernels) {
                ASSERT_TRUE(real.count(k.mangled)) << what << " " << k.mangled;
                EXPECT_EQ(k.sass, real[k.mangled]) << what << " " << k.mangled;
            }
        }
    }
}

TEST(Build, Sm100AndOptionsChangeTheCode) {
    REQUIRE_NVCC_AND_NVDISASM();
    std::string file = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/reduction.cu";
    BuildOptions o;
    o.arch = "sm_100";
    BuildResult r = buildFile(realToolchain(), file, o, uncached());
    checkArtifacts(r, "reduction sm_100");
    EXPECT_NE(r.ptx.find(".target sm_100"), std::string::npos);
    EXPECT_NE(r.commands[0].stderrText.find("for 'sm_100'"), std::string::npos); // ptxas -v

    // -maxrregcount reaches ptxas: the register count respects it.
    std::string sgemm = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/sgemm_tiled.cu";
    BuildOptions capped;
    capped.maxRegCount = 24;
    BuildResult rc = buildFile(realToolchain(), sgemm, capped, uncached());
    ASSERT_TRUE(rc.ok) << rc.error;
    EXPECT_LE(rc.kernels[0].resources.registers, 24);
    EXPECT_NE(rc.commands[0].argv.end(),
              std::find(rc.commands[0].argv.begin(), rc.commands[0].argv.end(), "-maxrregcount=24"));
}

TEST(Build, KeptPtxEqualsNvccPtxAndPtxLineNumbersMatchIt) {
    REQUIRE_NVCC_AND_NVDISASM();
    for (const char* name : {"sgemm_tiled.cu", "reduction.cu"}) {
        std::string file = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/" + name;
        BuildOptions o;
        BuildResult r = buildFile(realToolchain(), file, o, uncached());
        ASSERT_TRUE(r.ok) << r.error;

        // The PTX kept from the cubin build is what `nvcc -ptx` with the same options prints.
        ScratchDir s;
        ProcessSpec ptx;
        ptx.argv = {realToolchain().nvcc.path};
        for (auto& a : toNvccArgs(o)) ptx.argv.push_back(a);
        ptx.argv.insert(ptx.argv.end(), {"-ptx", "-o", (s.dir / "k.ptx").string(), file});
        ProcessResult pr = runProcess(ptx);
        ASSERT_TRUE(pr.ok()) << pr.stderrText;
        std::ifstream in(s.dir / "k.ptx");
        std::string nvccPtx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_EQ(r.ptx, nvccPtx) << name;

        // Every `-gp` PTX line number lands inside its kernel's .entry and on a PTX instruction line;
        // special-register reads map to the PTX line that reads the same register.
        auto ptxLines = lines(r.ptx);
        static const std::regex ptxLineRe(R"re(//## File ".nv_debug_ptx_txt", line (\d+))re");
        static const std::regex s2rRe(R"(S2R R\d+, SR_(TID|CTAID)\.([XYZ]))");
        for (const auto& k : r.kernels) {
            int first = k.ptxFirstLine, last = k.ptxFirstLine + static_cast<int>(lines(k.ptx).size()) - 1;
            int current = 0, checkedS2R = 0, mapped = 0;
            for (const auto& l : lines(k.sassPtxLines)) {
                std::smatch m;
                if (std::regex_search(l, m, ptxLineRe)) {
                    current = std::stoi(m[1]);
                    ASSERT_GE(current, first) << l;
                    ASSERT_LE(current, last) << l;
                    ++mapped;
                } else if (std::regex_search(l, m, s2rRe) && current > 0) {
                    std::string reg = "%" + std::string(m[1] == "TID" ? "tid." : "ctaid.") +
                                      static_cast<char>(std::tolower(m[2].str()[0]));
                    EXPECT_NE(ptxLines[current - 1].find(reg), std::string::npos)
                        << name << ": " << l << " ↔ PTX line " << current << ": " << ptxLines[current - 1];
                    ++checkedS2R;
                }
            }
            EXPECT_GT(mapped, 5) << k.mangled;
            EXPECT_GT(checkedS2R, 0) << k.mangled;
        }
    }
}

TEST(Build, SyntaxErrorGivesCompileErrorWithLineAndColumn) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    std::string file = s.write("bad.cu", "#include <cstdint>\n"
                                         "\n"
                                         "__global__ void k(float* y)\n"
                                         "{\n"
                                         "    int unused;\n"
                                         "    y[0] = foo + 1;\n"
                                         "}\n");
    BuildResult r = buildFile(realToolchain(), file, BuildOptions{}, uncached());
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.compileError);
    EXPECT_FALSE(r.setupError);
    EXPECT_TRUE(r.kernels.empty());
    ASSERT_FALSE(r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.severity, Severity::Error);
    EXPECT_EQ(d.line, 6);
    EXPECT_EQ(d.column, 12);
    EXPECT_EQ(fs::path(d.file).filename(), "bad.cu");
    EXPECT_NE(d.message.find("\"foo\" is undefined"), std::string::npos) << d.message;
    auto warning = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                                [](const Diagnostic& x) { return x.severity == Severity::Warning; });
    ASSERT_NE(warning, r.diagnostics.end());
    EXPECT_EQ(warning->line, 5);
    EXPECT_EQ(warning->column, 9);
    EXPECT_EQ(r.commands.size(), 1u); // nothing to disassemble
}

TEST(Build, PtxasErrorPointsAtThePtxLine) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    std::string file = s.write("asm.cu", "__global__ void k(float* y)\n"
                                         "{\n"
                                         "    asm volatile(\"bogus.instr.f32 %0, %0;\" : \"+f\"(y[0]));\n"
                                         "}\n");
    BuildResult r = buildFile(realToolchain(), file, BuildOptions{}, uncached());
    EXPECT_TRUE(r.compileError);
    ASSERT_FALSE(r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics[0];
    EXPECT_EQ(d.tool, "ptxas");
    EXPECT_EQ(d.file, "asm.ptx");
    ASSERT_GT(d.line, 0);
    auto ptxLines = lines(r.ptx); // kept even though ptxas failed
    ASSERT_LE(d.line, static_cast<int>(ptxLines.size()));
    EXPECT_NE(ptxLines[d.line - 1].find("bogus"), std::string::npos) << ptxLines[d.line - 1];
}

TEST(Build, MissingToolOrBadInputIsASetupError) {
    Toolchain tc = realToolchain();
    tc.nvdisasm = ToolInfo{"nvdisasm", "", "", "", "searched nowhere"};
    BuildResult r = buildFile(tc, std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", BuildOptions{}, uncached());
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("nvdisasm not found"), std::string::npos) << r.error;
    EXPECT_TRUE(r.commands.empty());

    REQUIRE_NVCC_AND_NVDISASM();
    r = buildFile(realToolchain(), "/nonexistent/k.cu", BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("/nonexistent/k.cu"), std::string::npos);
    BuildOptions bad;
    bad.arch = "sm_95"; // well-formed, not supported by this nvcc
    r = buildFile(realToolchain(), std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", bad, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("sm_95"), std::string::npos);
}

TEST(Build, CacheHitIsIdenticalAndSkipsTheToolchain) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    std::string header = s.write("src/inc/params.h", "#define SCALE 2.0f\n");
    std::string file = s.write("src/k.cu", "#include \"inc/params.h\"\n"
                                           "__global__ void scale(float* y) { y[threadIdx.x] *= SCALE; }\n");
    BuildControl c;
    c.cacheDir = (s.dir / "cache").string();
    BuildResult first = buildFile(realToolchain(), file, BuildOptions{}, c);
    ASSERT_TRUE(first.ok) << first.error;
    EXPECT_FALSE(first.cacheHit);
    EXPECT_EQ(first.cacheKey.size(), 32u);
    EXPECT_TRUE(fs::exists(BuildCache(c.cacheDir).entryPath(first.cacheKey)));

    // A toolchain that cannot run anything: a hit must not need it.
    Toolchain broken = realToolchain();
    broken.nvcc.path = "/nonexistent/nvcc";
    broken.nvdisasm.path = "/nonexistent/nvdisasm";
    broken.cuobjdump.path = "/nonexistent/cuobjdump";
    auto t0 = std::chrono::steady_clock::now();
    BuildResult hit = buildFile(broken, file, BuildOptions{}, c);
    auto hitMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_TRUE(hit.ok) << hit.error;
    EXPECT_TRUE(hit.cacheHit);
    EXPECT_LT(hitMs, 500); // generous: the target (50 ms for the CLI) is measured by bench/
    auto strip = [](BuildResult r) {
        r.timingsMs.clear();
        r.cacheHit = false;
        return nlohmann::json(r);
    };
    EXPECT_EQ(strip(hit), strip(first));
    EXPECT_EQ(hit.cubin, first.cubin);

    // Changing an included local header changes the key: a miss, built by the real toolchain.
    std::ofstream(header) << "#define SCALE 3.0f\n";
    BuildResult changed = buildFile(realToolchain(), file, BuildOptions{}, c);
    ASSERT_TRUE(changed.ok);
    EXPECT_FALSE(changed.cacheHit);
    EXPECT_NE(changed.cacheKey, first.cacheKey);
    EXPECT_NE(changed.kernels[0].sass, first.kernels[0].sass); // 3.0f is a different immediate
    // Different options: a different key.
    BuildOptions fm;
    fm.fastMath = true;
    EXPECT_NE(computeCacheKey(BuildInput{InputKind::CudaSource, file, fm}, realToolchain().fingerprint()), changed.cacheKey);
    // useCache=false neither reads nor writes.
    BuildControl off = c;
    off.useCache = false;
    EXPECT_FALSE(buildFile(broken, file, BuildOptions{}, off).ok);
}

TEST(Build, CorruptCacheEntryIsAMiss) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    std::string file = s.write("k.cu", "__global__ void k(int* p) { p[threadIdx.x] = 7; }\n");
    BuildControl c;
    c.cacheDir = (s.dir / "cache").string();
    BuildResult first = buildFile(realToolchain(), file, BuildOptions{}, c);
    ASSERT_TRUE(first.ok);
    BuildCache cache(c.cacheDir);
    std::string json = cache.entryPath(first.cacheKey);
    std::string cubin = json.substr(0, json.size() - 5) + ".cubin";
    // Truncated cubin: hash mismatch.
    fs::resize_file(cubin, 10);
    EXPECT_FALSE(cache.load(first.cacheKey).has_value());
    // Garbage JSON.
    std::ofstream(json) << "{not json";
    EXPECT_FALSE(cache.load(first.cacheKey).has_value());
    BuildResult again = buildFile(realToolchain(), file, BuildOptions{}, c);
    ASSERT_TRUE(again.ok);
    EXPECT_FALSE(again.cacheHit);
    EXPECT_TRUE(cache.load(first.cacheKey).has_value()); // rewritten
    EXPECT_FALSE(cache.load("00000000000000000000000000000000").has_value());
    EXPECT_FALSE(cache.load("").has_value());
}

// A store that fails half-way (here: the file size limit, as a full disk would) leaves nothing
// behind: no temporary, no cubin without its JSON, no entry that loads. No tools needed.
TEST(Build, FailedCacheStoreLeavesNoPartialEntry) {
    ScratchDir s;
    const std::string dir = (s.dir / "cache").string();
    BuildCache cache(dir);
    BuildResult r;
    r.ok = true;
    r.cubin.assign(64 * 1024, 0x5a);
    r.ptx = std::string(200 * 1024, 'p'); // the JSON is the larger file
    const std::string key = "0123456789abcdef0123456789abcdef";
    ::signal(SIGXFSZ, SIG_IGN); // write() then fails with EFBIG instead of killing the test
    rlimit old{};
    ::getrlimit(RLIMIT_FSIZE, &old);
    auto files = [&] {
        std::vector<std::string> out;
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (!e.is_directory()) out.push_back(e.path().filename().string());
        return out;
    };
    for (rlim_t limit : {rlim_t(1000), rlim_t(100 * 1024)}) { // the cubin fails; the cubin passes, the JSON fails
        rlimit small = old;
        small.rlim_cur = limit;
        ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
        std::string error;
        const bool stored = cache.store(key, r, &error);
        ::setrlimit(RLIMIT_FSIZE, &old);
        EXPECT_FALSE(stored) << "limit " << limit;
        EXPECT_NE(error.find("cannot write"), std::string::npos) << error;
        EXPECT_EQ(files(), std::vector<std::string>{}) << "limit " << limit;
        EXPECT_FALSE(cache.load(key).has_value());
    }
    ::signal(SIGXFSZ, SIG_DFL);
    // Without the limit the same store succeeds and loads.
    ASSERT_TRUE(cache.store(key, r));
    ASSERT_TRUE(cache.load(key).has_value());
    EXPECT_EQ(cache.load(key)->cubin, r.cubin);
}

TEST(Build, CancelKillsTheRunningTool) {
    REQUIRE_NVCC_AND_NVDISASM();
    std::atomic<bool> cancel{false};
    BuildControl c = uncached();
    c.cancel = &cancel;
    std::thread t([&] {
        std::this_thread::sleep_for(100ms);
        cancel = true;
    });
    auto t0 = std::chrono::steady_clock::now();
    BuildResult r = buildFile(realToolchain(), std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/gemm_epilogue.cu", BuildOptions{}, c);
    t.join();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.error, "cancelled");
}

TEST(Build, TemporaryFilesAreRemoved) {
    REQUIRE_NVCC_AND_NVDISASM();
    ScratchDir s;
    ::setenv("TMPDIR", s.dir.c_str(), 1);
    BuildResult r = buildFile(realToolchain(), std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu", BuildOptions{}, uncached());
    ::unsetenv("TMPDIR");
    ASSERT_TRUE(r.ok);
    EXPECT_NE(r.commands[0].argv.back().find("saxpy.cu"), std::string::npos);
    EXPECT_TRUE(fs::is_empty(s.dir)) << "leftovers in " << s.dir;
}

// ------------------------------------------------------------ parsers on captured real output
// The texts below were captured from nvcc/ptxas/cuobjdump 13.x on this project's kernels.

TEST(Diagnostics, FrontEndGccPtxasAndDriverForms) {
    const std::string text = "bad.cu(6): error: identifier \"foo\" is undefined\n"
                             "      y[0] = foo + 1;\n"
                             "             ^\n"
                             "\n"
                             "bad.cu(5): warning #177-D: variable \"unused\" was declared but never referenced\n"
                             "      int unused;\n"
                             "          ^\n"
                             "\n"
                             "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
                             "\n"
                             "1 error detected in the compilation of \"bad.cu\".\n"
                             "badinc.cu:1:10: fatal error: missing.h: No such file or directory\n"
                             "    1 | #include \"missing.h\"\n"
                             "      |          ^~~~~~~~~~~\n"
                             "compilation terminated.\n"
                             "ptxas keep2/badasm.ptx, line 29; error   : Unknown modifier '.instr'\n"
                             "ptxas error   : Entry function '_Z1kPf' uses too much shared data (0x3a980 bytes, 0xc000 max)\n"
                             "ptxas info    : Used 10 registers, used 1 barriers, 240000 bytes smem\n"
                             "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24\n"
                             "nvcc fatal   : Unsupported gpu architecture 'sm_12'\n";
    auto d = parseDiagnostics(text);
    ASSERT_EQ(d.size(), 7u);
    EXPECT_EQ(d[0], (Diagnostic{"bad.cu", 6, 12, Severity::Error, "identifier \"foo\" is undefined", "nvcc"}));
    EXPECT_EQ(d[1].line, 5);
    EXPECT_EQ(d[1].column, 9);
    EXPECT_EQ(d[1].severity, Severity::Warning);
    EXPECT_NE(d[1].message.find("#177-D"), std::string::npos);
    EXPECT_EQ(d[2], (Diagnostic{"badinc.cu", 1, 10, Severity::Error, "missing.h: No such file or directory", "nvcc"}));
    EXPECT_EQ(d[3], (Diagnostic{"keep2/badasm.ptx", 29, 0, Severity::Error, "Unknown modifier '.instr'", "ptxas"}));
    EXPECT_EQ(d[4].tool, "ptxas");
    EXPECT_EQ(d[4].file, "");
    EXPECT_NE(d[4].message.find("too much shared data"), std::string::npos);
    EXPECT_EQ(d[5].severity, Severity::Warning);
    EXPECT_EQ(d[6], (Diagnostic{"", 0, 0, Severity::Error, "Unsupported gpu architecture 'sm_12'", "nvcc"}));
    EXPECT_EQ(formatDiagnostic(d[0]), "bad.cu:6:12: error: identifier \"foo\" is undefined");
    EXPECT_EQ(formatDiagnostic(d[6]), "nvcc: error: Unsupported gpu architecture 'sm_12'");
}

TEST(Diagnostics, ContinuationLinesJoinTheMessage) {
    const std::string text = "tmpl.cu(1): error: expression must have class type but it has type \"float\"\n"
                             "  template <typename T> __attribute__((device)) T f(T x) { return x.foo; }\n"
                             "                                                                  ^\n"
                             "          detected during instantiation of \"T f(T) [with T=float]\" at line 2\n"
                             "\n";
    auto d = parseDiagnostics(text);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].column, 65);
    EXPECT_NE(d[0].message.find("detected during instantiation"), std::string::npos);
}

TEST(Diagnostics, JunkNeverThrows) {
    std::string junk;
    for (int i = 0; i < 3000; ++i) junk += static_cast<char>((i * 7919) % 251 + 1);
    EXPECT_NO_THROW(parseDiagnostics(junk));
    EXPECT_NO_THROW(parseDiagnostics("x(99999999999999999999): error: big\n"));
    EXPECT_NO_THROW(parseDiagnostics(std::string(100000, '(') + "\n"));
    EXPECT_TRUE(parseDiagnostics("").empty());
}

TEST(Parsers, PtxasVerboseAndCuobjdump) {
    const std::string ptxas = "ptxas info    : 0 bytes gmem\n"
                              "ptxas info    : Compiling entry function '_Z1kPfi' for 'sm_90'\n"
                              "ptxas info    : Function properties for _Z1kPfi\n"
                              "    520 bytes stack frame, 640 bytes spill stores, 700 bytes spill loads\n"
                              "ptxas info    : Used 24 registers, used 0 barriers, 520 bytes cumulative stack size\n"
                              "ptxas info    : Compiling entry function '_Z11sgemm_tilediiifPKfS0_fPf' for 'sm_80'\n"
                              "ptxas info    : Function properties for _Z11sgemm_tilediiifPKfS0_fPf\n"
                              "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                              "ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]\n";
    auto p = parsePtxasVerbose(ptxas);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p["_Z1kPfi"].registers, 24);
    EXPECT_EQ(p["_Z1kPfi"].stackBytes, 520);
    EXPECT_EQ(p["_Z1kPfi"].spillStores, 640);
    EXPECT_EQ(p["_Z1kPfi"].spillLoads, 700);
    EXPECT_EQ(p["_Z1kPfi"].sharedBytes, 0);
    EXPECT_EQ(p["_Z11sgemm_tilediiifPKfS0_fPf"].sharedBytes, 2048);
    EXPECT_EQ(p["_Z11sgemm_tilediiifPKfS0_fPf"].constantBytes, 400);
    EXPECT_EQ(p["_Z11sgemm_tilediiifPKfS0_fPf"].barriers, 1);

    const std::string cuobj = "\nResource usage:\n Common:\n  GLOBAL:0\n Function _Z11sgemm_tilediiifPKfS0_fPf:\n"
                              "  REG:32 STACK:0 SHARED:3072 LOCAL:0 CONSTANT[0]:576 TEXTURE:0 SURFACE:0 SAMPLER:0\n";
    auto c = parseCuobjdumpResUsage(cuobj);
    ASSERT_EQ(c.size(), 1u);
    auto& r = c["_Z11sgemm_tilediiifPKfS0_fPf"];
    EXPECT_EQ(r.registers, 32);
    EXPECT_EQ(r.sharedBytes, 3072);
    EXPECT_EQ(r.localBytes, 0);
    EXPECT_EQ(r.constantBytes, 576);
    EXPECT_NO_THROW(parsePtxasVerbose(std::string(5000, 'x') + "\nUsed 99999999999999999999 registers\n"));
    EXPECT_NO_THROW(parseCuobjdumpResUsage("Function :\nREG:\nFunction x\n"));
}

TEST(Parsers, PtxEntriesAndNvdisasmSections) {
    const std::string ptx = ".version 9.0\n"                               // 1
                            ".target sm_90\n"                              // 2
                            ".extern .entry _Z4declv();\n"                 // 3 declaration only
                            ".visible .entry _Z1av(\n"                     // 4
                            "\t.param .u64 p // comment with { brace\n"    // 5
                            ")\n"                                          // 6
                            ".maxntid 128, 1, 1\n"                         // 7
                            "{\n"                                          // 8
                            "\t{ .reg .b32 t; }\n"                         // 9 nested scope
                            "\tret;\n"                                     // 10
                            "}\n"                                          // 11
                            ".func _Z1fv()\n{\n\tret;\n}\n"                // 12-15
                            ".visible .entry _Z1bv()\n{\n\tret;\n}\n";     // 16-19
    auto e = ptxEntries(ptx);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].mangled, "_Z1av");
    EXPECT_EQ(e[0].firstLine, 4);
    EXPECT_EQ(e[0].lastLine, 11);
    EXPECT_EQ(e[1].mangled, "_Z1bv");
    EXPECT_EQ(e[1].firstLine, 16);
    EXPECT_EQ(e[1].lastLine, 19);
    EXPECT_EQ(e[1].text, ".visible .entry _Z1bv()\n{\n\tret;\n}\n");
    EXPECT_TRUE(ptxEntries(".visible .entry _Z1cv(\n{\n").empty()); // unterminated: dropped

    const std::string dis = "\t.headerflags\t@\"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
                            "//--------------------- .text._Z1av           --------------------------\n"
                            "\t.section\t.text._Z1av,\"ax\",@progbits\n"
                            "\t//## File \".nv_debug_ptx_txt\", line 10\n"
                            "        /*0000*/                   EXIT ;\n"
                            "//--------------------- .text.__fAtomicAdd        --------------------------\n"
                            "        /*0000*/                   RET.ABS.NODEC R20 0x0 ;\n"
                            "//--------------------- SYMBOLS --------------------------\n"
                            "\t.type\t\t.nv.reservedSmem.offset0,@object\n";
    auto sec = splitNvdisasmFunctions(dis);
    ASSERT_EQ(sec.size(), 2u);
    EXPECT_EQ(sec["_Z1av"], "//--------------------- .text._Z1av           --------------------------\n"
                            "\t.section\t.text._Z1av,\"ax\",@progbits\n"
                            "\t//## File \".nv_debug_ptx_txt\", line 10\n"
                            "        /*0000*/                   EXIT ;\n");
    EXPECT_TRUE(sec.count("__fAtomicAdd"));
    EXPECT_EQ(stripPtxLineComments(sec["_Z1av"]), "//--------------------- .text._Z1av           --------------------------\n"
                                                           "\t.section\t.text._Z1av,\"ax\",@progbits\n"
                                                           "        /*0000*/                   EXIT ;\n");
    // Only the exact marker form is dropped.
    EXPECT_EQ(stripPtxLineComments("\t//## File \".nv_debug_ptx_txt\", line 1x\n"),
              "\t//## File \".nv_debug_ptx_txt\", line 1x\n");
}

TEST(Demangle, KernelNames) {
    EXPECT_EQ(demangle("_Z5saxpyifPKfPf"), "saxpy(int, float, float const*, float*)");
    EXPECT_EQ(demangle("my_c_kernel"), "my_c_kernel");
    EXPECT_EQ(demangle("_Zgarbage"), "_Zgarbage");
    EXPECT_EQ(demangle(""), "");
}

TEST(Cache, LocalIncludesFollowQuotedAndIncludeDirs) {
    ScratchDir s;
    s.write("a/inc/x.h", "#pragma once\n#include \"y.h\"\n  #  include <z.h>\n#include <vector>\n");
    s.write("a/inc/y.h", "#include \"x.h\" // cycle\n");
    s.write("other/z.h", "// found via -I\n");
    std::string k = s.write("a/k.cu", "#include \"inc/x.h\"\n#include \"missing.h\"\n// #include \"ignored.h\"\n");
    auto inc = localIncludes(k, {(s.dir / "other").string()});
    std::vector<std::string> names;
    for (const auto& p : inc) names.push_back(fs::path(p).filename().string());
    EXPECT_EQ(names, (std::vector<std::string>{"x.h", "y.h", "z.h"}));
    std::string key1 = computeCacheKey(BuildInput{InputKind::CudaSource, k, BuildOptions{}}, "fp");
    EXPECT_EQ(key1, computeCacheKey(BuildInput{InputKind::CudaSource, k, BuildOptions{}}, "fp"));
    EXPECT_NE(key1, computeCacheKey(BuildInput{InputKind::CudaSource, k, BuildOptions{}}, "fp2"));
    s.write("other/z.h", "// changed\n");
    BuildOptions withI;
    withI.includeDirs = {(s.dir / "other").string()};
    std::string key2 = computeCacheKey(BuildInput{InputKind::CudaSource, k, withI}, "fp");
    s.write("other/z.h", "// changed again\n");
    EXPECT_NE(key2, computeCacheKey(BuildInput{InputKind::CudaSource, k, withI}, "fp"));
    std::string err;
    EXPECT_EQ(computeCacheKey(BuildInput{InputKind::CudaSource, "/nonexistent.cu", BuildOptions{}}, "fp", &err), "");
    EXPECT_FALSE(err.empty());
}

TEST(Cache, KeyDependsOnTheInputKind) {
    ScratchDir s;
    const std::string text = ".version 9.0\n.target sm_90\n.address_size 64\n";
    std::string a = s.write("a/k.ptx", text);
    std::string b = s.write("b/k.ptx", text);
    BuildOptions o;
    const std::string ptxKey = computeCacheKey(BuildInput{InputKind::Ptx, a, o}, "fp");
    EXPECT_EQ(ptxKey.size(), 32u);
    EXPECT_NE(ptxKey, computeCacheKey(BuildInput{InputKind::CudaSource, a, o}, "fp"));
    EXPECT_NE(ptxKey, computeCacheKey(BuildInput{InputKind::Cubin, a, o}, "fp"));
    // PTX: the path (ptxas names it in diagnostics) and the ptxas options count, nvcc-only options do not.
    EXPECT_NE(ptxKey, computeCacheKey(BuildInput{InputKind::Ptx, b, o}, "fp"));
    BuildOptions hostOnly = o;
    hostOnly.hostOpt = 0;
    hostOnly.defines = {"X=1"};
    EXPECT_EQ(ptxKey, computeCacheKey(BuildInput{InputKind::Ptx, a, hostOnly}, "fp"));
    BuildOptions ptxas = o;
    ptxas.maxRegCount = 32;
    EXPECT_NE(ptxKey, computeCacheKey(BuildInput{InputKind::Ptx, a, ptxas}, "fp"));
    // A cubin's disassembly depends on its bytes alone.
    EXPECT_EQ(computeCacheKey(BuildInput{InputKind::Cubin, a, o}, "fp"), computeCacheKey(BuildInput{InputKind::Cubin, b, ptxas}, "fp"));
}
