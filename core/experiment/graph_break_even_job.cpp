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
    LocalGraphBreakEvenOutcome out;
    auto stage = [&](const std::string& s) {
        if (progress) progress(s);
    };
    auto cancelled = [&] { return cancel && cancel->load(); };
    if (const std::string bad = checkGraphPathOptions(r.graphPath); !bad.empty()) {
        out.error = "the graph path cannot be measured: " + bad;
        return out;
    }
    RunnerConfig config;
    config.command = r.runnerCommand;
    config.deadline = std::chrono::milliseconds(int64_t(std::max(1.0, r.deadlineS) * 1000));
    ProcessRunner runner(config);
    try {
        stage("build");
        LaunchSpec spec;
        spec.kernel = r.kernel;
        applyLaunchText(r.launch, spec);
        BuildControl control;
        control.cancel = cancel;
        const BuiltLaunch b = buildKernelLaunch(
            r.toolchain, r.sourcePath, r.options, spec, "",
            [&out](const std::string& line) {
                if (out.warnings.size() < 200) out.warnings.push_back(line);
            },
            control);
        if (cancelled()) throw SeriesCancelled();
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
        if (rec.error) {
            if (rec.error->kind == RunErrorKind::Cancelled) throw SeriesCancelled();
            throw measurementFailure(*rec.error);
        }
        const std::string fileName =
            r.fileName.empty() ? std::filesystem::path(r.sourcePath).filename().string() : r.fileName;
        out.document = graphBreakEvenOfRecord(fileName, rec);
        out.ok = true;
    } catch (const SeriesCancelled&) {
        out.cancelled = true;
        out.error = "cancelled";
    } catch (const std::exception& e) {
        out.cancelled = cancelled();
        out.error = e.what();
    }
    runner.stop();
    return out;
}

} // namespace lowerscope
