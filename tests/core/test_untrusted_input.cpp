// The rules for input other people wrote (issue 13): option values that nvcc's shell would
// interpret (core/build/option_safety.h), bounded JSON documents (core/bounded_json.h), control
// bytes in terminal text and document paths (core/untrusted.h). The nvcc-level proof that the
// allowed sets are safe is in test_nvcc_shell.cpp; the entry points in test_injection.cpp.
#include "core/atomic_file.h"
#include "core/bounded_json.h"
#include "core/build/build.h"
#include "core/build/compile_db.h"
#include "core/build/failure_kind.h"
#include "core/build/option_safety.h"
#include "core/parse/diagnostics.h"
#include "core/experiment/experiment_session.h"
#include "core/run/argspec.h"
#include "core/run/measurement.h"
#include "core/untrusted.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <csignal>
#include <unistd.h>

using namespace lowerscope;
namespace fs = std::filesystem;

namespace {

bool refused(std::string_view value, OptionSlot slot) {
    return !checkOptionValue("x", value, slot).empty();
}

} // namespace

TEST(OptionSafety, DefinesKeepQuotesAndSpacesButNotExpansions) {
    // What users write: kept (nvcc puts defines in double quotes and escapes `"`).
    for (const char* ok : {"N=4", "MSG=\"a b\"", "F(x)=((x)*2)", "A=1,B=2", "S='c'", "P=a;b|c&d<e>f",
                           "T=*?[x]~#{}", "U=\xc3\xa9t\xc3\xa9"})
        EXPECT_FALSE(refused(ok, OptionSlot::Define))
            << ok << ": " << checkOptionValue("define", ok, OptionSlot::Define);
    for (const char* bad : {"X=$(id)", "X=`id`", "X=${HOME}", "X=\\$(id)", "X=a\nb", "X=\x1b[31m"})
        EXPECT_TRUE(refused(bad, OptionSlot::Define)) << bad;
}

TEST(OptionSafety, MessageNamesOptionValueCharacterAndMeaning) {
    const std::string m = checkOptionValue("define", "X=$(touch /tmp/c)", OptionSlot::Define);
    EXPECT_NE(m.find("define \"X=$(touch /tmp/c)\""), std::string::npos) << m;
    EXPECT_NE(m.find("'$'"), std::string::npos) << m;
    EXPECT_NE(m.find("command substitution"), std::string::npos) << m;
    EXPECT_NE(m.find("refused"), std::string::npos) << m;
    // Control bytes are shown, not echoed.
    const std::string c = checkOptionValue("include dir", "/x\x1b]0;t\x07", OptionSlot::IncludeDir);
    EXPECT_NE(c.find("\\x1b"), std::string::npos) << c;
    EXPECT_EQ(c.find('\x1b'), std::string::npos);
}

TEST(OptionSafety, IncludeDirs) {
    for (const char* ok : {"/opt/x y", "inc", "../shared/include", "/a$b", "/a;b", "/a(b)"})
        EXPECT_FALSE(refused(ok, OptionSlot::IncludeDir)) << ok;
    for (const char* bad : {"/a`id`", "/a\\b", "/a\"b", "/a'b", "/a\nb"})
        EXPECT_TRUE(refused(bad, OptionSlot::IncludeDir)) << bad;
}

TEST(OptionSafety, PtxasFlagsAreUnquoted) {
    for (const char* ok :
         {"-v", "-O2", "--warn-on-spills", "-dlcm=ca", "--def-load-cache=cg", "-v,-O2", "--x=a#b"})
        EXPECT_FALSE(refused(ok, OptionSlot::PtxasFlag)) << ok;
    for (const char* bad : {"-v -O2", "a;id", "a|id", "a&id", "a>f", "a<f", "(id)", "`id`", "a\\b", "\"a\"",
                            "*", "a?", "[a]", "~/x", "#x", "-v,#x", "{a,b}", "a\tb", "a\nb"})
        EXPECT_TRUE(refused(bad, OptionSlot::PtxasFlag)) << bad;
}

TEST(OptionSafety, FreeNvccFlagsGetTheirSlotsRule) {
    // Plain flags.
    EXPECT_TRUE(
        checkNvccArgs("extra nvcc flag", {"-Xcompiler", "-Wall", "--expt-relaxed-constexpr", "-rdc=true"})
            .empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"-Xcompiler", "-DX=$(id)"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"--keep-dir=/tmp/$(id)"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"-Xcompiler", "-O2 -fplugin=x"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"it's"}).empty());
    // A define given as a free flag gets the define rule: spaces and quotes are fine, $ is not.
    EXPECT_TRUE(checkNvccArgs("extra nvcc flag", {"-DMSG=\"a b\""}).empty());
    EXPECT_TRUE(checkNvccArgs("extra nvcc flag", {"-D", "MSG=\"a b\""}).empty());
    EXPECT_TRUE(checkNvccArgs("extra nvcc flag", {"--define-macro=MSG=a b"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"-D", "X=$(id)"}).empty());
    EXPECT_TRUE(checkNvccArgs("extra nvcc flag", {"-I", "/opt/x y"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"-I/opt/`id`"}).empty());
    EXPECT_TRUE(checkNvccArgs("extra nvcc flag", {"-Xptxas", "-v,-O2"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"--ptxas-options=-v;id"}).empty());
    // nvcc's own list syntax for code generation keeps its brackets and quotes.
    EXPECT_TRUE(
        checkNvccArgs("extra nvcc flag", {"-gencode", "arch=compute_90,code=[sm_90,compute_90]"}).empty());
    EXPECT_TRUE(checkNvccArgs("extra nvcc flag", {"-gencode=arch=compute_90,code=\"sm_90\""}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"-gencode", "arch=compute_90,code=sm_90;id"}).empty());
    EXPECT_FALSE(checkNvccArgs("extra nvcc flag", {"-Xcompiler", "[a]"}).empty());
    // The message names the origin.
    EXPECT_EQ(checkNvccArgs("compile_commands.json entry 3", {"-Xcompiler", "`id`"})
                  .rfind("compile_commands.json entry 3", 0),
              0u);
}

TEST(OptionSafety, CheckBuildOptionsAppliesTheRuleToEveryField) {
    auto problem = [](void (*set)(BuildOptions&)) {
        BuildOptions o;
        set(o);
        return checkBuildOptions(o);
    };
    EXPECT_NE(problem([](BuildOptions& o) { o.defines = {"X=$(id)"}; }).find("define"), std::string::npos);
    EXPECT_NE(problem([](BuildOptions& o) { o.includeDirs = {"/`id`"}; }).find("include dir"),
              std::string::npos);
    EXPECT_NE(problem([](BuildOptions& o) { o.extraNvccFlags = {";id"}; }).find("extra nvcc flag"),
              std::string::npos);
    EXPECT_NE(problem([](BuildOptions& o) { o.extraPtxasFlags = {"-v;id"}; }).find("extra ptxas flag"),
              std::string::npos);
    EXPECT_EQ(problem([](BuildOptions& o) { o.defines = {"MSG=\"a b\""}; }), "");
}

TEST(OptionSafety, TrustItemsMarkRefusedValuesOnTheirElement) {
    BuildOptions o;
    o.extraNvccFlags = {"-D", "X=$(id)", "-Xcompiler", "-Wall"};
    const auto items = optionTrustItems(o, "A");
    ASSERT_EQ(items.size(), 4u);
    EXPECT_TRUE(items[0].refused.empty());
    EXPECT_FALSE(items[1].refused.empty());
    EXPECT_TRUE(items[2].refused.empty());
    EXPECT_TRUE(items[3].refused.empty());
}

TEST(OptionSafety, ShellSafePaths) {
    for (const char* ok :
         {"kernels/saxpy.cu", "/home/a/proj-1/k_2.cu", "/x/y,z=1@2%3:4+.cu", "/d\xc3\xa9j\xc3\xa0/k.cu"})
        EXPECT_TRUE(isShellSafePath(ok)) << ok;
    for (const char* bad : {"", "/tmp/$(id)/k.cu", "/tmp/`id`.cu", "/tmp/a b.cu", "/tmp/it's.cu",
                            "/tmp/a\"b.cu", "-rdc.cu", "/tmp/a\\b.cu", "/tmp/a;b.cu"})
        EXPECT_FALSE(isShellSafePath(bad)) << bad;
}

TEST(OptionSafety, DeviceDebugLeavesThePtxasLevelToNvcc) {
    BuildOptions o;
    o.deviceDebug = true;
    o.ptxasOpt = 3;
    const auto argv = toNvccArgs(o);
    for (size_t i = 0; i + 1 < argv.size(); ++i)
        EXPECT_FALSE(argv[i] == "-Xptxas" && argv[i + 1].rfind("-O", 0) == 0);
    EXPECT_NE(std::find(argv.begin(), argv.end(), "-G"), argv.end());
}

TEST(BoundedJson, LimitsAreCheckedBeforeParsingAndNamed) {
    JsonLimits small;
    small.maxBytes = 1000;
    small.maxDepth = 4;
    small.maxValues = 10;
    EXPECT_EQ(parseJsonBounded("{\"a\":[1,2,{\"b\":[]}]}", small)["a"][2]["b"].size(), 0u);
    auto limitOf = [&](const std::string& text) {
        try {
            parseJsonBounded(text, small);
        } catch (const JsonLimitError& e) {
            return std::make_pair(int(e.limit()), std::string(e.what()));
        }
        return std::make_pair(-1, std::string());
    };
    auto [l1, m1] = limitOf("[[[[[1]]]]]");
    EXPECT_EQ(l1, int(JsonLimitError::Limit::Depth));
    EXPECT_NE(m1.find("more than 4 nested"), std::string::npos) << m1;
    auto [l2, m2] = limitOf("[1,2,3,4,5,6,7,8,9,10,11,12]");
    EXPECT_EQ(l2, int(JsonLimitError::Limit::Values));
    EXPECT_NE(m2.find("more than 10 values"), std::string::npos) << m2;
    auto [l3, m3] = limitOf("\"" + std::string(2000, 'x') + "\"");
    EXPECT_EQ(l3, int(JsonLimitError::Limit::Bytes));
    EXPECT_NE(m3.find("1000 bytes (limit)"), std::string::npos) << m3;
    // Brackets and commas inside strings (escaped quotes included) do not count.
    EXPECT_EQ(parseJsonBounded("[\"[[[[[[,,,,,,,,,,,,\\\"[[[[[[\"]", small)[0].get<std::string>().size(),
              25u);
    // Bad JSON is the parser's error, non-throwing form gives the message.
    std::string error;
    EXPECT_FALSE(parseJsonBounded("{\"a\":", error, small));
    EXPECT_NE(error.find("not valid JSON"), std::string::npos) << error;
    EXPECT_FALSE(parseJsonBounded(std::string(300000, '['), error));
    EXPECT_NE(error.find("too deep"), std::string::npos) << error;
}

TEST(BoundedJson, FilesAreReadUpToTheLimitOnly) {
    std::string tmpl = (fs::temp_directory_path() / "lowerscope-bj-XXXXXX").string();
    const fs::path dir = ::mkdtemp(tmpl.data());
    JsonLimits small;
    small.maxBytes = 100;
    std::ofstream(dir / "big.json") << "[" << std::string(500, ' ') << "]";
    std::ofstream(dir / "ok.json") << "{\"a\": 1}";
    std::string text, error;
    EXPECT_FALSE(readFileBounded((dir / "big.json").string(), text, error, small));
    EXPECT_NE(error.find("larger than 100 bytes (limit)"), std::string::npos) << error;
    EXPECT_TRUE(readJsonFileBounded((dir / "ok.json").string(), error, small));
    EXPECT_FALSE(readFileBounded(dir.string(), text, error));
    EXPECT_NE(error.find("directory"), std::string::npos) << error;
    EXPECT_FALSE(readFileBounded("/dev/null", text, error));
    EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
    EXPECT_FALSE(readJsonFileBounded((dir / "absent.json").string(), error));
    EXPECT_NE(error.find("absent.json"), std::string::npos) << error;
    fs::remove_all(dir);
}

TEST(TerminalText, ControlBytesAndInvalidUtf8AreEscaped) {
    EXPECT_EQ(escapeControl("a\x1b[31mb\x07"), "a\\x1b[31mb\\x07");
    EXPECT_EQ(escapeControl("tab\tok"), "tab\tok");
    EXPECT_EQ(escapeControl("l1\nl2"), "l1\\x0al2");
    EXPECT_EQ(escapeControl("l1\nl2", true), "l1\nl2");
    EXPECT_EQ(escapeControl("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");
    EXPECT_EQ(escapeControl("\xff\xc3"), "\\xff\\xc3");
    EXPECT_EQ(escapeControl("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
    EXPECT_EQ(escapeControl("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // surrogate
    EXPECT_EQ(escapeControl("\xc2\x9b"), "\xc2\x9b") << "a C1 code point in UTF-8 is text, not a raw 0x9b";
    Diagnostic d;
    d.file = "k\x1b.cu";
    d.line = 3;
    d.message = "bad \x1b]0;title\x07 token\n  second line";
    EXPECT_EQ(formatDiagnostic(d), "k\\x1b.cu:3: error: bad \\x1b]0;title\\x07 token\n  second line");
}

TEST(DocumentPaths, StayInsideTheRoots) {
    std::string tmpl = (fs::temp_directory_path() / "lowerscope-dp-XXXXXX").string();
    const fs::path dir = ::mkdtemp(tmpl.data());
    fs::create_directories(dir / "a" / "k");
    fs::create_directories(dir / "b");
    std::ofstream(dir / "b" / "x.cu") << "x";
    const std::vector<std::string> roots{(dir / "a").string(), (dir / "b").string()};
    std::string resolved, error;
    // Found under the second root.
    ASSERT_TRUE(resolveDocumentPath("x.cu", roots, "a.file", resolved, error)) << error;
    EXPECT_EQ(resolved, (dir / "b" / "x.cu").string());
    // Not found: the first root.
    ASSERT_TRUE(resolveDocumentPath("k/new.cu", roots, "a.file", resolved, error)) << error;
    EXPECT_EQ(resolved, (dir / "a" / "k" / "new.cu").string());
    ASSERT_TRUE(resolveDocumentPath((dir / "b" / "x.cu").string(), roots, "a.file", resolved, error))
        << error;
    for (const std::string bad : {"../../etc/passwd", "/etc/passwd", "k/../../../x", "a\nb", ""}) {
        EXPECT_FALSE(resolveDocumentPath(bad, roots, "a.file", resolved, error)) << bad;
        EXPECT_NE(error.find("a.file"), std::string::npos) << error;
        EXPECT_NE(error.find("refused"), std::string::npos) << error;
    }
    fs::create_directory_symlink("/etc", dir / "a" / "etc");
    EXPECT_FALSE(resolveDocumentPath("etc/passwd", roots, "a.file", resolved, error));
    EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
    fs::remove_all(dir);
}

TEST(FailureKind, OnlyTheCompilersVerdictIsCacheable) {
    ProcessResult compileError;
    compileError.exitCode = 1;
    compileError.stderrText = "k.cu(3): error: identifier \"x\" is undefined\n1 error detected\n";
    EXPECT_EQ(transientFailureReason(compileError), "");
    ProcessResult ptxasFatal;
    ptxasFatal.exitCode = 255;
    ptxasFatal.stderrText = "ptxas fatal   : Unresolved extern function 'f'\n";
    EXPECT_EQ(transientFailureReason(ptxasFatal), "");

    auto reason = [](auto set) {
        ProcessResult r;
        r.exitCode = 1;
        set(r);
        return transientFailureReason(r);
    };
    EXPECT_NE(reason([](ProcessResult& r) { r.startError = "cannot run nvcc"; }), "");
    EXPECT_NE(reason([](ProcessResult& r) { r.timedOut = true; }), "");
    EXPECT_NE(reason([](ProcessResult& r) { r.cancelled = true; }), "");
    EXPECT_NE(reason([](ProcessResult& r) { r.signal = 9, r.exitCode = 137; }), "");
    for (const char* text : {"nvcc error   : 'cicc' died due to signal 11 (Invalid memory reference)",
                             "cc1plus: fatal error: error writing to /tmp/x.s: No space left on device",
                             "k.cu:1:10: fatal error: k.h: Input/output error", "sh: line 1: 123 Killed ptxas",
                             "Segmentation fault (core dumped)", "cicc: out of memory", "Disk quota exceeded"}) {
        EXPECT_NE(reason([&](ProcessResult& r) { r.stderrText = text; }), "") << text;
    }
}

// Every reader of a document someone else wrote goes through the bounded reader (issue 13 item 6):
// a deeply nested document is refused naming the limit, by each entry point's own error type.
TEST(DocumentLimits, EveryReaderIsBounded) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    auto refusedTooDeep = [](auto&& read) {
        try {
            read();
        } catch (const std::exception& e) {
            return std::string(e.what()).find("too deep") != std::string::npos;
        }
        return false;
    };
    EXPECT_TRUE(refusedTooDeep([&] { parseSidecar(deep); })) << "sidecar";
    EXPECT_TRUE(refusedTooDeep([&] { readMeasurementText(deep); })) << "measurement text";
    const fs::path dir = fs::temp_directory_path() / ("lowerscope-limits-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "deep.json") << deep;
    EXPECT_TRUE(refusedTooDeep([&] { loadMeasurementRecord((dir / "deep.json").string()); })) << "measurement file";
    std::ofstream(dir / "compile_commands.json") << deep;
    EXPECT_TRUE(refusedTooDeep([&] { projectOptions(dir.string(), (dir / "k.cu").string()); })) << "compile database";
    // A directory or a device given as a document says what it is.
    try {
        loadMeasurementRecord(dir.string());
        ADD_FAILURE() << "a directory read as a measurement";
    } catch (const MeasurementError& e) {
        EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
    }
    try {
        loadMeasurementRecord("/dev/null");
        ADD_FAILURE() << "/dev/null read as a measurement";
    } catch (const MeasurementError& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

// A measurement document without samples, or with one that is no duration, is an error.
TEST(DocumentLimits, SamplesAreFinitePositiveDurations) {
    EXPECT_NO_THROW(readMeasurementText(R"({"samples_ms": [1.0, 2.5]})"));
    for (const char* bad : {R"({"samples_ms": []})", R"({"samples_ms": [1.0, -2.0]})", R"({"samples_ms": [0]})",
                            R"({"samples_ms": [1.0, "x"]})", R"({"samples_ms": [1e400]})"}) {
        EXPECT_THROW(readMeasurementText(bad), MeasurementError) << bad;
    }
    try {
        readMeasurementText(R"({"samples_ms": [1.0, -2.0]})");
    } catch (const MeasurementError& e) {
        EXPECT_NE(std::string(e.what()).find("samples_ms[1]"), std::string::npos) << e.what();
    }
}

TEST(DocumentLimits, CardsAreReadByKeyAndType) {
    const ExperimentCard c = cardFromJson(nlohmann::json{{"hypothesis", "h"}, {"interpretation", "i"}, {"other", 1}});
    EXPECT_EQ(c.hypothesis, "h");
    EXPECT_EQ(c.interpretation, "i");
    EXPECT_EQ(cardFromJson(nlohmann::json{{"card", {{"hypothesis", "from a session"}}}}).hypothesis, "from a session");
    try {
        cardFromJson(nlohmann::json{{"hypothesis", 3}});
        ADD_FAILURE() << "a number taken as text";
    } catch (const SessionError& e) {
        EXPECT_NE(std::string(e.what()).find("hypothesis"), std::string::npos) << e.what();
    }
    EXPECT_THROW(cardFromJson(nlohmann::json::array()), SessionError);
}

TEST(SafeBaseName, NamesNeverLeaveTheFolder) {
    EXPECT_EQ(safeBaseName("out_y"), "out_y");
    EXPECT_EQ(safeBaseName("../../etc/passwd"), "_._.._etc_passwd");
    EXPECT_EQ(safeBaseName("/abs"), "_abs");
    EXPECT_EQ(safeBaseName(".."), "_.");
    EXPECT_EQ(safeBaseName("."), "_");
    EXPECT_EQ(safeBaseName(""), "output");
    EXPECT_EQ(safeBaseName("a b$(x)\x1b"), "a_b__x__");
    EXPECT_EQ(safeBaseName(std::string(300, 'a')).size(), 100u);
    for (const std::string n : std::vector<std::string>{"a/b", "..", "../x", std::string("\0x", 3), "\n"}) {
        const std::string b = safeBaseName(n);
        EXPECT_EQ(b.find('/'), std::string::npos) << n;
        EXPECT_NE(b.front(), '.') << n;
    }
}

// Documents written over others' (sessions, cache entries, captures, Slurm task state): a reader
// sees the old file or the whole new one, and a failed write leaves the old file and no temporary.
TEST(AtomicFile, ReplacesWholeOrLeavesTheOldFileAndNoTemporary) {
    std::string tmpl = (fs::temp_directory_path() / "lowerscope-atomic-XXXXXX").string();
    const fs::path dir = ::mkdtemp(tmpl.data());
    const std::string path = (dir / "doc.json").string();
    auto read = [&] {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    auto entries = [&] {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
        return out;
    };
    std::string error;
    ASSERT_TRUE(writeFileAtomically(path, "first", error)) << error;
    ASSERT_TRUE(writeFileAtomically(path, std::string("sec\0nd", 6), error)) << error;
    EXPECT_EQ(read(), std::string("sec\0nd", 6)); // bytes as given, a NUL included
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);           // not mkstemp's 0600
    EXPECT_EQ(entries(), std::vector<std::string>{"doc.json"});

    // A write that fails part-way (the file-size limit): the old content stays, no temporary.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    ::getrlimit(RLIMIT_FSIZE, &old);
    rlimit small = old;
    small.rlim_cur = 100;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool wrote = writeFileAtomically(path, std::string(4096, 'x'), error);
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::signal(SIGXFSZ, SIG_DFL);
    EXPECT_FALSE(wrote);
    EXPECT_NE(error.find("cannot write " + (dir / ".doc.json.tmp-").string()), std::string::npos) << error;
    EXPECT_EQ(read(), std::string("sec\0nd", 6));
    EXPECT_EQ(entries(), std::vector<std::string>{"doc.json"});

    // A folder that does not exist: nothing is created, the error names the folder.
    EXPECT_FALSE(writeFileAtomically((dir / "no" / "doc.json").string(), "x", error));
    EXPECT_NE(error.find((dir / "no").string()), std::string::npos) << error;
    EXPECT_FALSE(fs::exists(dir / "no"));
    fs::remove_all(dir);
}
