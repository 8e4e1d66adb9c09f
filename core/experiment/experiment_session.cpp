#include "core/experiment/experiment_session.h"

#include "core/atomic_file.h"
#include "core/bounded_json.h"
#include "core/build/json_io.h"
#include "core/untrusted.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace lowerscope {

using nlohmann::json;

namespace {

// ----------------------------------------------------------------------------- reading helpers

// Every read names the JSON path it failed at, so a hand-edited file gets a message like
// "a.options.max_reg_count: expected an integer, found string".
[[noreturn]] void missing(const std::string& path) {
    throw SessionError(SessionError::Kind::MissingKey, "missing key \"" + path + "\"");
}
[[noreturn]] void wrongType(const std::string& path, const char* expected, const json& found) {
    throw SessionError(SessionError::Kind::WrongType,
                       path + ": expected " + expected + ", found " + std::string(found.type_name()));
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

const json& member(const json& obj, const std::string& key, const std::string& path) {
    auto it = obj.find(key);
    if (it == obj.end()) missing(join(path, key));
    return *it;
}

const json& object(const json& obj, const std::string& key, const std::string& path) {
    const json& v = member(obj, key, path);
    if (!v.is_object()) wrongType(join(path, key), "an object", v);
    return v;
}

std::string string(const json& obj, const std::string& key, const std::string& path) {
    const json& v = member(obj, key, path);
    if (!v.is_string()) wrongType(join(path, key), "a string", v);
    return v.get<std::string>();
}

std::vector<std::string> strings(const json& obj, const std::string& key, const std::string& path) {
    const json& v = member(obj, key, path);
    if (!v.is_array()) wrongType(join(path, key), "an array of strings", v);
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) wrongType(join(path, key) + "[" + std::to_string(i) + "]", "a string", v[i]);
        out.push_back(v[i].get<std::string>());
    }
    return out;
}

// ------------------------------------------------------------------------------ the parts

json sourceToJson(const SourceFile& s) { return json{{"name", s.name}, {"text", s.text}}; }

SourceFile sourceFromJson(const json& j, const std::string& path) {
    return SourceFile{string(j, "name", path), string(j, "text", path)};
}

json configToJson(const BuildConfig& c) {
    return json{{"label", c.label},
                {"kernel", c.kernel},
                {"options", json(c.options)},
                {"source", c.ownSource ? sourceToJson(c.source) : json(nullptr)}};
}

BuildConfig configFromJson(const json& j, const std::string& path) {
    BuildConfig c;
    c.label = string(j, "label", path);
    c.kernel = string(j, "kernel", path);
    c.options = readBuildOptions(object(j, "options", path), join(path, "options"), wrongType);
    const json& src = member(j, "source", path);
    if (!src.is_null()) {
        if (!src.is_object()) wrongType(join(path, "source"), "an object or null", src);
        c.ownSource = true;
        c.source = sourceFromJson(src, join(path, "source"));
    }
    return c;
}

// "lowerscope.session/<n>" → n; 0 when the string does not start with "lowerscope.session/"; -1 for
// a version this build cannot place ("lowerscope.session/2.1", "lowerscope.session/99999999999"):
// such a schema can only come from a newer Lowerscope, so it is reported as one.
int schemaVersion(const std::string& schema) {
    static const std::string prefix = "lowerscope.session/";
    if (schema.rfind(prefix, 0) != 0) return 0;
    const std::string digits = schema.substr(prefix.size());
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(digits);
}

const char* const kKnownKeys[] = {"schema", "saved_by", "title", "source", "a", "b", "launch", "measurements", "card"};

std::string withFile(const std::string& path, const std::string& message) {
    return "cannot open session " + path + ": " + message;
}

} // namespace

json sessionToJson(const ExperimentSession& s) {
    json j = json::object();
    // Unknown keys first so the known ones always win.
    if (s.extra.is_object())
        for (const auto& [k, v] : s.extra.items()) j[k] = v;
    j["schema"] = kSessionSchema;
    j["saved_by"] = "Lowerscope 0.1.0";
    j["title"] = s.title;
    j["source"] = sourceToJson(s.source);
    j["a"] = configToJson(s.a);
    j["b"] = s.hasB ? configToJson(s.b) : json(nullptr);
    j["launch"] = json{{"grid", s.launch.grid},
                       {"block", s.launch.block},
                       {"shared_bytes", s.launch.sharedBytes},
                       {"args", s.launch.args},
                       {"outputs", s.launch.outputs},
                       {"bytes", s.launch.bytes},
                       {"flops", s.launch.flops}};
    if (!s.launch.lets.empty()) j["launch"]["lets"] = s.launch.lets;
    if (!s.launch.cluster.empty()) j["launch"]["cluster"] = s.launch.cluster;
    j["measurements"] = s.measurements;
    j["card"] = json{{"hypothesis", s.card.hypothesis},
                     {"implementation", s.card.implementation},
                     {"measurement", s.card.measurement},
                     {"result", s.card.result},
                     {"interpretation", s.card.interpretation}};
    return j;
}

ExperimentSession sessionFromJson(const json& j) {
    if (!j.is_object())
        throw SessionError(SessionError::Kind::Corrupt,
                           std::string("not a Lowerscope session (the file holds a JSON ") + j.type_name() +
                               ", not an object)");
    const auto schemaIt = j.find("schema");
    if (schemaIt == j.end() || !schemaIt->is_string())
        throw SessionError(SessionError::Kind::Corrupt, "not a Lowerscope session (no \"schema\" string)");
    const std::string schema = schemaIt->get<std::string>();
    const int version = schemaVersion(schema);
    if (version == 0)
        throw SessionError(SessionError::Kind::Corrupt, "not a Lowerscope session (schema \"" + schema + "\")");
    // Checked before anything else: a newer file may have changed any key, so no partial reading.
    if (version > kSessionVersion || version < 0)
        throw SessionError(SessionError::Kind::FutureVersion,
                           "written by a newer Lowerscope: schema " + escapeControl(schema.substr(0, 80)) +
                               " (this version reads " + kSessionSchema + ")");

    ExperimentSession s;
    s.title = string(j, "title", "");
    s.source = sourceFromJson(object(j, "source", ""), "source");
    s.a = configFromJson(object(j, "a", ""), "a");
    const json& b = member(j, "b", "");
    if (!b.is_null()) {
        if (!b.is_object()) wrongType("b", "an object or null", b);
        s.hasB = true;
        s.b = configFromJson(b, "b");
    }
    const json& launch = object(j, "launch", "");
    s.launch.grid = strings(launch, "grid", "launch");
    s.launch.block = strings(launch, "block", "launch");
    s.launch.sharedBytes = string(launch, "shared_bytes", "launch");
    s.launch.args = strings(launch, "args", "launch");
    s.launch.outputs = strings(launch, "outputs", "launch");
    s.launch.bytes = string(launch, "bytes", "launch");
    s.launch.flops = string(launch, "flops", "launch");
    if (launch.contains("lets")) s.launch.lets = strings(launch, "lets", "launch");
    if (launch.contains("cluster")) s.launch.cluster = strings(launch, "cluster", "launch");
    const json& measurements = member(j, "measurements", "");
    if (!measurements.is_array()) wrongType("measurements", "an array", measurements);
    s.measurements.assign(measurements.begin(), measurements.end());
    const json& card = object(j, "card", "");
    s.card.hypothesis = string(card, "hypothesis", "card");
    s.card.implementation = string(card, "implementation", "card");
    s.card.measurement = string(card, "measurement", "card");
    s.card.result = string(card, "result", "card");
    s.card.interpretation = string(card, "interpretation", "card");
    for (const auto& [k, v] : j.items()) {
        bool known = false;
        for (const char* name : kKnownKeys) known = known || k == name;
        if (!known) s.extra[k] = v;
    }
    return s;
}

ExperimentCard cardFromJson(const json& j) {
    if (!j.is_object())
        throw SessionError(SessionError::Kind::Corrupt, std::string("a card is a JSON object, not ") + j.type_name());
    const json* c = &j;
    std::string path;
    if (auto it = j.find("card"); it != j.end()) {
        if (!it->is_object()) wrongType("card", "an object", *it);
        c = &*it; // a whole session works too
        path = "card";
    }
    ExperimentCard card;
    auto field = [&](const char* key, std::string& into) {
        auto it = c->find(key);
        if (it == c->end()) return;
        if (!it->is_string()) wrongType(join(path, key), "a string", *it);
        into = it->get<std::string>();
    };
    field("hypothesis", card.hypothesis);
    field("implementation", card.implementation);
    field("measurement", card.measurement);
    field("result", card.result);
    field("interpretation", card.interpretation);
    // A card with none of its fields (misspelt keys, another document) is an error, never an
    // empty card taken silently.
    static const char* kFields[] = {"hypothesis", "implementation", "measurement", "result", "interpretation"};
    if (std::none_of(std::begin(kFields), std::end(kFields), [&](const char* k) { return c->contains(k); }))
        throw SessionError(SessionError::Kind::Corrupt,
                           std::string(path.empty() ? "the card" : "its card") +
                               " has none of hypothesis, implementation, measurement, result, interpretation");
    return card;
}

void saveSession(const ExperimentSession& session, const std::string& path) {
    // A source in Latin-1 (or any bytes that are not UTF-8) is saved, with U+FFFD for the bytes JSON
    // cannot hold, instead of failing the whole save.
    const std::string text = sessionToJson(session).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
    std::string error;
    if (!writeFileAtomically(path, text, error))
        throw SessionError(SessionError::Kind::Io, "cannot save session " + path + ": " + error);
}

ExperimentSession loadSession(const std::string& path) {
    std::string text, error;
    if (!readFileBounded(path, text, error)) {
        const bool limit = error.find("(limit)") != std::string::npos;
        throw SessionError(limit ? SessionError::Kind::Corrupt : SessionError::Kind::Io,
                           "cannot open session " + error);
    }
    auto j = parseJsonBounded(text, error);
    if (!j) throw SessionError(SessionError::Kind::Corrupt, withFile(path, error));
    try {
        return sessionFromJson(*j);
    } catch (const SessionError& e) {
        throw SessionError(e.kind(), withFile(path, e.what()));
    }
}

bool loadSession(const std::string& path, ExperimentSession& into, std::string& error) {
    try {
        ExperimentSession s = loadSession(path);
        into = std::move(s);
        return true;
    } catch (const SessionError& e) {
        error = e.what();
        return false;
    } catch (const std::exception& e) {
        error = withFile(path, e.what());
        return false;
    }
}

SessionLaunch sessionLaunchFrom(const LaunchSpec& spec) {
    SessionLaunch l;
    l.grid = spec.grid.empty() ? std::vector<std::string>{"1"} : spec.grid;
    l.block = spec.block.empty() ? std::vector<std::string>{"1"} : spec.block;
    l.sharedBytes = spec.sharedBytes.empty() ? "0" : spec.sharedBytes;
    l.args = spec.args;
    l.lets = spec.lets;
    l.cluster = spec.cluster;
    l.outputs = spec.outputs;
    l.bytes = spec.bytes;
    l.flops = spec.flops;
    return l;
}

LaunchSpec launchSpecFor(const SessionLaunch& launch, const std::string& kernel) {
    LaunchSpec spec;
    spec.kernel = kernel;
    spec.grid = launch.grid;
    spec.block = launch.block;
    spec.sharedBytes = launch.sharedBytes == "0" ? "" : launch.sharedBytes;
    spec.args = launch.args;
    spec.lets = launch.lets;
    spec.cluster = launch.cluster;
    spec.outputs = launch.outputs;
    spec.bytes = launch.bytes;
    spec.flops = launch.flops;
    return spec;
}

// ------------------------------------------------------------------------------------ trust

std::vector<TrustItem> untrustedSettings(const ExperimentSession& session) {
    std::vector<TrustItem> out;
    auto side = [&](const BuildConfig& c) {
        for (auto& item : optionTrustItems(c.options, c.label)) out.push_back(std::move(item));
    };
    side(session.a);
    if (session.hasB) side(session.b);
    return out;
}

std::string refusedSetting(const ExperimentSession& session) {
    for (const auto& t : untrustedSettings(session))
        if (!t.refused.empty()) return t.side + ": " + t.refused;
    return {};
}

void resolveSessionPaths(ExperimentSession& session, const std::vector<std::string>& roots) {
    auto resolve = [&](SourceFile& src, const std::string& key) {
        std::string resolved, error;
        if (!resolveDocumentPath(src.name, roots, key, resolved, error))
            throw SessionError(SessionError::Kind::UnsafePath, error);
        src.name = resolved;
    };
    resolve(session.source, "source.name");
    if (session.a.ownSource) resolve(session.a.source, "a.source.name");
    if (session.hasB && session.b.ownSource) resolve(session.b.source, "b.source.name");
}

std::string trustFingerprint(const ExperimentSession& session) {
    json items = json::array();
    for (const auto& t : untrustedSettings(session)) items.push_back({t.side, t.setting, t.value});
    const std::string text = items.dump(-1, ' ', false, json::error_handler_t::replace);
    const XXH64_hash_t h = XXH3_64bits(text.data(), text.size());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

} // namespace lowerscope
