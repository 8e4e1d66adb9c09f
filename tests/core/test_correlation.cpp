// Correlation, aggregates and buildLoweringModel over the golden tool outputs (no tools run):
// a BuildResult is assembled from tests/data/<arch>/<kernel>.{ptx,sass,gp.sass,lrm.sass}.
#include "analysis_util.h"

#include "core/analysis/aggregate.h"
#include "core/analysis/inspect.h"
#include "core/analysis/lowering.h"
#include "core/parse/opcodes.h"
#include "core/parse/ptx_parser.h"

#include <gtest/gtest.h>

#include <set>

using namespace lowerscope;
using namespace lowerscope::testutil;

namespace {

BuildResult goldenBuild(const std::string& arch, const std::string& kernel) {
    const auto dir = dataDir() / arch;
    BuildResult r;
    r.ok = true;
    r.ptx = readFile(dir / (kernel + ".ptx"));
    const PtxListing ptx = parsePtx(r.ptx);
    for (const auto& f : ptx.functions) {
        if (!f.isEntry) continue;
        KernelArtifacts k;
        k.name = f.name;
        k.mangled = f.name;
        k.sass = readFile(dir / (kernel + ".sass"));
        k.sassPtxLines = readFile(dir / (kernel + ".gp.sass"));
        r.kernels.push_back(std::move(k));
    }
    return r;
}

} // namespace

// nvdisasm -gp numbers lines of the PTX embedded in the cubin (.nv_debug_ptx_txt); they must be
// the lines of the `nvcc -ptx` text we show: each one is an instruction line whose .loc position
// is the SASS instruction's own source position (or the body's `{` for prologue code).
TEST(Correlation, PtxLinesFromNvdisasmMatchNvccPtx) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    size_t checked = 0, sameSource = 0, withSource = 0;
    for (const auto& arch : goldenArchs())
        for (const auto& k : goldenKernels(arch)) {
            const LoweringModel m = buildLoweringModel(goldenBuild(arch, k));
            for (const auto& km : m.kernels) {
                SCOPED_TRACE(arch + "/" + k + "/" + km.mangled);
                ASSERT_GE(km.ptxFunction, 0);
                const auto& f = m.ptx.functions[static_cast<size_t>(km.ptxFunction)];
                for (const auto& ins : km.sass.instructions) {
                    if (ins.ptxLine == 0) continue;
                    ++checked;
                    ASSERT_LE(static_cast<size_t>(ins.ptxLine), m.ptx.lines.size());
                    const PtxLine& pl = m.ptx.lines[static_cast<size_t>(ins.ptxLine - 1)];
                    // Prologue code (stack pointer, memory descriptor) is attributed to the opening
                    // brace of the function body on sm_100 builds.
                    const bool brace = pl.text.find_first_not_of(" \t{") == std::string::npos;
                    EXPECT_TRUE(pl.isInstruction || brace) << ins.text << " → PTX line " << ins.ptxLine << ": " << pl.text;
                    // In the kernel's .entry, or in a .func it calls (a __noinline__ function or
                    // a recursion, compiled into the kernel's text as a subroutine).
                    bool inFunction = ins.ptxLine >= f.firstLine && ins.ptxLine <= f.lastLine;
                    for (const auto& g : m.ptx.functions)
                        inFunction |= !g.isEntry && ins.ptxLine >= g.firstLine && ins.ptxLine <= g.lastLine;
                    EXPECT_TRUE(inFunction) << ins.text << " → PTX line " << ins.ptxLine;
                    if (pl.source && ins.source.valid()) {
                        ++withSource;
                        const SourceFrame a = pl.source->callSite(), b = ins.source.callSite();
                        if (pl.source->line == ins.source.line && pl.source->file == ins.source.file && a.file == b.file && a.line == b.line)
                            ++sameSource;
                    }
                }
            }
        }
    EXPECT_GT(checked, 1000u);
    // Line info of the SASS (-gi) and of the PTX .loc agree for nearly every instruction; ptxas
    // occasionally re-attributes a merged instruction, so allow a small remainder.
    EXPECT_GE(sameSource * 100, withSource * 95) << sameSource << " of " << withSource;
}

TEST(Correlation, QueriesInBothDirectionsAndInlining) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    const LoweringModel m = buildLoweringModel(goldenBuild("sm_90", "reduction"));
    const KernelModel* k = m.kernel("_Z10reduce_sumPKfPfi");
    ASSERT_NE(k, nullptr);
    const Correlation& c = k->correlation;
    // Line 7 is `v += __shfl_down_sync(...)` inside warpReduceSum, inlined into the kernel: it has
    // code only in the callee view; the call sites (lines 17 and 25 in blockReduceSum, itself
    // inlined at line 36) carry it in the call-site view.
    const auto calleeSass = c.sassForSource("kernels/reduction.cu", 7, InlineAttribution::Callee);
    EXPECT_FALSE(calleeSass.empty());
    EXPECT_TRUE(c.sassForSource("kernels/reduction.cu", 7, InlineAttribution::CallSite).empty());
    const auto callSite = c.sassForSource("kernels/reduction.cu", 36, InlineAttribution::CallSite);
    for (uint32_t a : calleeSass) EXPECT_NE(std::find(callSite.begin(), callSite.end(), a), callSite.end());
    // Matching by file name when the recorded path differs.
    EXPECT_EQ(c.sassForSource("/somewhere/else/reduction.cu", 7, InlineAttribution::Callee), calleeSass);
    // Round trips: address → source/PTX → back.
    for (uint32_t a : calleeSass) {
        const auto src = c.sourceForSass(a);
        ASSERT_TRUE(src.has_value());
        EXPECT_EQ(src->line, 7);
        EXPECT_FALSE(src->inlinedAt.empty());
        const int pl = c.ptxLineForSass(a);
        ASSERT_GT(pl, 0);
        const auto back = c.sassForPtx(pl);
        EXPECT_NE(std::find(back.begin(), back.end(), a), back.end());
        const auto ps = c.sourceForPtx(pl);
        ASSERT_TRUE(ps.has_value());
        EXPECT_EQ(ps->line, 7);
        const auto ptxLines = c.ptxLinesForSource("kernels/reduction.cu", 7, InlineAttribution::Callee);
        EXPECT_NE(std::find(ptxLines.begin(), ptxLines.end(), pl), ptxLines.end());
    }
    EXPECT_FALSE(c.sourceForSass(0xfffffff0).has_value());
    EXPECT_EQ(c.ptxLineForSass(0xfffffff0), 0);
    const auto callLines = c.sourceLines(InlineAttribution::CallSite);
    const auto calleeLines = c.sourceLines(InlineAttribution::Callee);
    auto hasLine = [](const std::vector<SourceFrame>& v, int l) {
        return std::any_of(v.begin(), v.end(), [&](const SourceFrame& f) { return f.line == l; });
    };
    EXPECT_TRUE(hasLine(calleeLines, 7));
    EXPECT_FALSE(hasLine(callLines, 7));
    EXPECT_TRUE(hasLine(callLines, 36));
}

TEST(Aggregates, SumsMatchTheListing) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    for (const auto& arch : goldenArchs())
        for (const auto& kname : goldenKernels(arch)) {
            const LoweringModel m = buildLoweringModel(goldenBuild(arch, kname));
            for (const auto& k : m.kernels) {
                SCOPED_TRACE(arch + "/" + kname + "/" + k.mangled);
                EXPECT_EQ(k.total.instructions, static_cast<int>(k.sass.instructions.size()));
                int lineSum = 0, withSource = 0, stall = 0, maxLive = 0, mem = 0, memLines = 0;
                for (const auto& l : k.lines) {
                    lineSum += l.instructions;
                    int mixSum = 0;
                    for (const auto& [c, n] : l.mix) mixSum += n;
                    EXPECT_EQ(mixSum, l.instructions);
                    for (const auto& [s, n] : l.memoryBySpace) memLines += n;
                }
                for (const auto& i : k.sass.instructions) {
                    withSource += i.source.valid();
                    stall += i.control.stall;
                    maxLive = std::max(maxLive, i.live.gpr);
                    mem += !memorySpace(i).empty();
                }
                EXPECT_EQ(lineSum, withSource);
                EXPECT_EQ(k.total.stallCycles, stall);
                EXPECT_EQ(k.total.maxLiveGpr, maxLive);
                int memTotal = 0;
                for (const auto& [s, n] : k.total.memoryBySpace) memTotal += n;
                EXPECT_EQ(memTotal, mem);
                EXPECT_LE(memLines, memTotal);
                for (size_t i = 1; i < k.lines.size(); ++i)
                    EXPECT_TRUE(std::tie(k.lines[i - 1].file, k.lines[i - 1].line) < std::tie(k.lines[i].file, k.lines[i].line));
            }
        }
}

TEST(Inspect, DocumentShape) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    const LoweringModel m = buildLoweringModel(goldenBuild("sm_90", "saxpy"));
    InspectOptions o;
    o.sourceFile = "kernels/saxpy.cu";
    std::string error;
    ASSERT_TRUE(resolveLineQuery(m, "saxpy.cu:8", o.queryFile, o.line, error)) << error;
    EXPECT_EQ(o.queryFile, "kernels/saxpy.cu");
    const auto doc = inspectJson(m, o);
    EXPECT_EQ(doc["schema"], "lowerscope.inspect/2");
    ASSERT_EQ(doc["files"].size(), 1u);
    EXPECT_EQ(doc["files"][0]["path"], "kernels/saxpy.cu");
    ASSERT_EQ(doc["kernels"].size(), 1u);
    const auto& k = doc["kernels"][0];
    for (const char* key : {"name", "mangled", "launch_bounds", "files", "ptx", "sass", "deps", "blocks", "edges", "lines",
                            "total", "query"})
        EXPECT_TRUE(k.contains(key)) << key;
    const auto& ins = k["sass"]["instructions"][0];
    for (const char* key : {"address", "predicate", "opcode", "operands", "encoding", "control", "source", "ptx_line", "live", "defs", "uses"})
        EXPECT_TRUE(ins.contains(key)) << key;
    for (const char* key : {"stall", "yield_hint", "write_barrier", "read_barrier", "wait_mask", "reuse"})
        EXPECT_TRUE(ins["control"].contains(key)) << key;
    EXPECT_FALSE(ins["control"].contains("yield")); // the raw bit under the misleading name is gone
    for (const char* key : {"gpr", "pred", "ugpr", "upred"}) EXPECT_TRUE(ins["live"].contains(key)) << key;
    // yield_hint is exactly the text form's Y, on every instruction.
    int hints = 0;
    for (const auto& i : k["sass"]["instructions"]) {
        const std::string text = i["control"]["text"];
        EXPECT_EQ(i["control"]["yield_hint"].get<bool>(), text[14] == 'Y') << text;
        hints += i["control"]["yield_hint"].get<bool>();
    }
    EXPECT_GT(hints, 0);
    ASSERT_FALSE(k["deps"].empty());
    for (const char* key : {"from", "to", "resource", "kind"}) EXPECT_TRUE(k["deps"][0].contains(key)) << key;
    // lines[]: (file, line) with the three attributions; without inlining they agree.
    bool line8 = false;
    for (const auto& l : k["lines"]) {
        for (const char* part : {"call_site", "callee", "any_frame"})
            for (const char* key : {"instructions", "mix", "max_live_gpr", "stall_cycles", "memory"})
                EXPECT_TRUE(l[part].contains(key)) << part << "." << key;
        if (l["line"] == 8) {
            line8 = true;
            EXPECT_GT(l["call_site"]["instructions"].get<int>(), 0);
            EXPECT_EQ(l["call_site"]["instructions"], l["any_frame"]["instructions"]);
        }
    }
    EXPECT_TRUE(line8);
    EXPECT_EQ(k["query"]["frame"], "any");
    EXPECT_EQ(k["query"]["file"], "kernels/saxpy.cu");
    EXPECT_FALSE(k["query"]["call_site"]["sass_addresses"].empty());
    EXPECT_EQ(k["query"]["any_frame"]["sass_addresses"], k["query"]["call_site"]["sass_addresses"]);
    const std::string report = lineReport(m, o);
    EXPECT_NE(report.find("FFMA"), std::string::npos) << report;
    EXPECT_NE(report.find("fma.rn.f32"), std::string::npos) << report;
    o.kernel = "nope";
    EXPECT_TRUE(inspectJson(m, o)["kernels"].empty());
}

// A kernel family defined in headers (tests/data/src/header_family*.cuh): the kernel's own lines
// are in header_family_gemm.cuh, `tile_dot` (math.cuh:16) is inlined at gemm.cuh:18 and inlines
// `scaled_fma` (math.cuh:7). math.cuh:16 is then a middle frame for the multiply-adds: neither
// their call site nor their callee line, but on their inline chain.
TEST(Inspect, HeaderResidentKernelsAndAnyFrame) {
    LOWERSCOPE_REQUIRE_GOLDEN();
    const LoweringModel m = buildLoweringModel(goldenBuild("sm_90", "header_family"));
    ASSERT_EQ(m.kernels.size(), 2u);
    std::set<std::string> files;
    for (const auto& f : m.files) files.insert(f.path);
    EXPECT_TRUE(files.count("tests/data/src/header_family_gemm.cuh"));
    EXPECT_TRUE(files.count("tests/data/src/header_family_math.cuh"));
    std::string error, gemm, math;
    int line = 0;
    ASSERT_TRUE(resolveLineQuery(m, "header_family_gemm.cuh:18", gemm, line, error)) << error;
    ASSERT_TRUE(resolveLineQuery(m, "src/header_family_math.cuh:16", math, line, error)) << error;
    EXPECT_EQ(math, "tests/data/src/header_family_math.cuh");
    for (const auto& k : m.kernels) {
        SCOPED_TRACE(k.name);
        const Correlation& c = k.correlation;
        auto count = [&](const std::string& f, int l, InlineAttribution a) { return c.sassForSource(f, l, a).size(); };
        // The call site in the kernel body owns everything inlined there.
        EXPECT_GT(count(gemm, 18, InlineAttribution::CallSite), count(gemm, 18, InlineAttribution::Callee));
        // The innermost helper's line: its instructions as callee, none as call site.
        EXPECT_GT(count(math, 7, InlineAttribution::Callee), 0u);
        EXPECT_EQ(count(math, 7, InlineAttribution::CallSite), 0u);
        EXPECT_EQ(count(math, 7, InlineAttribution::AnyFrame), count(math, 7, InlineAttribution::Callee));
        // The middle frame: never a call site, and any-frame finds the multiply-adds the callee
        // view misses.
        EXPECT_EQ(count(math, 16, InlineAttribution::CallSite), 0u);
        EXPECT_GT(count(math, 16, InlineAttribution::AnyFrame),
                  count(math, 16, InlineAttribution::Callee) + count(math, 7, InlineAttribution::Callee) / 2);
        bool ffmaViaMiddle = false;
        for (uint32_t a : c.sassForSource(math, 16, InlineAttribution::AnyFrame)) {
            const auto& i = k.sass.instructions[static_cast<size_t>(k.sass.indexOf(a))];
            ffmaViaMiddle |= i.mnemonic == "FFMA" && i.source.line == 7;
        }
        EXPECT_TRUE(ffmaViaMiddle);
        // The PTX side agrees: math.cuh:16's PTX lines by any frame include the fma of line 7.
        EXPECT_GT(c.ptxLinesForSource(math, 16, InlineAttribution::AnyFrame).size(),
                  c.ptxLinesForSource(math, 16, InlineAttribution::Callee).size());
        // lines[] of the document: any_frame ≥ each of the others, on every line.
        for (const auto& row : lineTable(k.sass)) {
            EXPECT_GE(row.anyFrame.instructions, row.callSite.instructions) << row.file << ":" << row.line;
            EXPECT_GE(row.anyFrame.instructions, row.callee.instructions) << row.file << ":" << row.line;
        }
        // Every file of the kernel's instructions is listed with its counts.
        int mathInstructions = 0;
        for (const auto& f : k.files)
            if (f.path == math) {
                mathInstructions = f.instructions;
                EXPECT_EQ(f.callSites, 0);
            }
        EXPECT_EQ(static_cast<size_t>(mathInstructions), count(math, 16, InlineAttribution::AnyFrame));
    }
    InspectOptions o;
    o.queryFile = math;
    o.line = 16;
    o.frame = InlineAttribution::AnyFrame;
    const std::string report = lineReport(m, o);
    EXPECT_NE(report.find("FFMA"), std::string::npos) << report;
    EXPECT_NE(report.find("@ header_family_math.cuh:7"), std::string::npos) << report;
    o.frame = InlineAttribution::CallSite;
    EXPECT_NE(lineReport(m, o).find("no code for"), std::string::npos);
}

TEST(Inspect, LineQueriesNameFilesByPathOrUniqueName) {
    LoweringModel m;
    for (const char* p : {"/p/main.cu", "/p/a/util.cuh", "/p/b/util.cuh", "/cuda/include/cuda_fp16.hpp"}) {
        SourceFileInfo f;
        f.path = p;
        f.kind = std::string(p) == "/p/main.cu" ? SourceFileKind::Main : SourceFileKind::Project;
        m.files.push_back(f);
    }
    std::string file, error;
    int line = 0;
    ASSERT_TRUE(resolveLineQuery(m, "12", file, line, error)) << error;
    EXPECT_EQ(file, "/p/main.cu");
    EXPECT_EQ(line, 12);
    ASSERT_TRUE(resolveLineQuery(m, "cuda_fp16.hpp:3", file, line, error)) << error;
    EXPECT_EQ(file, "/cuda/include/cuda_fp16.hpp");
    ASSERT_TRUE(resolveLineQuery(m, "a/util.cuh:5", file, line, error)) << error;
    EXPECT_EQ(file, "/p/a/util.cuh");
    EXPECT_FALSE(resolveLineQuery(m, "util.cuh:5", file, line, error));
    EXPECT_NE(error.find("ambiguous"), std::string::npos) << error;
    EXPECT_NE(error.find("/p/a/util.cuh"), std::string::npos) << error;
    EXPECT_NE(error.find("/p/b/util.cuh"), std::string::npos) << error;
    EXPECT_FALSE(resolveLineQuery(m, "til.cuh:5", file, line, error)); // whole components only
    EXPECT_NE(error.find("no code maps to"), std::string::npos) << error;
    EXPECT_FALSE(resolveLineQuery(m, "main.cu:0", file, line, error));
    EXPECT_FALSE(resolveLineQuery(m, "main.cu:x", file, line, error));
    EXPECT_FALSE(resolveLineQuery(m, ":4", file, line, error));
    m.files.erase(m.files.begin());
    EXPECT_FALSE(resolveLineQuery(m, "4", file, line, error)) << "no main file";
}
