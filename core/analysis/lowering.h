#pragma once
// The assembled lowering model of one build: per kernel, its PTX, SASS (with def/use filled),
// dependency edges, CFG, source↔PTX↔SASS correlation and per-line aggregates.
// This is what the CLI `inspect` command and every GUI pane read.

#include "core/analysis/source_files.h"
#include "core/build/build.h"
#include "core/model.h"

#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

// Which source line inlined code is attributed to.
enum class InlineAttribution : uint8_t {
    CallSite, // the line in the kernel where the callee was inlined (outermost frame)
    Callee,   // the line inside the inlined function (innermost frame)
    AnyFrame  // every line the inline chain passes through, at any depth: an instruction of a
              // helper called from a helper belongs to the kernel's line, the middle helper's line
              // and the innermost line alike
};

// "call-site", "callee", "any" (the CLI's --frame values); parseAttribution is the inverse
// (std::nullopt for anything else).
const char* attributionName(InlineAttribution attribution);
std::optional<InlineAttribution> parseAttribution(const std::string& name);

// Bidirectional maps source line ↔ PTX lines ↔ SASS addresses for one kernel. Built from the PTX
// `.loc` directives and nvdisasm's `//## File` comments (-gi inline chains, -gp PTX lines).
// Source files are matched by the path as the compiler recorded it; `sourceFile` in queries may be
// that path or any path with the same canonical form or, failing that, the same file name.
// With InlineAttribution::AnyFrame a query matches every instruction (PTX line) whose inline
// chain has a frame at the line; sourceLines(AnyFrame) lists every line of every chain.
class Correlation {
public:
    Correlation() = default;
    // `ptx` is the whole module listing (line numbers as in -gp); `function` the kernel's PtxFunction
    // index in ptx.functions (-1 when unknown); `sass` the kernel's parsed SASS.
    static Correlation build(const PtxListing& ptx, int function, const SassFunction& sass);

    std::vector<int> ptxLinesForSource(const std::string& sourceFile, int line,
                                       InlineAttribution attribution) const;
    std::vector<uint32_t> sassForSource(const std::string& sourceFile, int line,
                                        InlineAttribution attribution) const;
    std::optional<SourceLoc> sourceForSass(uint32_t address) const;
    // The same without a copy: points into this object; nullptr when unknown or without line info.
    const SourceLoc* findSourceForSass(uint32_t address) const;
    int ptxLineForSass(uint32_t address) const; // 0 when unknown
    std::optional<SourceLoc> sourceForPtx(int ptxLine) const;
    std::vector<uint32_t> sassForPtx(int ptxLine) const;
    // Every (file, line) that has code, for the given attribution, sorted.
    std::vector<SourceFrame> sourceLines(InlineAttribution attribution) const;

    // Implementation data (plain, public so it can be serialised and inspected in tests).
    struct Entry {
        uint32_t address = 0;
        int ptxLine = 0;
        SourceLoc source;
    };
    std::vector<Entry> sassEntries;                         // one per SASS instruction
    std::vector<std::pair<int, SourceLoc>> ptxEntries;      // (PTX line, source) per instruction line
};

struct KernelModel {
    std::string name;      // demangled
    std::string mangled;
    Resources resources;
    int ptxFunction = -1;  // index into LoweringModel::ptx.functions
    SassFunction sass;     // defs/uses filled, branch targets resolved
    std::vector<DepEdge> deps;
    Cfg cfg;
    Correlation correlation;
    std::vector<LineAggregate> lines; // per source line (call-site attribution), sorted by (file, line)
    LineAggregate total;              // whole kernel
    std::vector<SourceFileInfo> files;    // every file this kernel's instructions map to (any frame),
                                      // Main first, then Project, Toolkit, System (source_files.h)
};

struct LoweringModel {
    std::string arch;
    PtxListing ptx;                   // the whole module (shared by all kernels)
    std::vector<KernelModel> kernels;
    std::vector<SourceFileInfo> files;    // every file code of the build maps to: the kernels' files
                                      // and the PTX `.file` table, counts summed over kernels
    // The kernel a name picks (core/build/kernel_name.h findKernel: mangled or demangled, then
    // "scaled_gemm<8>", then a unique plain name); nullptr when none or several, with `error`.
    const KernelModel* kernel(const std::string& nameOrMangled, std::string* error = nullptr) const;
};

// Parses and analyses every kernel of a successful build. `sources` classifies the files the
// code maps to (which one was opened, where the project and the toolkit are); with the default
// nothing is Main or Toolkit. Never throws on odd tool output: unparseable pieces are skipped and
// the rest is still returned.
LoweringModel buildLoweringModel(const BuildResult& build, const SourceContext& sources = {});

} // namespace lowerscope
