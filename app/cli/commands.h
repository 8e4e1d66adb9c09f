#pragma once
// Each subcommand file registers its subcommands; a callback stores the process exit code in
// `exitCode` (0 success, 1 compile/kernel error, 2 usage error or missing tool, per command docs).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace lowerscope::cli {
// Writes `j` (indented) to `path`, '-' = stdout. False, with a message on stderr, when it cannot.
bool writeJson(const nlohmann::json& j, const std::string& path);

void registerBuildCommands(CLI::App& app, int& exitCode);   // build, doctor
void registerInspectCommand(CLI::App& app, int& exitCode);  // inspect
void registerRunCommands(CLI::App& app, int& exitCode);     // run, compare
void registerExperimentCommand(CLI::App& app, int& exitCode); // experiment
void registerDiffCommand(CLI::App& app, int& exitCode);     // diff
void registerProfileCommand(CLI::App& app, int& exitCode);  // profile
void registerChartCommand(CLI::App& app, int& exitCode);    // chart
void registerCaptureCommand(CLI::App& app, int& exitCode);  // capture
void registerAdviseCommand(CLI::App& app, int& exitCode);   // advise
} // namespace lowerscope::cli
