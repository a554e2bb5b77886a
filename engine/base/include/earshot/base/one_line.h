// one_line: text made safe to show on one line of an error message (a file name, a parser's
// complaint), for every module's typed errors.
#pragma once

#include <string>
#include <string_view>

namespace earshot::base {

// Escapes control characters (newlines included) as \xNN, so that what() is always a single line.
std::string one_line(std::string_view text);

}  // namespace earshot::base
