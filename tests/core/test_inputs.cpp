// Input kinds other than CUDA source, end to end against the real toolchain: PTX (assembled by
// ptxas) and cubins (disassembled as they are), with inputs the tests make themselves; plus the
// kind detection and the ELF reader on those files and on damaged ones.
#include "tests/core/build_fixture.h"

#include "core/build/input.h"
#include "core/build/json_io.h"
#include "core/build/triton.h"
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
    elf[18] = 62; // x86-64: a host binary, by its ELF type
    elf[16] = 1;
    EXPECT_EQ(detectInputKind(s.write("f.bin", elf)), InputKind::Object);
    elf[16] = 3;
    EXPECT_EQ(detectInputKind(s.write("libf.so.1", elf)), InputKind::SharedLibrary);
    EXPECT_EQ(detectInputKind(s.write("pie", elf)), InputKind::Executable);
    elf[16] = 2;
    EXPECT_EQ(detectInputKind(s.write("prog", elf)), InputKind::Executable);
    EXPECT_EQ(detectInputKind(s.write("g.bin", std::string("\x50\xed\x55\xba\x01\x00", 6))), InputKind::Fatbin);
    EXPECT_EQ(detectInputKind(s.write("h.fatbin", "")), InputKind::Fatbin);
    fs::create_directories(s.dir / "triton");
    EXPECT_EQ(detectInputKind((s.dir / "triton").string()), InputKind::Triton);
    EXPECT_EQ(detectInputKind(s.path("missing.ptx")), InputKind::Ptx);
    for (InputKind k : {InputKind::CudaSource, InputKind::Ptx, InputKind::Cubin, InputKind::Fatbin, InputKind::Object,
                        InputKind::SharedLibrary, InputKind::Executable, InputKind::Triton})
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
    // nvdisasm needs well under a second on this cubin when idle, several under a loaded 2-core
    // machine; the hanging cuobjdump is cut at this limit either way.
    c.timeout = std::chrono::seconds(15);
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

// ------------------------------------------------------------------ containers (issue 16 item 3)

namespace {

const EmbeddedCode* member(const BuildResult& r, const std::string& name) {
    for (const auto& e : r.embedded)
        if (e.name == name) return &e;
    return nullptr;
}

} // namespace

TEST(ContainerInput, SharedLibraryListsItsCubinsAndPtxAndBuildsTheChosenOne) {
    REQUIRE_BUILD_TOOLS();
    if (!realToolchain().cuobjdump.found()) GTEST_SKIP() << "cuobjdump not found";
    ScratchDir s;
    const std::string so = s.path("libkernels.so");
    runTool({realToolchain().nvcc.path, "-shared", "-Xcompiler", "-fPIC", "-lineinfo", "-gencode",
             "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=[sm_90,compute_90]", "-o", so, kSaxpy,
             kReduction});
    EXPECT_EQ(detectInputKind(so), InputKind::SharedLibrary);

    // Default: the first cubin with kernels for the options' arch.
    BuildOptions o;
    o.arch = "sm_90";
    BuildResult r = buildFile(realToolchain(), so, o, uncached());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.inputKind, "shared-library");
    EXPECT_EQ(r.member, "saxpy.sm_90.cubin");
    EXPECT_EQ(r.arch, "sm_90");
    ASSERT_NE(member(r, "reduction.sm_80.cubin"), nullptr);
    EXPECT_EQ(member(r, "reduction.sm_80.cubin")->arch, "sm_80");
    EXPECT_EQ(member(r, "reduction.sm_80.cubin")->kernels, std::vector<std::string>{"_Z10reduce_sumPKfPfi"});
    ASSERT_NE(member(r, "saxpy.sm_90.ptx"), nullptr);
    EXPECT_TRUE(member(r, "saxpy.sm_90.ptx")->isPtx);
    EXPECT_EQ(member(r, "saxpy.sm_90.ptx")->kernels, std::vector<std::string>{"_Z5saxpyifPKfPf"});
    ASSERT_EQ(kernelNames(r), std::vector<std::string>{"_Z5saxpyifPKfPf"});
    EXPECT_NE(r.ptx.find(".entry _Z5saxpyifPKfPf"), std::string::npos) << "line info brings the PTX back";
    EXPECT_FALSE(r.kernels[0].sassPtxLines.empty());
    EXPECT_GT(r.kernels[0].resources.registers, 0);

    // A named member; its SASS equals building the source for that arch.
    BuildInput in = describeInput(so, o);
    in.member = "reduction.sm_80.cubin";
    BuildResult red = buildInput(realToolchain(), in, uncached());
    ASSERT_TRUE(red.ok) << red.error;
    EXPECT_EQ(red.arch, "sm_80");
    BuildOptions o80;
    o80.arch = "sm_80";
    BuildResult fromSource = buildFile(realToolchain(), kReduction, o80, uncached());
    ASSERT_TRUE(fromSource.ok);
    ASSERT_EQ(kernelNames(red), kernelNames(fromSource));
    EXPECT_EQ(red.kernels[0].sass.substr(red.kernels[0].sass.find("/*0000*/")),
              fromSource.kernels[0].sass.substr(fromSource.kernels[0].sass.find("/*0000*/")));

    // An embedded PTX is assembled by ptxas for its arch.
    in.member = "reduction.sm_90.ptx";
    BuildResult ptx = buildInput(realToolchain(), in, uncached());
    ASSERT_TRUE(ptx.ok) << ptx.error;
    EXPECT_EQ(ptx.arch, "sm_90");
    EXPECT_EQ(fs::path(ptx.commands.at(2).argv.at(0)).filename(), "ptxas");
    EXPECT_FALSE(ptx.kernels.at(0).sassPtxLines.empty());

    // A member that is not there: the error lists what is.
    in.member = "nothing.sm_90.cubin";
    BuildResult missing = buildInput(realToolchain(), in, uncached());
    EXPECT_TRUE(missing.setupError);
    EXPECT_NE(missing.error.find("saxpy.sm_80.cubin"), std::string::npos) << missing.error;
}

TEST(ContainerInput, FatbinObjectAndProgram) {
    REQUIRE_BUILD_TOOLS();
    if (!realToolchain().cuobjdump.found()) GTEST_SKIP() << "cuobjdump not found";
    ScratchDir s;
    const std::string& nvcc = realToolchain().nvcc.path;
    const std::string fatbin = s.path("k.fatbin"), object = s.path("k.o"), program = s.path("prog");
    runTool({nvcc, "-fatbin", "-arch=sm_90", "-o", fatbin, kSaxpy});
    runTool({nvcc, "-c", "-arch=sm_80", "-o", object, kReduction});
    const std::string main = s.write("main.cu", "__global__ void twice(float* p) { p[threadIdx.x] *= 2.0f; }\n"
                                                "int main() { return 0; }\n");
    runTool({nvcc, "-arch=sm_90", "-o", program, main});
    EXPECT_EQ(detectInputKind(fatbin), InputKind::Fatbin);
    EXPECT_EQ(detectInputKind(object), InputKind::Object);
    EXPECT_EQ(detectInputKind(program), InputKind::Executable);
    const std::vector<std::pair<std::string, std::string>> cases{
        {fatbin, "_Z5saxpyifPKfPf"}, {object, "_Z10reduce_sumPKfPfi"}, {program, "_Z5twicePf"}};
    for (const auto& [file, kernel] : cases) {
        SCOPED_TRACE(file);
        BuildResult r = buildFile(realToolchain(), file, BuildOptions{}, uncached());
        ASSERT_TRUE(r.ok) << r.error;
        EXPECT_EQ(kernelNames(r), std::vector<std::string>{kernel});
        EXPECT_NE(r.kernels[0].sass.find("EXIT"), std::string::npos);
    }
}

TEST(ContainerInput, ClearErrorsForBinariesWithoutKernels) {
    REQUIRE_BUILD_TOOLS();
    if (!realToolchain().cuobjdump.found()) GTEST_SKIP() << "cuobjdump not found";
    ScratchDir s;
    const std::string& nvcc = realToolchain().nvcc.path;
    // A program without device code (any host program, here the shell this machine runs).
    const std::string host = s.write("hostonly", readText("/bin/sh"));
    BuildResult r = buildFile(realToolchain(), host, BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("contains no CUDA device code"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("an ELF file for"), std::string::npos) << r.error;
    EXPECT_EQ(r.kernels.size(), 0u);

    // nvcc's host-only program carries an empty device image: code, but no kernel.
    const std::string stub = s.path("stub");
    runTool({nvcc, "-o", stub, s.write("host.cu", "int main() { return 0; }\n")});
    r = buildFile(realToolchain(), stub, BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("no kernel"), std::string::npos) << r.error;

    // Device code without a kernel (device functions only).
    const std::string lib = s.path("k.o");
    runTool({nvcc, "-c", "-rdc=true", "-arch=sm_90", "-o", lib,
             s.write("dev.cu", "__device__ float twice(float x) { return 2.0f * x; }\n")});
    r = buildFile(realToolchain(), lib, BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("no kernel"), std::string::npos) << r.error;

    // An ELF stripped of its section headers.
    const std::string so = s.path("libk.so");
    runTool({nvcc, "-shared", "-Xcompiler", "-fPIC", "-arch=sm_90", "-o", so, kSaxpy});
    std::string bytes = readText(so);
    for (size_t i = 0x28; i < 0x30; ++i) bytes[i] = 0; // e_shoff
    bytes[0x3c] = bytes[0x3d] = bytes[0x3e] = bytes[0x3f] = 0; // e_shnum, e_shstrndx
    r = buildFile(realToolchain(), s.write("libstripped.so", bytes), BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("no section headers"), std::string::npos) << r.error;

    // A damaged fatbin.
    r = buildFile(realToolchain(), s.write("bad.fatbin", "garbage"), BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("cuobjdump cannot read bad.fatbin"), std::string::npos) << r.error;
}

TEST(CubinInput, AnArchTheDisassemblerCannotReadSaysWhichWould) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string cubin = s.path("k.cubin");
    runTool({realToolchain().nvcc.path, "-arch=sm_90", "-cubin", "-o", cubin, kSaxpy});
    std::string bytes = readText(cubin);
    // Relabel it sm_130 (EF_CUDA_SM, bits 8..15 of e_flags in the CUDA ELF ABI 8).
    ASSERT_EQ(static_cast<unsigned char>(bytes[8]), 8u);
    bytes[0x31] = char(130);
    BuildResult r = buildFile(realToolchain(), s.write("future.cubin", bytes), BuildOptions{}, uncached());
    EXPECT_EQ(r.arch, "sm_130");
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("cannot read sm_130 cubins"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("newer CUDA toolkit"), std::string::npos) << r.error;
}

// --------------------------------------------------------------- Triton (issue 16 item 4)

namespace {

const std::string kTritonData = std::string(LOWERSCOPE_SOURCE_DIR) + "/tests/data/triton";

std::string tritonFolder(const std::string& kernel) {
    for (const auto& k : listTritonCache(kTritonData + "/cache"))
        if (k.name == kernel) return k.folder;
    return {};
}

} // namespace

TEST(TritonInput, KernelFolderBuildsWithItsMetadata) {
    REQUIRE_BUILD_TOOLS();
    const std::string folder = tritonFolder("softmax_kernel");
    ASSERT_FALSE(folder.empty()) << "run scripts/gen-triton-cache";
    EXPECT_EQ(detectInputKind(folder), InputKind::Triton);
    const TritonKernel meta = readTritonKernel(folder);
    EXPECT_EQ(meta.numWarps, 8);
    EXPECT_EQ(meta.blockThreads(), 256);
    EXPECT_EQ(meta.sharedBytes, 32);
    EXPECT_EQ(meta.arch, "sm_90");

    BuildResult r = buildFile(realToolchain(), folder, BuildOptions{}, uncached());
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.inputKind, "triton");
    EXPECT_EQ(r.arch, "sm_90");
    EXPECT_FALSE(ran(r, "nvcc"));
    EXPECT_FALSE(ran(r, "ptxas")); // the folder's cubin is disassembled as it is
    ASSERT_EQ(kernelNames(r), std::vector<std::string>{"softmax_kernel"});
    const KernelArtifacts& k = r.kernels[0];
    EXPECT_EQ(k.launchThreads, 256);
    EXPECT_EQ(k.launchSharedBytes, 32);
    EXPECT_EQ(r.ptx, readText(meta.ptxPath)); // with its .loc/.file lines
    EXPECT_NE(r.ptx.find(".file\t1 \"kernels.py\""), std::string::npos);
    EXPECT_FALSE(k.sassPtxLines.empty());
    EXPECT_NE(k.sass.find("kernels.py"), std::string::npos);
    EXPECT_EQ(findTritonSource(meta, "kernels.py"), kTritonData + "/kernels.py");
    EXPECT_EQ(findTritonSource(meta, "/etc/passwd"), ""); // only Python files
    const nlohmann::json j = k;
    EXPECT_EQ(j["launch_threads"], 256);
}

TEST(TritonInput, CacheRootListsKernelsAndPicksOne) {
    REQUIRE_BUILD_TOOLS();
    const std::string root = kTritonData + "/cache";
    BuildResult r = buildFile(realToolchain(), root, BuildOptions{}, uncached());
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.embedded.size(), 2u);
    EXPECT_EQ(r.embedded[0].kernels, std::vector<std::string>{"add_kernel"});
    EXPECT_EQ(r.embedded[1].kernels, std::vector<std::string>{"softmax_kernel"});
    EXPECT_EQ(kernelNames(r), std::vector<std::string>{"add_kernel"});
    EXPECT_EQ(r.kernels[0].launchThreads, 128);
    EXPECT_EQ(r.member, r.embedded[0].name);

    BuildInput in = describeInput(root, BuildOptions{});
    in.member = "softmax_kernel";
    BuildResult soft = buildInput(realToolchain(), in, uncached());
    ASSERT_TRUE(soft.ok) << soft.error;
    EXPECT_EQ(kernelNames(soft), std::vector<std::string>{"softmax_kernel"});
    EXPECT_NE(soft.cacheKey, r.cacheKey);
    in.member = "nope";
    EXPECT_TRUE(buildInput(realToolchain(), in, uncached()).setupError);
}

TEST(TritonInput, MissingPartsAreNamed) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const fs::path original = tritonFolder("add_kernel");
    ASSERT_FALSE(original.empty());
    const fs::path copy = s.dir / "k";
    fs::copy(original, copy);
    // Without its cubin the PTX is assembled (for its own .target). Triton may write a newer PTX
    // ISA than this toolkit's ptxas reads: then the error says so.
    fs::remove(copy / "add_kernel.cubin");
    BuildResult r = buildFile(realToolchain(), copy.string(), BuildOptions{}, uncached());
    ASSERT_FALSE(r.commands.empty()) << r.error;
    EXPECT_EQ(programs(r)[0], "ptxas");
    EXPECT_NE(std::find(r.commands[0].argv.begin(), r.commands[0].argv.end(), "-arch=sm_90a"), r.commands[0].argv.end());
    if (r.ok) {
        EXPECT_EQ(r.kernels.at(0).launchThreads, 128);
    } else {
        EXPECT_TRUE(r.compileError);
        EXPECT_NE(r.error.find("cannot assemble this PTX (Unsupported .version"), std::string::npos) << r.error;
        EXPECT_NE(r.error.find("newer CUDA toolkit"), std::string::npos) << r.error;
    }
    // Without PTX and cubin: nothing to build.
    fs::remove(copy / "add_kernel.ptx");
    r = buildFile(realToolchain(), copy.string(), BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("has neither add_kernel.cubin nor add_kernel.ptx"), std::string::npos) << r.error;
    // Without metadata.
    fs::copy(original / fs::path("add_kernel.cubin"), copy / "add_kernel.cubin");
    fs::remove(copy / "add_kernel.json");
    r = buildFile(realToolchain(), copy.string(), BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("no metadata"), std::string::npos) << r.error;
    // Broken metadata.
    fs::copy(original, s.dir / "broken");
    s.write("broken/add_kernel.json", "{\"name\": \"../../etc/passwd\", \"num_warps\": 4}");
    r = buildFile(realToolchain(), (s.dir / "broken").string(), BuildOptions{}, uncached());
    EXPECT_TRUE(r.setupError);
    EXPECT_NE(r.error.find("not a plain identifier"), std::string::npos) << r.error;
    s.write("broken/add_kernel.json", "{\"name\": \"add_kernel\", \"num_warps\": 4000}");
    r = buildFile(realToolchain(), (s.dir / "broken").string(), BuildOptions{}, uncached());
    EXPECT_NE(r.error.find("num_warps"), std::string::npos) << r.error;
}
