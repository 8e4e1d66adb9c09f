// Experiment 4's summary, document, report and chart (graph_break_even.h).
#include "core/experiment/graph_break_even.h"

#include "core/bounded_json.h"
#include "core/experiment/report.h"
#include "core/experiment/series.h"
#include "core/run/measurement.h"
#include "core/run/stats.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>

namespace lowerscope {

namespace {

using nlohmann::json;

std::string num(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return quantileSorted(v, q);
}

json optJson(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

// A number field of an untrusted object, or nullopt.
std::string durationOr(const json& j, const char* key, double scale = 1) {
    const auto v = jsonFiniteNumber(j, key);
    return v ? formatDuration(*v * scale) : "–";
}

std::string replaysOr(const json& j, const char* key) {
    const auto v = jsonFiniteNumber(j, key);
    return v ? num(*v >= 100 ? "%.0f" : "%.1f", *v) : "–";
}

// The paths of a document that have the shape this file writes.
std::vector<const json*> pathsOf(const json& doc) {
    std::vector<const json*> out;
    if (!doc.is_object() || !doc.contains("paths") || !doc["paths"].is_array()) return out;
    for (const json& p : doc["paths"])
        if (p.is_object() && jsonFiniteNumber(p, "path_length") && p.contains("points") &&
            p["points"].is_array())
            out.push_back(&p);
    return out;
}

// Least squares y = a + b·x; none with fewer than two distinct x.
std::optional<std::pair<double, double>> lineFit(const std::vector<double>& x, const std::vector<double>& y) {
    const double n = static_cast<double>(x.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    const double d = n * sxx - sx * sx;
    if (x.size() < 2 || !(std::fabs(d) > 1e-12 * std::max(1.0, sxx * n))) return std::nullopt;
    const double b = (n * sxy - sx * sy) / d;
    return std::make_pair((sy - b * sx) / n, b);
}

} // namespace

std::vector<int> defaultGraphReplays() {
    return {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128, 256, 512, 1024};
}

std::vector<int> parseCountList(const std::string& text, int maxValue) {
    std::vector<int> out;
    std::string item;
    std::istringstream in(text);
    if (text.empty())
        throw std::invalid_argument("expected a comma list of positive integers, e.g. 1,4,16,64");
    while (std::getline(in, item, ',')) {
        const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
        const std::string t = b == std::string::npos ? "" : item.substr(b, e - b + 1);
        if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos)
            throw std::invalid_argument(
                "'" + t + "' is not a positive integer (expected a comma list such as 1,4,16,64)");
        const long v = std::stol(t);
        if (v < 1 || v > maxValue)
            throw std::invalid_argument(t + " is not in 1 .. " + std::to_string(maxValue));
        out.push_back(static_cast<int>(v));
    }
    if (!text.empty() && text.back() == ',') throw std::invalid_argument("the list ends with a comma");
    return out;
}

GraphBreakEvenSummary summarizeGraphPath(const GraphPathEntry& e) {
    GraphBreakEvenSummary s;
    s.pathLength = e.pathLength;
    s.captureMs = quantile(e.captureMs, 0.5);
    s.instantiateMs = quantile(e.instantiateMs, 0.5);
    s.uploadMs = quantile(e.uploadMs, 0.5);
    s.fixedMs = s.captureMs + s.instantiateMs + s.uploadMs;
    s.streamPathUs = quantile(e.streamPathUs, 0.5);
    s.graphPathUs = quantile(e.graphPathUs, 0.5);
    s.streamPathGpuUs = quantile(e.streamPathGpuUs, 0.5);
    s.graphPathGpuUs = quantile(e.graphPathGpuUs, 0.5);
    s.steadyPaths = e.steadyPaths;
    const double saving = s.streamPathUs - s.graphPathUs;
    if (saving > 0 && !e.streamPathUs.empty() && !e.graphPathUs.empty())
        s.predicted = s.fixedMs * 1000.0 / saving;
    for (const GraphPathPoint& p : e.points) {
        if (p.streamMs.empty() || p.graphMs.empty()) continue;
        GraphBreakEvenPoint q;
        q.replays = p.replays;
        q.repetitions = std::min(p.streamMs.size(), p.graphMs.size());
        q.streamMs = quantile(p.streamMs, 0.5);
        q.streamQ1Ms = quantile(p.streamMs, 0.25);
        q.streamQ3Ms = quantile(p.streamMs, 0.75);
        q.graphMs = quantile(p.graphMs, 0.5);
        q.graphQ1Ms = quantile(p.graphMs, 0.25);
        q.graphQ3Ms = quantile(p.graphMs, 0.75);
        s.points.push_back(q);
    }
    for (size_t k = 0; k < s.points.size(); ++k) {
        const double d = s.points[k].graphMs - s.points[k].streamMs;
        if (d > 0) continue;
        s.measured = s.points[k].replays;
        if (k > 0) {
            // The difference is linear in R (both totals are), so the zero lies on the chord.
            const GraphBreakEvenPoint& a = s.points[k - 1];
            const double da = a.graphMs - a.streamMs;
            s.crossing = a.replays + (s.points[k].replays - a.replays) * da / (da - d);
        }
        break;
    }
    return s;
}

json graphBreakEvenDocument(const std::string& file, const std::string& kernel, const DeviceInfo& device,
                            const VariantResult& v) {
    if (!v.graphPath) throw std::invalid_argument("the runner's result has no graph path");
    json doc{{"schema", kGraphBreakEvenSchema},
             {"file", file},
             {"kernel", kernel},
             {"device", toJson(device)},
             {"kernel_median_ms", v.samplesMs.empty() ? json(nullptr) : json(quantile(v.samplesMs, 0.5))},
             {"mode", v.mode},
             {"repetitions", v.graphPath->repetitions},
             {"note", v.graphPath->note},
             {"paths", json::array()},
             {"raw", toJson(*v.graphPath)}};
    std::vector<double> ns, instantiateUs, streamUs, graphUs;
    for (const GraphPathEntry& e : v.graphPath->paths) {
        const GraphBreakEvenSummary s = summarizeGraphPath(e);
        if (!e.instantiateMs.empty() && !e.streamPathUs.empty() && !e.graphPathUs.empty()) {
            ns.push_back(s.pathLength);
            instantiateUs.push_back(s.instantiateMs * 1000.0);
            streamUs.push_back(s.streamPathUs);
            graphUs.push_back(s.graphPathUs);
        }
        json points = json::array();
        for (const GraphBreakEvenPoint& p : s.points)
            points.push_back(json{{"replays", p.replays},
                                  {"repetitions", p.repetitions},
                                  {"stream_median_ms", p.streamMs},
                                  {"stream_q1_ms", p.streamQ1Ms},
                                  {"stream_q3_ms", p.streamQ3Ms},
                                  {"graph_median_ms", p.graphMs},
                                  {"graph_q1_ms", p.graphQ1Ms},
                                  {"graph_q3_ms", p.graphQ3Ms}});
        doc["paths"].push_back(json{{"path_length", s.pathLength},
                                    {"capture_ms", s.captureMs},
                                    {"instantiate_ms", s.instantiateMs},
                                    {"upload_ms", s.uploadMs},
                                    {"fixed_ms", s.fixedMs},
                                    {"stream_path_us", s.streamPathUs},
                                    {"graph_path_us", s.graphPathUs},
                                    {"stream_path_gpu_us", s.streamPathGpuUs},
                                    {"graph_path_gpu_us", s.graphPathGpuUs},
                                    {"saving_per_path_us", s.streamPathUs - s.graphPathUs},
                                    {"steady_paths", s.steadyPaths},
                                    {"predicted_break_even", optJson(s.predicted)},
                                    {"measured_break_even", s.measured ? json(*s.measured) : json(nullptr)},
                                    {"measured_crossing", optJson(s.crossing)},
                                    {"points", points}});
    }
    // H4a's terms: a fixed part and a part per kernel, fitted over N.
    doc["fits"] = json::object();
    for (const auto& [key, ys] :
         {std::pair<const char*, const std::vector<double>*>{"instantiate_us", &instantiateUs},
          {"stream_path_us", &streamUs},
          {"graph_path_us", &graphUs}})
        if (const auto f = lineFit(ns, *ys))
            doc["fits"][key] = json{{"fixed", f->first}, {"per_launch", f->second}};
    return doc;
}

std::string graphBreakEvenSvg(const json& doc) {
    static const char* const colours[] = {"#1f6fb4", "#d9541e", "#2a9d3f", "#8e44ad", "#b8860b", "#17a2b8"};
    const std::vector<const json*> paths = pathsOf(doc);
    // The data's extent: R on x, totals (interquartile bars included) on y.
    double rLo = 0, rHi = 0, yLo = 0, yHi = 0;
    bool any = false;
    for (const json* p : paths)
        for (const json& q : (*p)["points"]) {
            const auto r = jsonFiniteNumber(q, "replays");
            if (!r || *r < 1) continue;
            for (const char* k : {"stream_q1_ms", "stream_q3_ms", "graph_q1_ms", "graph_q3_ms",
                                  "stream_median_ms", "graph_median_ms"}) {
                const auto v = jsonFiniteNumber(q, k);
                if (!v || !(*v > 0)) continue;
                yLo = any ? std::min(yLo, *v) : *v;
                yHi = any ? std::max(yHi, *v) : *v;
                rLo = any ? std::min(rLo, *r) : *r;
                rHi = any ? std::max(rHi, *r) : *r;
                any = true;
            }
        }
    if (!any) {
        rLo = 1, rHi = 1024, yLo = 0.01, yHi = 1;
    }
    const double xMin = std::pow(2.0, std::floor(std::log2(rLo)));
    const double xMax = std::max(std::pow(2.0, std::ceil(std::log2(rHi))), xMin * 2);
    const double yMin = std::pow(10.0, std::floor(std::log10(yLo)));
    const double yMax = std::max(std::pow(10.0, std::ceil(std::log10(yHi * 1.0001))), yMin * 10);
    const int rows = static_cast<int>(2 * paths.size());
    const int W = 780, L = 80, R = 170, T = 44, B = 64;
    const int H = std::max(460, T + 16 + 18 * rows + B);
    auto x = [&](double r) {
        return L + (W - L - R) * (std::log2(std::max(r, xMin)) - std::log2(xMin)) /
                       (std::log2(xMax) - std::log2(xMin));
    };
    auto y = [&](double v) {
        return T + (H - T - B) * (1 - (std::log10(std::max(v, yMin)) - std::log10(yMin)) /
                                          (std::log10(yMax) - std::log10(yMin)));
    };
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"white\"/>\n";
    s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">"
      << xmlEscape(jsonString(doc, "kernel") +
                   ": R paths from the stream vs a graph built and replayed R times")
      << "</text>\n";
    for (double v = yMin; v <= yMax * 1.0001; v *= 10)
        s << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << y(v) << "\" y2=\"" << y(v)
          << "\" stroke=\"#ddd\"/>\n<text x=\"" << L - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\">"
          << xmlEscape(formatDuration(v)) << "</text>\n";
    const int decades = static_cast<int>(std::lround(std::log2(xMax / xMin)));
    const int step = std::max(1, (decades + 11) / 12);
    for (int k = 0; k <= decades; k += step) {
        const double r = xMin * std::pow(2.0, k);
        s << "<line x1=\"" << x(r) << "\" x2=\"" << x(r) << "\" y1=\"" << T << "\" y2=\"" << H - B
          << "\" stroke=\"#eee\"/>\n<text x=\"" << x(r) << "\" y=\"" << H - B + 18
          << "\" text-anchor=\"middle\">" << num("%.0f", r) << "</text>\n";
    }
    for (size_t k = 0; k < paths.size(); ++k) {
        const json& p = *paths[k];
        const char* colour = colours[k % std::size(colours)];
        const std::string n = num("%.0f", *jsonFiniteNumber(p, "path_length"));
        for (int side = 0; side < 2; ++side) {
            const char* med = side == 0 ? "stream_median_ms" : "graph_median_ms";
            const char* q1 = side == 0 ? "stream_q1_ms" : "graph_q1_ms";
            const char* q3 = side == 0 ? "stream_q3_ms" : "graph_q3_ms";
            std::string line;
            for (const json& q : p["points"]) {
                const auto r = jsonFiniteNumber(q, "replays"), m = jsonFiniteNumber(q, med);
                if (!r || !m || *r < 1 || !(*m > 0)) continue;
                line += (line.empty() ? "M" : " L") + num("%.1f", x(*r)) + " " + num("%.1f", y(*m));
                const auto a = jsonFiniteNumber(q, q1), b = jsonFiniteNumber(q, q3);
                if (a && b && *a > 0 && *b > 0)
                    s << "<line x1=\"" << x(*r) << "\" x2=\"" << x(*r) << "\" y1=\"" << y(*a) << "\" y2=\""
                      << y(*b) << "\" stroke=\"" << colour << "\" stroke-width=\"1\" opacity=\"0.6\"/>\n";
                s << "<circle cx=\"" << x(*r) << "\" cy=\"" << y(*m) << "\" r=\"" << (side == 0 ? 3 : 2.5)
                  << "\" fill=\"" << (side == 0 ? colour : "white") << "\" stroke=\"" << colour << "\"/>\n";
            }
            s << "<path d=\"" << line << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.6\""
              << (side == 1 ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
            const int ly = T + 10 + static_cast<int>(2 * k + side) * 18;
            s << "<line x1=\"" << W - R + 12 << "\" x2=\"" << W - R + 40 << "\" y1=\"" << ly << "\" y2=\""
              << ly << "\" stroke=\"" << colour << "\" stroke-width=\"2\""
              << (side == 1 ? " stroke-dasharray=\"6 4\"" : "") << "/>\n<text x=\"" << W - R + 46 << "\" y=\""
              << ly + 4 << "\">N=" << n << (side == 0 ? " stream" : " graph") << "</text>\n";
        }
        // The measured crossing: a short upward mark on the R axis in the path's colour.
        if (const auto c = jsonFiniteNumber(p, "measured_crossing"); c && *c >= xMin && *c <= xMax)
            s << "<path d=\"M" << num("%.1f", x(*c)) << " " << H - B << " l-5 9 l10 0 z\" fill=\"" << colour
              << "\"><title>N=" << n << " crossing at R = " << num("%.1f", *c) << "</title></path>\n";
    }
    s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 18
      << "\" text-anchor=\"middle\">replays R (log scale; "
      << "▲ measured crossing) — total host time, log scale; bars: interquartile range</text>\n</svg>\n";
    return s.str();
}

std::string graphBreakEvenMarkdown(const json& doc, const std::string& title, const std::string& hypothesis,
                                   const std::string& svgFile, const std::string& command,
                                   double pricePerGpuHour, double pathsPerRequest) {
    const std::vector<const json*> paths = pathsOf(doc);
    std::ostringstream md;
    md << "# " << (title.empty() ? "CUDA Graph break-even" : title) << "\n\n";
    md << "A fixed path of N launches of `" << jsonString(doc, "kernel") << "` (`" << jsonString(doc, "file")
       << "`) launched from a stream, against the same path captured into a CUDA graph, instantiated, "
          "uploaded "
          "and replayed";
    if (doc.is_object() && doc.contains("device") && doc["device"].is_object())
        md << ", on " << jsonString(doc["device"], "name");
    md << ".";
    if (const auto k = jsonFiniteNumber(doc, "kernel_median_ms"))
        md << " One launch takes " << formatDuration(*k) << " on the GPU ("
           << markdownCell(jsonString(doc, "mode")) << " mode median).";
    md << "\n\n**Hypothesis (written before the measurement).** "
       << (hypothesis.empty() ? "_(none given)_" : hypothesis) << "\n\n";
    md << "## Costs, per path and break-even\n\n";
    md << "| N | capture | instantiate | upload | fixed cost | stream per path | graph per path | per "
          "launch: stream / "
          "graph | predicted R* | measured R* | crossing "
          "|\n|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n";
    for (const json* pp : paths) {
        const json& p = *pp;
        const double n = *jsonFiniteNumber(p, "path_length");
        md << "| " << num("%.0f", n) << " | " << durationOr(p, "capture_ms") << " | "
           << durationOr(p, "instantiate_ms") << " | " << durationOr(p, "upload_ms") << " | "
           << durationOr(p, "fixed_ms") << " | " << durationOr(p, "stream_path_us", 1e-3) << " | "
           << durationOr(p, "graph_path_us", 1e-3) << " | " << durationOr(p, "stream_path_us", 1e-3 / n)
           << " / " << durationOr(p, "graph_path_us", 1e-3 / n) << " | "
           << (jsonFiniteNumber(p, "predicted_break_even") ? replaysOr(p, "predicted_break_even")
                                                           : "none (no saving)")
           << " | "
           << (jsonFiniteNumber(p, "measured_break_even")
                   ? num("%.0f", *jsonFiniteNumber(p, "measured_break_even"))
                   : "not within the R measured")
           << " | " << replaysOr(p, "measured_crossing") << " |\n";
    }
    if (doc.is_object() && doc.contains("fits") && doc["fits"].is_object() && !doc["fits"].empty()) {
        std::string parts;
        const std::pair<const char*, const char*> fits[] = {{"instantiate_us", "instantiate"},
                                                            {"stream_path_us", "path from the stream"},
                                                            {"graph_path_us", "graph replay"}};
        for (const auto& [key, name] : fits) {
            const json& f = doc["fits"].contains(key) ? doc["fits"][key] : json();
            if (jsonFiniteNumber(f, "fixed") && jsonFiniteNumber(f, "per_launch"))
                parts += std::string(parts.empty() ? "" : "; ") + name + " ≈ " +
                         formatDuration(*jsonFiniteNumber(f, "fixed") / 1000) + " + " +
                         formatDuration(*jsonFiniteNumber(f, "per_launch") / 1000) + " per kernel";
        }
        if (!parts.empty()) md << "\nFitted over N (least squares, a + b × N): " << parts << ".\n";
    }
    md << "\n_Predicted R* = fixed cost / (stream − graph per path), host wall medians. Measured R*: the "
          "smallest R "
          "measured at which the graph's median total is at most the stream's; crossing: interpolated "
          "linearly "
          "between that R and the one before (– when the graph already wins at the smallest R)._\n\n";
    if (!svgFile.empty()) md << "![total time vs replays](" << svgFile << ")\n\n";
    for (const json* pp : paths) {
        const json& p = *pp;
        md << "### N = " << num("%.0f", *jsonFiniteNumber(p, "path_length"))
           << ": totals per R (median, interquartile range)\n\n";
        md << "| R | stream: R paths + wait | graph: build + R replays + wait | graph − stream "
              "|\n|---:|---|---|---:|\n";
        for (const json& q : p["points"]) {
            const auto r = jsonFiniteNumber(q, "replays"), a = jsonFiniteNumber(q, "stream_median_ms"),
                       b = jsonFiniteNumber(q, "graph_median_ms");
            if (!r || !a || !b) continue;
            md << "| " << num("%.0f", *r) << " | " << formatDuration(*a) << " ("
               << durationOr(q, "stream_q1_ms") << "–" << durationOr(q, "stream_q3_ms") << ") | "
               << formatDuration(*b) << " (" << durationOr(q, "graph_q1_ms") << "–"
               << durationOr(q, "graph_q3_ms") << ") | " << (*b - *a > 0 ? "+" : "−")
               << formatDuration(std::fabs(*b - *a)) << " |\n";
        }
        md << "\n";
    }
    md << "## How it was measured\n\n";
    md << "For each N, after a warm-up graph and path: capture, instantiate and upload (until the stream is "
          "idle) of "
          "a fresh graph, host wall time, "
       << num("%.0f", jsonFiniteNumber(doc, "repetitions").value_or(0))
       << " times; then the steady state, batches of M paths back to back from the stream against M replays "
          "of one "
          "graph (host wall and GPU time by events, ÷ M, the two sides alternating which goes first); then, "
          "for "
          "every R, the end-to-end host wall time of R paths from the stream + wait against capture + "
          "instantiate + "
          "upload + R replays + wait of a fresh graph (its upload not waited for: the first replay queues "
          "behind it; destroyed after the clock stopped), in rounds over all R, each round after an "
          "untimed graph built, replayed and destroyed, R running forwards and backwards in turn and "
          "the side that goes first alternating. \"Wait\" is an event recorded behind the work that the host "
          "polls. "
          "Everything ran in one process on one stream.\n\n";
    if (!jsonString(doc, "note").empty())
        md << "**Stopped early:** " << markdownCell(jsonString(doc, "note")) << "\n\n";
    if (pricePerGpuHour >= 0) {
        // The GPU is held for a path's whole span, idle gaps between launches included: cost the
        // paths by the events' time, one (stream, graph) pair per N so the change reads graph vs stream.
        std::ostringstream cost;
        for (const json* pp : paths) {
            const auto s = jsonFiniteNumber(*pp, "stream_path_gpu_us"),
                       g = jsonFiniteNumber(*pp, "graph_path_gpu_us");
            if (!s || !g) continue;
            const std::string n = num("%.0f", *jsonFiniteNumber(*pp, "path_length"));
            std::string c =
                costMarkdown({{"N=" + n + " stream", *s / 1000.0}, {"N=" + n + " graph", *g / 1000.0}},
                             pricePerGpuHour, pathsPerRequest);
            if (c.rfind("## Cost\n\n", 0) == 0) c = "### Cost of one path, N = " + n + "\n\n" + c.substr(9);
            cost << c;
        }
        if (!cost.str().empty())
            md << "## Cost\n\nHere a \"launch\" is one whole path of N kernels and its time the GPU time per "
                  "path "
                  "from events around a batch (idle gaps between the kernels included: the GPU is held for "
                  "them); `--launches-per-request` counts paths per request.\n\n"
               << cost.str();
    }
    if (!command.empty()) md << "Reproduce:\n\n```sh\n" << command << "\n```\n";
    return md.str();
}

bool readGraphBreakEvenDocument(const json& doc, GraphBreakEvenReadout& out, std::string& why) {
    if (!doc.is_object() || jsonString(doc, "schema") != kGraphBreakEvenSchema) {
        why = std::string("not a graph break-even document (schema ") + kGraphBreakEvenSchema + " expected)";
        return false;
    }
    if (!doc.contains("paths") || !doc["paths"].is_array() || doc["paths"].empty() ||
        doc["paths"].size() > 16) {
        why = "a graph break-even document has 1 to 16 paths";
        return false;
    }
    GraphBreakEvenReadout r;
    std::set<int> replays;
    for (const json& p : doc["paths"]) {
        const auto n = jsonFiniteNumber(p, "path_length");
        // The range is checkGraphPathOptions' below; here only that it is an integer that fits.
        if (!n || *n != std::floor(*n) || std::fabs(*n) > 1e9) {
            why = "a path without an integer path_length";
            return false;
        }
        if (!p.contains("points") || !p["points"].is_array() || p["points"].size() > 64) {
            why = "path " + num("%.0f", *n) + ": give 0 to 64 points";
            return false;
        }
        GraphBreakEvenRow row;
        row.pathLength = static_cast<int>(*n);
        row.fixedMs = jsonFiniteNumber(p, "fixed_ms");
        row.streamPathUs = jsonFiniteNumber(p, "stream_path_us");
        row.graphPathUs = jsonFiniteNumber(p, "graph_path_us");
        row.predicted = jsonFiniteNumber(p, "predicted_break_even");
        row.measured = jsonFiniteNumber(p, "measured_break_even");
        row.crossing = jsonFiniteNumber(p, "measured_crossing");
        for (const json& q : p["points"]) {
            const auto rr = jsonFiniteNumber(q, "replays");
            if (!rr || *rr != std::floor(*rr) || std::fabs(*rr) > 1e9) {
                why = "path " + num("%.0f", *n) + ": a point without an integer replay count";
                return false;
            }
            replays.insert(static_cast<int>(*rr));
        }
        r.rows.push_back(row);
        r.options.pathLengths.push_back(row.pathLength);
    }
    r.options.replays.assign(replays.begin(), replays.end());
    if (r.options.replays.empty()) r.options.replays = defaultGraphReplays();
    if (const auto reps = jsonFiniteNumber(doc, "repetitions");
        reps && *reps == std::floor(*reps) && std::fabs(*reps) < 1e6)
        r.options.repetitions = static_cast<int>(*reps);
    if (const std::string bad = checkGraphPathOptions(r.options); !bad.empty()) {
        why = "the document asks for what the runner refuses: " + bad;
        return false;
    }
    r.file = escapeControl(jsonString(doc, "file"));
    r.kernel = escapeControl(jsonString(doc, "kernel"));
    r.note = escapeControl(jsonString(doc, "note"));
    if (doc.contains("device") && doc["device"].is_object())
        r.device = escapeControl(jsonString(doc["device"], "name"));
    out = std::move(r);
    return true;
}

} // namespace lowerscope
