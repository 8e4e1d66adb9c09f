// Placeholder: implemented by its owner.
#include "app/cli/commands.h"

namespace lowerscope::cli {
void registerBuildCommands(CLI::App&, int&) {}
} // namespace lowerscope::cli
