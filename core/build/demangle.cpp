#include "core/build/demangle.h"

#include <algorithm>
#include <csetjmp>
#include <cstdlib>
#include <cxxabi.h>

#ifdef LOWERSCOPE_HAVE_DEMANGLE_CALLBACK
// GCC's demangler that writes its output through a callback and allocates nothing (its work space
// is on the stack): libsupc++'s cp-demangle.o, linked from the compiler's libsupc++.a.
extern "C" int __gcclibcxx_demangle_callback(const char* mangled, void (*callback)(const char*, size_t, void*),
                                             void* opaque);
#endif

namespace lowerscope {

namespace {

#ifdef LOWERSCOPE_HAVE_DEMANGLE_CALLBACK
struct Sink {
    std::string out;
    size_t maxBytes = 0;
    bool over = false;
    std::jmp_buf stop;
};

void append(const char* text, size_t n, void* opaque) {
    auto* sink = static_cast<Sink*>(opaque);
    if (sink->out.size() + n > sink->maxBytes) {
        sink->over = true;
        // Leaves the demangler at once: its frames hold no heap memory and no destructors (C code
        // with stack work space), so the jump loses nothing; the rest of the expansion is never made.
        std::longjmp(sink->stop, 1);
    }
    sink->out.append(text, n);
}
#endif

} // namespace

std::string demangle(const std::string& mangled, size_t maxBytes) {
    // Only Itanium-ABI names (_Z...) are handed to the demangler: a plain C name like "f" would be
    // "demangled" as a type ("float").
    if (mangled.size() < 3 || mangled.compare(0, 2, "_Z") != 0) return mangled;
#ifdef LOWERSCOPE_HAVE_DEMANGLE_CALLBACK
    Sink sink;
    sink.maxBytes = maxBytes;
    sink.out.reserve(std::min<size_t>(maxBytes, 4 * mangled.size() + 64));
    volatile int status = -1;
    if (setjmp(sink.stop) == 0) status = __gcclibcxx_demangle_callback(mangled.c_str(), append, &sink);
    if (sink.over) return mangled + kDemangleTooLongMark;
    if (status != 0) return mangled;
    return std::move(sink.out);
#else
    // Without the bounded demangler, only names too short to expand far are demangled.
    if (mangled.size() > 96) return mangled + kDemangleTooLongMark;
    int status = 0;
    char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !out) {
        std::free(out);
        return mangled;
    }
    std::string result(out);
    std::free(out);
    if (result.size() > maxBytes) return mangled + kDemangleTooLongMark;
    return result;
#endif
}

} // namespace lowerscope
