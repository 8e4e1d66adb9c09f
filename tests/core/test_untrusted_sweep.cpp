// Issue 31, the second hostile sweep: each class of input that broke a promise of docs/SECURITY.md,
// tested as a class at the rule that now holds it (core/untrusted.h and the readers that use it).
#include "core/bounded_json.h"
#include "core/build/build.h"
#include "core/build/cache.h"
#include "core/build/compile_db.h"
#include "core/build/demangle.h"
#include "core/build/json_io.h"
#include "core/build/input.h"
#include "core/build/toolchain.h"
#include "core/build/triton.h"
#include "core/experiment/experiment_session.h"
#include "core/experiment/series.h"
#include "core/parse/cuda_elf.h"
#include "core/run/argspec.h"
#include "core/run/expr.h"
#include "core/run/runner_client.h"
#include "core/untrusted.h"

#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace lowerscope;
namespace fs = std::filesystem;

namespace {

struct Scratch {
    fs::path dir;
    Scratch() {
        std::string tmpl = (fs::temp_directory_path() / "lowerscope-sweep-XXXXXX").string();
        dir = ::mkdtemp(tmpl.data());
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    std::string path(const std::string& name) const { return (dir / name).string(); }
    std::string write(const std::string& name, const std::string& text) const {
        const fs::path p = dir / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p.string();
    }
    std::string fifo(const std::string& name) const {
        const std::string p = path(name);
        fs::create_directories(fs::path(p).parent_path());
        EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0) << std::strerror(errno);
        return p;
    }
};

// Runs `f` and fails (instead of hanging the suite) when it does not return within 10 s: a reader
// blocked in open() on the FIFO is released by opening its other end.
template <class F> void mustNotBlock(const std::string& fifoPath, F f, const char* what) {
    auto done = std::async(std::launch::async, f);
    if (done.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
        ADD_FAILURE() << what << " blocked on the FIFO " << fifoPath;
        for (int i = 0; i < 100 && done.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout; ++i) {
            const int fd = ::open(fifoPath.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) ::close(fd);
        }
    }
    done.get();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A name mangled as f(p<p<...p<int, int>...>, ...>) with `levels` nested pairs, each level one
// substitution of the level below: a few characters per level, and the demangled text doubles with
// every level (26 levels: 193 characters, 300 MB demangled).
std::string substitutionBomb(int levels) {
    static const char* digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    std::string m = "_Z1f1pI";
    for (int i = 0; i < levels; ++i) m += "S_I";
    m += "iiE";
    for (int i = 0; i < levels; ++i) m += std::string("S") + digits[i] + "_E";
    return m;
}

#ifdef LOWERSCOPE_OLD_CORE
constexpr const char* kDemangleTooLongMark = " [demangled name over 64 KiB: shown mangled]";
#endif

} // namespace

// ------------------------------------------------------------------ class 5: special files hang
// Every reader of an input given as a path refuses a FIFO (and a device) before opening it.
TEST(SpecialFiles, FifoAsAnyInputIsRefusedWithoutBlocking) {
    Scratch s;
    for (const char* name : {"k.cubin", "k.ptx", "k.cu", "compile_commands.json", "k.json", "doc.json"}) {
        SCOPED_TRACE(name);
        const std::string fifo = s.fifo(std::string("f/") + name);
#ifndef LOWERSCOPE_OLD_CORE // (the fail-before check builds this file against the core before issue 31)
        std::string text, error;
        mustNotBlock(fifo, [&] { return readInputFile(fifo, kMaxSourceBytes, "a source file", text, error); },
                     "readInputFile");
        EXPECT_TRUE(contains(error, "FIFO")) << error;
#endif
        mustNotBlock(fifo, [&] { return detectInputKind(fifo); }, "detectInputKind");
        std::string jsonError;
        mustNotBlock(fifo, [&] { return readJsonFileBounded(fifo, jsonError).has_value(); }, "readJsonFileBounded");
        EXPECT_TRUE(contains(jsonError, "FIFO")) << jsonError;
        fs::remove(fifo);
    }
    // The compile database, the sidecar and the cache key (which hashes the input first).
    const std::string db = s.fifo("db/compile_commands.json");
    mustNotBlock(db, [&] {
        try {
            projectOptions(db, s.path("k.cu"));
            ADD_FAILURE() << "a FIFO was read as a compile database";
        } catch (const std::runtime_error& e) {
            EXPECT_TRUE(contains(e.what(), "FIFO")) << e.what();
        }
    }, "projectOptions");
    const std::string sidecar = s.fifo("side/k.json");
    mustNotBlock(sidecar, [&] {
        try {
            loadSidecar(sidecar);
            ADD_FAILURE() << "a FIFO was read as a sidecar";
        } catch (const ArgSpecError& e) {
            EXPECT_TRUE(contains(e.what(), "FIFO")) << e.what();
        }
    }, "loadSidecar");
    const std::string cubin = s.fifo("key/k.cubin");
    mustNotBlock(cubin, [&] {
        BuildInput in;
        in.kind = InputKind::Cubin;
        in.path = cubin;
        std::string error;
        EXPECT_TRUE(computeCacheKey(in, "fp", &error).empty());
        EXPECT_TRUE(contains(error, "FIFO")) << error;
    }, "computeCacheKey");
    std::string dbError;
    try {
        projectOptions("/dev/zero", s.path("k.cu"));
        ADD_FAILURE() << "/dev/zero was read as a compile database";
    } catch (const std::runtime_error& e) {
        dbError = e.what();
    }
    EXPECT_TRUE(contains(dbError, "device")) << dbError;
}

// ------------------------------------------------------------------ class 6: unbounded reads
// The size is checked before the first byte is read; the error names the file and the limit.
TEST(UnboundedReads, SizeIsCheckedBeforeReadingAndNamed) {
    Scratch s;
    const std::string big = s.path("huge.cubin");
    {
        std::ofstream(big, std::ios::binary) << "\x7f" "ELF";
    }
    fs::resize_file(big, std::uintmax_t(8) << 30); // 8 GiB, sparse: nothing is written
    BuildInput in;
    in.kind = InputKind::Cubin;
    in.path = big;
    std::string error;
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_TRUE(computeCacheKey(in, "fp", &error).empty());
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2)) << "the file was read";
    EXPECT_TRUE(contains(error, big)) << error;
    EXPECT_TRUE(contains(error, "256 MiB (limit)")) << error;
    EXPECT_TRUE(contains(error, "8 GiB")) << error;

    // A PTX of a Triton folder over the limit: refused by name, not read.
    const std::string k = s.path("triton/abc");
    s.write("triton/abc/add.json", R"({"name": "add", "num_warps": 4, "shared": 0})");
    s.write("triton/abc/add.ptx", ".version 8.0\n");
    fs::resize_file(k + "/add.ptx", std::uintmax_t(3) << 30);
    in.kind = InputKind::Triton;
    in.path = k;
    error.clear();
    EXPECT_TRUE(computeCacheKey(in, "fp", &error).empty());
    EXPECT_TRUE(contains(error, "add.ptx") && contains(error, "(limit)")) << error;

    // A compile database over 64 MiB (the limit docs/SECURITY.md states).
    const std::string db = s.write("db/compile_commands.json", "[]");
    fs::resize_file(db, (std::uintmax_t(64) << 20) + 1);
    try {
        projectOptions(db, s.path("k.cu"));
        ADD_FAILURE() << "an oversized compile database was read";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "64 MiB (limit)")) << e.what();
    }
}

// ------------------------------------------------------------------ class 7: demangling bombs
TEST(Demangle, SubstitutionBombsAreCutOffAndMarked) {
    for (int levels : {22, 26, 35}) {
        SCOPED_TRACE(levels);
        const std::string mangled = substitutionBomb(levels);
        const auto t0 = std::chrono::steady_clock::now();
        const std::string shown = demangle(mangled);
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
        EXPECT_EQ(shown, mangled + kDemangleTooLongMark);
    }
    // Below the bound the same shape demangles in full.
    EXPECT_EQ(demangle(substitutionBomb(2)), "f(p<p<p<int, int>, p<int, int> >, p<p<int, int>, p<int, int> > >)");
    const std::string eight = demangle(substitutionBomb(8));
    EXPECT_EQ(eight.rfind("f(p<p<", 0), 0u) << eight;
    EXPECT_FALSE(contains(eight, kDemangleTooLongMark));
#ifndef LOWERSCOPE_OLD_CORE
    // The bound is a parameter: the same name, a smaller bound.
    EXPECT_EQ(demangle(substitutionBomb(8), 100), substitutionBomb(8) + kDemangleTooLongMark);
#endif
    EXPECT_EQ(demangle("_Z5saxpyifPKfPf"), "saxpy(int, float, float const*, float*)");
}

// ------------------------------------------------------------------ class 8: expression recursion
TEST(ExpressionBounds, LongChainsFailCleanlyInsteadOfOverflowingTheStack) {
    std::string chain = "1";
    for (int i = 1; i < 50000; ++i) chain += "+1";
    EXPECT_THROW(Expr::parse(chain), ExprError);
    for (const char* op : {"+", "*", "<<", "-"}) {
        std::string c = "1";
        for (int i = 0; i < 3000; ++i) c += std::string(op) + "1";
        EXPECT_THROW(Expr::parse(c), ExprError) << op;
    }
    std::string unary(3000, '-');
    EXPECT_THROW(Expr::parse(unary + "1"), ExprError);
    // Error messages quote a bounded part of the text.
    try {
        Expr::parse(chain);
    } catch (const ExprError& e) {
        EXPECT_LT(std::strlen(e.what()), 1000u);
    }
    // Ordinary long sums still work.
    std::string ok = "1";
    for (int i = 1; i < 200; ++i) ok += "+1";
    EXPECT_EQ(evaluateConstant(ok).i, 200);
    // The sidecar's grid of 50 000 terms: an ArgSpecError, never a crash.
    const std::string sidecar = R"({"kernels": [{"name": "k", "grid": [")" + chain +
                                R"("], "block": [256], "args": []}]})";
    std::vector<LaunchSpec> specs;
    try {
        specs = parseSidecar(sidecar);
        for (const auto& spec : specs) resolveLaunch(spec, {});
        ADD_FAILURE() << "a 50 000-term grid was accepted";
    } catch (const ArgSpecError& e) {
        EXPECT_TRUE(contains(e.what(), "grid")) << e.what();
    }
}

// ------------------------------------------------------------------ class 2: files through a database
// A database entry never makes a tool read another file, its "directory" never widens where an
// options file may be, and no message shows the content of a file that was read.
TEST(CompileDatabase, NoFlagReadsAFileOutsideTheDatabaseFolder) {
    Scratch s;
    const std::string secret = s.write("secret.txt", "TOP-SECRET-CONTENT -DLEAK=1 \"unterminated\n");
    s.write("proj/build/inside.rsp", "-I/ok/include \"-I/with space\" -DFROM_RSP=1 -Xcompiler=SECRET_FLAG\n");
    s.write("proj/build/quote.rsp", "-DA=1 'TOP-SECRET-QUOTED\n");
    const std::string entry = R"({"directory": "/", "file": ")" + s.path("proj/src/k.cu") + R"(", "arguments": [
        "nvcc", "-c", "k.cu",
        "-Xptxas=--options-file=)" + secret + R"(", "-Xptxas", "-optf,)" + secret + R"(",
        "--ptxas-options=--output-file=/tmp/x", "-Xptxas=-O2",
        "--options-file=)" + secret + R"(", "-optf", ")" + secret.substr(1) + R"(",
        "--options-file=)" + s.path("proj/build/inside.rsp") + R"(",
        "--options-file=)" + s.path("proj/build/quote.rsp") + R"("]})";
    s.write("proj/src/k.cu", "__global__ void k() {}\n");
    const std::string db = s.write("proj/build/compile_commands.json", "[" + entry + "]");
    const ProjectOptions po = projectOptions(db, s.path("proj/src/k.cu"));
    const std::string all = projectJson(po).dump() + nlohmann::json(po.options).dump();
    EXPECT_FALSE(contains(all, "TOP-SECRET")) << all;
    EXPECT_FALSE(contains(all, "SECRET_FLAG")) << all;
    EXPECT_FALSE(contains(all, "with space")) << all;
    for (const auto& f : po.options.extraPtxasFlags) {
        EXPECT_FALSE(contains(f, "options-file") || contains(f, "optf") || contains(f, "output-file")) << f;
        EXPECT_NE(f, secret);
    }
    EXPECT_EQ(po.options.ptxasOpt, 2);
    // The options file inside the database's folder is still read (CMake's includes_CUDA.rsp).
    EXPECT_EQ(po.options.includeDirs, std::vector<std::string>{"/ok/include"});
    EXPECT_NE(std::find(po.options.defines.begin(), po.options.defines.end(), "FROM_RSP=1"), po.options.defines.end());
    std::string dropped;
    for (const auto& d : po.dropped) dropped += d + "\n";
    EXPECT_TRUE(contains(dropped, "outside the compile database's folder")) << dropped;
    EXPECT_TRUE(contains(dropped, "makes ptxas read or write a file")) << dropped;
    EXPECT_TRUE(contains(dropped, "unterminated quote")) << dropped;

    // A database whose text is not JSON: the parser's message never quotes it.
    const std::string notJson = s.write("other/compile_commands.json", "TOP-SECRET-root:x:0:0:root:/root:/bin/bash\n");
    try {
        projectOptions(notJson, s.path("proj/src/k.cu"));
    } catch (const std::exception& e) {
        EXPECT_FALSE(contains(e.what(), "TOP-SECRET")) << e.what();
    }
    std::string jsonError;
    EXPECT_FALSE(readJsonFileBounded(secret, jsonError));
    EXPECT_FALSE(contains(jsonError, "TOP-SECRET")) << jsonError;
    EXPECT_FALSE(contains(jsonError, "last read")) << jsonError;
}

// ------------------------------------------------------------------ class 3: Triton symlinks
TEST(TritonFolders, SymbolicLinksOutOfTheFolderAreRefused) {
    Scratch s;
    s.write("elsewhere/other.ptx", ".version 8.0\n// another file's PTX\n");
    s.write("elsewhere/meta.json", R"({"name": "add", "num_warps": 4})");
    s.write("cache/a/add.json", R"({"name": "add", "num_warps": 4, "shared": 0})");
    fs::create_symlink(s.path("elsewhere/other.ptx"), s.path("cache/a/add.ptx"));
    try {
        readTritonKernel(s.path("cache/a"));
        ADD_FAILURE() << "a PTX linked from outside the folder was taken";
    } catch (const std::runtime_error& e) {
        EXPECT_TRUE(contains(e.what(), "symbolic link")) << e.what();
    }
    // Metadata linked from outside, and a cubin.
    s.write("cache/b/add.ptx", ".version 8.0\n");
    fs::create_symlink(s.path("elsewhere/meta.json"), s.path("cache/b/add.json"));
    EXPECT_THROW(readTritonKernel(s.path("cache/b")), std::runtime_error);
    s.write("cache/c/add.json", R"({"name": "add", "num_warps": 4})");
    fs::create_symlink(s.path("elsewhere/other.ptx"), s.path("cache/c/add.cubin"));
    EXPECT_THROW(readTritonKernel(s.path("cache/c")), std::runtime_error);
    // A kernel folder that is itself a link out of the cache root is skipped, with the reason.
    s.write("elsewhere/d/add.json", R"({"name": "add", "num_warps": 4})");
    s.write("elsewhere/d/add.ptx", ".version 8.0\n");
    fs::create_symlink(s.path("elsewhere/d"), s.path("cache/d"));
    std::vector<std::string> skipped;
    const auto kernels = listTritonCache(s.path("cache"), &skipped);
    EXPECT_TRUE(kernels.empty());
    std::string why;
    for (const auto& k : skipped) why += k + "\n";
    EXPECT_TRUE(contains(why, "d: ")) << why;
    // A link that stays inside the folder is fine.
    s.write("cache2/e/real.ptx", ".version 8.0\n");
    s.write("cache2/e/add.json", R"({"name": "add", "num_warps": 4})");
    fs::create_symlink("real.ptx", s.path("cache2/e/add.ptx"));
    EXPECT_NO_THROW(readTritonKernel(s.path("cache2/e")));
}

#ifndef LOWERSCOPE_OLD_CORE
// ------------------------------------------------------------------ class 1: the runner host
TEST(RunnerHost, OptionLikeHostsAreRefusedAndSshOptionsEndBeforeTheHost) {
    for (const char* bad : {"-oProxyCommand=touch /tmp/pwned", "-F/tmp/x", "host name", "a;b", "h\x1b[2J", ""})
        EXPECT_FALSE(sshHostError(bad).empty()) << bad;
    for (const char* ok : {"gpu1", "user@gpu1.example.org", "10.0.0.2", "[::1]", "gpu-2_a"})
        EXPECT_EQ(sshHostError(ok), "") << ok;
    const auto cmd = sshRunnerCommand("-oProxyCommand=x");
    const auto dashes = std::find(cmd.begin(), cmd.end(), "--");
    ASSERT_NE(dashes, cmd.end());
    EXPECT_EQ(*(dashes + 1), "-oProxyCommand=x");
}

// ------------------------------------------------------------------ class 10: markup and terminal
TEST(OutsideText, MarkupAndTerminalEscaping) {
    const std::string hostile = "a\x1b]0;pwn\x07<b>&\"'\xff|*_";
    const std::string x = xmlEscape(std::string_view(hostile));
    EXPECT_FALSE(contains(x, "\x1b"));
    EXPECT_FALSE(contains(x, "\x07"));
    EXPECT_FALSE(contains(x, "<b>"));
    EXPECT_FALSE(contains(x, "\xff"));
    EXPECT_TRUE(contains(x, "&lt;b&gt;&amp;&quot;&#39;"));
    // The SVG writers use it: a series name with control bytes gives well-formed text.
    EXPECT_EQ(xmlEscape(hostile), x);
    const std::string md = markdownCell(hostile);
    EXPECT_FALSE(contains(md, "\x1b"));
    EXPECT_TRUE(contains(md, "\\|")) << md;
    EXPECT_EQ(boundedText(std::string(100, 'a'), 10), std::string(10, 'a') + "\u2026 (100 bytes in all)");
    EXPECT_EQ(boundedText("short", 10), "short");
}

#endif

// ------------------------------------------------------------------ class 11: a cubin's bounds
TEST(CudaElf, HugeOffsetsAreNoException) {
    std::string elf(256, '\0');
    std::memcpy(elf.data(), "\x7f" "ELF", 4);
    elf[4] = 2; // 64-bit
    elf[5] = 1; // little-endian
    elf[18] = char(190);
    // One section header at 64 whose offset is far beyond the file.
    auto put = [&](size_t at, uint64_t v, int n) {
        for (int i = 0; i < n; ++i) elf[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
    };
    put(0x28, 64, 8);   // e_shoff
    put(0x3a, 64, 2);   // e_shentsize
    put(0x3c, 2, 2);    // e_shnum
    put(0x3e, 1, 2);    // e_shstrndx
    for (int sh = 0; sh < 2; ++sh) {
        const size_t base = 64 + size_t(sh) * 64;
        put(base + 4, 2, 4);                       // SHT_SYMTAB
        put(base + 0x18, uint64_t(1) << 60, 8);    // sh_offset
        put(base + 0x20, 16, 8);                   // sh_size
        put(base + 0x38, 24, 8);                   // sh_entsize
    }
    EXPECT_NO_THROW(cudaElfKernels(elf));
    EXPECT_NO_THROW(elfSection(elf, ".nv.info"));
}

// ------------------------------------------------------------------ class 12: cache artefacts
TEST(CacheArtefacts, EveryArtefactIsHashedNotOnlyTheCubin) {
    Scratch s;
    BuildCache cache(s.path("cache"));
    BuildResult r;
    r.ok = true;
    r.ptx = ".version 8.0\n// the real PTX\n";
    r.cubin = {1, 2, 3, 4};
    const std::string key = "0123456789abcdef0123456789abcdef";
    ASSERT_TRUE(cache.store(key, r));
    ASSERT_TRUE(cache.load(key).has_value());
    const std::string path = cache.entryPath(key);
    std::string text;
    {
        std::ifstream in(path, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    const size_t at = text.find("the real PTX");
    ASSERT_NE(at, std::string::npos);
    text.replace(at, 12, "a planted PT");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    EXPECT_FALSE(cache.load(key).has_value()) << "a tampered PTX was replayed";
}

// ------------------------------------------------------------------ class 12: a wrongly typed card
// `experiment --card FILE` with a card of the wrong shape was taken as an empty card, silently.
TEST(CardFiles, WronglyTypedCardsAreErrorsNotEmptyCards) {
    for (const char* text : {R"({"card": "a hypothesis"})", R"({"card": [1, 2]})", R"({"hypotheses": "typo"})",
                             R"({"schema": "lowerscope.compare/1", "a": {}})", R"({"card": {"hypo": "x"}})"}) {
        SCOPED_TRACE(text);
        EXPECT_THROW(cardFromJson(nlohmann::json::parse(text)), SessionError);
    }
    // Well-formed cards still read, a whole session's card too.
    EXPECT_EQ(cardFromJson(nlohmann::json::parse(R"({"hypothesis": "h"})")).hypothesis, "h");
    EXPECT_EQ(cardFromJson(nlohmann::json::parse(R"({"card": {"result": "r"}})")).result, "r");
}

// ------------------------------------------------------------------ class 10: the tool memo
// `doctor` printed a tool version taken from the memo of a (possibly shared) cache folder as it
// was: escape sequences reached the terminal. A memo word that no tool would print is not taken.
TEST(ToolMemo, TamperedVersionsAndArchsAreAskedAgain) {
    Scratch s;
    const std::string fake = s.write("bin/nvcc", "#!/bin/sh\n"
                                                 "case \"$1\" in --version) echo 'Cuda compilation tools, release 42.0, V42.0.1';;\n"
                                                 "--list-gpu-code) echo sm_80 sm_90;; esac\n");
    fs::permissions(fake, fs::perms::owner_all);
    DiscoveryOptions opts;
    opts.projectToolsDir = s.path("bin");
    opts.memoDir = s.path("memo");
    ::setenv("LOWERSCOPE_NVCC", fake.c_str(), 1);
    const Toolchain first = discoverToolchain(opts);
    ASSERT_EQ(first.nvcc.version, "42.0.1");
    const std::string memoFile = s.path("memo/toolchain-memo-v1.json");
    auto memo = nlohmann::json::parse(std::ifstream(memoFile));
    for (auto& [id, entry] : memo.items()) {
        if (!entry.is_object()) continue;
        if (entry.contains("version")) entry["version"] = "\x1b]0;pwned\x07\x1b[2J13.0";
        if (entry.contains("archs")) entry["archs"] = {"sm_80\x1b[31m", "sm_90"};
    }
    std::ofstream(memoFile, std::ios::trunc) << memo.dump();
    const Toolchain second = discoverToolchain(opts);
    ::unsetenv("LOWERSCOPE_NVCC");
    EXPECT_EQ(second.nvcc.version, "42.0.1");
    EXPECT_EQ(second.gpuArchs, (std::vector<std::string>{"sm_80", "sm_90"}));
}
