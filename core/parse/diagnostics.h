#pragma once
// Compiler diagnostics: nvcc / cudafe++ (front end), gcc (preprocessor), ptxas and driver messages
// parsed from the tools' stderr into Diagnostic records.

#include "core/model.h"

#include <string>
#include <vector>

namespace lowerscope {

// Parses one tool's stderr. Recognised forms (anything else is ignored, never an error):
//   k.cu(12): error: identifier "foo" is undefined          (front end; the caret line that
//   k.cu(5): warning #177-D: variable "x" was declared ...   follows gives the column)
//   k.cu:1:10: fatal error: missing.h: No such file ...      (gcc preprocessor / host compiler)
//   ptxas k.ptx, line 29; error   : Unknown modifier ...     (file = the .ptx as named by ptxas)
//   ptxas error   : Entry function ... uses too much shared data
//   nvcc fatal   : Unsupported gpu architecture 'sm_12'      (also cicc, cudafe++, nvlink, ...)
// `tool` is the default Diagnostic::tool for lines that do not name their tool ("nvcc").
// ptxas "info" lines (resource reports) are not diagnostics and are skipped.
std::vector<Diagnostic> parseDiagnostics(const std::string& stderrText, const std::string& tool = "nvcc");

// "error", "warning", "remark", "note".
const char* severityName(Severity s);

// One line in the usual compiler form: "file:line:col: error: message" (parts omitted when unknown),
// for a terminal: control bytes and invalid UTF-8 are written as \xNN (escapeControl, core/untrusted.h;
// the newlines of multi-line messages are kept).
std::string formatDiagnostic(const Diagnostic& d);
// The same text with every byte as the tool wrote it (for widgets and files, not terminals).
std::string formatDiagnosticRaw(const Diagnostic& d);

} // namespace lowerscope
