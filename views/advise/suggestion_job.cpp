// The advisor's *Test this* job (suggestion_job.h).
#include "views/advise/suggestion_job.h"

#include "core/advise/advice_record.h"
#include "core/build/process.h"
#include "core/run/built_launch.h"
#include "core/run/runner_client.h"
#include "views/common/build_job.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace lowerscope {

bool applyVariantFlags(const BuildOptions& a, const std::string& flags, BuildOptions& out, std::string& error) {
    std::vector<std::string> words;
    try {
        words = splitShellWords(flags);
    } catch (const std::invalid_argument& e) {
        error = e.what();
        return false;
    }
    BuildOptions o = a;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        const bool hasValue = i + 1 < words.size();
        if (w == "--fast-math") {
            o.fastMath = true;
        } else if (w == "--maxrregcount" && hasValue) {
            try {
                size_t used = 0;
                const int n = std::stoi(words[i + 1], &used);
                if (used != words[i + 1].size() || n < 0 || n > 255) throw std::invalid_argument("range");
                o.maxRegCount = n;
            } catch (const std::exception&) {
                error = "--maxrregcount '" + words[i + 1] + "' is not a register count";
                return false;
            }
            ++i;
        } else if ((w == "-D" && hasValue) || (w.size() > 2 && w.rfind("-D", 0) == 0)) {
            const std::string def = w == "-D" ? words[++i] : w.substr(2);
            const std::string name = def.substr(0, def.find('='));
            // A define of the same name is replaced, as the series does (applySeriesOption).
            std::erase_if(o.defines, [&](const std::string& d) { return d.substr(0, d.find('=')) == name; });
            o.defines.push_back(def);
        } else {
            error = "the flag '" + w + "' is not one the advisor's variants use";
            return false;
        }
    }
    if (const std::string why = checkBuildOptions(o); !why.empty()) {
        error = why;
        return false;
    }
    out = std::move(o);
    return true;
}

std::vector<std::string> dimensionText(const std::array<uint32_t, 3>& d) {
    return {std::to_string(d[0]), std::to_string(d[1]), std::to_string(d[2])};
}

SuggestionJobOutcome runSuggestionJob(const SuggestionJobRequest& r, std::atomic<bool>* cancel,
                                      const SuggestionStageFn& stage) {
    SuggestionJobOutcome out;
    auto say = [&](const std::string& s) {
        if (stage) stage(s);
    };
    try {
        say("building B");
        const Toolchain& tc = r.toolchain.nvcc.found() ? r.toolchain : cachedToolchain();
        BuildControl control;
        control.cancel = cancel;
        LaunchSpec specB;
        specB.kernel = r.a.mangled;
        applyLaunchText(r.launchB, specB);
        BuiltLaunch b = buildKernelLaunch(tc, r.sourcePath, r.optionsB, specB, "B", {}, control);
        if (cancel && cancel->load()) {
            out.cancelled = true;
            out.test.error = "cancelled";
            return out;
        }
        MeasureSide sideA = r.a;
        sideA.label = "A";
        sideA.spec.kernel = sideA.mangled;
        applyLaunchText(r.launchA, sideA.spec);
        const PreparedSide a = prepareSide(sideA);
        const PreparedSide& pb = b.side;
        if (auto same = unchangedVariant(a, pb)) {
            out.test.error = *same;
            return out;
        }

        say("measuring A and B interleaved");
        MeasureSettings settings;
        settings.mode = parseMode(r.mode).value_or(MeasureMode::Auto);
        RunnerConfig config;
        config.command = r.runnerCommand;
        config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, r.deadlineS) * 1000));
        ProcessRunner runner(config);
        RunProgressFn progress = [&](const RunProgress& p) {
            say("measuring " + p.variant + ": " + std::to_string(p.samples) + " samples");
        };
        MeasurementRecord rec = measure(runner, {a, pb}, settings, progress, cancel);
        runner.stop();
        rec.optionsA = sideA.buildOptions;
        rec.optionsB = shellQuote(toNvccArgs(r.optionsB));
        if (rec.error && (rec.error->kind == RunErrorKind::Cancelled || (cancel && cancel->load()))) {
            out.cancelled = true;
            out.test.error = "cancelled";
            return out;
        }
        if (rec.error) {
            out.test.error = std::string(runErrorKindName(rec.error->kind)) + ": " + rec.error->message;
            return out;
        }
        out.measurement = writeMeasurement(rec);
        out.test = suggestionTestOf(rec);
    } catch (const LaunchBuildError& e) {
        out.cancelled = cancel && cancel->load();
        out.test.error = std::string("B could not be built or launched: ") + e.what();
    } catch (const std::exception& e) {
        out.cancelled = cancel && cancel->load();
        out.test.error = e.what();
    }
    return out;
}

} // namespace lowerscope
