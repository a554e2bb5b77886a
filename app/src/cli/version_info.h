// `earshot --version`: the release, the backends this build carries and where the embedded model
// is.
#pragma once

#include <string>

namespace earshot::app {

// Several lines, the first "earshot <version>"; ends without a newline (CLI11 adds one).
std::string version_text();

}  // namespace earshot::app
