// The issue-3/12 target in one isolated process: parse the `-hex -gi -gp` listing of the
// ~100,000-instruction benchmark kernel (scripts/gen-bench-listing) and analyse it, liveness
// included (the build no longer runs `nvdisasm -lrm count`), timed per repetition, with the
// process's peak resident memory.
//   analysis_peak [repetitions=5]      (data: $LOWERSCOPE_BENCH_DATA or <build>/bench/data)
// Prints per-repetition wall and CPU milliseconds, their medians, the size of the two input texts
// and the peak RSS (VmHWM), which includes the text: it is what the build pipeline holds too.

#include "core/parse/sass_parser.h"

#include "analysis_common.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::filesystem::path dataDir() {
    if (const char* d = std::getenv("LOWERSCOPE_BENCH_DATA")) return d;
    return std::filesystem::path(LOWERSCOPE_BINARY_DIR) / "bench" / "data";
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

double cpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double peakMb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0; // kB on Linux
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const auto dir = dataDir();
    const std::string gp = slurp(dir / "unrolled.gp.sass");
    if (gp.empty()) {
        std::fprintf(stderr, "analysis_peak: no listing in %s: run scripts/gen-bench-listing <build-dir>\n",
                     dir.string().c_str());
        return 2;
    }
    const double textsMb = static_cast<double>(gp.size()) / (1024.0 * 1024.0);
    const double beforeMb = peakMb();
    std::vector<double> wall, cpu;
    lowerscope::benchdata::Counts c;
    for (int r = 0; r < reps; ++r) {
        const auto w0 = std::chrono::steady_clock::now();
        const double c0 = cpuMs();
        {
            lowerscope::SassListing l = lowerscope::parseSassTexts({}, gp, {});
            c = lowerscope::benchdata::analyse(l);
        } // the listing is freed inside the timed region, as a rebuild would
        cpu.push_back(cpuMs() - c0);
        wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
        std::printf("rep %d: wall %.1f ms, cpu %.1f ms\n", r + 1, wall.back(), cpu.back());
    }
    std::printf("instructions %zu, dependency edges %zu, blocks %zu, source lines %zu\n", c.instructions,
                c.edges, c.blocks, c.lines);
    std::printf("median wall %.1f ms, median cpu %.1f ms (min wall %.1f ms) over %d repetitions\n",
                median(wall), median(cpu), *std::min_element(wall.begin(), wall.end()), reps);
    std::printf("input text %.1f MiB; peak RSS %.1f MiB before parsing, %.1f MiB at the end\n", textsMb,
                beforeMb, peakMb());
    return 0;
}
