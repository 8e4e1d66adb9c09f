#include "core/run/output_agreement.h"

#include "core/run/buffer_data.h"

#include <algorithm>

namespace lowerscope {

std::vector<OutputAgreement> agreeOutputs(const std::string& labelA, const std::vector<OutputBytes>& a,
                                          const std::string& labelB, const std::vector<OutputBytes>& b, double atol,
                                          double rtol) {
    static const std::vector<uint8_t> kNone;
    std::vector<OutputAgreement> out;
    for (size_t j = 0; j < std::min(a.size(), b.size()); ++j) {
        const OutputBytes& oa = a[j];
        const OutputBytes& ob = b[j];
        const std::vector<uint8_t>& da = oa.data ? *oa.data : kNone;
        const std::vector<uint8_t>& db = ob.data ? *ob.data : kNone;
        OutputAgreement g;
        g.name = oa.name;
        g.labelA = labelA;
        g.labelB = labelB;
        g.sameDigest = da == db;
        if (oa.type != ob.type) {
            g.sizeMismatch = true;
        } else {
            const BufferComparison c = compareBuffers(oa.type, da, db, atol, rtol);
            g.sizeMismatch = c.sizeMismatch;
            g.count = c.count;
            g.mismatches = c.mismatches;
            g.maxAbsError = c.maxAbsError;
            g.maxRelError = c.maxRelError;
            g.firstMismatch = c.firstMismatch;
        }
        g.agree = g.sameDigest || (!g.sizeMismatch && g.mismatches == 0);
        out.push_back(std::move(g));
    }
    return out;
}

} // namespace lowerscope
