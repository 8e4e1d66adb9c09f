#pragma once
// Outputs kept for later comparison (`run`/`compare --keep-outputs DIR`) and the
// `compare-outputs` subcommand that compares two such folders (kept_outputs.cpp).

#include "app/cli/compare_run.h"
#include "core/run/protocol.h"

#include <CLI/CLI.hpp>

#include <string>

namespace lowerscope::cli {

// Writes each returned output of `v` to DIR/<name>.bin and DIR/outputs.json (creating DIR).
// Throws CliFailure (exit 2) when a file cannot be written.
void keepOutputs(const std::string& dir, const VariantResult& v);

// Registers `compare-outputs`.
void registerCompareOutputsCommand(CLI::App& app, int& exitCode);

} // namespace lowerscope::cli
