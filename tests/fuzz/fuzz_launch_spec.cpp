// libFuzzer target: a kernel's sidecar (kernels/*.json, shared with other people's kernels) with
// its argument specs — scalars, buffers, lets, tensor maps, raw bytes, clusters — resolved against
// parameters shaped after the specs (a tensor map gets a 128-byte parameter, a buffer a pointer,
// raw bytes a 16-byte aggregate), turned into a runner request and read back as the runner reads
// it. Every failure is ArgSpecError (the user's) or ProtocolError (the runner's check); nothing
// else is thrown, and messages stay bounded.
#include "core/run/argspec.h"
#include "core/run/protocol.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace lowerscope;
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::vector<LaunchSpec> specs;
    try {
        specs = parseSidecar(text);
    } catch (const ArgSpecError& e) {
        if (std::char_traits<char>::length(e.what()) > 8192) std::abort();
        return 0;
    }
    for (const LaunchSpec& spec : specs) {
        std::vector<PtxParam> params;
        for (const std::string& a : spec.args) {
            PtxParam p{"p" + std::to_string(params.size()), "u32", 4, 4, 1, false};
            try {
                const ArgSpec s = parseArgSpec(a);
                if (s.isTensorMap) p = PtxParam{p.name, "b8", 128, 128, 128, false};
                if (s.isBuffer) p = PtxParam{p.name, "u64", 8, 8, 1, true};
                if (s.isBytes) p = PtxParam{p.name, "b8", 16, 8, 16, false};
            } catch (const ArgSpecError&) {
            }
            params.push_back(p);
        }
        try {
            const ResolvedLaunch r = resolveLaunch(spec, params);
            const LaunchVariant v = makeVariant(r, {0x7f, 'E', 'L', 'F'}, spec.kernel);
            LaunchVariant back;
            fromJson(nlohmann::json::parse(toJson(v).dump()), back);
            if (!(back == v)) std::abort(); // what the client sends, the runner must read as sent
        } catch (const ArgSpecError& e) {
            if (std::char_traits<char>::length(e.what()) > 8192) std::abort();
        }
    }
    return 0;
}
