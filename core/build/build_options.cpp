#include "core/build/build_options.h"

#include "core/build/option_safety.h"

#include <regex>

namespace lowerscope {

namespace {
const char* tri(int v) { return v ? "true" : "false"; }
} // namespace

std::vector<std::string> toNvccArgs(const BuildOptions& o) {
    std::vector<std::string> a;
    a.push_back("-arch=" + o.arch);
    a.push_back("-O" + std::to_string(o.hostOpt));
    // ptxas refuses any -O above 0 with -G ("Optimized debugging not supported"), and nvcc already
    // gives it -g; so -G builds leave the ptxas level to nvcc.
    if (!o.deviceDebug) {
        a.push_back("-Xptxas");
        a.push_back("-O" + std::to_string(o.ptxasOpt));
    }
    // -G already carries full line info; nvcc and ptxas warn about -G with -lineinfo and ignore the
    // latter, so it is left out rather than producing a warning on every debug build.
    if (o.lineinfo && !o.deviceDebug) a.push_back("-lineinfo");
    if (o.deviceDebug) a.push_back("-G");
    if (o.fastMath) a.push_back("--use_fast_math");
    if (o.ftz >= 0) a.push_back(std::string("-ftz=") + tri(o.ftz));
    if (o.precDiv >= 0) a.push_back(std::string("-prec-div=") + tri(o.precDiv));
    if (o.precSqrt >= 0) a.push_back(std::string("-prec-sqrt=") + tri(o.precSqrt));
    if (o.fmad >= 0) a.push_back(std::string("-fmad=") + tri(o.fmad));
    if (o.maxRegCount > 0) a.push_back("-maxrregcount=" + std::to_string(o.maxRegCount));
    if (o.extraDeviceVectorization) a.push_back("--extra-device-vectorization");
    if (!o.cppStd.empty()) a.push_back("-std=" + o.cppStd);
    for (const auto& d : o.defines) a.push_back("-D" + d);
    for (const auto& i : o.includeDirs) a.push_back("-I" + i);
    for (const auto& f : o.extraNvccFlags) a.push_back(f);
    for (const auto& f : o.extraPtxasFlags) {
        a.push_back("-Xptxas");
        a.push_back(f);
    }
    return a;
}

std::vector<std::string> toPtxasArgs(const BuildOptions& o, const std::string& arch) {
    std::vector<std::string> a{"-arch=" + arch};
    // As with nvcc: ptxas refuses optimised debugging, so -O is left out with -g.
    if (!o.deviceDebug) a.push_back("-O" + std::to_string(o.ptxasOpt));
    // As with nvcc, -g carries full line info and ptxas warns when both are given.
    if (o.deviceDebug) a.push_back("-g");
    else if (o.lineinfo) a.push_back("--generate-line-info");
    if (o.maxRegCount > 0) a.push_back("--maxrregcount=" + std::to_string(o.maxRegCount));
    for (const auto& f : o.extraPtxasFlags) a.push_back(f);
    return a;
}

std::string shellQuote(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& arg : argv) {
        if (!out.empty()) out.push_back(' ');
        bool plain = !arg.empty();
        for (char c : arg) {
            bool safe = std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
            if (!safe) {
                plain = false;
                break;
            }
        }
        if (plain) {
            out += arg;
            continue;
        }
        out.push_back('\'');
        for (char c : arg) {
            if (c == '\'') out += "'\\''";
            else out.push_back(c);
        }
        out.push_back('\'');
    }
    return out;
}

std::string checkBuildOptions(const BuildOptions& o) {
    static const std::regex archRe(R"(sm_\d{2,3}[af]?)");
    if (!std::regex_match(o.arch, archRe))
        return "invalid arch '" + o.arch + "': expected sm_XX, sm_XXa or sm_XXf (e.g. sm_90, sm_90a, sm_100f)";
    if (o.hostOpt < 0 || o.hostOpt > 3) return "invalid host optimisation level " + std::to_string(o.hostOpt) + ": expected 0..3";
    if (o.ptxasOpt < 0 || o.ptxasOpt > 3) return "invalid ptxas optimisation level " + std::to_string(o.ptxasOpt) + ": expected 0..3";
    if (o.maxRegCount < 0) return "invalid maxrregcount " + std::to_string(o.maxRegCount) + ": expected >= 0 (0 = unlimited)";
    for (int v : {o.ftz, o.precDiv, o.precSqrt, o.fmad})
        if (v < -1 || v > 1) return "invalid -ftz/-prec-div/-prec-sqrt/-fmad setting " + std::to_string(v) + ": expected -1, 0 or 1";
    static const std::regex stdRe(R"((c|gnu)\+\+\d\d)");
    if (!o.cppStd.empty() && !std::regex_match(o.cppStd, stdRe))
        return "invalid C++ standard '" + o.cppStd + "': expected e.g. c++17 or c++20";
    for (const auto& d : o.defines)
        if (d.empty() || d[0] == '=') return "invalid define '" + d + "': expected NAME or NAME=VALUE";
    for (const auto& i : o.includeDirs)
        if (i.empty()) return "empty include directory";
    for (const auto& f : o.extraNvccFlags)
        if (f.empty()) return "empty extra nvcc flag";
    for (const auto& f : o.extraPtxasFlags)
        if (f.empty()) return "empty extra ptxas flag";
    // Whatever their origin, no value may carry shell syntax into nvcc's command lines.
    return checkOptionSafety(o);
}

} // namespace lowerscope
