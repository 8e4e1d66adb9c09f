#pragma once
// Parsers of the build tools' text output: PTX module slicing, nvdisasm listings split per function,
// ptxas -v and cuobjdump -res-usage resource reports. All of them accept any text and never throw.
// (Compiler diagnostics are parsed in diagnostics.h.)

#include "core/model.h"

#include <map>
#include <string>
#include <vector>

namespace lowerscope {

// One `.entry` of a PTX module: the text from its header line to its closing brace.
struct PtxEntry {
    std::string mangled;
    std::string text;
    int firstLine = 0; // 1-based, in the module text
    int lastLine = 0;
};

// The kernels of a PTX module in text order (declarations without a body are skipped).
std::vector<PtxEntry> ptxEntries(const std::string& ptx);

// nvdisasm output split per function: symbol → the text from its `//----- .text.<symbol>` header up
// to (not including) the next `//-----` header.
std::map<std::string, std::string> splitNvdisasmFunctions(const std::string& text);

// The kernels of an nvdisasm listing (functions marked `STO_CUDA_ENTRY`), in listing order: the
// kernel list of a cubin that comes without its PTX.
std::vector<std::string> nvdisasmEntries(const std::string& text);

// `nvdisasm -gi -gp` text minus the `//## File ".nv_debug_ptx_txt", line N` lines: exactly the
// `nvdisasm -gi` text of the same cubin (checked by tests on every example kernel), so one
// disassembler run serves both.
std::string stripPtxLineComments(const std::string& gpText);

// `ptxas -v` report (stderr): registers, barriers, smem, cmem[0], stack frame, spills per function.
std::map<std::string, Resources> parsePtxasVerbose(const std::string& stderrText);

// `cuobjdump -res-usage`: REG, STACK, SHARED, LOCAL, CONSTANT[0] per function.
std::map<std::string, Resources> parseCuobjdumpResUsage(const std::string& text);

} // namespace lowerscope
