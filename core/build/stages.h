#pragma once
// The stages of a build, each one tool step over files in a private temporary folder:
//   compile      .cu  → PTX + cubin            (nvcc, with the ptxas -v resource report)
//   assemble     .ptx → cubin                  (ptxas -v)
//   load         .cubin → the cubin and, when it carries line info, its PTX (no tool)
//   extract      .fatbin/.o/.so/program → every embedded cubin and PTX (cuobjdump -xelf/-xptx)
//   disassemble  any cubin → SASS texts per function, resource usage (nvdisasm, cuobjdump)
// and collectKernels, which joins the PTX entries, the disassembly and the resource reports into
// BuildResult::kernels. build() (build.h) picks the stages an input kind needs. Every stage records
// the commands it ran and its wall time in the BuildResult and returns false when the build cannot
// go on (BuildResult::error / diagnostics say why); none throws.

#include "core/build/build.h"

#include <map>
#include <string>
#include <vector>

namespace lowerscope {

// What every stage needs. The temporary folder is private to one build and removed by its owner.
struct StageContext {
    const Toolchain& toolchain;
    const BuildControl& control;
    std::string tempDir;
    BuildResult& result;
    // Temporary path → the real one, for texts that name a safe-named copy instead of the input
    // (compileCuda builds a path nvcc's shell would interpret from such a copy); applyPathMap maps
    // the kernels' texts once they exist.
    std::vector<std::pair<std::string, std::string>> pathMap = {};
};

// A private directory for intermediate files, removed with everything in it on scope exit.
// path() is "" when it could not be created.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// What the front half of a build (compile or assemble) hands to the back half.
struct CompiledCubin {
    std::string cubinPath;                      // in the stage's temp dir
    std::map<std::string, Resources> ptxasReport; // ptxas -v, per function ("" report: none)
};

// One line for a failed ptxas whose errors are instructions its (plain) target lacks, naming the
// arch-specific target that has them ("... build for sm_90a"); "" when the text has none.
std::string archSpecificHint(const std::string& ptxasText);

// compile: nvcc -cubin -Xptxas -v -keep on `sourcePath`. Fills result.ptx (kept even when ptxas
// fails, for its diagnostics), result.diagnostics, result.cubin and `out`. On a compile error sets
// result.compileError and returns false.
bool compileCuda(StageContext& ctx, const std::string& sourcePath, const BuildOptions& options, CompiledCubin& out);

// assemble: ptxas -v on the PTX at `ptxPath` for `arch` with the PTX-relevant `options`. Fills
// result.ptx (the file's text), result.diagnostics (ptxas names the file as given), result.cubin
// and `out`. On an assembly error sets result.compileError and returns false.
bool assemblePtx(StageContext& ctx, const std::string& ptxPath, const std::string& arch, const BuildOptions& options,
                 CompiledCubin& out);

// load: a cubin's bytes (`bytes`, already read and hashed by the caller) written to the temp dir
// for the disassembler; result.cubin, result.arch (from the ELF header) and result.ptx (from a
// `.nv_debug_ptx_txt` section, "" without line info). False when the bytes are no CUDA ELF.
bool loadCubin(StageContext& ctx, const std::string& bytes, CompiledCubin& out);

// extract: lists the code embedded in the container at `path` (cuobjdump -lelf -lptx) into
// result.embedded, extracts all of it (cuobjdump -xelf all, -xptx all) into a folder of the temp
// dir and fills `files` (member name → extracted file). Member names come from the binary and are
// checked before anything is extracted: a name that is not a plain file name is refused, so
// nothing is written outside the folder. False with result.error (setupError) for a file without
// device code, with a damaged fatbin, or without any kernel.
bool extractEmbedded(StageContext& ctx, const std::string& path, std::map<std::string, std::string>& files);

// The disassembly of one cubin, per function symbol.
struct Disassembly {
    std::map<std::string, std::string> sassPtxLines; // nvdisasm -c -hex -gi -gp, per function
    std::map<std::string, Resources> resUsage;       // cuobjdump -res-usage, per function
    bool anyPtxLines = false;                        // the cubin carries -gp PTX line info
    std::vector<std::string> entries;                // kernels (STO_CUDA_ENTRY), in listing order
};

// disassemble: the -gi -gp listing and cuobjdump -res-usage of `cubinPath`, in parallel (live
// register counts come from core/analysis/liveness.h, not from nvdisasm -lrm). The listing is
// required (false when it fails); cuobjdump is auxiliary: when it fails or times out, a warning
// in result.diagnostics says what is missing and the build goes on. `haveCompilerReport`: resources also come from ptxas -v (compile, assemble), so a failing
// cuobjdump loses less; only the wording of the warning depends on it.
bool disassembleCubin(StageContext& ctx, const std::string& cubinPath, bool haveCompilerReport, Disassembly& out);

// Applies ctx.pathMap to the kernels' PTX and SASS texts (compileCuda has mapped the diagnostics and
// the module PTX already).
void applyPathMap(StageContext& ctx);

// One KernelArtifacts per `.entry` of result.ptx (in PTX order; without PTX, per kernel of the
// disassembly), with its SASS texts and resources (ptxas -v first, cuobjdump filling the rest).
void collectKernels(BuildResult& result, const Disassembly& disassembly, const std::map<std::string, Resources>& ptxasReport);

} // namespace lowerscope
