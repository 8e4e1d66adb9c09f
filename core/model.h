#pragma once
// The lowering model: plain structs shared by the build, the parsers, the analyses, the CLI and the GUI.
// No behaviour beyond trivial helpers lives here; parsing is in ptx_parser / sass_parser, analysis
// in analysis / cfg / correlation. Addresses are byte offsets inside the function's .text section.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lowerscope {

// One frame of a source position. Lines and columns are 1-based; 0 means unknown.
struct SourceFrame {
    std::string file;
    int line = 0;
    int column = 0;
    bool operator==(const SourceFrame&) const = default;
};

// A source position with its inline chain: `file:line` is the innermost (callee) position,
// inlinedAt[0] is the call site it was inlined into, inlinedAt.back() the outermost caller.
struct SourceLoc {
    std::string file;
    int line = 0;
    int column = 0;
    std::vector<SourceFrame> inlinedAt;
    bool valid() const { return line > 0; }
    // The outermost call site (the line in the kernel body), or this position when not inlined.
    SourceFrame callSite() const {
        return inlinedAt.empty() ? SourceFrame{file, line, column} : inlinedAt.back();
    }
    bool operator==(const SourceLoc&) const = default;
};

// ------------------------------------------------------------------------ build products

// Resource usage of one kernel. -1 = not reported.
struct Resources {
    int registers = -1;
    int sharedBytes = -1;    // static shared memory
    int localBytes = -1;     // local memory per thread (LOCAL)
    int stackBytes = -1;     // STACK
    int constantBytes = -1;  // CONSTANT[0] (kernel parameters + compiler constants)
    int spillStores = -1;    // bytes, from ptxas -v
    int spillLoads = -1;     // bytes, from ptxas -v
    int barriers = -1;
    bool operator==(const Resources&) const = default;
};

enum class Severity : uint8_t { Error, Warning, Remark, Note };

struct Diagnostic {
    std::string file;
    int line = 0;    // 1-based, 0 = none
    int column = 0;  // 1-based, 0 = none
    Severity severity = Severity::Error;
    std::string message;
    std::string tool; // "nvcc", "ptxas", ...
    bool operator==(const Diagnostic&) const = default;
};

// ------------------------------------------------------------------------------------------ PTX

// One kernel/function parameter as declared in PTX (`.param .u64 .ptr .align 8 name`).
struct PtxParam {
    std::string name;
    std::string type;     // PTX type without the dot: "u64", "f32", "b8", ...
    int size = 0;         // bytes of the whole parameter (element size × arrayCount)
    int align = 0;        // bytes; the element size when not declared
    int arrayCount = 1;   // `.b8 name[16]` → 16 (size = 16)
    bool isPointer = false; // `.ptr` attribute present or a u64/b64 used as an address (best effort)
    bool operator==(const PtxParam&) const = default;
};

// A kernel's performance-tuning directives, as nvcc writes them between the parameter list and
// the body: `__launch_bounds__(T, B, C)` → `.maxntid T, 1, 1` `.minnctapersm B` `.maxclusterrank C`,
// `__maxnreg__(N)` → `.maxnreg N`; `.reqntid` (an exact block size) comes from hand-written PTX.
// Dimensions not written are 1 (PTX's rule); a directive that is absent is 0 everywhere.
struct PtxLaunchBounds {
    int maxntid[3] = {0, 0, 0};   // upper bound of the block's x, y, z; 0 = no `.maxntid`
    int reqntid[3] = {0, 0, 0};   // required block x, y, z; 0 = no `.reqntid`
    int minnctapersm = 0;         // blocks per SM the compiler was asked to fit; 0 = absent
    int maxnreg = 0;              // registers per thread cap; 0 = absent
    int maxclusterrank = 0;       // blocks per cluster cap; 0 = absent
    // Product of maxntid's dimensions (threads per block), 0 when absent.
    int maxThreads() const;
    // Product of reqntid's dimensions, 0 when absent.
    int requiredThreads() const;
    bool empty() const {
        return maxThreads() == 0 && requiredThreads() == 0 && minnctapersm == 0 && maxnreg == 0 && maxclusterrank == 0;
    }
    bool operator==(const PtxLaunchBounds&) const = default;
};

struct PtxFunction {
    std::string name;        // mangled, as in PTX
    bool isEntry = false;    // .entry (kernel) vs .func
    std::vector<PtxParam> params;
    PtxLaunchBounds launchBounds; // directives between the parameter list and the body
    int firstLine = 0;       // 1-based line of the `.entry`/`.func` header in the PTX text
    int lastLine = 0;        // 1-based line of the closing brace
};

struct PtxLine {
    int line = 0;                    // 1-based
    std::string text;
    std::optional<SourceLoc> source; // from the innermost preceding `.loc` in the same function
    bool isInstruction = false;      // an executable PTX instruction (not a directive/label/brace)
};

struct PtxListing {
    std::string version;                 // `.version`
    std::string target;                  // `.target`
    int addressSize = 64;
    std::map<int, std::string> files;    // `.file` index → path
    std::vector<PtxFunction> functions;
    std::vector<PtxLine> lines;          // every line of the text, lines[i].line == i + 1
};

// ----------------------------------------------------------------------------------------- SASS

enum class RegClass : uint8_t { R, P, UR, UP };

// A contiguous range of registers of one class, e.g. R2.64 → {R, 2, 2}; R4 of a .128 load → {R,4,4}.
struct RegRange {
    RegClass cls = RegClass::R;
    int first = 0;
    int count = 1;
    bool operator==(const RegRange&) const = default;
};

enum class OperandKind : uint8_t {
    Register,         // R0..R254 (RZ is a Register operand with no regs)
    Predicate,        // P0..P6, PT
    UniformRegister,  // UR0.., URZ
    UniformPredicate, // UP0.., UPT
    Constant,         // c[0x0][0x210], cx[UR4][R2]
    Memory,           // [R2.64+0x10], desc[UR4][R2.64], [UR4]
    Immediate,        // 0x4, -1, 1.5, +INF
    Label,            // `(.L_x_3), .L_x_3
    Special,          // SR_TID.X, SR_CLOCKLO, ...
    Other             // anything else (barrier names, texture modes, ...)
};

struct Operand {
    std::string text;                   // as printed, e.g. "-|R3|.reuse", "desc[UR4][R2.64]"
    OperandKind kind = OperandKind::Other;
    std::vector<RegRange> regs;         // registers named by the operand (RZ/PT/URZ/UPT excluded)
    bool reuse = false;                 // `.reuse` suffix
    bool negated = false;               // '-' or '!' prefix
    bool absolute = false;              // |x|
    std::optional<uint32_t> target;     // resolved branch/label address
};

// Volta+ scheduling control bits, decoded from the high 64 bits of the encoding.
struct Control {
    int stall = 0;            // 0..15 cycles
    bool yieldHint = false;   // the text form's `Y`: true exactly when the encoded yield bit (45) is
                              // clear, a hint to switch to another warp (core/parse/control.h)
    int writeBarrier = -1;    // scoreboard index 0..5 set when the result is written; -1 none
    int readBarrier = -1;     // scoreboard index 0..5 released when operands are read; -1 none
    uint8_t waitMask = 0;     // bit n set: wait on scoreboard n before issue
    uint8_t reuse = 0;        // operand reuse-cache flags (4 bits)
    bool operator==(const Control&) const = default;
};

// Live register counts per class at one instruction (core/analysis/liveness.h, the same definition
// as nvdisasm's `-lrm count` column); -1 when not available.
struct LiveCounts {
    int gpr = -1;   // R0..R254
    int pred = -1;  // P0..P6
    int ugpr = -1;  // UR0..UR62
    int upred = -1; // UP0..UP6
    bool operator==(const LiveCounts&) const = default;
};

struct SassInstruction {
    uint32_t address = 0;
    std::string predicate;              // "" or the guard as printed: "@P0", "@!PT", "@!UP1"
    std::string opcode;                 // with modifiers: "LDG.E.128.CONSTANT"
    std::string mnemonic;               // the base opcode: "LDG"
    std::vector<std::string> modifiers; // {"E", "128", "CONSTANT"}
    std::vector<Operand> operands;
    std::string text;                   // the assembly as printed, without address/encoding/';'
    bool hasEncoding = false;
    uint64_t encodingLo = 0;
    uint64_t encodingHi = 0;
    Control control;                    // valid when hasEncoding (Volta and later)
    SourceLoc source;                   // !source.valid() when no line info
    int ptxLine = 0;                    // 1-based PTX line from `-gp`; 0 when unknown
    LiveCounts live;
    std::vector<RegRange> defs;         // filled by analyseDefUse()
    std::vector<RegRange> uses;         // includes the guard predicate
    bool widthGuessed = false;          // an opcode of the operand-width table in a form it does not list
    std::optional<uint32_t> branchTarget; // resolved target of BRA/BRX/CALL/SSY/... when direct
};

struct SassFunction {
    std::string name;                          // mangled symbol
    std::vector<SassInstruction> instructions; // in address order
    std::map<std::string, uint32_t> labels;    // ".L_x_3" → address
    // Index of the instruction at `address`, or -1.
    int indexOf(uint32_t address) const;
};

struct SassListing {
    std::string arch;                  // from `.target sm_90` / the ELF header; "" when unknown
    std::vector<SassFunction> functions;
};

// ------------------------------------------------------------------------------------- Analysis

enum class DepKind : uint8_t { Register, Predicate, Uniform, Scoreboard };

// A dependency from the instruction at `from` (producer) to `to` (consumer), within one function.
struct DepEdge {
    uint32_t from = 0;
    uint32_t to = 0;
    std::string resource;   // "R4", "P0", "UR6", "UP1", "SB2"
    DepKind kind = DepKind::Register;
    int distance = 0;       // instructions between them along the listing (to index - from index)
    std::string callee;     // for an edge out of a CALL (a result) or into one (an argument): the
                            // subroutine called, readable ("blend(float, float, float)")
    bool operator==(const DepEdge&) const = default;
};

enum class CfgEdgeKind : uint8_t { FallThrough, Taken, Back, Exit };

struct CfgEdge {
    int from = 0;   // block id
    int to = -1;    // block id; -1 for an Exit edge
    CfgEdgeKind kind = CfgEdgeKind::FallThrough;
    bool operator==(const CfgEdge&) const = default;
};

struct BasicBlock {
    int id = 0;
    int firstIndex = 0;    // instruction index range [firstIndex, lastIndex]
    int lastIndex = 0;
    uint32_t startAddress = 0;
    uint32_t endAddress = 0; // address of the last instruction
    std::vector<int> successors;
    std::vector<int> predecessors;
    int loopDepth = 0;
};

struct Cfg {
    std::vector<BasicBlock> blocks;
    std::vector<CfgEdge> edges;
};

enum class InstrCategory : uint8_t {
    Memory, FP32, FP64, FP16, Integer, Tensor, Control, Conversion, SpecialFunction, Uniform,
    Synchronisation, Move, Predicate, Misc
};

// Per-source-line (or per-function) aggregate.
struct LineAggregate {
    std::string file;
    int line = 0;
    int instructions = 0;
    std::map<InstrCategory, int> mix;
    int maxLiveGpr = 0;
    int stallCycles = 0;          // sum of stall counts
    std::map<std::string, int> memoryBySpace; // "global", "shared", "local", "constant", "generic"
};

} // namespace lowerscope
