// libFuzzer target: result documents from anyone — a parameter series (lowerscope.series/1: the
// "series" key of a session someone sent, `lowerscope-cli chart FILE.series.json`) and a CUDA Graph
// break-even document (lowerscope.graph_break_even/1: the gallery's recorded one, a runner's answer
// turned into one). The readers accept or refuse with a sentence, and the renderers (SVG charts,
// Markdown reports), documented as skipping what has the wrong shape, never throw on any JSON the
// bounded reader accepts. Also a capture document (lowerscope.capture/1, `inspect CAPTURE.json`)
// with its kernel table and its saved launches ("snapshots"), and the same bytes as a line of the
// injection's event stream (a "snapshot" line among them); a line that starts like the writer's
// reads the same with its first key escaped (which only the JSON parser takes, where the reader
// takes the writer's kernel lines without it).
#include "core/bounded_json.h"
#include "core/capture/capture_document.h"
#include "core/capture/capture_events.h"
#include "core/capture/launch_snapshot.h"
#include "core/experiment/graph_break_even.h"
#include "core/experiment/series.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string error;
    {
        lowerscope::capture::CaptureLog log;
        const bool read = log.addLine(text);
        if (read == (log.skippedLines != 0)) std::abort();
        (void)log.launchOrder();
        if (log.snapshots.size() > 1) std::abort(); // one line, one snapshot at most
        for (const auto& snap : log.snapshots) {
            // What was read writes back as a line that reads again, to the same snapshot.
            const std::string line = lowerscope::capture::snapshotEventLine(snap);
            if (line.size() > lowerscope::capture::kMaxEventLineBytes) continue; // escapes may lengthen it
            lowerscope::capture::CaptureLog again;
            if (!again.addLine(line) || again.snapshots.size() != 1 ||
                again.snapshots[0].paramBytes != snap.paramBytes || again.snapshots[0].regions.size() != snap.regions.size())
                std::abort();
        }
        if (text.rfind("{\"e\":", 0) == 0 && text.size() + 5 <= lowerscope::capture::kMaxEventLineBytes) {
            lowerscope::capture::CaptureLog parsed;
            if (parsed.addLine("{\"\\u0065\":" + std::string(text.substr(5))) != read ||
                parsed.firstSkipReason != log.firstSkipReason || parsed.launches.size() != log.launches.size() ||
                (read && !log.launches.empty() &&
                 lowerscope::capture::kernelEventLine(parsed.launches[0]) !=
                     lowerscope::capture::kernelEventLine(log.launches[0])))
                std::abort();
        }
    }
    auto j = lowerscope::parseJsonBounded(text, error);
    if (!j) return 0;
    const char* step = "readSeriesDocument";
    try {
        lowerscope::SeriesSummary series;
        if (!lowerscope::readSeriesDocument(*j, series, error) && error.empty()) std::abort();
        step = "seriesSvg";
        (void)lowerscope::seriesSvg(*j);
        step = "seriesOverlaySvg";
        (void)lowerscope::seriesOverlaySvg({{"a", *j}, {"b <&>", *j}}, "t", size % 2 == 0);
        step = "seriesMarkdown";
        (void)lowerscope::seriesMarkdown(*j, "t", "h", "c.svg", "cmd", 2.5, 3);
        step = "readCaptureDocument";
        lowerscope::capture::CaptureSummary capture;
        error.clear();
        if (lowerscope::capture::readCaptureDocument(*j, capture, error)) {
            step = "kernelTableText";
            (void)lowerscope::capture::kernelTableText(capture);
        } else if (error.empty()) {
            std::abort();
        }
        step = "readSnapshots";
        std::vector<lowerscope::capture::LaunchSnapshot> snapshots;
        error.clear();
        if (lowerscope::capture::readSnapshots(*j, snapshots, error)) {
            for (const auto& snap : snapshots)
                if (snap.regions.size() > lowerscope::capture::kMaxSnapshotRegions ||
                    snap.paramBytes.size() > lowerscope::capture::kMaxParamBytes)
                    std::abort();
        } else if (error.empty() || !snapshots.empty()) {
            std::abort();
        }
        step = "readGraphBreakEvenDocument";
        lowerscope::GraphBreakEvenReadout graph;
        error.clear();
        if (!lowerscope::readGraphBreakEvenDocument(*j, graph, error) && error.empty()) std::abort();
        step = "graphBreakEvenSvg";
        (void)lowerscope::graphBreakEvenSvg(*j);
        step = "graphBreakEvenMarkdown";
        (void)lowerscope::graphBreakEvenMarkdown(*j, "t", "h", "g.svg", "cmd", 2.5, 3);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s threw: %s\n", step, e.what());
        std::abort(); // documented as never throwing on untrusted documents
    } catch (...) {
        std::fprintf(stderr, "%s threw\n", step);
        std::abort();
    }
    return 0;
}
