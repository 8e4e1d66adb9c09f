// Correlation, aggregates and buildLoweringModel over the golden tool outputs (no tools run):
// a BuildResult is assembled from tests/data/<arch>/<kernel>.{ptx,sass,gp.sass,lrm.sass}.
#include "analysis_util.h"

#include "core/analysis/aggregate.h"
#include "core/analysis/inspect.h"
#include "core/analysis/lowering.h"
#include "core/parse/opcodes.h"
#include "core/parse/ptx_parser.h"

#include <gtest/gtest.h>

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
    o.line = 8;
    const auto doc = inspectJson(m, o);
    EXPECT_EQ(doc["schema"], "lowerscope.inspect/1");
    ASSERT_EQ(doc["kernels"].size(), 1u);
    const auto& k = doc["kernels"][0];
    for (const char* key : {"name", "mangled", "ptx", "sass", "deps", "blocks", "edges", "lines", "total", "query"})
        EXPECT_TRUE(k.contains(key)) << key;
    const auto& ins = k["sass"]["instructions"][0];
    for (const char* key : {"address", "predicate", "opcode", "operands", "encoding", "control", "source", "ptx_line", "live", "defs", "uses"})
        EXPECT_TRUE(ins.contains(key)) << key;
    for (const char* key : {"stall", "yield", "write_barrier", "read_barrier", "wait_mask", "reuse"})
        EXPECT_TRUE(ins["control"].contains(key)) << key;
    ASSERT_FALSE(k["deps"].empty());
    for (const char* key : {"from", "to", "resource", "kind"}) EXPECT_TRUE(k["deps"][0].contains(key)) << key;
    EXPECT_FALSE(k["query"]["call_site"]["sass_addresses"].empty());
    const std::string report = lineReport(m, o);
    EXPECT_NE(report.find("FFMA"), std::string::npos) << report;
    EXPECT_NE(report.find("fma.rn.f32"), std::string::npos) << report;
    o.kernel = "nope";
    EXPECT_TRUE(inspectJson(m, o)["kernels"].empty());
}
