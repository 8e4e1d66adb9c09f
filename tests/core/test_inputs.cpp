// Input kinds other than CUDA source, end to end against the real toolchain: PTX (assembled by
// ptxas) and cubins (disassembled as they are), with inputs the tests make themselves; plus the
// kind detection and the ELF reader on those files and on damaged ones.
#include "tests/core/build_fixture.h"

#include "core/build/input.h"
#include "core/build/json_io.h"
#include "core/parse/cuda_elf.h"
#include "core/parse/tool_output.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;

namespace {

const std::string kSaxpy = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/saxpy.cu";
const std::string kReduction = std::string(LOWERSCOPE_SOURCE_DIR) + "/kernels/reduction.cu";

// The programs a build ran, by file name, in order.
std::vector<std::string> programs(const BuildResult& r) {
    std::vector<std::string> out;
    for (const auto& c : r.commands) out.push_back(fs::path(c.argv.at(0)).filename().string());
    return out;
}

bool ran(const BuildResult& r, const std::string& program) {
    const auto p = programs(r);
    return std::find(p.begin(), p.end(), program) != p.end();
}

std::vector<std::string> kernelNames(const BuildResult& r) {
    std::vector<std::string> names;
    for (const auto& k : r.kernels) names.push_back(k.mangled);
    return names;
}

} // namespace

TEST(InputKind, DetectedFromContentThenExtension) {
    ScratchDir s;
    EXPECT_EQ(detectInputKind(s.write("a.cu", "__global__ void k() {}\n")), InputKind::CudaSource);
    EXPECT_EQ(detectInputKind(s.write("b.ptx", "garbage")), InputKind::Ptx);
    EXPECT_EQ(detectInputKind(s.write("c.txt", "//\n// Generated\n/* x */\n\n.version 9.0\n")), InputKind::Ptx);
    EXPECT_EQ(detectInputKind(s.write("d.cubin", "not an elf")), InputKind::Cubin);
    std::string elf("\x7f" "ELF\x02\x01\x01\x41\x08", 9);
    elf.resize(64, '\0');
    elf[18] = char(190); // EM_CUDA, little-endian
    EXPECT_EQ(detectInputKind(s.write("e.bin", elf)), InputKind::Cubin);
    elf[18] = 62; // x86-64: not a cubin
    EXPECT_EQ(detectInputKind(s.write("f.bin", elf)), InputKind::CudaSource);
    EXPECT_EQ(detectInputKind(s.path("missing.ptx")), InputKind::Ptx);
    for (InputKind k : {InputKind::CudaSource, InputKind::Ptx, InputKind::Cubin})
        EXPECT_EQ(inputKindFromName(inputKindName(k)), k);
    EXPECT_FALSE(inputKindFromName("elf").has_value());
}

TEST(CudaElf, DamagedInputNeverThrows) {
    std::string why;
    EXPECT_FALSE(readElfHeader("abc", &why).has_value());
    EXPECT_EQ(why, "not an ELF file");
    std::string elf("\x7f" "ELF\x02\x01\x01\x41\x08", 9);
    elf.resize(40, '\0');
    EXPECT_FALSE(readElfHeader(elf, &why).has_value());
    EXPECT_EQ(why, "truncated ELF header");
    elf.resize(64, '\0');
    // A section table far outside the file.
    elf[0x28] = char(0xff);
    elf[0x29] = char(0xff);
    elf[0x3a] = 64;
    elf[0x3c] = 3;
    EXPECT_FALSE(elfSection(elf, ".text").has_value());
    EXPECT_EQ(ptxFromDebugSection(std::string("\0\0abc\0", 6)), "");
    EXPECT_EQ(ptxFromDebugSection(std::string("\0\0.version 9.0\0.target sm_90\0\0", 30)),
              "\n\n.version 9.0\n.target sm_90\n");
}

TEST(PtxInput, ArchFromTargetUnlessOverridden) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string ptx = s.path("saxpy.ptx");
    runTool({realToolchain().nvcc.path, "-arch=sm_80", "-lineinfo", "-ptx", "-o", ptx, kSaxpy});

    BuildOptions fromTarget;
    fromTarget.arch = "";
    BuildResult r = buildFile(realToolchain(), ptx, fromTarget, uncached());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.arch, "sm_80");
    EXPECT_EQ(r.ptx, readText(ptx)); // the PTX pane shows the file itself
    ASSERT_FALSE(r.commands.empty());
    EXPECT_EQ(programs(r)[0], "ptxas");
    EXPECT_FALSE(ran(r, "nvcc"));
    EXPECT_NE(std::find(r.commands[0].argv.begin(), r.commands[0].argv.end(), "-arch=sm_80"), r.commands[0].argv.end());
    ASSERT_EQ(kernelNames(r), std::vector<std::string>{"_Z5saxpyifPKfPf"});
    const KernelArtifacts& k = r.kernels[0];
    EXPECT_NE(k.sass.find("EXIT"), std::string::npos);
    EXPECT_NE(k.sassPtxLines.find(".nv_debug_ptx_txt"), std::string::npos) << "no -gp line info";
    EXPECT_NE(k.sass.find("saxpy.cu"), std::string::npos) << "the PTX's .loc lines reach the SASS";
    EXPECT_GT(k.resources.registers, 0);
    EXPECT_GT(k.ptxFirstLine, 0);

    BuildOptions sm90;
    sm90.arch = "sm_90";
    BuildResult over = buildFile(realToolchain(), ptx, sm90, uncached());
    ASSERT_TRUE(over.ok) << over.error;
    EXPECT_EQ(over.arch, "sm_90");
    EXPECT_NE(over.cacheKey, r.cacheKey);
    EXPECT_NE(over.kernels[0].sass, r.kernels[0].sass);
}

TEST(PtxInput, AssemblyErrorNamesTheFileAndLine) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string ptx = s.write("bad.ptx", ".version 9.0\n"
                                               ".target sm_90\n"
                                               ".address_size 64\n"
                                               ".visible .entry k()\n"
                                               "{\n"
                                               "\tbogus.instr.f32 %f1, %f1;\n"
                                               "\tret;\n"
                                               "}\n");
    BuildOptions o;
    o.arch = "";
    BuildResult r = buildFile(realToolchain(), ptx, o, uncached());
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.compileError);
    EXPECT_FALSE(r.setupError);
    ASSERT_FALSE(r.diagnostics.empty());
    EXPECT_EQ(r.diagnostics[0].tool, "ptxas");
    EXPECT_EQ(fs::path(r.diagnostics[0].file).filename(), "bad.ptx");
    EXPECT_EQ(r.diagnostics[0].line, 6);

    const std::string noTarget = s.write("notarget.ptx", ".version 9.0\n.address_size 64\n");
    r = buildFile(realToolchain(), noTarget, o, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find(".target"), std::string::npos) << r.error;
}

TEST(CubinInput, WithLineInfoItsPtxComesBack) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string cubin = s.path("reduction.bin"); // the name does not matter: the ELF header does
    runTool({realToolchain().nvcc.path, "-arch=sm_80", "-lineinfo", "-cubin", "-o", cubin, kReduction});
    EXPECT_EQ(detectInputKind(cubin), InputKind::Cubin);

    BuildResult r = buildFile(realToolchain(), cubin, BuildOptions{}, uncached());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.arch, "sm_80"); // from the ELF header, whatever the options say
    EXPECT_FALSE(ran(r, "nvcc")); // no compiler: the disassembler runs only
    EXPECT_FALSE(ran(r, "ptxas"));
    EXPECT_TRUE(ran(r, "nvdisasm"));
    EXPECT_EQ(std::string(r.cubin.begin(), r.cubin.end()), readText(cubin));
    EXPECT_NE(r.ptx.find(".target sm_80"), std::string::npos);
    ASSERT_FALSE(r.kernels.empty());

    // The same kernels, SASS and PTX line numbers as building the source with the same options.
    BuildOptions o;
    o.arch = "sm_80";
    BuildResult fromSource = buildFile(realToolchain(), kReduction, o, uncached());
    ASSERT_TRUE(fromSource.ok) << fromSource.error;
    EXPECT_EQ(kernelNames(r), kernelNames(fromSource));
    for (size_t i = 0; i < r.kernels.size(); ++i) {
        SCOPED_TRACE(r.kernels[i].mangled);
        EXPECT_EQ(r.kernels[i].sassPtxLines, fromSource.kernels[i].sassPtxLines);
        EXPECT_EQ(r.kernels[i].ptxFirstLine, fromSource.kernels[i].ptxFirstLine);
        EXPECT_EQ(r.kernels[i].resources.registers, fromSource.kernels[i].resources.registers);
    }
}

TEST(CubinInput, WithoutLineInfoKernelsComeFromTheDisassembly) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string cubin = s.path("saxpy.cubin");
    runTool({realToolchain().nvcc.path, "-arch=sm_90", "-cubin", "-o", cubin, kSaxpy});
    BuildResult r = buildFile(realToolchain(), cubin, BuildOptions{}, uncached());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.arch, "sm_90");
    EXPECT_TRUE(r.ptx.empty());
    ASSERT_EQ(kernelNames(r), std::vector<std::string>{"_Z5saxpyifPKfPf"});
    EXPECT_EQ(r.kernels[0].name, "saxpy(int, float, float const*, float*)");
    EXPECT_EQ(r.kernels[0].ptxFirstLine, 0);
    EXPECT_NE(r.kernels[0].sass.find("EXIT"), std::string::npos);

    // Not a CUDA ELF under a cubin name: a clear setup error, nothing run.
    const std::string fake = s.write("fake.cubin", "plain text");
    r = buildFile(realToolchain(), fake, BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("not an ELF file"), std::string::npos) << r.error;
    EXPECT_TRUE(r.commands.empty());
}

TEST(CubinInput, ResultRoundTripsThroughTheCache) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string cubin = s.path("saxpy.cubin");
    runTool({realToolchain().nvcc.path, "-arch=sm_90", "-lineinfo", "-cubin", "-o", cubin, kSaxpy});
    BuildControl c;
    c.cacheDir = s.path("cache");
    BuildResult first = buildFile(realToolchain(), cubin, BuildOptions{}, c);
    ASSERT_TRUE(first.ok) << first.error;
    BuildResult hit = buildFile(realToolchain(), cubin, BuildOptions{}, c);
    ASSERT_TRUE(hit.cacheHit);
    EXPECT_EQ(hit.arch, "sm_90");
    EXPECT_EQ(hit.ptx, first.ptx);
    EXPECT_EQ(hit.cubin, first.cubin);
}

// ------------------------------------------------- issue 12 item 2: degrade on auxiliary tools

namespace {

// An executable shell script standing in for a tool.
std::string fakeTool(const ScratchDir& s, const std::string& name, const std::string& body) {
    const std::string path = s.write(name, "#!/bin/sh\n" + body + "\n");
    fs::permissions(path, fs::perms::owner_all);
    return path;
}

const Diagnostic* warningAbout(const BuildResult& r, const std::string& text) {
    for (const auto& d : r.diagnostics)
        if (d.severity == Severity::Warning && d.message.find(text) != std::string::npos) return &d;
    return nullptr;
}

} // namespace

TEST(AuxiliaryTools, FailingCuobjdumpLeavesSassAndMarksResourcesAbsent) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    Toolchain tc = realToolchain();
    tc.cuobjdump.path = fakeTool(s, "cuobjdump", "echo 'cuobjdump fatal : broken on purpose' >&2\nexit 3");

    // CUDA source: ptxas -v still reports the resources; the warning says what is lost.
    BuildResult cu = buildFile(tc, kSaxpy, BuildOptions{}, uncached());
    ASSERT_TRUE(cu.ok) << cu.error;
    ASSERT_FALSE(cu.kernels.empty());
    EXPECT_NE(cu.kernels[0].sass.find("EXIT"), std::string::npos);
    EXPECT_GT(cu.kernels[0].resources.registers, 0);
    const Diagnostic* w = warningAbout(cu, "cuobjdump (res-usage) exit 3");
    ASSERT_NE(w, nullptr);
    EXPECT_NE(w->message.find("broken on purpose"), std::string::npos) << w->message;
    EXPECT_NE(w->message.find("ptxas -v only"), std::string::npos) << w->message;

    // A cubin: cuobjdump was the only source of resources, so they are absent, and null in JSON.
    const std::string cubin = s.path("saxpy.cubin");
    runTool({tc.nvcc.path, "-arch=sm_90", "-cubin", "-o", cubin, kSaxpy});
    BuildResult bin = buildFile(tc, cubin, BuildOptions{}, uncached());
    ASSERT_TRUE(bin.ok) << bin.error;
    ASSERT_EQ(bin.kernels.size(), 1u);
    EXPECT_NE(bin.kernels[0].sass.find("EXIT"), std::string::npos);
    EXPECT_EQ(bin.kernels[0].resources, Resources{});
    ASSERT_NE(warningAbout(bin, "resource usage is missing"), nullptr);
    const nlohmann::json j = bin.kernels[0];
    for (const char* key : {"registers", "shared_bytes", "local_bytes", "stack_bytes", "constant_bytes"})
        EXPECT_TRUE(j["resources"][key].is_null()) << key << " = " << j["resources"][key];

    // With a working cuobjdump the same cubin has them.
    BuildResult good = buildFile(realToolchain(), cubin, BuildOptions{}, uncached());
    ASSERT_TRUE(good.ok) << good.error;
    EXPECT_GT(good.kernels[0].resources.registers, 0);
    EXPECT_EQ(nlohmann::json(good.kernels[0])["resources"]["registers"], good.kernels[0].resources.registers);
}

TEST(AuxiliaryTools, HangingCuobjdumpTimesOutAndTheBuildStillSucceeds) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string cubin = s.path("saxpy.cubin");
    runTool({realToolchain().nvcc.path, "-arch=sm_90", "-cubin", "-o", cubin, kSaxpy});
    Toolchain tc = realToolchain();
    tc.cuobjdump.path = fakeTool(s, "cuobjdump", "exec sleep 60");
    BuildControl c = uncached();
    c.timeout = std::chrono::seconds(4); // nvdisasm needs well under a second on this cubin
    const auto t0 = std::chrono::steady_clock::now();
    BuildResult r = buildFile(tc, cubin, BuildOptions{}, c);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NE(r.kernels.at(0).sass.find("EXIT"), std::string::npos);
    const Diagnostic* w = warningAbout(r, "timed out");
    ASSERT_NE(w, nullptr);
    EXPECT_NE(w->message.find("cuobjdump"), std::string::npos) << w->message;
    EXPECT_EQ(r.kernels[0].resources.registers, -1);
}
