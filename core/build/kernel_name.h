#pragma once
// Which kernel a name the user typed (`--kernel`) means. Template instantiations demangle with
// their return type and template arguments ("void scaled_gemm<8>(int, float, ...)"), so besides
// the exact mangled or demangled name a kernel is found by its name with template arguments
// ("scaled_gemm<8>", whitespace ignored) and, when only one kernel has it, by its plain name
// ("scaled_gemm").

#include <string>
#include <vector>

namespace lowerscope {

// The function name with template arguments, without return type and parameters:
// "void scaled_gemm<8>(int, float)" → "scaled_gemm<8>", "ns::k(int)" → "ns::k". A name without a
// parameter list (extern "C": "saxpy") is returned as it is.
std::string kernelNameWithArgs(const std::string& demangled);

// The same without template arguments: "void scaled_gemm<8>(int)" → "scaled_gemm".
std::string kernelPlainName(const std::string& demangled);

// One kernel's names, as the build lists them.
struct KernelName {
    std::string mangled;   // "_Z11scaled_gemmILi8EEvifPKfS1_Pf"
    std::string demangled; // "void scaled_gemm<8>(int, float, float const*, float const*, float*)"
};

// The index in `kernels` of the kernel `want` names, trying in turn: the exact mangled or demangled
// name; the name with template arguments, whitespace ignored (a namespace may be left out:
// "gemm<8>" for "ns::gemm<8>"); the plain name, likewise. The first rule that matches decides; when
// it matches several kernels the name is ambiguous. Returns -1 when no kernel or several match,
// with `error` (if given) saying so in one line that lists the candidates (or every kernel).
int findKernel(const std::vector<KernelName>& kernels, const std::string& want, std::string* error = nullptr);

} // namespace lowerscope
