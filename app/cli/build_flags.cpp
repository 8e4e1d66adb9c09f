#include "app/cli/build_flags.h"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
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
    cmd.add_option("--arch", o.arch,
                   "GPU architecture: sm_XX, sm_XXa or sm_XXf (default sm_90; PTX: its .target); build: a comma "
                   "list (sm_80,sm_90) builds each")
        ->type_name("SM");
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

void addInputFlags(CLI::App& cmd, InputFlags& f) {
    cmd.add_option("--project", f.project,
                   "compile_commands.json (or its folder): the file's include dirs, defines, -std, archs and nvcc "
                   "flags; flags given here win")
        ->type_name("PATH");
    cmd.add_option("--member", f.member,
                   "binaries: the embedded cubin or PTX to open (as `build --list` shows); Triton caches: the kernel")
        ->type_name("NAME");
}

void addProjectBaseFlag(CLI::App& cmd, std::string& project) {
    cmd.add_option("--project", project, "compile_commands.json (or its folder): the base of --a and --b")
        ->type_name("PATH");
}

BuildOptions overlayGivenFlags(const CLI::App& cmd, const BuildOptions& base, const BuildOptions& given,
                               std::set<std::string>* givenKeys) {
    BuildOptions o = base;
    // Flag name → the BuildOptions JSON key it sets (ProjectOptions::fromProject uses the same keys).
    auto has = [&](const char* name, const char* key) {
        const bool given = cmd.count(name) > 0;
        if (given && givenKeys) givenKeys->insert(key);
        return given;
    };
    if (has("--arch", "arch")) o.arch = given.arch;
    if (has("--opt", "host_opt")) o.hostOpt = given.hostOpt;
    if (has("--ptxas-opt", "ptxas_opt")) o.ptxasOpt = given.ptxasOpt;
    if (has("--fast-math", "fast_math")) o.fastMath = given.fastMath;
    if (has("--ftz", "ftz")) o.ftz = given.ftz;
    if (has("--prec-div", "prec_div")) o.precDiv = given.precDiv;
    if (has("--prec-sqrt", "prec_sqrt")) o.precSqrt = given.precSqrt;
    if (has("--fmad", "fmad")) o.fmad = given.fmad;
    if (has("--maxrregcount", "max_reg_count")) o.maxRegCount = given.maxRegCount;
    if (has("--no-lineinfo", "lineinfo")) o.lineinfo = given.lineinfo;
    if (has("--device-debug", "device_debug")) o.deviceDebug = given.deviceDebug;
    if (has("--extra-device-vectorization", "extra_device_vectorization")) o.extraDeviceVectorization = given.extraDeviceVectorization;
    if (has("--std", "std")) o.cppStd = given.cppStd;
    auto append = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
        for (const auto& x : from)
            if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
    };
    if (has("--define", "defines")) append(o.defines, given.defines);
    if (has("--include-dir", "include_dirs")) append(o.includeDirs, given.includeDirs);
    if (has("--nvcc-flag", "extra_nvcc_flags")) append(o.extraNvccFlags, given.extraNvccFlags);
    if (has("--ptxas-flag", "extra_ptxas_flags")) append(o.extraPtxasFlags, given.extraPtxasFlags);
    return o;
}

ResolvedInputs resolveInputs(const CLI::App& cmd, const std::string& file, const BuildOptions& parsed,
                             const InputFlags& flags) {
    ResolvedInputs out;
    BuildOptions options = parsed;
    std::vector<std::string> archs;
    const bool archGiven = cmd.count("--arch") > 0;
    if (archGiven && parsed.arch.find(',') != std::string::npos) {
        std::stringstream ss(parsed.arch);
        std::string a;
        while (std::getline(ss, a, ','))
            if (!a.empty() && std::find(archs.begin(), archs.end(), a) == archs.end()) archs.push_back(a);
        if (archs.empty()) throw std::runtime_error("--arch lists no architecture");
        options.arch = archs.front();
    }
    if (!flags.project.empty()) {
        out.project = projectOptions(flags.project, file); // throws with the reason
        options = overlayGivenFlags(cmd, out.project->options, options, &out.project->overridden);
        if (!archGiven && out.project->archs.size() > 1) archs = out.project->archs;
        out.project->options = options; // what is built: the project's options under the user's flags
    }
    BuildInput base = describeInput(file, options);
    base.member = flags.member;
    // Without --arch the input's own arch applies: PTX's .target, a container's first cubin.
    if (!archGiven && base.kind != InputKind::CudaSource && !out.project) base.options.arch.clear();
    if (archs.size() <= 1) {
        out.inputs.push_back(base);
    } else {
        for (const auto& a : archs) {
            BuildInput in = base;
            in.options.arch = a;
            out.inputs.push_back(std::move(in));
        }
    }
    for (const auto& in : out.inputs) {
        if (in.kind != InputKind::CudaSource && in.options.arch.empty()) continue;
        if (std::string bad = checkBuildOptions(in.options); !bad.empty()) throw std::runtime_error(bad);
    }
    return out;
}

BuildOptions parseBuildOptionString(const std::string& flags, const BuildOptions* base) {
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
    if (base) options = overlayGivenFlags(app, *base, options);
    if (std::string bad = checkBuildOptions(options); !bad.empty())
        throw std::invalid_argument("bad build options \"" + flags + "\": " + bad);
    return options;
}

bool applyProjectFlag(const CLI::App& cmd, const std::string& project, const std::string& file, BuildOptions& options,
                      const char* prefix) {
    try {
        options = overlayGivenFlags(cmd, projectOptions(project, file).options, options);
        return true;
    } catch (const std::exception& e) {
        std::cerr << prefix << ": --project: " << e.what() << '\n';
        return false;
    }
}

} // namespace lowerscope::cli
