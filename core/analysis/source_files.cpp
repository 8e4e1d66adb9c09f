#include "core/analysis/source_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string_view>
#include <unordered_map>

namespace fs = std::filesystem;

namespace lowerscope {

namespace {

// The canonical absolute form of a path that exists, else its lexically normal absolute form.
std::string canonicalForm(const std::string& path) {
    if (path.empty()) return {};
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(path), ec);
    if (ec) {
        p = fs::absolute(fs::path(path), ec);
        if (ec) p = fs::path(path);
        p = p.lexically_normal();
    }
    return p.string();
}

bool under(const std::string& canonicalPath, const std::string& canonicalDir) {
    if (canonicalDir.empty()) return false;
    std::string dir = canonicalDir;
    if (dir.back() != '/') dir += '/';
    return canonicalPath.size() > dir.size() && canonicalPath.compare(0, dir.size(), dir) == 0;
}

int rank(SourceFileKind k) { return static_cast<int>(k); }

} // namespace

const char* sourceFileKindName(SourceFileKind kind) {
    switch (kind) {
    case SourceFileKind::Main: return "main";
    case SourceFileKind::Project: return "project";
    case SourceFileKind::Toolkit: return "toolkit";
    case SourceFileKind::System: return "system";
    }
    return "system";
}

std::string toolkitRootOf(const std::string& nvccPath) {
    if (nvccPath.empty()) return {};
    const fs::path bin = fs::path(canonicalForm(nvccPath)).parent_path();
    if (bin.filename() != "bin") return {};
    return bin.parent_path().string();
}

PtxListing ptxFileTable(std::string_view text) {
    // `.file 1 "path"` or `.file 1 "path", 1700000000, 1234` (timestamps with -G), at the start
    // of a line after optional blanks.
    PtxListing l;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        size_t i = 0;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (line.compare(i, 5, ".file") != 0) continue;
        i += 5;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        int index = 0;
        size_t digits = 0;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 9) {
            index = index * 10 + (line[i++] - '0');
            ++digits;
        }
        const size_t q = line.find('"', i);
        const size_t q2 = q == std::string_view::npos ? q : line.find('"', q + 1);
        if (digits == 0 || q2 == std::string_view::npos) continue;
        l.files[index] = std::string(line.substr(q + 1, q2 - q - 1));
    }
    return l;
}

std::vector<std::string> toolkitIncludeDirsOf(const std::string& toolkitRoot) {
    std::vector<std::string> out;
    if (toolkitRoot.empty()) return out;
    auto add = [&out](const fs::path& dir) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) return;
        const std::string c = canonicalForm(dir.string());
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
    };
    const fs::path root(toolkitRoot);
    add(root / "include");
    std::error_code ec;
    for (fs::directory_iterator it(root / "targets", ec), end; !ec && it != end; it.increment(ec))
        add(it->path() / "include");
    return out;
}

std::string viewableSourcePath(const std::string& path, const SourceContext& context) {
    if (path.empty()) return {};
    const std::string c = canonicalForm(path);
    std::error_code ec;
    if (!fs::is_regular_file(c, ec)) return {};
    for (const auto& d : context.toolkitIncludeDirs)
        if (under(c, canonicalForm(d))) return c;
    const SourceFileKind kind = classifySourceFile(c, context);
    return kind == SourceFileKind::Main || kind == SourceFileKind::Project ? c : std::string();
}

SourceContext sourceContextFor(const BuildInput& input, const Toolchain& toolchain) {
    SourceContext c;
    if (input.kind == InputKind::CudaSource) c.mainFile = input.path;
    c.projectDirs = input.options.includeDirs;
    for (const ToolInfo* t : {&toolchain.nvcc, &toolchain.ptxas}) {
        const std::string root = t->found() ? toolkitRootOf(t->path) : std::string();
        if (!root.empty() && std::find(c.toolkitDirs.begin(), c.toolkitDirs.end(), root) == c.toolkitDirs.end())
            c.toolkitDirs.push_back(root);
    }
    // Headers come from nvcc's toolkit only: ptxas reads no header.
    if (toolchain.nvcc.found()) c.toolkitIncludeDirs = toolkitIncludeDirsOf(toolkitRootOf(toolchain.nvcc.path));
    return c;
}

SourceFileKind classifySourceFile(const std::string& recordedPath, const SourceContext& context) {
    const std::string c = canonicalForm(recordedPath);
    if (!context.mainFile.empty() && c == canonicalForm(context.mainFile)) return SourceFileKind::Main;
    // The toolkit first: a project folder may contain a toolkit (a vendored CUDA), never the reverse.
    for (const auto& t : context.toolkitDirs)
        if (under(c, canonicalForm(t))) return SourceFileKind::Toolkit;
    if (!context.mainFile.empty() && under(c, fs::path(canonicalForm(context.mainFile)).parent_path().string()))
        return SourceFileKind::Project;
    for (const auto& d : context.projectDirs)
        if (under(c, canonicalForm(d))) return SourceFileKind::Project;
    return SourceFileKind::System;
}

std::optional<IncludeDirective> parseIncludeDirective(std::string_view line) {
    size_t i = 0;
    auto blanks = [&] {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    };
    blanks();
    if (i >= line.size() || line[i] != '#') return std::nullopt;
    ++i;
    blanks();
    if (line.compare(i, 7, "include") != 0) return std::nullopt;
    i += 7;
    blanks();
    if (i >= line.size() || (line[i] != '"' && line[i] != '<')) return std::nullopt;
    const char close = line[i] == '"' ? '"' : '>';
    const size_t end = line.find(close, i + 1);
    if (end == std::string_view::npos || end == i + 1) return std::nullopt;
    return IncludeDirective{std::string(line.substr(i + 1, end - i - 1)), close == '>'};
}

std::string resolveInclude(const IncludeDirective& include, const std::string& includingDir,
                           const SourceContext& context, std::string& error) {
    error.clear();
    std::vector<std::string> dirs;
    if (!include.angled && !includingDir.empty()) dirs.push_back(includingDir);
    dirs.insert(dirs.end(), context.projectDirs.begin(), context.projectDirs.end());
    dirs.insert(dirs.end(), context.toolkitIncludeDirs.begin(), context.toolkitIncludeDirs.end());
    const std::string shown = include.angled ? "<" + include.name + ">" : "\"" + include.name + "\"";
    for (const auto& dir : dirs) {
        std::error_code ec;
        const fs::path candidate = fs::path(dir) / include.name; // an absolute name replaces dir
        if (!fs::is_regular_file(candidate, ec)) continue;
        const std::string viewable = viewableSourcePath(candidate.string(), context);
        if (viewable.empty())
            error = shown + " is " + canonicalForm(candidate.string()) +
                    ", outside your folders and the toolkit's include folders; not opened";
        return viewable;
    }
    error = shown + " was not found in " + (include.angled ? "" : "the including file's folder, ") +
            "the build's include folders (-I) or the toolkit's include folders";
    return {};
}

std::vector<SourceFileInfo> collectSourceFiles(const PtxListing& ptx, const std::vector<const SassFunction*>& sass,
                                           const SourceContext& context) {
    // Counted by views of the instructions' own strings; consecutive instructions mostly share
    // their chain, so the previous instruction's files are tried first.
    struct Counts {
        int instructions = 0, callSites = 0;
    };
    std::unordered_map<std::string_view, Counts> counts;
    std::vector<std::string_view> seen;
    for (const SassFunction* f : sass) {
        if (!f) continue;
        for (const auto& ins : f->instructions) {
            if (!ins.source.valid()) continue;
            seen.clear();
            auto add = [&](const std::string& file) {
                if (file.empty() || std::find(seen.begin(), seen.end(), std::string_view(file)) != seen.end()) return;
                seen.push_back(file);
                ++counts[file].instructions;
            };
            add(ins.source.file);
            for (const auto& fr : ins.source.inlinedAt) add(fr.file);
            const std::string& outer = ins.source.inlinedAt.empty() ? ins.source.file : ins.source.inlinedAt.back().file;
            if (!outer.empty()) ++counts[outer].callSites;
        }
    }
    std::map<std::string, Counts> all;
    for (const auto& [index, path] : ptx.files)
        if (!path.empty()) all.emplace(path, Counts{});
    for (const auto& [file, c] : counts) all[std::string(file)] = c;

    std::vector<SourceFileInfo> out;
    out.reserve(all.size());
    for (const auto& [path, c] : all) {
        SourceFileInfo f;
        f.path = path;
        f.kind = classifySourceFile(path, context);
        f.readOnly = f.kind == SourceFileKind::Toolkit || f.kind == SourceFileKind::System;
        std::error_code ec;
        const std::string canonical = canonicalForm(path);
        if (fs::is_regular_file(canonical, ec)) f.resolved = canonical;
        f.viewable = !f.resolved.empty() && f.kind != SourceFileKind::System &&
                     (f.kind != SourceFileKind::Toolkit || viewableSourcePath(f.resolved, context) == f.resolved);
        f.instructions = c.instructions;
        f.callSites = c.callSites;
        out.push_back(std::move(f));
    }
    std::stable_sort(out.begin(), out.end(), [](const SourceFileInfo& a, const SourceFileInfo& b) {
        if (rank(a.kind) != rank(b.kind)) return rank(a.kind) < rank(b.kind);
        return a.path < b.path;
    });
    return out;
}

std::string resolveSourceQuery(const std::vector<SourceFileInfo>& files, const std::string& query, std::string& error) {
    error.clear();
    auto list = [](const std::vector<const SourceFileInfo*>& v) {
        std::string s;
        for (const SourceFileInfo* f : v) s += (s.empty() ? "" : ", ") + f->path;
        return s;
    };
    std::vector<const SourceFileInfo*> all;
    for (const auto& f : files) all.push_back(&f);
    if (query.empty() || query == "-") {
        for (const auto& f : files)
            if (f.kind == SourceFileKind::Main) return f.path;
        error = "the built file has no code in this build; files with code: " + list(all);
        return {};
    }
    for (const auto& f : files)
        if (f.path == query) return f.path;
    const std::string cq = canonicalForm(query);
    for (const auto& f : files)
        if (canonicalForm(f.path) == cq) return f.path;
    // The end of a path, whole components only: "gemm.cuh" or "include/gemm.cuh".
    std::string tail = fs::path(query).lexically_normal().string();
    while (tail.rfind("./", 0) == 0) tail.erase(0, 2);
    std::vector<const SourceFileInfo*> byTail;
    for (const auto& f : files) {
        const std::string p = fs::path(f.path).lexically_normal().string();
        if (p == tail || (p.size() > tail.size() && p.compare(p.size() - tail.size(), tail.size(), tail) == 0 &&
                          p[p.size() - tail.size() - 1] == '/'))
            byTail.push_back(&f);
    }
    if (byTail.size() == 1) return byTail.front()->path;
    if (byTail.size() > 1) {
        error = "'" + query + "' is ambiguous: it names " + std::to_string(byTail.size()) + " files: " + list(byTail) +
                " (give more of the path)";
        return {};
    }
    error = "no code maps to '" + query + "'; files with code: " + list(all);
    return {};
}

} // namespace lowerscope
