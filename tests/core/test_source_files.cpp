// Source files of a build (core/analysis/source_files.h): classification by where a file lives,
// collection from the SASS inline chains and the PTX `.file` table, and the PTX table scan.
#include "core/analysis/source_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <fstream>
#include <unistd.h>

using namespace lowerscope;
namespace fs = std::filesystem;

namespace {

struct Tree {
    fs::path root;
    Tree() {
        root = fs::temp_directory_path() / ("ls_srcfiles_" + std::to_string(::getpid()));
        for (const char* d : {"proj/inc", "cuda/bin", "cuda/targets/include", "usr/include"}) fs::create_directories(root / d);
        for (const char* f : {"proj/main.cu", "proj/inc/tile.cuh", "proj/local.cuh", "cuda/bin/nvcc",
                              "cuda/targets/include/cuda_fp16.hpp", "usr/include/stdio.h", "extra/dep.cuh"}) {
            fs::create_directories((root / f).parent_path());
            std::ofstream(root / f) << "//\n";
        }
    }
    ~Tree() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    std::string p(const char* rel) const { return (root / rel).string(); }
};

SassInstruction at(const std::string& file, int line, std::vector<SourceFrame> inlinedAt = {}) {
    SassInstruction i;
    i.source.file = file;
    i.source.line = line;
    i.source.inlinedAt = std::move(inlinedAt);
    return i;
}

} // namespace

TEST(SourceFiles, ClassifiesByWhereTheFileLives) {
    Tree t;
    SourceContext c;
    c.mainFile = t.p("proj/main.cu");
    c.projectDirs = {t.p("extra")};
    c.toolkitDirs = {toolkitRootOf(t.p("cuda/bin/nvcc"))};
    EXPECT_EQ(c.toolkitDirs[0], fs::weakly_canonical(t.root / "cuda").string());
    EXPECT_EQ(classifySourceFile(t.p("proj/main.cu"), c), SourceFileKind::Main);
    // nvcc records paths with `..` inside: the same file.
    EXPECT_EQ(classifySourceFile(t.p("proj/inc/../main.cu"), c), SourceFileKind::Main);
    EXPECT_EQ(classifySourceFile(t.p("proj/inc/tile.cuh"), c), SourceFileKind::Project);
    EXPECT_EQ(classifySourceFile(t.p("extra/dep.cuh"), c), SourceFileKind::Project); // an -I folder
    EXPECT_EQ(classifySourceFile(t.p("cuda/bin/../targets/include/cuda_fp16.hpp"), c), SourceFileKind::Toolkit);
    EXPECT_EQ(classifySourceFile(t.p("usr/include/stdio.h"), c), SourceFileKind::System);
    EXPECT_EQ(classifySourceFile(t.p("proj/main.cu"), SourceContext{}), SourceFileKind::System);
    EXPECT_EQ(toolkitRootOf("/no/such/place/nvcc"), "");
}

TEST(SourceFiles, CollectsEveryFrameAndThePtxTable) {
    Tree t;
    SourceContext c;
    c.mainFile = t.p("proj/main.cu");
    c.toolkitDirs = {t.p("cuda")};
    const std::string main = t.p("proj/main.cu"), tile = t.p("proj/inc/tile.cuh"),
                      fp16 = t.p("cuda/bin/../targets/include/cuda_fp16.hpp");
    SassFunction f;
    f.instructions = {at(main, 3),
                      at(tile, 7, {{tile, 16, 0}, {main, 18, 0}}), // tile.cuh twice in one chain: counted once
                      at(fp16, 100, {{main, 19, 0}}),
                      SassInstruction{}}; // no line info
    const std::string ptx = ".version 9.0\n\t.file\t1 \"" + main + "\"\n\t.file\t2 \"" + t.p("proj/local.cuh") +
                            "\", 1700000000, 42\n.file 3 \"" + fp16 + "\"\n";
    const PtxListing table = ptxFileTable(ptx);
    ASSERT_EQ(table.files.size(), 3u);
    EXPECT_EQ(table.files.at(2), t.p("proj/local.cuh"));
    const auto files = collectSourceFiles(table, {&f}, c);
    ASSERT_EQ(files.size(), 4u);
    // Main, then the project's files, then the toolkit's, each by path.
    EXPECT_EQ(files[0].path, main);
    EXPECT_EQ(files[0].kind, SourceFileKind::Main);
    EXPECT_EQ(files[0].instructions, 3);
    EXPECT_EQ(files[0].callSites, 3);
    EXPECT_FALSE(files[0].readOnly);
    EXPECT_EQ(files[1].path, tile);
    EXPECT_EQ(files[1].instructions, 1);
    EXPECT_EQ(files[1].callSites, 0);
    EXPECT_EQ(files[2].path, t.p("proj/local.cuh")); // only in the PTX table
    EXPECT_EQ(files[2].instructions, 0);
    EXPECT_EQ(files[3].kind, SourceFileKind::Toolkit);
    EXPECT_TRUE(files[3].readOnly);
    // The user's files that exist may be shown; a toolkit header only under the toolkit's include
    // folders, which this context does not name.
    EXPECT_TRUE(files[0].viewable && files[1].viewable && files[2].viewable);
    EXPECT_FALSE(files[3].viewable);
    EXPECT_EQ(files[3].resolved, fs::weakly_canonical(t.root / "cuda/targets/include/cuda_fp16.hpp").string());
    // A file that does not exist here is listed, unresolved.
    f.instructions.push_back(at("/gone/away.cuh", 1));
    const auto more = collectSourceFiles(PtxListing{}, {&f}, c);
    bool gone = false;
    for (const auto& x : more)
        if (x.path == "/gone/away.cuh") {
            gone = true;
            EXPECT_TRUE(x.resolved.empty());
            EXPECT_EQ(x.kind, SourceFileKind::System);
            EXPECT_FALSE(x.viewable);
        }
    EXPECT_TRUE(gone);
}

// Line info of an untrusted cubin or document may name any path: only files inside the user's
// folders and headers inside the include folders of the toolkit whose nvcc built may be shown,
// after resolving `..` and symbolic links (docs/SECURITY.md).
TEST(SourceFiles, ToolkitHeadersAreViewableOnlyUnderTheToolkitsIncludeFolders) {
    Tree t;
    const fs::path inc = t.root / "cuda/targets/x86_64-linux/include";
    for (const char* f : {"cuda/targets/x86_64-linux/include/cuda_fp16.hpp", "cuda/targets/x86_64-linux/include/cuda/std/cmath",
                          "cuda/nvvm/include/nvvm.h", "secret/key.h"}) {
        fs::create_directories((t.root / f).parent_path());
        std::ofstream(t.root / f) << "//\n";
    }
    fs::create_directory_symlink("targets/x86_64-linux/include", t.root / "cuda/include"); // as the toolkit ships it
    fs::create_symlink(t.root / "secret/key.h", inc / "escape.h");    // a link inside that points out
    fs::create_symlink(t.root / "secret/key.h", t.root / "proj/link.cuh");

    EXPECT_EQ(toolkitIncludeDirsOf(t.p("cuda")), std::vector<std::string>{fs::canonical(inc).string()});
    EXPECT_TRUE(toolkitIncludeDirsOf("").empty());
    EXPECT_TRUE(toolkitIncludeDirsOf(t.p("nowhere")).empty());

    BuildInput input;
    input.path = t.p("proj/main.cu");
    Toolchain tc;
    tc.nvcc.path = t.p("cuda/bin/nvcc");
    const SourceContext c = sourceContextFor(input, tc);
    ASSERT_EQ(c.toolkitIncludeDirs.size(), 1u);
    EXPECT_EQ(c.toolkitDirs, std::vector<std::string>{fs::canonical(t.root / "cuda").string()});

    const std::string fp16 = fs::canonical(inc / "cuda_fp16.hpp").string();
    EXPECT_EQ(viewableSourcePath(t.p("cuda/bin/../targets/x86_64-linux/include/cuda_fp16.hpp"), c), fp16);
    EXPECT_EQ(viewableSourcePath(t.p("cuda/include/cuda_fp16.hpp"), c), fp16); // through the link
    EXPECT_EQ(viewableSourcePath(t.p("cuda/include/cuda/std/cmath"), c), fs::canonical(inc / "cuda/std/cmath").string());
    EXPECT_EQ(viewableSourcePath(t.p("proj/main.cu"), c), fs::canonical(t.root / "proj/main.cu").string());
    EXPECT_EQ(viewableSourcePath(t.p("proj/inc/tile.cuh"), c), fs::canonical(t.root / "proj/inc/tile.cuh").string());
    // Refused: toolkit files outside its include folders, links and `..` that lead out, files
    // outside every folder, folders, files that do not exist.
    EXPECT_EQ(viewableSourcePath(t.p("cuda/nvvm/include/nvvm.h"), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("cuda/bin/nvcc"), c), "");
    EXPECT_EQ(viewableSourcePath((inc / "escape.h").string(), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("cuda/include/../../../secret/key.h"), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("proj/link.cuh"), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("secret/key.h"), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("usr/include/stdio.h"), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("cuda/include"), c), "");
    EXPECT_EQ(viewableSourcePath(t.p("proj/nope.cuh"), c), "");
    EXPECT_EQ(viewableSourcePath("", c), "");

    SassFunction f;
    f.instructions = {at(t.p("proj/main.cu"), 3), at(t.p("cuda/bin/../targets/x86_64-linux/include/cuda_fp16.hpp"), 10),
                      at(t.p("cuda/nvvm/include/nvvm.h"), 2), at((inc / "escape.h").string(), 1), at(t.p("secret/key.h"), 1)};
    std::map<std::string, bool> viewable;
    for (const auto& x : collectSourceFiles(PtxListing{}, {&f}, c)) viewable[fs::path(x.path).filename().string()] = x.viewable;
    EXPECT_EQ(viewable, (std::map<std::string, bool>{
                            {"main.cu", true}, {"cuda_fp16.hpp", true}, {"nvvm.h", false}, {"escape.h", false}, {"key.h", false}}));
}

TEST(SourceFiles, IncludeDirectives) {
    EXPECT_EQ(parseIncludeDirective("#include \"a/b.cuh\"")->name, "a/b.cuh");
    EXPECT_FALSE(parseIncludeDirective("#include \"a/b.cuh\"")->angled);
    const auto angled = parseIncludeDirective("  #  include\t<cuda/std/cmath>  // why");
    ASSERT_TRUE(angled);
    EXPECT_EQ(angled->name, "cuda/std/cmath");
    EXPECT_TRUE(angled->angled);
    EXPECT_FALSE(parseIncludeDirective("// #include \"x.h\""));
    EXPECT_FALSE(parseIncludeDirective("#include HEADER_MACRO"));
    EXPECT_FALSE(parseIncludeDirective("#include \"unterminated"));
    EXPECT_FALSE(parseIncludeDirective("#include \"\""));
    EXPECT_FALSE(parseIncludeDirective("#pragma once"));
    EXPECT_FALSE(parseIncludeDirective("int include = 1;"));
}

// Found as the compiler finds it (the includer's folder for "...", then -I, then the toolkit),
// and only when the file found may be shown.
TEST(SourceFiles, ResolvesIncludesInsideTheFoldersOnly) {
    Tree t;
    const fs::path inc = t.root / "cuda/targets/x86_64-linux/include";
    fs::create_directories(inc);
    std::ofstream(inc / "cuda_fp16.h") << "//\n";
    std::ofstream(t.root / "proj/inc/cuda_fp16.h") << "// the project's own\n";
    std::ofstream(t.root / "outside.cuh") << "//\n";
    SourceContext c;
    c.mainFile = t.p("proj/main.cu");
    c.projectDirs = {t.p("extra")};
    c.toolkitIncludeDirs = toolkitIncludeDirsOf(t.p("cuda"));
    std::string error;
    auto canon = [&](const char* rel) { return fs::canonical(t.root / rel).string(); };
    const std::string projDir = t.p("proj"), incDir = t.p("proj/inc");
    EXPECT_EQ(resolveInclude({"inc/tile.cuh", false}, projDir, c, error), canon("proj/inc/tile.cuh")) << error;
    EXPECT_EQ(resolveInclude({"tile.cuh", false}, incDir, c, error), canon("proj/inc/tile.cuh")) << error;
    EXPECT_EQ(resolveInclude({"dep.cuh", false}, projDir, c, error), canon("extra/dep.cuh")) << error; // -I
    EXPECT_EQ(resolveInclude({"cuda_fp16.h", true}, incDir, c, error), canon("cuda/targets/x86_64-linux/include/cuda_fp16.h"));
    // "..." looks next to the includer first, <...> does not.
    EXPECT_EQ(resolveInclude({"cuda_fp16.h", false}, incDir, c, error), canon("proj/inc/cuda_fp16.h"));
    // Found, but outside every folder: refused, naming why.
    EXPECT_EQ(resolveInclude({"../outside.cuh", false}, projDir, c, error), "");
    EXPECT_NE(error.find("outside"), std::string::npos) << error;
    EXPECT_EQ(resolveInclude({t.p("usr/include/stdio.h"), false}, projDir, c, error), "");
    EXPECT_NE(error.find("outside"), std::string::npos) << error;
    EXPECT_EQ(resolveInclude({"../../../../outside.cuh", true}, projDir, c, error), ""); // .. out of an include folder
    EXPECT_NE(error.find("outside"), std::string::npos) << error;
    // Not found anywhere.
    EXPECT_EQ(resolveInclude({"nosuch.cuh", false}, projDir, c, error), "");
    EXPECT_NE(error.find("not found"), std::string::npos) << error;
    EXPECT_EQ(resolveInclude({"tile.cuh", true}, incDir, c, error), ""); // <...> skips the includer's folder
}
