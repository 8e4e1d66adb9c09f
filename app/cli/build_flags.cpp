#include "app/cli/build_flags.h"

#include <stdexcept>

namespace lowerscope::cli {

namespace {

// --ftz true|false etc. map to the tri-state ints of BuildOptions (-1 = flag omitted).
void addTriState(CLI::App& cmd, const std::string& name, int& target, const std::string& help) {
    cmd.add_option_function<std::string>(
           name, [&target](const std::string& v) { target = (v == "true" || v == "1") ? 1 : 0; }, help)
        ->check(CLI::IsMember({"true", "false", "1", "0"}))
        ->type_name("true|false");
}

} // namespace

void addBuildOptionFlags(CLI::App& cmd, BuildOptions& o) {
    cmd.add_option("--arch", o.arch, "GPU architecture: sm_XX, sm_XXa or sm_XXf (default sm_90)")->type_name("SM");
    cmd.add_option("--opt", o.hostOpt, "host optimisation level, nvcc -O<N>")->check(CLI::Range(0, 3))->type_name("N");
    cmd.add_option("--ptxas-opt", o.ptxasOpt, "ptxas optimisation level, -Xptxas -O<N>")
        ->check(CLI::Range(0, 3))
        ->type_name("N");
    cmd.add_flag("--fast-math", o.fastMath, "--use_fast_math");
    addTriState(cmd, "--ftz", o.ftz, "-ftz=true|false (flush denormals to zero)");
    addTriState(cmd, "--prec-div", o.precDiv, "-prec-div=true|false");
    addTriState(cmd, "--prec-sqrt", o.precSqrt, "-prec-sqrt=true|false");
    addTriState(cmd, "--fmad", o.fmad, "-fmad=true|false (contract multiply-add into FMA)");
    cmd.add_option("--maxrregcount", o.maxRegCount, "-maxrregcount=N (0 = unlimited)")
        ->check(CLI::Range(0, 255))
        ->type_name("N");
    cmd.add_flag_callback("--no-lineinfo", [&o] { o.lineinfo = false; }, "do not pass -lineinfo (no source correlation)");
    cmd.add_flag("-G,--device-debug", o.deviceDebug, "device debug code, nvcc -G");
    cmd.add_flag("--extra-device-vectorization", o.extraDeviceVectorization, "--extra-device-vectorization");
    cmd.add_option("--std", o.cppStd, "C++ dialect, nvcc -std=... (default c++17)")->type_name("c++NN");
    cmd.add_option("-D,--define", o.defines, "preprocessor define X or X=Y (repeatable)")
        ->allow_extra_args(false)
        ->type_name("X[=Y]");
    cmd.add_option("-I,--include-dir", o.includeDirs, "include directory (repeatable)")
        ->allow_extra_args(false)
        ->type_name("DIR");
    cmd.add_option("--nvcc-flag", o.extraNvccFlags, "extra nvcc argument, verbatim (repeatable; write --nvcc-flag=-X...)")
        ->allow_extra_args(false)
        ->type_name("F");
    cmd.add_option("--ptxas-flag", o.extraPtxasFlags, "extra ptxas argument, passed as -Xptxas F (repeatable)")
        ->allow_extra_args(false)
        ->type_name("F");
}

std::vector<std::string> splitShellWords(const std::string& text) {
    std::vector<std::string> words;
    std::string cur;
    bool inWord = false;
    char quote = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (quote == '\'') {
            if (c == '\'') quote = 0;
            else cur.push_back(c);
            continue;
        }
        if (quote == '"') {
            if (c == '"') {
                quote = 0;
            } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) {
                cur.push_back(text[++i]);
            } else {
                cur.push_back(c);
            }
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            inWord = true;
        } else if (c == '\\') {
            if (i + 1 >= text.size()) throw std::invalid_argument("trailing backslash in \"" + text + "\"");
            cur.push_back(text[++i]);
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord) words.push_back(std::move(cur));
            cur.clear();
            inWord = false;
        } else {
            cur.push_back(c);
            inWord = true;
        }
    }
    if (quote) throw std::invalid_argument(std::string("unterminated ") + quote + " quote in \"" + text + "\"");
    if (inWord) words.push_back(std::move(cur));
    return words;
}

BuildOptions parseBuildOptionString(const std::string& flags) {
    std::vector<std::string> words = splitShellWords(flags);
    BuildOptions options;
    CLI::App app{"build options", "options"};
    addBuildOptionFlags(app, options);
    // CLI11 takes the argument vector in reverse order.
    std::vector<std::string> reversed(words.rbegin(), words.rend());
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& e) {
        throw std::invalid_argument("bad build options \"" + flags + "\": " + e.what());
    }
    if (std::string bad = checkBuildOptions(options); !bad.empty())
        throw std::invalid_argument("bad build options \"" + flags + "\": " + bad);
    return options;
}

} // namespace lowerscope::cli
