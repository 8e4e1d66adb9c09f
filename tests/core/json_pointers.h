#pragma once

// JSON-mutation test helper shared by session_test and report_test.

#include <nlohmann/json.hpp>

#include <vector>

namespace lowerscope::testutil {

// Every JSON pointer inside `j` (objects and arrays included), for mutation tests.
inline void allPointers(const nlohmann::json& j, const nlohmann::json::json_pointer& at,
                        std::vector<nlohmann::json::json_pointer>& out) {
    out.push_back(at);
    if (j.is_object())
        for (const auto& [k, v] : j.items()) allPointers(v, at / k, out);
    else if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) allPointers(j[i], at / i, out);
}

} // namespace lowerscope::testutil
