// Settings' "Start with the desktop": the XDG autostart entry it writes (Exec quoted as the
// Desktop Entry Specification says, `gui --hidden`), removes, and reads back as the setting.
#include "desktop/autostart_entry.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QSettings>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "earshot/ui/main_window.h"
#include "earshot/ui/settings/settings.h"
#include "gui/gui_controller.h"
#include "gui_fixture.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// XDG_CONFIG_HOME pointed at a temporary folder for one test.
class AutostartEntry : public ::testing::Test {
protected:
    void SetUp() override {
        ensure_gui_application();
        const char* previous = std::getenv("XDG_CONFIG_HOME");
        m_had = previous != nullptr;
        if (m_had) m_previous = previous;
        ::setenv("XDG_CONFIG_HOME", (m_dir.path() / "config").c_str(), 1);
    }
    void TearDown() override {
        if (m_had) {
            ::setenv("XDG_CONFIG_HOME", m_previous.c_str(), 1);
        } else {
            ::unsetenv("XDG_CONFIG_HOME");
        }
    }
    fs::path entry() const { return m_dir.path() / "config" / "autostart" / "earshot.desktop"; }

    TempDir m_dir{"earshot-autostart"};
    std::string m_previous;
    bool m_had = false;
};

TEST_F(AutostartEntry, WritesTheHiddenStartAndRemovesIt) {
    EXPECT_EQ(app::autostart_entry_path().toStdString(), entry().string());
    EXPECT_FALSE(app::autostart_entry_exists());
    ASSERT_EQ(app::write_autostart_entry(QStringLiteral("/opt/my apps/earshot")), QString());
    ASSERT_TRUE(fs::exists(entry()));
    const std::string text = read_all(entry());
    EXPECT_TRUE(text.starts_with("[Desktop Entry]\n")) << text;
    EXPECT_NE(text.find("\nType=Application\n"), std::string::npos) << text;
    // A path with a space is quoted; the entry starts the app in the tray.
    EXPECT_NE(text.find("\nExec=\"/opt/my apps/earshot\" gui --hidden\n"), std::string::npos)
        << text;
    EXPECT_TRUE(app::autostart_entry_exists());
    EXPECT_EQ(app::remove_autostart_entry(), QString());
    EXPECT_FALSE(fs::exists(entry()));
    EXPECT_EQ(app::remove_autostart_entry(), QString());  // already gone: nothing to say
    // A plain path stays as it is; $ and " are escaped inside quotes.
    ASSERT_EQ(app::write_autostart_entry(QStringLiteral("/usr/bin/earshot")), QString());
    EXPECT_NE(read_all(entry()).find("\nExec=/usr/bin/earshot gui --hidden\n"), std::string::npos);
    ASSERT_EQ(app::write_autostart_entry(QStringLiteral("/tmp/a$b\"c/earshot")), QString());
    EXPECT_NE(read_all(entry()).find("\nExec=\"/tmp/a\\$b\\\"c/earshot\" gui --hidden\n"),
              std::string::npos)
        << read_all(entry());
}

TEST_F(AutostartEntry, TheSettingIsTheEntryOnDisk) {
    app::GuiPaths paths = settings_only_gui_paths(m_dir);
    {
        ui::MainWindow window;
        app::GuiController controller(window, paths);
        EXPECT_FALSE(controller.settings().startWithDesktop);
        ui::Settings on = controller.settings();
        on.startWithDesktop = true;
        controller.applySettings(on);
        EXPECT_TRUE(fs::exists(entry()));
        EXPECT_TRUE(controller.settings().startWithDesktop);
    }
    {
        // A new session reads the choice from the entry.
        ui::MainWindow window;
        app::GuiController controller(window, paths);
        EXPECT_TRUE(controller.settings().startWithDesktop);
        ui::Settings off = controller.settings();
        off.startWithDesktop = false;
        controller.applySettings(off);
        EXPECT_FALSE(fs::exists(entry()));
    }
    // Removed by hand: the next session says off.
    ASSERT_EQ(app::write_autostart_entry(QStringLiteral("/usr/bin/earshot")), QString());
    QFile::remove(QString::fromStdString(entry().string()));
    ui::MainWindow window;
    app::GuiController controller(window, paths);
    EXPECT_FALSE(controller.settings().startWithDesktop);
}

}  // namespace
}  // namespace earshot::test
