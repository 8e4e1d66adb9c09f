// Placeholder: implemented by its owner.
#include "app/cli/commands.h"

namespace lowerscope::cli {
void registerInspectCommand(CLI::App&, int&) {}
} // namespace lowerscope::cli
