// The runner's CUPTI failures travel as RunErrorKind: each class of CUPTI error gets its own kind
// and wire name, so the CLI and the GUI switch on the enum, never on a string.
#include "app/runner/cupti_api.h"
#include "app/runner/profile_procedure.h"

#include <gtest/gtest.h>

using namespace lowerscope;
using namespace lowerscope::runner;

TEST(CuptiFailure, ErrorCodesMapToProtocolKinds) {
    EXPECT_EQ(cuptiFailureKind(classifyCuptiError(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)),
              RunErrorKind::ProfilingNotPermitted);
    EXPECT_EQ(cuptiFailureKind(classifyCuptiError(CUPTI_ERROR_HARDWARE_BUSY)), RunErrorKind::ProfilerBusy);
    EXPECT_EQ(cuptiFailureKind(CuptiFailure::Missing), RunErrorKind::NoCupti);
    EXPECT_EQ(cuptiFailureKind(CuptiFailure::UnsupportedGpu), RunErrorKind::ProfilingUnsupported);
    EXPECT_EQ(cuptiFailureKind(CuptiFailure::Other), RunErrorKind::CuptiError);
    // None is not a failure a request can end with: still a CUPTI error, never Unknown.
    EXPECT_EQ(cuptiFailureKind(CuptiFailure::None), RunErrorKind::CuptiError);
    EXPECT_STREQ(runErrorKindName(cuptiFailureKind(CuptiFailure::InsufficientPrivileges)),
                 "profiling_not_permitted");
}

TEST(CuptiFailure, ProfileFailureCarriesTheKind) {
    const ProfileFailure f(CuptiFailure::Busy, "another profiler holds the counters");
    EXPECT_EQ(f.kind, RunErrorKind::ProfilerBusy);
    EXPECT_STREQ(f.what(), "another profiler holds the counters");
}
