// lowerscope.profile/1 read back (profile_document.h).
#include "core/run/profile_document.h"

#include "core/run/profile_join.h"

#include "core/bounded_json.h"
#include "core/untrusted.h"

#include <nlohmann/json.hpp>

namespace lowerscope {

namespace {

using nlohmann::json;

constexpr size_t kMaxBytes = 64u << 20;
constexpr int kMaxDepth = 32;

const json& member(const json& j, const char* key, json::value_t type, const std::string& where) {
    // Whole numbers that are not negative parse as number_unsigned: a negative one is refused.
    auto it = j.find(key);
    if (it == j.end() || it->type() != type) throw ProfileDocumentError(where + key + ": missing or of the wrong type");
    return *it;
}

std::map<std::string, uint64_t> countMap(const json& j, const std::string& where) {
    if (!j.is_object()) throw ProfileDocumentError(where + ": expected an object of counts");
    std::map<std::string, uint64_t> out;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it.value().is_number_unsigned()) // non-negative whole numbers parse as unsigned
            throw ProfileDocumentError(where + "." + it.key() + ": not a count");
        out[it.key()] = it.value().get<uint64_t>();
    }
    return out;
}

} // namespace

ProfileDocument readProfileDocument(const std::string& text) {
    // The one bounded reader (core/bounded_json.h): size, depth and value count checked first.
    std::string error;
    const std::optional<json> parsed = parseJsonBounded(text, error, JsonLimits{kMaxBytes, kMaxDepth, 4'000'000});
    if (!parsed) throw ProfileDocumentError("not a readable JSON document: " + error);
    return readProfileDocument(*parsed);
}

ProfileDocument readProfileDocument(const json& j) {
    if (!j.is_object()) throw ProfileDocumentError("not a JSON document");
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_string() || *schema != "lowerscope.profile/1")
        throw ProfileDocumentError(schema != j.end() && schema->is_string() &&
                                           schema->get<std::string>().rfind("lowerscope.profile/", 0) == 0
                                       ? "a newer profile document (" + schema->get<std::string>() +
                                             ") than this Lowerscope reads (lowerscope.profile/1)"
                                       : std::string("not a Lowerscope profile (schema lowerscope.profile/1)"));
    ProfileDocument d;
    d.kernel = member(j, "kernel", json::value_t::string, "").get<std::string>();
    d.cubinDigest = member(j, "cubin_digest", json::value_t::string, "").get<std::string>();
    if (auto f = j.find("file"); f != j.end() && f->is_string()) d.file = f->get<std::string>();
    if (auto c = j.find("code_digest"); c != j.end() && c->is_string()) d.codeDigest = c->get<std::string>();
    // The build it was taken on, for people (said when it does not fit the build shown).
    if (auto a = j.find("arch"); a != j.end() && a->is_string()) d.arch = boundedText(escapeControl(a->get<std::string>()), 64);
    if (auto o = j.find("build_options"); o != j.end() && o->is_string())
        d.buildOptions = boundedText(escapeControl(o->get<std::string>()), 400);
    if (auto dev = j.find("device"); dev != j.end()) {
        DeviceInfo info;
        try {
            fromJson(*dev, info);
        } catch (const std::exception& e) {
            throw ProfileDocumentError(std::string("device: ") + e.what());
        }
        d.device = std::move(info);
    }
    if (auto m = j.find("metrics"); m != j.end()) {
        if (!m->is_array()) throw ProfileDocumentError("metrics: expected an array");
        for (const auto& x : *m) {
            ProfileMetric pm;
            try {
                fromJson(x, pm);
            } catch (const std::exception& e) {
                throw ProfileDocumentError(std::string("metrics: ") + e.what());
            }
            d.metrics.push_back(std::move(pm));
        }
    }
    d.rows.collection = ProfileCollection::Instructions;
    d.rows.function = d.kernel;
    d.rows.cubinDigest = d.cubinDigest;
    const json& rows = member(j, "instructions", json::value_t::array, "");
    for (size_t i = 0; i < rows.size(); ++i) {
        const json& r = rows[i];
        const std::string where = "instructions[" + std::to_string(i) + "].";
        if (!r.is_object()) throw ProfileDocumentError(where + ": expected an object");
        if (auto p = r.find("profiled"); p != r.end() && p->is_boolean() && !p->get<bool>()) continue;
        InstructionProfile ip;
        ip.pcOffset = member(r, "address", json::value_t::number_unsigned, where).get<uint64_t>();
        if (auto c = r.find("counts"); c != r.end()) ip.counts = countMap(*c, where + "counts");
        if (auto s = r.find("samples"); s != r.end()) ip.samples = countMap(*s, where + "samples");
        d.rows.instructions.push_back(std::move(ip));
    }
    return d;
}

std::optional<std::string> profileDocumentMismatch(const ProfileDocument& doc, const std::string& cubinDigest,
                                                   const SassFunction& function, const std::string& mangled) {
    auto why = profileMismatch(doc.rows, cubinDigest, mangled);
    if (!why) return std::nullopt;
    if (!doc.codeDigest.empty() && doc.kernel == mangled && doc.codeDigest == sassCodeDigest(function))
        return std::nullopt; // another cubin (e.g. other line-info paths), the same instructions
    // Which build it was taken for, so the user can rebuild that one.
    if (!doc.arch.empty() || !doc.buildOptions.empty())
        *why += " (it was taken on a build" + (doc.arch.empty() ? std::string() : " for " + doc.arch) +
                (doc.buildOptions.empty() ? std::string() : " with options " + doc.buildOptions) + ")";
    return why;
}

} // namespace lowerscope
