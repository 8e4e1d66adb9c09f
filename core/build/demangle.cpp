#include "core/build/demangle.h"

#include <cstdlib>
#include <cxxabi.h>

namespace lowerscope {

std::string demangle(const std::string& mangled) {
    // Only Itanium-ABI names (_Z...) are handed to the demangler: a plain C name like "f" would be
    // "demangled" as a type ("float").
    if (mangled.size() < 3 || mangled.compare(0, 2, "_Z") != 0) return mangled;
    int status = 0;
    char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) {
        std::free(out);
        return mangled;
    }
    std::string result(out);
    std::free(out);
    return result;
}

} // namespace lowerscope
