// The GUI's files in a test's own folder, for the Files page tests: settings, journal and the
// results history, no device listing and no saved window layout.
#pragma once

#include <QString>
#include <filesystem>

#include "gui/gui_controller.h"
#include "temp_dir.h"

namespace earshot::test {

inline app::GuiPaths files_gui_paths(const TempDir& dir) {
    auto q = [](const std::filesystem::path& path) {
        return QString::fromStdString(path.string());
    };
    app::GuiPaths paths;
    paths.settingsFile = q(dir.path() / "settings.ini");
    paths.journalFile = q(dir.path() / "journal.txt");
    paths.filesHistoryDir = q(dir.path() / "results");
    paths.listDevices = false;
    paths.keepLayout = false;
    return paths;
}

}  // namespace earshot::test
