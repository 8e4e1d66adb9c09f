// End-to-end: lowerscope-cli on every input kind (PTX, cubin, shared library, Triton cache), with
// a project's compile database, several architectures, the GPU-free `diff` of two binaries, and a
// failing auxiliary tool. Inputs are made by the tests with the real toolchain (Triton folders are
// committed, see scripts/gen-triton-cache).
#include "tests/core/build_fixture.h"

#include "core/build/compile_db.h"

#include <gtest/gtest.h>
#include <set>
#include <nlohmann/json.hpp>

using namespace lowerscope;
using namespace lowerscope::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSrc = LOWERSCOPE_SOURCE_DIR;

json parse(const ProcessResult& r) {
    EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.stderrText;
    try {
        return json::parse(r.stdoutText);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what() << "\n" << r.stdoutText.substr(0, 2000);
        return {};
    }
}

} // namespace

TEST(CliInputs, PtxKeepsItsTargetUnlessArchIsGiven) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string ptx = s.path("saxpy.ptx");
    runTool({realToolchain().nvcc.path, "-arch=sm_80", "-lineinfo", "-ptx", "-o", ptx, kSrc + "/kernels/saxpy.cu"});
    json d = parse(runCli({"build", ptx, "--json", "-"}));
    EXPECT_EQ(d["input"]["kind"], "ptx");
    EXPECT_EQ(d["arch"], "sm_80");
    EXPECT_EQ(fs::path(d["commands"][0]["argv"][0].get<std::string>()).filename(), "ptxas");
    d = parse(runCli({"build", ptx, "--arch", "sm_90", "--json", "-"}));
    EXPECT_EQ(d["arch"], "sm_90");
    EXPECT_FALSE(d["kernels"][0]["sass_ptx_lines"].get<std::string>().empty());
}

TEST(CliInputs, SharedLibraryListAndMember) {
    REQUIRE_BUILD_TOOLS();
    if (!realToolchain().cuobjdump.found()) GTEST_SKIP() << "cuobjdump not found";
    ScratchDir s;
    const std::string so = s.path("libk.so");
    runTool({realToolchain().nvcc.path, "-shared", "-Xcompiler", "-fPIC", "-lineinfo", "-gencode",
             "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90", "-o", so,
             kSrc + "/kernels/saxpy.cu", kSrc + "/kernels/reduction.cu"});
    ProcessResult list = runCli({"build", so, "--list"});
    ASSERT_TRUE(list.ok()) << list.stderrText;
    for (const char* m : {"saxpy.sm_80.cubin", "saxpy.sm_90.cubin", "reduction.sm_80.cubin", "reduction.sm_90.cubin"}) {
        // cuobjdump names each cubin of a shared library twice; the list names it once.
        const std::string row = std::string("\n") + m + " ";
        const size_t at = list.stdoutText.find(row);
        EXPECT_NE(at, std::string::npos) << m << "\n" << list.stdoutText;
        EXPECT_EQ(list.stdoutText.find(row, at + 1), std::string::npos) << m << " listed twice\n" << list.stdoutText;
    }
    EXPECT_NE(list.stdoutText.find("_Z10reduce_sumPKfPfi"), std::string::npos);
    EXPECT_NE(list.stdoutText.find("(opened)"), std::string::npos);

    json d = parse(runCli({"build", so, "--member", "reduction.sm_80.cubin", "--json", "-"}));
    EXPECT_EQ(d["input"]["kind"], "shared-library");
    EXPECT_EQ(d["input"]["member"], "reduction.sm_80.cubin");
    EXPECT_EQ(d["arch"], "sm_80");
    std::set<std::string> names;
    for (const auto& e : d["input"]["embedded"]) {
        EXPECT_TRUE(names.insert(e["name"].get<std::string>() + (e.value("ptx", false) ? " (ptx)" : "")).second)
            << "listed twice: " << e.dump();
    }
    EXPECT_GE(names.size(), 4u);
    EXPECT_EQ(d["kernels"][0]["mangled"], "_Z10reduce_sumPKfPfi");
    // From cuobjdump (no ptxas report in a binary); on sm_80 it is the kernel's own 128 bytes (on
    // sm_90 cuobjdump adds the 1 KiB the driver reserves per block).
    EXPECT_EQ(d["kernels"][0]["resources"]["shared_bytes"], 128);

    ProcessResult bad = runCli({"build", so, "--member", "missing.cubin"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_NE(bad.stderrText.find("has no embedded 'missing.cubin'"), std::string::npos) << bad.stderrText;
}

TEST(CliInputs, SeveralArchitecturesInOneBuild) {
    REQUIRE_BUILD_TOOLS();
    json d = parse(runCli({"build", kSrc + "/kernels/saxpy.cu", "--arch", "sm_80,sm_90,sm_100", "--json", "-"}));
    EXPECT_EQ(d["schema"], "lowerscope.build-set/1");
    ASSERT_EQ(d["builds"].size(), 3u);
    EXPECT_EQ(d["archs"], json({"sm_80", "sm_90", "sm_100"}));
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(d["builds"][i]["arch"], d["archs"][i]);
        EXPECT_EQ(d["builds"][i]["schema"], "lowerscope.build/1");
        EXPECT_TRUE(d["builds"][i]["ok"].get<bool>());
    }
    EXPECT_NE(d["builds"][0]["kernels"][0]["sass"], d["builds"][1]["kernels"][0]["sass"]);

    // The aligned diff of two of them, without a GPU.
    ScratchDir s;
    ProcessResult r = runCli({"diff", kSrc + "/kernels/saxpy.cu", "--a", "--arch sm_80", "--b", "--arch sm_90", "--json",
                           s.path("diff.json")});
    ASSERT_TRUE(r.ok()) << r.stderrText;
    EXPECT_NE(r.stdoutText.find("== saxpy"), std::string::npos) << r.stdoutText;
    json diff = json::parse(readText(s.path("diff.json")));
    EXPECT_EQ(diff["schema"], "lowerscope.diff/1");
    EXPECT_EQ(diff["a"]["arch"], "sm_80");
    EXPECT_EQ(diff["b"]["arch"], "sm_90");
    ASSERT_EQ(diff["kernels"].size(), 1u);
    EXPECT_GT(diff["kernels"][0]["rows"].size(), 0u);
}

TEST(CliInputs, TwoLibraryVersionsCompareKernelByKernel) {
    REQUIRE_BUILD_TOOLS();
    if (!realToolchain().cuobjdump.found()) GTEST_SKIP() << "cuobjdump not found";
    ScratchDir s;
    const std::string v1 = s.write("v1/k.cu", "__global__ void scale(float* p, float a) { p[threadIdx.x] *= a; }\n"
                                              "__global__ void keep(float* p) { p[threadIdx.x] += 1.0f; }\n");
    const std::string v2 = s.write("v2/k.cu", "__global__ void scale(float* p, float a) { p[threadIdx.x] = p[threadIdx.x] * a + a; }\n"
                                              "__global__ void keep(float* p) { p[threadIdx.x] += 1.0f; }\n");
    const std::string lib1 = s.path("v1/libk.so"), lib2 = s.path("v2/libk.so");
    for (const auto& [src, lib] : {std::pair{v1, lib1}, std::pair{v2, lib2}})
        runTool({realToolchain().nvcc.path, "-shared", "-Xcompiler", "-fPIC", "-lineinfo", "-arch=sm_90", "-o", lib, src});
    json d = parse(runCli({"diff", lib1, lib2, "--json", "-"}));
    ASSERT_EQ(d["kernels"].size(), 2u);
    for (const auto& k : d["kernels"]) {
        const auto& sum = k["summary"];
        const int differences = sum["changed"].get<int>() + sum["added"].get<int>() + sum["removed"].get<int>();
        if (k["mangled"] == "_Z4keepPf") EXPECT_EQ(differences, 0) << k["summary"];
        else EXPECT_GT(differences, 0) << k["summary"];
    }
}

TEST(CliInputs, TritonCacheRootAndKernelFolder) {
    REQUIRE_BUILD_TOOLS();
    const std::string root = kSrc + "/tests/data/triton/cache";
    json d = parse(runCli({"build", root, "--member", "softmax_kernel", "--json", "-"}));
    EXPECT_EQ(d["input"]["kind"], "triton");
    EXPECT_EQ(d["kernels"][0]["name"], "softmax_kernel");
    EXPECT_EQ(d["kernels"][0]["launch_threads"], 256);
    EXPECT_EQ(d["kernels"][0]["launch_shared_bytes"], 32);
    EXPECT_EQ(d["input"]["embedded"].size(), 2u);
    ProcessResult list = runCli({"build", root, "--list"});
    ASSERT_TRUE(list.ok()) << list.stderrText;
    EXPECT_NE(list.stdoutText.find("add_kernel"), std::string::npos);
    EXPECT_NE(list.stdoutText.find("softmax_kernel"), std::string::npos);
}

TEST(CliInputs, FailingCuobjdumpOnTheEnvironmentDegrades) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string fake = s.write("cuobjdump", "#!/bin/sh\necho 'cuobjdump fatal : broken' >&2\nexit 1\n");
    fs::permissions(fake, fs::perms::owner_all);
    const std::string cubin = s.path("saxpy.cubin");
    runTool({realToolchain().nvcc.path, "-arch=sm_90", "-cubin", "-o", cubin, kSrc + "/kernels/saxpy.cu"});
    ProcessResult r = runCli({"build", cubin, "--json", "-", "--no-cache"}, {{"LOWERSCOPE_CUOBJDUMP", fake}});
    json d = parse(r);
    EXPECT_TRUE(d["ok"].get<bool>());
    EXPECT_NE(r.stderrText.find("warning: cuobjdump (res-usage) exit 1"), std::string::npos) << r.stderrText;
    EXPECT_NE(d["kernels"][0]["sass"].get<std::string>().find("EXIT"), std::string::npos);
    EXPECT_TRUE(d["kernels"][0]["resources"]["registers"].is_null());
    EXPECT_TRUE(d["kernels"][0]["resources"]["shared_bytes"].is_null());
}

// The same for a .cu build: cuobjdump is auxiliary there too. The build succeeds with SASS, the
// warning names what is missing, and the resources ptxas -v reported are still there.
TEST(CliInputs, FailingCuobjdumpDegradesACudaBuild) {
    REQUIRE_BUILD_TOOLS();
    ScratchDir s;
    const std::string fake = s.write("cuobjdump", "#!/bin/sh\necho 'cuobjdump fatal : broken' >&2\nexit 1\n");
    fs::permissions(fake, fs::perms::owner_all);
    ProcessResult r = runCli({"build", kSrc + "/kernels/saxpy.cu", "--arch", "sm_90", "--json", "-", "--no-cache"},
                          {{"LOWERSCOPE_CUOBJDUMP", fake}});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    json d = parse(r);
    EXPECT_TRUE(d["ok"].get<bool>());
    EXPECT_NE(r.stderrText.find("warning: cuobjdump (res-usage) exit 1"), std::string::npos) << r.stderrText;
    EXPECT_NE(r.stderrText.find("local memory is missing"), std::string::npos) << r.stderrText;
    bool warned = false;
    for (const auto& diag : d["diagnostics"])
        if (diag["severity"] == "warning" && diag["message"].get<std::string>().find("cuobjdump") != std::string::npos)
            warned = true;
    EXPECT_TRUE(warned) << d["diagnostics"].dump();
    EXPECT_NE(d["kernels"][0]["sass"].get<std::string>().find("EXIT"), std::string::npos);
    EXPECT_GT(d["kernels"][0]["resources"]["registers"].get<int>(), 0); // from ptxas -v
}

// ------------------------------------------------------------------------- project flags

namespace {

// A small project: k.cu includes "params.h" from include/ and needs -DSCALE; its database entry
// carries host-only flags that must be dropped.
struct Project {
    ScratchDir s;
    std::string source, database;
    Project() {
        s.write("proj/include/params.h", "#pragma once\n#ifndef SCALE\n#error SCALE not defined\n#endif\n");
        source = s.write("proj/src/k.cu", "#include \"params.h\"\n"
                                          "__global__ void scale(float* p) { p[threadIdx.x] *= SCALE; }\n");
        const json db = json::array(
            {{{"directory", s.path("proj/build")},
              {"command", realToolchain().nvcc.path +
                              " -I../include -DSCALE=3.0f -Xcompiler=-fPIC -Xcompiler -Wall -std=c++17 -O2 "
                              "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
                              "--generate-code=arch=compute_90,code=[compute_90,sm_90] -Xptxas -O2,--warn-on-spills "
                              "--expt-relaxed-constexpr -MD -MT k.o -MF k.o.d -x cu -c ../src/k.cu -o k.o"},
              {"file", "../src/k.cu"}},
             {{"directory", s.path("proj/build")},
              {"arguments", {"/usr/bin/c++", "-c", "../src/host.cpp"}},
              {"file", "../src/host.cpp"}}});
        fs::create_directories(s.dir / "proj/build");
        database = s.write("proj/build/compile_commands.json", db.dump(1));
    }
};

} // namespace

TEST(ProjectFlags, DatabaseEntryMapsOntoOptions) {
    Project p;
    ProjectOptions po = projectOptions(p.database, p.source);
    EXPECT_EQ(po.archs, (std::vector<std::string>{"sm_80", "sm_90"}));
    EXPECT_EQ(po.options.arch, "sm_80");
    EXPECT_EQ(po.options.defines, std::vector<std::string>{"SCALE=3.0f"});
    ASSERT_EQ(po.options.includeDirs.size(), 1u);
    EXPECT_EQ(fs::path(po.options.includeDirs[0]), (p.s.dir / "proj/include").lexically_normal());
    EXPECT_EQ(po.options.hostOpt, 2);
    EXPECT_EQ(po.options.ptxasOpt, 2);
    EXPECT_EQ(po.options.extraPtxasFlags, std::vector<std::string>{"--warn-on-spills"});
    EXPECT_EQ(po.options.extraNvccFlags, std::vector<std::string>{"--expt-relaxed-constexpr"});
    for (const char* key : {"arch", "defines", "include_dirs", "std", "host_opt", "ptxas_opt"})
        EXPECT_TRUE(po.fromProject.count(key)) << key;
    EXPECT_FALSE(po.fromProject.count("fast_math"));
    std::string dropped;
    for (const auto& d : po.dropped) dropped += d + "|";
    EXPECT_NE(dropped.find("-Xcompiler=-fPIC"), std::string::npos) << dropped;
    EXPECT_NE(dropped.find("-Xcompiler -Wall"), std::string::npos) << dropped;
    EXPECT_NE(dropped.find("-MF k.o.d"), std::string::npos) << dropped;
    // The folder works as well as the file; a file it does not list is a clear error.
    EXPECT_EQ(projectOptions(p.s.path("proj/build"), p.source).options, po.options);
    try {
        projectOptions(p.database, p.s.write("other.cu", ""));
        ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("has no entry for other.cu; it lists 2 file(s)"), std::string::npos) << e.what();
    }
}

TEST(ProjectFlags, UntrustedValuesNeverReachTheCompiler) {
    ProjectOptions po;
    applyCompileCommand(splitCommandLine("nvcc '-DX=$(touch /tmp/pwned)' -DOK=1 \"-I/a dir/inc\" -I/b/inc "
                                         "\"-DY=\\$(id)\" "
                                         "-Xptxas '-O3,`id`' -ccbin /evil/gcc -maxrregcount=64 --unknown-flag"),
                        "/project/dir", po);
    EXPECT_EQ(po.options.defines, std::vector<std::string>{"OK=1"});
    EXPECT_EQ(po.options.includeDirs, std::vector<std::string>{"/b/inc"});
    EXPECT_EQ(po.options.ptxasOpt, 3);
    EXPECT_TRUE(po.options.extraPtxasFlags.empty());
    EXPECT_EQ(po.options.maxRegCount, 64);
    EXPECT_TRUE(po.options.extraNvccFlags.empty());
    std::string dropped;
    for (const auto& d : po.dropped) dropped += d + "|";
    for (const char* x : {"$(touch", "/a dir/inc", "`id`", "-DY=$(id)", "-ccbin /evil/gcc", "--unknown-flag"})
        EXPECT_NE(dropped.find(x), std::string::npos) << x << " in " << dropped;
    EXPECT_THROW(splitCommandLine("nvcc 'unterminated"), std::runtime_error);
    // A database that is not one.
    ScratchDir s;
    EXPECT_THROW(projectOptions(s.write("compile_commands.json", "{\"not\": \"an array\"}"), "k.cu"), std::runtime_error);
}

// CMake (3.2x) writes a CUDA target's include directories into a response file that the command
// names with --options-file; its words count as the command's, when the file is inside the folder
// of the database the user opened; one outside it (or a nested one) is dropped and listed, never
// read, and a dropped word of a file that was read is listed by its option name only.
TEST(ProjectFlags, CmakeOptionsFilesAreReadInsideTheBuildFolderOnly) {
    ScratchDir s;
    s.write("proj/build/CMakeFiles/k.dir/includes_CUDA.rsp", "-I/proj/include \"-I/proj/with space\" -DFROM_RSP=1\n");
    s.write("secret.rsp", "-DLEAKED=1\n");
    s.write("proj/build/nested.rsp", "--options-file ../../secret.rsp -DNESTED=1\n");
    ProjectOptions po;
    po.database = s.path("proj/build/compile_commands.json");
    applyCompileCommand(splitCommandLine("nvcc -DSCALE=3 --options-file CMakeFiles/k.dir/includes_CUDA.rsp "
                                         "--options-file=../../secret.rsp -optf nested.rsp -c ../src/k.cu"),
                        s.path("proj/build"), po);
    EXPECT_EQ(po.options.includeDirs, std::vector<std::string>{"/proj/include"});
    EXPECT_EQ(po.options.defines, (std::vector<std::string>{"SCALE=3", "FROM_RSP=1", "NESTED=1"}));
    std::string dropped;
    for (const auto& d : po.dropped) dropped += d + "|";
    EXPECT_NE(dropped.find("--options-file ../../secret.rsp (outside the compile database's folder)"),
              std::string::npos)
        << dropped;
    EXPECT_NE(dropped.find("--options-file in nested.rsp (nested options file)"), std::string::npos) << dropped;
    // Not a plain value: listed by its option name, never with the file's text.
    EXPECT_NE(dropped.find("-I... from CMakeFiles/k.dir/includes_CUDA.rsp"), std::string::npos) << dropped;
    EXPECT_EQ(dropped.find("with space"), std::string::npos) << dropped;
}

// The whole point, with a real CMake: a CUDA target configured with CMAKE_EXPORT_COMPILE_COMMANDS
// opens with its include dirs (CMake's options file), defines, flags and archs in one step.
TEST(ProjectFlags, RealCmakeProjectOpensInOneStep) {
    REQUIRE_BUILD_TOOLS();
    const char* cmakePaths[] = {"/usr/bin/cmake", "/usr/local/bin/cmake"};
    std::string cmake;
    for (const char* c : cmakePaths)
        if (fs::exists(c)) cmake = c;
    if (cmake.empty()) GTEST_SKIP() << "cmake not found";
    ScratchDir s;
    s.write("proj/CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(k LANGUAGES CUDA)\n"
                                   "set(CMAKE_CUDA_ARCHITECTURES 80 90)\nadd_library(k STATIC src/k.cu)\n"
                                   "target_include_directories(k PRIVATE include)\n"
                                   "target_compile_definitions(k PRIVATE SCALE=3.0f)\n");
    s.write("proj/include/params.h", "#pragma once\n#ifndef SCALE\n#error SCALE not defined\n#endif\n");
    const std::string source =
        s.write("proj/src/k.cu", "#include \"params.h\"\n__global__ void scale(float* p) { p[threadIdx.x] *= SCALE; }\n");
    ProcessSpec configure;
    configure.argv = {cmake, "-S", s.path("proj"), "-B", s.path("proj/build"), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                      "-DCMAKE_CUDA_COMPILER=" + realToolchain().nvcc.path};
    configure.timeout = std::chrono::seconds(240);
    ProcessResult c = runProcess(configure);
    if (!c.ok()) GTEST_SKIP() << "cmake cannot configure a CUDA project here: " << c.stderrText.substr(0, 400);
    ProcessResult r = runCli({"build", source, "--project", s.path("proj/build"), "--json", "-", "--no-cache"});
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    json d = parse(r);
    EXPECT_EQ(d["schema"], "lowerscope.build-set/1") << "CMAKE_CUDA_ARCHITECTURES 80 90: both are built";
    EXPECT_EQ(d["archs"], json({"sm_80", "sm_90"}));
    for (const auto& b : d["builds"]) {
        EXPECT_TRUE(b["ok"].get<bool>());
        EXPECT_EQ(b["options"]["defines"], json({"SCALE=3.0f"}));
        ASSERT_EQ(b["options"]["include_dirs"].size(), 1u);
        EXPECT_EQ(fs::path(b["options"]["include_dirs"][0].get<std::string>()).filename(), "include");
    }
}

TEST(ProjectFlags, CliBuildsWithTheProjectsFlagsAndArchs) {
    REQUIRE_BUILD_TOOLS();
    Project p;
    // Without the project the file does not compile (SCALE and the include dir are missing).
    ProcessResult plain = runCli({"build", p.source, "--no-cache"});
    EXPECT_EQ(plain.exitCode, 1) << plain.stderrText;

    ProcessResult r = runCli({"build", p.source, "--project", p.database, "--json", "-"});
    json d = parse(r);
    EXPECT_EQ(d["schema"], "lowerscope.build-set/1"); // the project builds sm_80 and sm_90
    EXPECT_EQ(d["archs"], json({"sm_80", "sm_90"}));
    EXPECT_TRUE(d["ok"].get<bool>());
    EXPECT_NE(r.stderrText.find("project flag not used: -Xcompiler=-fPIC"), std::string::npos) << r.stderrText;
    EXPECT_EQ(d["project"]["archs"], json({"sm_80", "sm_90"}));

    // A flag given on the command line wins and is reported as the user's.
    d = parse(runCli({"build", p.source, "--project", p.database, "--arch", "sm_90", "-D", "EXTRA=1", "--json", "-"}));
    EXPECT_EQ(d["schema"], "lowerscope.build/1");
    EXPECT_EQ(d["arch"], "sm_90");
    EXPECT_EQ(d["options"]["defines"], json({"SCALE=3.0f", "EXTRA=1"}));
    EXPECT_EQ(d["project"]["overridden"], json({"arch", "defines"}));
    const auto fromProject = d["project"]["from_project"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(fromProject.begin(), fromProject.end(), "include_dirs"), fromProject.end());

    // inspect takes the project too; a database without the file is a usage error.
    ScratchDir out;
    ProcessResult ins = runCli({"inspect", p.source, "--project", p.database, "--arch", "sm_90", "--json", out.path("i.json")});
    EXPECT_TRUE(ins.ok()) << ins.stderrText;
    ProcessResult missing = runCli({"build", kSrc + "/kernels/saxpy.cu", "--project", p.database});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.stderrText.find("has no entry for saxpy.cu"), std::string::npos) << missing.stderrText;
    ProcessResult cmp = runCli({"compare", kSrc + "/kernels/saxpy.cu", "--project", p.database});
    EXPECT_EQ(cmp.exitCode, 2);
    EXPECT_NE(cmp.stderrText.find("has no entry for saxpy.cu"), std::string::npos) << cmp.stderrText;
}
