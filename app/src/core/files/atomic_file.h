// Writing an output file so that its real name only ever holds a whole file: the text goes to a
// temporary file beside it, is flushed to disk, and is renamed over the name.
#pragma once

#include <filesystem>
#include <string_view>

namespace earshot::app {

// Writes `bytes` to `path` atomically: a crash, SIGKILL or full disk at any moment leaves either
// the previous file (or none) or the complete new one under `path`, never a part. The temporary
// file is `.<name>.tmp-<pid>-<n>` in the same folder (so the rename stays on one file system) and
// is removed when the write fails. New files get mode 0666 less the umask, as std::ofstream
// would. Throws std::runtime_error naming `path` and the system's reason ("No space left on
// device", "Permission denied", ...) on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace earshot::app
