// Hardware evidence on the lowering model (profile_join.h).
#include "core/run/profile_join.h"

#include "core/run/buffer_data.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>



namespace lowerscope {

namespace {

bool isNotIssuedSubset(const std::string& reason) {
    static const std::string suffix = "_not_issued";
    return reason.size() > suffix.size() &&
           reason.compare(reason.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

uint64_t ProfileTotals::sampleTotal() const {
    uint64_t n = 0;
    for (const auto& [reason, k] : samples) {
        n += isNotIssuedSubset(reason) ? 0 : k;
    }
    return n;
}

uint64_t ProfileTotals::count(const std::string& name) const {
    auto it = counts.find(name);
    return it == counts.end() ? 0 : it->second;
}

std::vector<std::pair<std::string, uint64_t>> stallReasons(const ProfileTotals& t) {
    std::vector<std::pair<std::string, uint64_t>> out;
    for (const auto& [reason, n] : t.samples)
        if (n > 0 && !isNotIssuedSubset(reason)) out.emplace_back(reason, n);
    // std::map gives name order; a stable sort keeps it among equal counts.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

std::vector<std::pair<std::string, double>> stallShares(const ProfileTotals& t, size_t n) {
    std::vector<std::pair<std::string, double>> out;
    const double total = static_cast<double>(t.sampleTotal());
    for (const auto& [reason, k] : stallReasons(t)) {
        if (out.size() == n || total <= 0) break;
        out.emplace_back(reason, static_cast<double>(k) / total);
    }
    return out;
}

std::string formatCount(uint64_t v) {
    char buf[32];
    if (v >= 1000000000ull) {
        std::snprintf(buf, sizeof buf, "%.2fG", static_cast<double>(v) / 1e9);
    } else if (v >= 1000000ull) {
        std::snprintf(buf, sizeof buf, "%.2fM", static_cast<double>(v) / 1e6);
    } else if (v >= 10000ull) {
        std::snprintf(buf, sizeof buf, "%.1fk", static_cast<double>(v) / 1e3);
    } else {
        std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    }
    return buf;
}

void ProfileTotals::add(const ProfileTotals& other) {
    for (const auto& [k, v] : other.counts) {
        counts[k] += v;
    }
    for (const auto& [k, v] : other.samples) {
        samples[k] += v;
    }
}

std::optional<std::string> profileMismatch(const ProfileData& profile, const std::string& cubinDigest,
                                           const std::string& mangled) {
    if (profile.cubinDigest.empty()) {
        return std::string("the profile does not say which build it was taken on (no cubin digest)");
    }
    if (profile.cubinDigest != cubinDigest) {
        return "the profile was taken on another build (cubin " + profile.cubinDigest + ", this build " +
               cubinDigest + ")";
    }
    if (!profile.function.empty() && profile.function != mangled) {
        return "the profile is of " + profile.function + ", not of " + mangled;
    }
    return std::nullopt;
}

std::string sassCodeDigest(const SassFunction& function) {
    // The bytes that define the code, in order; digestHex (buffer_data.h) hashes them (XXH3-64).
    std::string bytes;
    bytes.reserve(function.instructions.size() * 20);
    auto put = [&bytes](const void* p, size_t n) { bytes.append(static_cast<const char*>(p), n); };
    for (const auto& ins : function.instructions) {
        put(&ins.address, sizeof ins.address);
        if (ins.hasEncoding) {
            put(&ins.encodingLo, sizeof ins.encodingLo);
            put(&ins.encodingHi, sizeof ins.encodingHi);
        } else {
            bytes += ins.text;
        }
    }
    return digestHex(bytes.data(), bytes.size());
}

ProfileJoin joinProfiles(const SassFunction& function, const std::vector<const ProfileData*>& profiles,
                         InlineAttribution attribution) {
    ProfileJoin out;
    out.rows.reserve(function.instructions.size());
    std::unordered_map<uint32_t, size_t> rowOf;
    for (const auto& ins : function.instructions) {
        rowOf.emplace(ins.address, out.rows.size());
        out.rows.push_back(ProfiledRow{ins.address, false, {}});
    }
    for (const ProfileData* p : profiles) {
        if (!p || (p->collection != ProfileCollection::Instructions && p->collection != ProfileCollection::Samples)) {
            continue;
        }
        for (const auto& rec : p->instructions) {
            auto it = rec.pcOffset <= UINT32_MAX ? rowOf.find(static_cast<uint32_t>(rec.pcOffset)) : rowOf.end();
            if (it == rowOf.end()) {
                out.unmatchedOffsets.push_back(rec.pcOffset);
                continue;
            }
            ProfiledRow& row = out.rows[it->second];
            row.profiled = true;
            for (const auto& [k, v] : rec.counts) {
                row.totals.counts[k] += v;
            }
            for (const auto& [k, v] : rec.samples) {
                row.totals.samples[k] += v;
            }
        }
    }
    std::map<int, ProfiledLine> ptx;
    std::map<std::pair<std::string, int>, ProfiledLine> source;
    for (size_t i = 0; i < function.instructions.size(); ++i) {
        const SassInstruction& ins = function.instructions[i];
        const ProfileTotals& t = out.rows[i].totals;
        out.kernel.add(t);
        if (ins.ptxLine > 0) {
            ProfiledLine& l = ptx[ins.ptxLine];
            l.line = ins.ptxLine;
            ++l.instructions;
            l.totals.add(t);
        }
        if (ins.source.valid()) {
            const SourceFrame f = attribution == InlineAttribution::CallSite
                                      ? ins.source.callSite()
                                      : SourceFrame{ins.source.file, ins.source.line, ins.source.column};
            if (f.line > 0) {
                ProfiledLine& l = source[{f.file, f.line}];
                l.file = f.file;
                l.line = f.line;
                ++l.instructions;
                l.totals.add(t);
            }
        }
    }
    for (auto& [_, l] : ptx) {
        out.ptxLines.push_back(std::move(l));
    }
    for (auto& [_, l] : source) {
        out.sourceLines.push_back(std::move(l));
    }
    std::sort(out.unmatchedOffsets.begin(), out.unmatchedOffsets.end());
    return out;
}

std::vector<std::pair<const nlohmann::json*, long long>> rankProfileRows(const nlohmann::json& rows, size_t n) {
    std::vector<std::pair<const nlohmann::json*, long long>> out;
    if (!rows.is_array()) return out;
    for (const nlohmann::json& r : rows) {
        if (!r.is_object()) continue;
        const auto e = r.find("executed_delta"), s = r.find("samples_delta");
        if (e == r.end() || s == r.end() || !e->is_number_integer() || !s->is_number_integer()) continue;
        out.emplace_back(&r, std::llabs(e->get<long long>()) + std::llabs(s->get<long long>()));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    if (out.size() > n) out.resize(n);
    return out;
}

} // namespace lowerscope
