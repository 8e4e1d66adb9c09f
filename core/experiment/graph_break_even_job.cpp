// Experiment 4 run from the GUI (graph_break_even_job.h).
#include "core/experiment/graph_break_even_job.h"

#include "core/experiment/series_job.h"
#include "core/run/runner_client.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace lowerscope {

nlohmann::json graphBreakEvenOfRecord(const std::string& fileName, const MeasurementRecord& rec) {
    if (rec.result.variants.empty() || !rec.result.variants.front().graphPath)
        throw std::invalid_argument("the runner's result has no graph path (an older lowerscope-runner?)");
    const std::string kernel = rec.launches.empty() ? std::string() : rec.launches.front().kernelName;
    return graphBreakEvenDocument(fileName, kernel.substr(0, kernel.find('(')), rec.result.device,
                                  rec.result.variants.front());
}

LocalGraphBreakEvenOutcome
runLocalGraphBreakEvenJob(const LocalGraphBreakEvenRequest& r, std::atomic<bool>* cancel,
                          const std::function<void(const std::string&)>& progress) {
    auto stage = [&](const std::string& s) {
        if (progress) progress(s);
    };
    if (const std::string bad = checkGraphPathOptions(r.graphPath); !bad.empty()) {
        LocalGraphBreakEvenOutcome out;
        out.error = "the graph path cannot be measured: " + bad;
        return out;
    }
    return runLocalJob<LocalGraphBreakEvenOutcome>(
        r.runnerCommand, r.deadlineS, cancel,
        [&](ProcessRunner& runner, const std::function<void(const std::string&)>& warn) {
            stage("build");
            LaunchSpec spec;
            spec.kernel = r.kernel;
            applyLaunchText(r.launch, spec);
            BuildControl control;
            control.cancel = cancel;
            const BuiltLaunch b =
                buildKernelLaunch(r.toolchain, r.sourcePath, r.options, spec, "", warn, control);
            if (cancel && cancel->load()) throw SeriesCancelled();
            stage("measure");
            MeasureSettings settings;
            settings.mode = parseMode(r.mode).value_or(MeasureMode::Auto);
            settings.stop = r.stop;
            settings.graphPath = r.graphPath;
            const MeasurementRecord rec = measure(
                runner, {b.side}, settings,
                [&](const RunProgress& p) {
                    char line[160];
                    std::snprintf(line, sizeof line, "%s, %zu timings, %.1f s", p.stage.c_str(), p.samples,
                                  p.elapsedS);
                    stage(line);
                },
                cancel);
            throwIfMeasurementFailed(rec);
            const std::string fileName =
                r.fileName.empty() ? std::filesystem::path(r.sourcePath).filename().string() : r.fileName;
            return graphBreakEvenOfRecord(fileName, rec);
        });
}

} // namespace lowerscope
