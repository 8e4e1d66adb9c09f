#pragma once
// C++ symbol demangling for display (kernel names keep their mangled form next to this).

#include <string>

namespace lowerscope {

// "_Z5saxpyifPKfPf" → "saxpy(int, float, float const*, float*)". Returns the input unchanged when it
// is not a mangled C++ name (extern "C" kernels) or cannot be demangled. Thread-safe, never throws.
std::string demangle(const std::string& mangled);

} // namespace lowerscope
