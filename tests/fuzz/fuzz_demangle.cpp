// libFuzzer target: kernel names as they come out of a cubin, a PTX `.entry` or nvdisasm text,
// demangled for display (core/build/demangle.h). Whatever the bytes, demangle() returns within its
// bound: never more than the cap plus the mangled name and its mark, never a crash, and in time
// and memory bounded by the cap (substitution bombs are cut off). The name is also tried behind
// "_Z" so that the fuzzer reaches the demangler from any input.
#include "core/build/demangle.h"
#include "core/build/kernel_name.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string name(reinterpret_cast<const char*>(data), size);
    if (name.find('\0') != std::string::npos) name.resize(name.find('\0')); // names are C strings
    for (const std::string& m : {name, "_Z" + name}) {
        for (size_t cap : {size_t(256), lowerscope::kMaxDemangledBytes}) {
            const std::string shown = lowerscope::demangle(m, cap);
            if (shown.size() > cap && shown.size() > m.size() + std::char_traits<char>::length(lowerscope::kDemangleTooLongMark))
                std::abort(); // the bound did not hold
            (void)lowerscope::kernelPlainName(shown);
            (void)lowerscope::kernelNameWithArgs(shown);
        }
    }
    return 0;
}
