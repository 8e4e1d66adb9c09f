// `lowerscope-cli chart NAME=FILE.series.json ... -o OUT.svg` (issue 15): several parameter series
// on one chart and one table, e.g. a dense and a skipping kernel over the same sparsities, or the
// kernels of an unfused pipeline over the same sizes. The series documents are untrusted files
// (read bounded; points of the wrong shape are skipped); they must vary the same values in the same
// order, else the chart would pair unrelated points.
#include "app/cli/commands.h"
#include "core/bounded_json.h"
#include "core/experiment/report.h"
#include "core/experiment/series.h"
#include "core/run/measurement.h"

#include <fstream>
#include <iostream>

namespace lowerscope::cli {

namespace {

constexpr int kOk = 0, kUsage = 2;

struct ChartArgs {
    std::vector<std::string> series; // NAME=FILE
    std::string out;
    std::string markdown;
    std::string title;
    bool logY = false;
    bool byPosition = false; // pair points by position even where the values differ
};

std::vector<std::string> pointValues(const nlohmann::json& doc) {
    std::vector<std::string> v;
    for (const auto& p : doc["points"])
        if (p.is_object()) v.push_back(p.value("value", std::string()));
    return v;
}

// One row per point value, one "median (CI)" column per series.
std::string overlayMarkdown(const std::vector<std::pair<std::string, nlohmann::json>>& lines) {
    std::string md = "| " + markdownCell(lines.front().second.value("name", std::string("point"))) + " |";
    std::string rule = "|---|";
    for (const auto& [name, doc] : lines) {
        md += " " + markdownCell(name) + " |";
        rule += "---:|";
    }
    md += "\n" + rule + "\n";
    const auto values = pointValues(lines.front().second);
    for (size_t i = 0; i < values.size(); ++i) {
        md += "| " + markdownCell(values[i]) + " |";
        for (const auto& [name, doc] : lines) {
            const auto& p = doc["points"][i];
            const double m = p.value("median_ms", 0.0);
            md += " " + formatDuration(m) + " (" + formatDuration(p.value("ci_low_ms", m)) + "–" +
                  formatDuration(p.value("ci_high_ms", m)) + ") |";
        }
        md += "\n";
    }
    return md;
}

int runChart(const ChartArgs& a) {
    std::vector<std::pair<std::string, nlohmann::json>> lines;
    for (const auto& item : a.series) {
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
            std::cerr << "lowerscope-cli chart: expected NAME=FILE.series.json, got '" << item << "'\n";
            return kUsage;
        }
        std::string error;
        auto doc = readJsonFileBounded(item.substr(eq + 1), error);
        if (!doc) {
            std::cerr << "lowerscope-cli chart: " << error << "\n";
            return kUsage;
        }
        if (!doc->is_object() || doc->value("schema", std::string()) != "lowerscope.series/1" ||
            !doc->contains("points") || !(*doc)["points"].is_array() || (*doc)["points"].empty()) {
            std::cerr << "lowerscope-cli chart: " << item.substr(eq + 1)
                      << " is not a lowerscope.series/1 document with points\n";
            return kUsage;
        }
        for (const auto& p : (*doc)["points"]) {
            if (!p.is_object() || !p.contains("median_ms") || !p["median_ms"].is_number()) {
                std::cerr << "lowerscope-cli chart: " << item.substr(eq + 1)
                          << ": a point without a numeric median_ms\n";
                return kUsage;
            }
        }
        const bool same =
            a.byPosition
                ? pointValues(*doc).size() == pointValues(lines.empty() ? *doc : lines.front().second).size()
                : lines.empty() || pointValues(*doc) == pointValues(lines.front().second);
        if (!same) {
            std::cerr << "lowerscope-cli chart: " << item.substr(eq + 1) << " varies other values than "
                      << a.series.front().substr(a.series.front().find('=') + 1)
                      << (a.byPosition
                              ? " (--by-position needs as many points in every series)\n"
                              : " (the lines of one chart must share their points; --by-position pairs them "
                                "by position)\n");
            return kUsage;
        }
        lines.emplace_back(item.substr(0, eq), std::move(*doc));
    }
    const std::string svg = seriesOverlaySvg(lines, a.title, a.logY);
    std::ofstream f(a.out, std::ios::binary);
    f << svg;
    if (!f) {
        std::cerr << "lowerscope-cli chart: cannot write " << a.out << "\n";
        return kUsage;
    }
    const std::string md = overlayMarkdown(lines);
    if (!a.markdown.empty()) {
        std::ofstream m(a.markdown, std::ios::binary);
        m << md;
        if (!m) {
            std::cerr << "lowerscope-cli chart: cannot write " << a.markdown << "\n";
            return kUsage;
        }
    } else {
        std::cout << md;
    }
    return kOk;
}

} // namespace

void registerChartCommand(CLI::App& app, int& exitCode) {
    auto args = std::make_shared<ChartArgs>();
    CLI::App* cmd = app.add_subcommand(
        "chart",
        "Draw several parameter series (lowerscope.series/1, from `experiment --vary`) on one chart and "
        "tabulate them side by side. The series must vary the same values in the same order.\n"
        "Exit: 0 written, 2 usage error or an unreadable or mismatched series.");
    cmd->add_option("series", args->series, "NAME=FILE.series.json, one per line of the chart (at least one)")
        ->required()
        ->type_name("NAME=FILE");
    cmd->add_option("-o,--out", args->out, "the SVG chart to write")->required()->type_name("OUT.svg");
    cmd->add_option("--markdown", args->markdown, "write the side-by-side table here (default: stdout)")
        ->type_name("OUT.md");
    cmd->add_option("--title", args->title, "chart title");
    cmd->add_flag("--log", args->logY, "logarithmic time axis (for series spanning decades)");
    cmd->add_flag("--by-position", args->byPosition,
                  "pair the i-th points of every series even where their values differ (e.g. M=512 and "
                  "count=262144 for the same size); the x axis shows the first series' values");
    cmd->callback([args, &exitCode] { exitCode = runChart(*args); });
}

} // namespace lowerscope::cli
