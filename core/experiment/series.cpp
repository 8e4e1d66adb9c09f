// Parameter series (series.h).
#include "core/experiment/series.h"
#include "core/format.h"

#include "core/bounded_json.h"
#include "core/experiment/report.h"
#include "core/run/profile_join.h"
#include "core/run/stats.h"
#include "core/untrusted.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <set>
#include <sstream>

namespace lowerscope {

namespace {

using nlohmann::json;

bool plainToken(const std::string& v) {
    if (v.empty() || v.size() > 64) return false;
    return std::all_of(v.begin(), v.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == ':';
    });
}

bool identifier(const std::string& v) {
    if (v.empty() || v.size() > 64 || std::isdigit(static_cast<unsigned char>(v[0]))) return false;
    return std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// The build options that are flags without a value: a series turns them off and on.
bool isOnOffFlag(const std::string& name) {
    return name == "--fast-math" || name == "--extra-device-vectorization" || name == "--no-lineinfo" ||
           name == "--device-debug";
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(s.begin());
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
}

} // namespace

std::string xmlEscape(const std::string& s) {
    // The one rule for markup (core/untrusted.h): & < > " ' escaped, control bytes and invalid UTF-8
    // (which no XML document may hold: the SVG would not be well-formed) replaced.
    return xmlEscape(std::string_view(s));
}

SeriesSpec parseSeriesSpec(const std::string& textIn) {
    SeriesSpec s;
    s.text = textIn;
    std::string text = trim(textIn);
    std::string rest;
    auto starts = [&](const char* p) { return text.rfind(p, 0) == 0; };
    char sep = ',';
    if (starts("-D")) {
        s.kind = SeriesKind::Define;
        rest = trim(text.substr(2));
    } else if (starts("--arg ") || starts("--arg=")) {
        s.kind = SeriesKind::LaunchArg;
        rest = trim(text.substr(6));
    } else if (starts("--grid=") || starts("--block=")) {
        s.kind = starts("--grid=") ? SeriesKind::Grid : SeriesKind::Block;
        s.name = s.kind == SeriesKind::Grid ? "grid" : "block";
        sep = ';';
        rest = text.substr(text.find('=') + 1);
    } else if (starts("-")) {
        s.kind = SeriesKind::BuildOption;
        const size_t eq = text.find('=');
        if (eq == std::string::npos)
            throw std::invalid_argument("'" + textIn + "': write the option as FLAG=v1,v2,...");
        s.name = text.substr(0, eq);
        rest = text.substr(eq + 1);
        if (!plainToken(s.name) || s.name.size() < 2)
            throw std::invalid_argument("'" + s.name + "' is not a build option name");
    } else {
        throw std::invalid_argument(
            "'" + textIn +
            "': vary a define (-D NAME=v1,v2), a build option (--maxrregcount=32,64), a "
            "launch argument (--arg NAME=v1,v2) or a dimension (--grid=a;b, --block=a;b)");
    }
    if (s.kind == SeriesKind::Define || s.kind == SeriesKind::LaunchArg) {
        const size_t eq = rest.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("'" + textIn + "': expected NAME=v1,v2,...");
        s.name = trim(rest.substr(0, eq));
        rest = rest.substr(eq + 1);
        if (!identifier(s.name)) throw std::invalid_argument("'" + s.name + "' is not a name");
    }
    std::set<std::string> seen;
    for (std::string v : split(rest, sep)) {
        v = trim(v);
        // A dimension may be "x,y,z": each part a plain token.
        bool ok = true;
        for (const auto& part : split(v, ',')) ok = ok && plainToken(trim(part));
        if (!ok || (sep == ',' && !plainToken(v)))
            throw std::invalid_argument("'" + v + "' in '" + textIn +
                                        "' is not a plain value (letters, digits, . _ - + : only)");
        if (!seen.insert(v).second)
            throw std::invalid_argument("'" + v + "' appears twice in '" + textIn + "'");
        s.values.push_back(v);
    }
    if (s.kind == SeriesKind::BuildOption && isOnOffFlag(s.name))
        for (const auto& v : s.values)
            if (v != "on" && v != "off")
                throw std::invalid_argument("'" + s.name + "' is a flag: vary it as " + s.name + "=off,on");
    if (s.values.size() < 2)
        throw std::invalid_argument("'" + textIn + "': a series needs at least two values");
    if (s.values.size() > kMaxSeriesPoints)
        throw std::invalid_argument("'" + textIn + "': at most " + std::to_string(kMaxSeriesPoints) + " values");
    return s;
}

std::string seriesPointLabel(const SeriesSpec& s, size_t i) {
    return s.name + "=" + s.values.at(i);
}

std::vector<std::string> seriesBuildWords(const SeriesSpec& s, size_t i) {
    const std::string& v = s.values.at(i);
    switch (s.kind) {
    case SeriesKind::Define:
        return {"-D" + s.name + "=" + v};
    case SeriesKind::BuildOption:
        if (isOnOffFlag(s.name)) return v == "on" ? std::vector<std::string>{s.name} : std::vector<std::string>{};
        // Long options take "=value"; a short one is glued to its value (-DX, -Idir); a flag the CLI
        // does not know is refused when the point is built ("--vary FLAG=V: ...", exit 2).
        return {s.name.rfind("--", 0) == 0 ? s.name + "=" + v : s.name + v};
    default:
        return {};
    }
}

json seriesDocument(const SeriesSpec& spec, const std::string& file, const std::string& kernel,
                    const DeviceInfo& device, const std::vector<SeriesPoint>& points) {
    static const char* kinds[] = {"define", "build_option", "launch_arg", "grid", "block"};
    json doc{{"schema", "lowerscope.series/1"},
             {"file", file},
             {"kernel", kernel},
             {"vary", spec.text},
             {"kind", kinds[int(spec.kind)]},
             {"name", spec.name},
             {"device", toJson(device)},
             {"points", json::array()}};
    for (size_t i = 0; i < points.size(); ++i) {
        const SeriesPoint& p = points[i];
        const SampleStats st = computeStats(p.samplesMs);
        json j{{"label", p.label},        {"value", p.value},       {"build_options", p.buildOptions},
               {"samples", p.samplesMs},  {"median_ms", st.median}, {"ci_low_ms", st.ciLow},
               {"ci_high_ms", st.ciHigh}, {"noise", st.noise},      {"mode", p.mode}};
        j["registers"] = p.registers >= 0 ? json(p.registers) : json(nullptr);
        j["spill_bytes"] = p.spillBytes >= 0 ? json(p.spillBytes) : json(nullptr);
        j["occupancy"] = p.occupancy >= 0 ? json(p.occupancy) : json(nullptr);
        if (i > 0 && !points[0].samplesMs.empty() && !p.samplesMs.empty()) {
            const RatioStats r = compareSamples(points[0].samplesMs, p.samplesMs);
            j["ratio_to_first"] = r.ratio;
            j["ratio_ci_low"] = r.ciLow;
            j["ratio_ci_high"] = r.ciHigh;
            j["significant"] = r.significant;
        } else if (i == 0) {
            j["ratio_to_first"] = 1.0;
        }
        doc["points"].push_back(std::move(j));
    }
    return doc;
}

json seriesPointProfile(const json& d) {
    json out{{"metrics", json::object()}, {"stalls", json::array()}, {"collections_failed", json::array()}};
    if (!d.is_object()) return out;
    if (auto m = d.find("metrics"); m != d.end() && m->is_array())
        for (const auto& x : *m)
            if (x.is_object() && x.contains("name") && x["name"].is_string() && x.contains("value") &&
                x["value"].is_number())
                out["metrics"][x["name"].get<std::string>()] = x["value"];
    if (auto c = d.find("collections"); c != d.end() && c->is_object())
        for (auto it = c->begin(); it != c->end(); ++it)
            if (!it.value().is_object() || !it.value().value("ok", false))
                out["collections_failed"].push_back(it.key());
    if (auto t = d.find("kernel_totals"); t != d.end() && t->is_object()) {
        ProfileTotals totals;
        if (auto s = t->find("samples"); s != t->end() && s->is_object())
            for (auto it = s->begin(); it != s->end(); ++it)
                if (it.value().is_number_unsigned()) totals.samples[it.key()] = it.value().get<uint64_t>();
        if (auto c = t->find("counts"); c != t->end() && c->is_object())
            if (auto e = c->find("smsp__sass_inst_executed"); e != c->end() && e->is_number_unsigned())
                out["instructions_executed"] = *e;
        for (const auto& [reason, share] : stallShares(totals, 5))
            out["stalls"].push_back(json::array({reason, share}));
    }
    return out;
}

namespace {

// A time in ms of a document from anyone (a session's series, `lowerscope-cli chart`'s files), or
// `otherwise` when absent, of another type, not finite or beyond 10^9 ms (11 days: no kernel's;
// such a value would only blow up the chart's axis).
double msField(const json& o, const char* key, double otherwise) {
    const std::optional<double> v = jsonFiniteNumber(o, key);
    return v && std::fabs(*v) < 1e9 ? *v : otherwise;
}

} // namespace

std::string seriesSvg(const json& doc) {
    return seriesOverlaySvg({{"", doc}},
                            jsonString(doc, "kernel") + ": median time per launch vs " + jsonString(doc, "name"),
                            false);
}

std::string seriesOverlaySvg(const std::vector<std::pair<std::string, json>>& lines, const std::string& title,
                             bool logY) {
    static const char* const colours[] = {"#1f6fb4", "#d9541e", "#2a9d3f", "#8e44ad", "#b8860b", "#17a2b8"};
    const bool legend = lines.size() > 1 || (lines.size() == 1 && !lines[0].first.empty());
    const int W = 720, H = 400, L = 78, R = legend ? 190 : 20, T = 40, B = 60;
    // The x axis: the first line's values, in its order (the lines share them: checked by the caller).
    std::vector<std::string> xs;
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& [name, doc] : lines) {
        if (!doc.contains("points") || !doc["points"].is_array()) continue;
        for (const auto& p : doc["points"]) {
            if (!p.is_object()) continue;
            if (&doc == &lines.front().second) xs.push_back(jsonString(p, "value"));
            const double m = msField(p, "median_ms", 0.0);
            const double a = msField(p, "ci_low_ms", m), b = msField(p, "ci_high_ms", m);
            if (!(m > 0)) continue;
            lo = any ? std::min(lo, a > 0 ? a : m) : (a > 0 ? a : m);
            hi = any ? std::max(hi, b) : b;
            any = true;
        }
    }
    if (!any || hi <= 0) {
        lo = 0.1;
        hi = 1;
    }
    // Linear: 0 .. a round top (1, 2 or 5 times a power of ten). Log: whole decades around the data.
    double bottom = 0, top;
    if (logY) {
        bottom = std::pow(10.0, std::floor(std::log10(lo)));
        top = std::pow(10.0, std::ceil(std::log10(hi * 1.0001)));
        if (top <= bottom) top = bottom * 10;
    } else {
        const double mag = std::pow(10.0, std::floor(std::log10(hi)));
        top = mag;
        for (double m : {1.0, 2.0, 5.0, 10.0})
            if (m * mag >= hi * 1.05) {
                top = m * mag;
                break;
            }
    }
    const size_t n = std::max<size_t>(xs.size(), 1);
    auto x = [&](size_t i) { return L + (W - L - R) * (n == 1 ? 0.5 : (double(i) + 0.5) / double(n)); };
    auto y = [&](double v) {
        const double f = logY ? (std::log10(std::max(v, bottom)) - std::log10(bottom)) /
                                    (std::log10(top) - std::log10(bottom))
                              : v / top;
        return T + (H - T - B) * (1 - f);
    };
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">"
      << xmlEscape(title) << "</text>\n";
    std::vector<double> ticks;
    if (logY)
        for (double v = bottom; v <= top * 1.0001; v *= 10) ticks.push_back(v);
    else
        for (int k = 0; k <= 5; ++k) ticks.push_back(top * k / 5);
    for (double v : ticks) {
        s << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << y(v) << "\" y2=\"" << y(v)
          << "\" stroke=\"#ddd\"/>\n";
        s << "<text x=\"" << L - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\">"
          << xmlEscape(formatDuration(v)) << "</text>\n";
    }
    for (size_t i = 0; i < xs.size(); ++i)
        s << "<text x=\"" << x(i) << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\">"
          << xmlEscape(xs[i]) << "</text>\n";
    for (size_t k = 0; k < lines.size(); ++k) {
        const auto& [name, doc] = lines[k];
        const char* colour = colours[k % std::size(colours)];
        if (!doc.contains("points") || !doc["points"].is_array()) continue;
        std::string path;
        size_t i = 0;
        for (const auto& p : doc["points"]) {
            if (!p.is_object() || i >= xs.size()) break;
            const double m = msField(p, "median_ms", 0.0), a = msField(p, "ci_low_ms", m),
                         b = msField(p, "ci_high_ms", m);
            if (m > 0 || !logY) {
                path += (path.empty() ? "M" : " L") + fmt("%.1f", x(i)) + " " + fmt("%.1f", y(m));
                s << "<line x1=\"" << x(i) << "\" x2=\"" << x(i) << "\" y1=\"" << y(a) << "\" y2=\"" << y(b)
                  << "\" stroke=\"#444\" stroke-width=\"2\"/>\n";
                s << "<circle cx=\"" << x(i) << "\" cy=\"" << y(m) << "\" r=\"4\" fill=\"" << colour
                  << "\"/>\n";
            }
            ++i;
        }
        s << "<path d=\"" << path << "\" fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\"/>\n";
        if (legend) {
            const int ly = T + 10 + static_cast<int>(k) * 20;
            s << "<line x1=\"" << W - R + 12 << "\" x2=\"" << W - R + 34 << "\" y1=\"" << ly << "\" y2=\""
              << ly << "\" stroke=\"" << colour << "\" stroke-width=\"3\"/>\n";
            s << "<text x=\"" << W - R + 40 << "\" y=\"" << ly + 4 << "\">" << xmlEscape(name) << "</text>\n";
        }
    }
    const std::string axis =
        lines.empty() ? std::string() : jsonString(lines.front().second, "name");
    s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 16 << "\" text-anchor=\"middle\">"
      << xmlEscape(axis) << (logY ? " (log time axis; " : " (")
      << "error bars: 95 % interval of the median)</text>\n";
    s << "</svg>\n";
    return s.str();
}

std::string seriesMarkdown(const json& doc, const std::string& title, const std::string& hypothesis,
                           const std::string& svgFile, const std::string& command, double pricePerGpuHour,
                           double launchesPerRequest) {
    // The document may come from anyone: textField and msField read a field of the wrong type as
    // absent.
    static const json kNoPoints = json::array();
    const auto found = doc.is_object() ? doc.find("points") : doc.end();
    const json& points = found != doc.end() && found->is_array() ? *found : kNoPoints;
    std::ostringstream md;
    md << "# " << (title.empty() ? "Series: " + jsonString(doc, "vary") : title) << "\n\n";
    md << "Kernel `" << jsonString(doc, "kernel") << "` of `" << jsonString(doc, "file")
       << "`, varying `" << jsonString(doc, "vary") << "`";
    if (doc.contains("device") && doc["device"].is_object()) {
        const std::string device = jsonString(doc["device"], "name");
        md << " on " << (device.empty() ? std::string("an unnamed device") : device);
    }
    md << ".\n\n";
    md << "**Hypothesis (written before the measurement).** "
       << (hypothesis.empty() ? "_(none given)_" : hypothesis) << "\n\n";
    md << "| point | median | 95 % CI | noise | vs first (95 % CI) | registers | spills (B) | occupancy |\n";
    md << "|---|---:|---|---:|---|---:|---:|---:|\n";
    for (const auto& p : points) {
        md << "| " << markdownCell(jsonString(p, "label")) << " | "
           << formatDuration(msField(p, "median_ms", 0.0)) << " | " << formatDuration(msField(p, "ci_low_ms", 0.0))
           << " – " << formatDuration(msField(p, "ci_high_ms", 0.0)) << " | "
           << fmt("%.2f %%", 100 * msField(p, "noise", 0.0)) << " | ";
        if (p.is_object() && p.contains("ratio_ci_low"))
            md << fmt("%.3f", msField(p, "ratio_to_first", 1.0)) << " ("
               << fmt("%.3f", msField(p, "ratio_ci_low", 0.0)) << "–"
               << fmt("%.3f", msField(p, "ratio_ci_high", 0.0)) << ")"
               << (p.is_object() && p.value("significant", json()) == json(true) ? "" : ", not significant");
        else
            md << "1 (reference)";
        auto num = [&](const char* k, const char* f, double scale) {
            return p.is_object() && p.contains(k) && p[k].is_number() ? fmt(f, p[k].get<double>() * scale) : std::string("–");
        };
        md << " | " << num("registers", "%.0f", 1) << " | " << num("spill_bytes", "%.0f", 1) << " | "
           << num("occupancy", "%.0f %%", 100) << " |\n";
    }
    md << "\n";
    if (!svgFile.empty()) md << "![median per point](" << svgFile << ")\n\n";
    // Counters per point (--profile): a few kernel metrics and the top stall reasons.
    bool profiled = false;
    for (const auto& p : points)
        profiled = profiled || (p.is_object() && p.contains("profile") && p["profile"].is_object());
    if (profiled) {
        static const std::pair<const char*, const char*> cols[] = {
            {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"},
            {"smsp__issue_active.avg.pct_of_peak_sustained_active", "issue slots busy"},
            {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
            {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "shared bank conflicts"}};
        md << "Counters, one profiled launch per point after the timing:\n\n| point |";
        for (const auto& c : cols) md << " " << c.second << " |";
        md << " top stall reasons |\n|---|";
        for (size_t i = 0; i < std::size(cols); ++i) md << "---:|";
        md << "---|\n";
        for (const auto& p : points) {
            md << "| " << markdownCell(jsonString(p, "label")) << " |";
            const json pr = p.is_object() && p.contains("profile") && p["profile"].is_object() ? p["profile"] : json::object();
            const json ms =
                pr.contains("metrics") && pr["metrics"].is_object() ? pr["metrics"] : json::object();
            for (const auto& c : cols) {
                const auto it = ms.find(c.first);
                const bool pct = std::string(c.first).find("pct") != std::string::npos;
                md << " "
                   << (it != ms.end() && it->is_number() ? fmt(pct ? "%.1f %%" : "%.0f", it->get<double>())
                                                         : "–")
                   << " |";
            }
            std::string reasons;
            if (pr.contains("stalls") && pr["stalls"].is_array())
                for (const auto& r : pr["stalls"])
                    if (r.is_array() && r.size() == 2 && r[0].is_string() && r[1].is_number() &&
                        reasons.size() < 200)
                        reasons += (reasons.empty() ? "" : ", ") + r[0].get<std::string>() + " " +
                                   fmt("%.0f %%", 100 * r[1].get<double>());
            md << " " << markdownCell(reasons.empty() ? "–" : reasons) << " |\n";
        }
        md << "\n";
    }
    md << "_All points were measured in one interleaved run (every round times each point once, the order "
          "reversed each round), so slow drift of the GPU affects every point alike. Ratios pair each "
          "point's "
          "samples with the first point's; a difference is called only when the medians' 95 % intervals are "
          "apart and the ratio is at least 0.5 % from 1._\n\n";
    if (pricePerGpuHour >= 0) {
        std::vector<std::pair<std::string, double>> medians;
        for (const auto& p : points)
            medians.emplace_back(jsonString(p, "label"), msField(p, "median_ms", 0.0));
        md << costMarkdown(medians, pricePerGpuHour, launchesPerRequest);
    }
    if (!command.empty()) md << "Reproduce:\n\n```sh\n" << command << "\n```\n";
    return md.str();
}

namespace {

std::string shortText(const json& o, const char* key) {
    std::string v = jsonString(o, key);
    if (v.size() > 200) v.resize(200);
    return escapeControl(v);
}

bool finiteNumber(const json& o, const char* key, double& out) {
    const std::optional<double> v = jsonFiniteNumber(o, key);
    if (v) out = *v;
    return v.has_value();
}

int smallInt(const json& o, const char* key) {
    double v = -1;
    return finiteNumber(o, key, v) && v >= 0 && v < 1e9 ? int(v) : -1;
}

} // namespace

bool readSeriesDocument(const json& d, SeriesSummary& out, std::string& error) {
    if (!d.is_object() || d.value("schema", json()) != json("lowerscope.series/1")) {
        error = "not a series document (schema lowerscope.series/1 expected)";
        return false;
    }
    const auto pts = d.find("points");
    if (pts == d.end() || !pts->is_array() || pts->empty()) {
        error = "the series document has no points";
        return false;
    }
    if (pts->size() > kMaxSeriesPoints) {
        error = "the series document has " + std::to_string(pts->size()) + " points (at most " +
                std::to_string(kMaxSeriesPoints) + ")";
        return false;
    }
    SeriesSummary s;
    s.file = shortText(d, "file");
    s.kernel = shortText(d, "kernel");
    s.vary = shortText(d, "vary");
    s.name = shortText(d, "name");
    if (const auto dev = d.find("device"); dev != d.end() && dev->is_object()) s.device = shortText(*dev, "name");
    for (size_t i = 0; i < pts->size(); ++i) {
        const json& p = (*pts)[i];
        SeriesRow r;
        if (!p.is_object() || !finiteNumber(p, "median_ms", r.medianMs) || r.medianMs <= 0) {
            error = "point " + std::to_string(i + 1) + " of the series has no positive median_ms";
            return false;
        }
        r.ciLowMs = r.ciHighMs = r.medianMs;
        finiteNumber(p, "ci_low_ms", r.ciLowMs);
        finiteNumber(p, "ci_high_ms", r.ciHighMs);
        if (!(r.ciLowMs <= r.medianMs && r.medianMs <= r.ciHighMs) || r.ciLowMs < 0) {
            error = "point " + std::to_string(i + 1) + " of the series has an interval that does not hold its median";
            return false;
        }
        r.label = shortText(p, "label");
        r.value = shortText(p, "value");
        if (r.label.empty()) r.label = "point " + std::to_string(i + 1);
        r.registers = smallInt(p, "registers");
        r.spillBytes = smallInt(p, "spill_bytes");
        if (double o = -1; finiteNumber(p, "occupancy", o) && o >= 0 && o <= 1) r.occupancy = o;
        if (double n = -1; finiteNumber(p, "noise", n) && n >= 0) r.noise = n;
        r.hasRatio = finiteNumber(p, "ratio_to_first", r.ratio) && finiteNumber(p, "ratio_ci_low", r.ratioLow) &&
                     finiteNumber(p, "ratio_ci_high", r.ratioHigh);
        if (const auto sig = p.find("significant"); sig != p.end() && sig->is_boolean()) r.significant = sig->get<bool>();
        s.points.push_back(std::move(r));
    }
    out = std::move(s);
    return true;
}

bool readSeriesText(const std::string& text, SeriesSummary& out, std::string& error) {
    JsonLimits limits;
    limits.maxBytes = kMaxSeriesDocumentBytes;
    limits.maxDepth = 16;
    const std::optional<json> d = parseJsonBounded(text, error, limits);
    return d && readSeriesDocument(*d, out, error);
}

} // namespace lowerscope
