// .lowerscope sessions: lossless round trip, clear errors for corrupt / incomplete / future files
// without touching the caller's session, atomic saves, and which settings need a trust prompt.
#include "core/build/json_io.h"
#include "core/experiment/experiment_session.h"

#include "json_pointers.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace lowerscope;
namespace fs = std::filesystem;

namespace {

class TempDir {
public:
    TempDir() {
        m_path = fs::temp_directory_path() / ("lowerscope-session-test-" + std::to_string(::getpid()) + "-" +
                                              std::to_string(s_counter++));
        fs::create_directories(m_path);
    }
    ~TempDir() { fs::remove_all(m_path); }
    fs::path operator/(const std::string& name) const { return m_path / name; }
    const fs::path& path() const { return m_path; }

private:
    fs::path m_path;
    static inline int s_counter = 0;
};

std::string readAll(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}
void writeAll(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

ExperimentSession richSession() {
    ExperimentSession s;
    s.title = "fast math: exp/sin/div — does it pay?";
    s.source = {"kernels/fast_math.cu", "__global__ void k(float* y) { y[0] = expf(1.f); }\n// ünïcode ✓\n"};
    s.a.label = "A (IEEE)";
    s.a.kernel = "damped_wave";
    s.a.options.arch = "sm_90a";
    s.a.options.maxRegCount = 64;
    s.a.options.ftz = 0;
    s.a.options.precDiv = 1;
    s.a.options.fmad = -1;
    s.a.options.defines = {"N=4", "USE_X"};
    s.a.options.includeDirs = {"include", "/opt/x/include"};
    s.hasB = true;
    s.b.label = "B (fast)";
    s.b.kernel = "_Z11damped_waveiPKfS0_Pf";
    s.b.options.fastMath = true;
    s.b.options.lineinfo = false;
    s.b.options.hostOpt = 2;
    s.b.options.cppStd = "";
    s.b.options.extraNvccFlags = {"-Xcompiler", "-fno-math-errno"};
    s.b.options.extraPtxasFlags = {"-warn-spills"};
    s.b.ownSource = true;
    s.b.source = {"kernels/fast_math_v2.cu", "// other file\n"};
    s.launch.grid = {"ceil(n/256)", "1"};
    s.launch.block = {"256"};
    s.launch.sharedBytes = "4*256";
    s.launch.args = {"n=1<<24", "x=f32[n]:random(seed=1)", "y=f32[n]:zeros"};
    s.launch.outputs = {"y"};
    s.launch.bytes = "12*n";
    s.launch.flops = "20*n";
    s.measurements.push_back(nlohmann::json::parse(
        R"({"schema":"lowerscope.run/1","result":{"id":"r1","variants":[{"label":"A","samples_ms":[0.1234567890123,0.2,1e-9]}],
            "agreement":[],"wall_s":1.5},"nested":{"null":null,"bool":false,"big":12345678901234}})"));
    s.measurements.push_back(nlohmann::json{{"error", {{"kind", "kernel_fault"}, {"message", "illegal address"}}}});
    s.card = {"fast math cuts the sin/exp/div slow paths", "B adds --use_fast_math", "A/B interleaved, 200 samples",
              "B is 1.42x faster", "the kernel was latency bound on the slow path\nsecond line"};
    return s;
}

SessionError::Kind loadErrorKind(const fs::path& p, std::string* message = nullptr) {
    try {
        loadSession(p.string());
    } catch (const SessionError& e) {
        if (message) *message = e.what();
        return e.kind();
    }
    ADD_FAILURE() << "no error loading " << p;
    return SessionError::Kind::Io;
}

} // namespace

TEST(ExperimentSession, RoundTripIsLossless) {
    TempDir dir;
    const ExperimentSession s = richSession();
    const auto file = dir / "exp.lowerscope";
    saveSession(s, file.string());
    const ExperimentSession back = loadSession(file.string());
    EXPECT_EQ(back, s);
    EXPECT_EQ(back.measurements[0]["result"]["variants"][0]["samples_ms"][0].get<double>(), 0.1234567890123);
    EXPECT_EQ(back.measurements[0]["nested"]["big"].get<int64_t>(), 12345678901234);
    // Saving what was loaded gives the same bytes.
    const auto again = dir / "again.lowerscope";
    saveSession(back, again.string());
    EXPECT_EQ(readAll(file), readAll(again));
    const auto j = nlohmann::json::parse(readAll(file));
    EXPECT_EQ(j["schema"], "lowerscope.session/1");
    EXPECT_TRUE(j["a"]["options"]["fmad"].is_null());
    EXPECT_EQ(j["a"]["options"]["ftz"], false);
    EXPECT_TRUE(j["a"]["source"].is_null());
}

TEST(ExperimentSession, OptionsUseTheKeysOfJsonIo) {
    // session.cpp reads options with its own strict, path-naming checks; the keys must stay those
    // of core/build/json_io.h so build documents and sessions agree.
    const ExperimentSession s = richSession();
    for (const BuildConfig* c : {&s.a, &s.b}) {
        const nlohmann::json viaIo = c->options;
        EXPECT_EQ(sessionToJson(s)[c == &s.a ? "a" : "b"]["options"], viaIo);
        EXPECT_EQ(viaIo.get<BuildOptions>(), c->options);
    }
}

TEST(ExperimentSession, DefaultSessionRoundTrips) {
    TempDir dir;
    ExperimentSession s;
    saveSession(s, (dir / "d.lowerscope").string());
    const ExperimentSession back = loadSession((dir / "d.lowerscope").string());
    EXPECT_EQ(back, s);
    EXPECT_FALSE(back.hasB);
}

TEST(ExperimentSession, UnknownKeysArePreserved) {
    TempDir dir;
    auto j = sessionToJson(richSession());
    j["gui_layout"] = {{"splitter", {1, 2, 3}}};
    writeAll(dir / "x.lowerscope", j.dump());
    const ExperimentSession s = loadSession((dir / "x.lowerscope").string());
    EXPECT_EQ(s.extra["gui_layout"]["splitter"][2], 3);
    EXPECT_EQ(sessionToJson(s)["gui_layout"], j["gui_layout"]);
}

TEST(ExperimentSession, CorruptFilesGiveClearErrors) {
    TempDir dir;
    const std::string good = sessionToJson(richSession()).dump(2);
    std::string msg;

    writeAll(dir / "trunc.lowerscope", good.substr(0, good.size() / 2));
    EXPECT_EQ(loadErrorKind(dir / "trunc.lowerscope", &msg), SessionError::Kind::Corrupt);
    EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
    EXPECT_NE(msg.find("trunc.lowerscope"), std::string::npos) << msg;

    writeAll(dir / "array.lowerscope", "[1,2,3]");
    EXPECT_EQ(loadErrorKind(dir / "array.lowerscope", &msg), SessionError::Kind::Corrupt);
    EXPECT_NE(msg.find("not a Lowerscope session"), std::string::npos) << msg;

    writeAll(dir / "other.lowerscope", R"({"schema":"lowerscope.build/1"})");
    EXPECT_EQ(loadErrorKind(dir / "other.lowerscope", &msg), SessionError::Kind::Corrupt);

    writeAll(dir / "binary.lowerscope", std::string("\x00\xff\xfe garbage", 12));
    EXPECT_EQ(loadErrorKind(dir / "binary.lowerscope"), SessionError::Kind::Corrupt);

    EXPECT_EQ(loadErrorKind(dir / "absent.lowerscope", &msg), SessionError::Kind::Io);
    EXPECT_NE(msg.find("absent.lowerscope"), std::string::npos) << msg;
}

TEST(ExperimentSession, MissingKeysAndWrongTypesNameThePath) {
    TempDir dir;
    const auto base = sessionToJson(richSession());
    std::string msg;

    auto j = base;
    j.erase("launch");
    writeAll(dir / "m1.lowerscope", j.dump());
    EXPECT_EQ(loadErrorKind(dir / "m1.lowerscope", &msg), SessionError::Kind::MissingKey);
    EXPECT_NE(msg.find("\"launch\""), std::string::npos) << msg;

    j = base;
    j["card"].erase("interpretation");
    writeAll(dir / "m2.lowerscope", j.dump());
    EXPECT_EQ(loadErrorKind(dir / "m2.lowerscope", &msg), SessionError::Kind::MissingKey);
    EXPECT_NE(msg.find("card.interpretation"), std::string::npos) << msg;

    j = base;
    j["a"]["options"]["max_reg_count"] = "32";
    writeAll(dir / "t1.lowerscope", j.dump());
    EXPECT_EQ(loadErrorKind(dir / "t1.lowerscope", &msg), SessionError::Kind::WrongType);
    EXPECT_NE(msg.find("a.options.max_reg_count: expected an integer, found string"), std::string::npos) << msg;

    j = base;
    j["launch"]["args"][1] = 7;
    writeAll(dir / "t2.lowerscope", j.dump());
    EXPECT_EQ(loadErrorKind(dir / "t2.lowerscope", &msg), SessionError::Kind::WrongType);
    EXPECT_NE(msg.find("launch.args[1]"), std::string::npos) << msg;

    j = base;
    j["measurements"] = nlohmann::json::object();
    writeAll(dir / "t3.lowerscope", j.dump());
    EXPECT_EQ(loadErrorKind(dir / "t3.lowerscope"), SessionError::Kind::WrongType);

    j = base;
    j["b"] = "B";
    writeAll(dir / "t4.lowerscope", j.dump());
    EXPECT_EQ(loadErrorKind(dir / "t4.lowerscope"), SessionError::Kind::WrongType);

    // Options keys are optional (defaults), but present ones are type-checked.
    j = base;
    j["a"]["options"] = {{"arch", "sm_80"}};
    writeAll(dir / "ok.lowerscope", j.dump());
    const ExperimentSession s = loadSession((dir / "ok.lowerscope").string());
    EXPECT_EQ(s.a.options.arch, "sm_80");
    EXPECT_EQ(s.a.options.maxRegCount, 0);
}

TEST(ExperimentSession, FutureVersionIsRefusedWithoutReading) {
    TempDir dir;
    auto j = sessionToJson(richSession());
    j["schema"] = "lowerscope.session/3";
    j["a"] = "something new";
    writeAll(dir / "future.lowerscope", j.dump());
    std::string msg;
    EXPECT_EQ(loadErrorKind(dir / "future.lowerscope", &msg), SessionError::Kind::FutureVersion);
    EXPECT_NE(msg.find("written by a newer Lowerscope: schema lowerscope.session/3"), std::string::npos) << msg;
}

TEST(ExperimentSession, AnyNewerSchemaSaysWrittenByANewerLowerscope) {
    TempDir dir;
    for (const char* schema : {"lowerscope.session/2", "lowerscope.session/2.1", "lowerscope.session/99999999999",
                               "lowerscope.session/next"}) {
        auto j = sessionToJson(richSession());
        j["schema"] = schema;
        writeAll(dir / "f.lowerscope", j.dump());
        std::string msg;
        EXPECT_EQ(loadErrorKind(dir / "f.lowerscope", &msg), SessionError::Kind::FutureVersion) << schema;
        EXPECT_NE(msg.find("written by a newer Lowerscope"), std::string::npos) << msg;
    }
}

TEST(ExperimentSession, DocumentLimitsAreNamed) {
    TempDir dir;
    // 400 KB of nesting: refused before parsing, naming the depth limit.
    std::string deep = "{\"schema\":\"lowerscope.session/1\",\"x\":" + std::string(200000, '[') +
                       std::string(200000, ']') + "}";
    writeAll(dir / "deep.lowerscope", deep);
    std::string msg;
    EXPECT_EQ(loadErrorKind(dir / "deep.lowerscope", &msg), SessionError::Kind::Corrupt);
    EXPECT_NE(msg.find("too deep"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(limit)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("deep.lowerscope"), std::string::npos) << msg;
    // A directory and a device are named as such.
    EXPECT_EQ(loadErrorKind(dir.path(), &msg), SessionError::Kind::Io);
    EXPECT_NE(msg.find("directory"), std::string::npos) << msg;
    EXPECT_EQ(loadErrorKind("/dev/null", &msg), SessionError::Kind::Io);
    EXPECT_NE(msg.find("not a regular file"), std::string::npos) << msg;
}

TEST(ExperimentSession, SourceNamesStayInTheChosenFolders) {
    TempDir dir;
    fs::create_directories(dir / "proj" / "kernels");
    ExperimentSession s = richSession();
    const std::string root = (dir / "proj").string();
    s.source.name = "kernels/k.cu";
    ExperimentSession ok = s;
    resolveSessionPaths(ok, {root});
    EXPECT_EQ(ok.source.name, (dir / "proj" / "kernels" / "k.cu").string());

    auto refusedWith = [&](ExperimentSession bad, const std::string& key) {
        try {
            resolveSessionPaths(bad, {root});
        } catch (const SessionError& e) {
            EXPECT_EQ(e.kind(), SessionError::Kind::UnsafePath);
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("refused"), std::string::npos) << e.what();
            return true;
        }
        return false;
    };
    s.source.name = "../../etc/passwd";
    EXPECT_TRUE(refusedWith(s, "source.name"));
    s.source.name = "/etc/passwd";
    EXPECT_TRUE(refusedWith(s, "source.name"));
    s.source.name = "kernels/../../outside.cu";
    EXPECT_TRUE(refusedWith(s, "source.name"));
    // A symlink inside the folder that points out of it does not open a way out.
    fs::create_directory_symlink("/etc", dir / "proj" / "link");
    s.source.name = "link/passwd";
    EXPECT_TRUE(refusedWith(s, "source.name"));
    s.source.name = "kernels/k.cu";
    s.hasB = true;
    s.b.ownSource = true;
    s.b.source.name = "../b.cu";
    EXPECT_TRUE(refusedWith(s, "b.source.name"));
}

TEST(ExperimentSession, FailedLoadLeavesTheCurrentSessionUntouched) {
    TempDir dir;
    ExperimentSession current = richSession();
    const ExperimentSession before = current;
    writeAll(dir / "bad.lowerscope", "{\"schema\": \"lowerscope.session/1\", \"title\": 5}");
    std::string error;
    EXPECT_FALSE(loadSession((dir / "bad.lowerscope").string(), current, error));
    EXPECT_EQ(current, before);
    EXPECT_NE(error.find("title"), std::string::npos) << error;
    // And a good file replaces it.
    ExperimentSession other;
    other.title = "other";
    saveSession(other, (dir / "good.lowerscope").string());
    EXPECT_TRUE(loadSession((dir / "good.lowerscope").string(), current, error));
    EXPECT_EQ(current.title, "other");
}

TEST(ExperimentSession, SaveIsAtomicAndCleansUp) {
    TempDir dir;
    const auto file = dir / "s.lowerscope";
    ExperimentSession first = richSession();
    saveSession(first, file.string());
    const std::string old = readAll(file);
    // The rename cannot replace a non-empty directory: the save fails after writing the temporary
    // file, which must be gone afterwards.
    fs::create_directories(dir / "blocked.lowerscope" / "child");
    try {
        saveSession(first, (dir / "blocked.lowerscope").string());
        ADD_FAILURE() << "save over a directory succeeded";
    } catch (const SessionError& e) {
        EXPECT_EQ(e.kind(), SessionError::Kind::Io);
        EXPECT_NE(std::string(e.what()).find("rename"), std::string::npos) << e.what();
    }
    // A missing folder fails before anything is written.
    EXPECT_THROW(saveSession(first, (dir / "no" / "such" / "x.lowerscope").string()), SessionError);
    int leftovers = 0;
    for (const auto& e : fs::directory_iterator(dir.path()))
        leftovers += e.path().filename().string().find(".tmp-") != std::string::npos;
    EXPECT_EQ(leftovers, 0);
    EXPECT_EQ(readAll(file), old);
    // Overwriting replaces the content as a whole.
    ExperimentSession second;
    second.title = "second";
    saveSession(second, file.string());
    EXPECT_EQ(loadSession(file.string()).title, "second");
}

TEST(ExperimentSession, LaunchFromSidecar) {
    const auto specs = parseSidecar(R"J({"kernels":[{"name":"saxpy","grid":"ceil(n/256)","block":256,
        "args":["n=1<<24","a=2.5"],"outputs":["y"],"bytes":"12*n","flops":"2*n"}]})J");
    ASSERT_EQ(specs.size(), 1u);
    const SessionLaunch l = sessionLaunchFrom(specs[0]);
    EXPECT_EQ(l.grid, (std::vector<std::string>{"ceil(n/256)"}));
    EXPECT_EQ(l.block, (std::vector<std::string>{"256"}));
    EXPECT_EQ(l.sharedBytes, "0");
    EXPECT_EQ(l.bytes, "12*n");
    const LaunchSpec back = launchSpecFor(l, "saxpy");
    EXPECT_EQ(back.kernel, "saxpy");
    EXPECT_EQ(back.args, specs[0].args);
    EXPECT_EQ(back.outputs, specs[0].outputs);
    EXPECT_EQ(back.flops, "2*n");
}

TEST(ExperimentSession, TrustPromptListsDefinesIncludeDirsAndFlags) {
    ExperimentSession s;
    EXPECT_FALSE(needsTrustPrompt(s));
    s.a.options.fastMath = true;
    s.a.options.maxRegCount = 32;
    EXPECT_FALSE(needsTrustPrompt(s)) << "structured options do not prompt";
    // Defines and include dirs come from the document and reach nvcc's command lines: listed.
    s.a.options.defines = {"N=4", "F(x)=((x)*2)"};
    s.a.options.includeDirs = {"/usr/include/anything"};
    EXPECT_EQ(untrustedSettings(s), (std::vector<TrustItem>{{"A", "define", "-DN=4", ""},
                                                            {"A", "define", "-DF(x)=((x)*2)", ""},
                                                            {"A", "include dir", "-I/usr/include/anything", ""}}));
    EXPECT_TRUE(refusedSetting(s).empty());

    ExperimentSession f;
    f.a.options.extraNvccFlags = {"-ccbin=/tmp/evil"};
    EXPECT_EQ(untrustedSettings(f), (std::vector<TrustItem>{{"A", "extra nvcc flag", "-ccbin=/tmp/evil", ""}}));

    ExperimentSession p;
    p.a.options.extraPtxasFlags = {"-v"};
    EXPECT_EQ(untrustedSettings(p), (std::vector<TrustItem>{{"A", "extra ptxas flag", "-Xptxas -v", ""}}));

    ExperimentSession m;
    m.a.options.defines = {"-ccbin=/tmp/evil"};
    m.a.options.arch = "sm_90 --run";
    m.a.options.cppStd = "c++17 -Xcompiler";
    const auto items = untrustedSettings(m);
    ASSERT_EQ(items.size(), 3u);
    EXPECT_EQ(items[0].setting, "arch");
    EXPECT_FALSE(items[0].refused.empty());
    EXPECT_EQ(items[1].setting, "C++ standard");
    EXPECT_FALSE(items[1].refused.empty());
    EXPECT_EQ(items[2].setting, "define");

    // Shell syntax is refused outright, whatever the user answers.
    ExperimentSession r;
    r.a.options.defines = {"X=$(touch /tmp/x)"};
    r.a.options.includeDirs = {"/tmp/`id`"};
    ASSERT_EQ(untrustedSettings(r).size(), 2u);
    EXPECT_NE(untrustedSettings(r)[0].refused.find("'$'"), std::string::npos) << untrustedSettings(r)[0].refused;
    EXPECT_NE(untrustedSettings(r)[1].refused.find("'`'"), std::string::npos) << untrustedSettings(r)[1].refused;
    EXPECT_NE(refusedSetting(r).find("A: define"), std::string::npos) << refusedSetting(r);

    // B counts only when the session has a B side.
    ExperimentSession b;
    b.b.options.extraNvccFlags = {"--compiler-bindir", "/x"};
    EXPECT_FALSE(needsTrustPrompt(b));
    b.hasB = true;
    EXPECT_EQ(untrustedSettings(b).size(), 2u);
    EXPECT_EQ(untrustedSettings(b)[0].side, "B");

    // The fingerprint follows the flags, not the rest of the session.
    ExperimentSession c = b;
    c.title = "renamed";
    c.card.result = "x";
    EXPECT_EQ(trustFingerprint(c), trustFingerprint(b));
    c.b.options.extraNvccFlags[1] = "/y";
    EXPECT_NE(trustFingerprint(c), trustFingerprint(b));
    EXPECT_EQ(trustFingerprint(b).size(), 16u);
}

using lowerscope::testutil::allPointers;

TEST(ExperimentSession, AnyTypeAtAnyPathGivesASessionErrorOrASession) {
    // Replace every value of a valid document, one at a time, by each JSON type: loading must
    // either succeed or throw SessionError — never another exception, never a crash.
    const nlohmann::json base = sessionToJson(richSession());
    std::vector<nlohmann::json::json_pointer> pointers;
    allPointers(base, nlohmann::json::json_pointer(), pointers);
    const nlohmann::json replacements[] = {nullptr, 7, -1.5, "x", true, nlohmann::json::array(), nlohmann::json::object()};
    int errors = 0, loaded = 0;
    (void)sessionFromJson(base);
    for (const auto& ptr : pointers) {
        if (ptr.empty()) continue;
        for (const auto& r : replacements) {
            nlohmann::json doc = base;
            doc[ptr] = r;
            try {
                (void)sessionFromJson(doc);
                ++loaded;
            } catch (const SessionError&) {
                ++errors;
            } catch (const std::exception& e) {
                ADD_FAILURE() << ptr.to_string() << " = " << r.dump() << ": unexpected " << e.what();
            }
        }
    }
    EXPECT_GT(errors, 100);
    EXPECT_GT(loaded, 10); // measurements are free-form and option keys optional
}
