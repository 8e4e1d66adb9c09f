// Profile results and the protocol fields of issues 14 and 19: JSON round trips, names, and the
// refusal of malformed input with the field named.
#include "core/run/protocol.h"

#include <gtest/gtest.h>

using namespace lowerscope;
using nlohmann::json;

namespace {

ProfileData sampleProfile() {
    ProfileData p;
    p.collection = ProfileCollection::Samples;
    p.chip = "GH100";
    p.function = "_Z5saxpyifPKfPf";
    p.cubinCrc = 488459818;
    p.cubinDigest = "5ec39bc48ac676d6";
    p.launches = 13;
    p.collectMs = 743.9;
    p.instructions = {InstructionProfile{208, {}, {{"long_scoreboard", 36157}, {"selected", 12}}},
                      InstructionProfile{240, {{"smsp__sass_inst_executed", 524288}}, {}}};
    p.totalSamples = 42805;
    p.samplingPeriodLog2 = 11;
    p.note = "";
    return p;
}

TEST(ProfileData, CollectionNames) {
    for (ProfileCollection c : {ProfileCollection::None, ProfileCollection::Kernel,
                                ProfileCollection::Instructions, ProfileCollection::Samples}) {
        EXPECT_EQ(parseProfileCollection(profileCollectionName(c)), c);
    }
    EXPECT_EQ(profileCollectionName(ProfileCollection::Kernel), "kernel");
    EXPECT_FALSE(parseProfileCollection("counters").has_value());
}

TEST(ProfileData, RoundTrip) {
    ProfileData p = sampleProfile();
    ProfileData q;
    fromJson(toJson(p), q);
    EXPECT_EQ(p, q);
    ProfileData k;
    k.collection = ProfileCollection::Kernel;
    k.metrics = {{"dram__bytes_read.sum", 134228992, "byte"},
                 {"gpu__time_duration.sum", 59520, "nanosecond"}};
    k.invalidMetrics = {"launch__waves_per_multiprocessor"};
    k.passes = 11;
    ProfileData k2;
    fromJson(toJson(k), k2);
    EXPECT_EQ(k, k2);
}

TEST(ProfileData, MalformedInputNamesTheField) {
    json j = toJson(sampleProfile());
    j["collection"] = "everything";
    ProfileData p;
    try {
        fromJson(j, p);
        FAIL() << "accepted an unknown collection";
    } catch (const ProfileFormatError& e) {
        EXPECT_NE(std::string(e.what()).find("collection"), std::string::npos);
    }
    j = toJson(sampleProfile());
    j["instructions"][0]["samples"]["long_scoreboard"] = -3;
    EXPECT_THROW(fromJson(j, p), ProfileFormatError);
    j = toJson(sampleProfile());
    j["instructions"][1].erase("pc_offset");
    EXPECT_THROW(fromJson(j, p), ProfileFormatError);
}

TEST(ProfileData, ShortStallReasons) {
    EXPECT_EQ(shortStallReason("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
    EXPECT_EQ(shortStallReason("smsp__pcsamp_warps_issue_stalled_wait_not_issued"), "wait_not_issued");
    EXPECT_EQ(shortStallReason("smsp__pcsamp_sample_count"), "smsp__pcsamp_sample_count");
}

TEST(ProfileProtocol, RequestFieldsRoundTrip) {
    RunRequest r;
    r.id = "7";
    r.profile = ProfileCollection::Kernel;
    r.profileMetrics = {"dram__bytes_read.sum", "lts__t_sector_hit_rate.pct"};
    r.clock = "events";
    r.variants.push_back(LaunchVariant{});
    RunRequest back;
    fromJson(toJson(r), back);
    EXPECT_EQ(back, r);
    json j = toJson(r);
    EXPECT_EQ(j["profile"], "kernel");
    EXPECT_EQ(j["clock"], "events");
}

TEST(ProfileProtocol, RequestRefusesBadProfileFields) {
    RunRequest r;
    r.variants.push_back(LaunchVariant{});
    json j = toJson(r);
    RunRequest back;
    j["profile"] = "counters";
    EXPECT_THROW(fromJson(j, back), ProtocolError);
    j = toJson(r);
    j["profile_metrics"] = json::array({"dram__bytes_read.sum; rm -rf /"});
    EXPECT_THROW(fromJson(j, back), ProtocolError);
    j = toJson(r);
    j["clock"] = "wallclock";
    EXPECT_THROW(fromJson(j, back), ProtocolError);
    // Older requests (no profile fields) still read, with the defaults.
    j = toJson(r);
    j.erase("profile");
    j.erase("profile_metrics");
    j.erase("clock");
    fromJson(j, back);
    EXPECT_EQ(back.profile, ProfileCollection::None);
    EXPECT_EQ(back.clock, "auto");
}

TEST(ProfileProtocol, ResultFieldsRoundTrip) {
    RunResult r;
    r.id = "3";
    r.runnerExits = true;
    VariantResult v;
    v.mode = "cold";
    v.samplesMs = {0.0111, 0.0112};
    v.durationClock = kClockGpuTimeDuration;
    v.samplesByClock = {{kClockGpuTimeDuration, {0.0111, 0.0112}}, {kClockEvents, {0.0134, 0.0135}}};
    v.clockNote = "why";
    v.profile = sampleProfile();
    r.variants.push_back(v);
    RunResult back;
    fromJson(toJson(r), back);
    EXPECT_EQ(back, r);
    // A result without the new fields (an older runner): events, no profile.
    json j = toJson(r);
    j["variants"][0].erase("duration_clock");
    j["variants"][0].erase("samples_by_clock");
    j["variants"][0].erase("profile");
    j.erase("runner_exits");
    fromJson(j, back);
    EXPECT_EQ(back.variants[0].durationClock, kClockEvents);
    EXPECT_TRUE(back.variants[0].samplesByClock.empty());
    EXPECT_FALSE(back.variants[0].profile.has_value());
    EXPECT_FALSE(back.runnerExits);
    // A malformed profile is a protocol error.
    j = toJson(r);
    j["variants"][0]["profile"]["collection"] = 5;
    EXPECT_THROW(fromJson(j, back), ProtocolError);
}

} // namespace
