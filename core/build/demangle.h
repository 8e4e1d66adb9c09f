#pragma once
// C++ symbol demangling for display (kernel names keep their mangled form next to this).

#include <cstddef>
#include <string>

namespace lowerscope {

// The longest demangled name shown. A mangled name is a compressed tree: nested substitutions make
// a 200-character name expand to gigabytes, so the demangler's output is cut off at this bound.
constexpr std::size_t kMaxDemangledBytes = 64 * 1024;

// What demangle() appends to a mangled name whose demangled form is over the bound.
constexpr const char* kDemangleTooLongMark = " [demangled name over 64 KiB: shown mangled]";

// "_Z5saxpyifPKfPf" → "saxpy(int, float, float const*, float*)". Returns the input unchanged when it
// is not a mangled C++ name (extern "C" kernels) or cannot be demangled; the input followed by
// kDemangleTooLongMark when its demangled form would be longer than `maxBytes` (never more than
// maxBytes bytes are produced, in time and memory bounded by maxBytes). Thread-safe, never throws.
std::string demangle(const std::string& mangled, std::size_t maxBytes = kMaxDemangledBytes);

} // namespace lowerscope
