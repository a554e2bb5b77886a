// The tray icon: idle or listening in its icon, tooltip and menu, the menu's actions, and the
// tray menu as `earshot gui --screenshot --view tray` draws it offscreen.
#include <gtest/gtest.h>

#include <QAction>
#include <QImage>
#include <QMenu>
#include <QSignalSpy>
#include <QWidget>
#include <filesystem>

#include "earshot/ui/tray/tray_icon.h"
#include "gui_fixture.h"
#include "run_process.h"

namespace {

namespace fs = std::filesystem;

QStringList menuTexts(const QMenu& menu) {
    QStringList texts;
    for (const QAction* action : menu.actions()) {
        if (!action->isSeparator()) texts << action->text();
    }
    return texts;
}

TEST(DesktopTray, MenuAndIconFollowIdleAndListening) {
    earshot::test::ensure_gui_application();
    QWidget window;
    earshot::ui::TrayIcon tray(&window);
    EXPECT_FALSE(tray.isListening());
    EXPECT_EQ(menuTexts(*tray.menu()),
              (QStringList{QStringLiteral("Idle"), QStringLiteral("Start dictation"),
                           QStringLiteral("Show Earshot"), QStringLiteral("Quit")}));
    EXPECT_FALSE(tray.statusAction()->isEnabled());  // it says, it does nothing
    const QImage idle = tray.currentIcon().pixmap(32, 32).toImage();
    tray.setListening(true);
    EXPECT_EQ(tray.toggleAction()->text(), QStringLiteral("Stop dictation"));
    const QImage listening = tray.currentIcon().pixmap(32, 32).toImage();
    ASSERT_FALSE(idle.isNull());
    ASSERT_EQ(idle.size(), listening.size());
    EXPECT_NE(idle, listening);
    // The listening dot is red, in the lower right corner.
    const QColor dot = listening.pixelColor(listening.width() - 5, listening.height() - 5);
    EXPECT_GT(dot.red(), 180);
    EXPECT_LT(dot.green(), 80);

    QSignalSpy toggles(&tray, &earshot::ui::TrayIcon::toggleRequested);
    QSignalSpy quits(&tray, &earshot::ui::TrayIcon::quitRequested);
    tray.toggleAction()->trigger();
    tray.menu()->actions().constLast()->trigger();
    EXPECT_EQ(toggles.count(), 1);
    EXPECT_EQ(quits.count(), 1);
}

TEST(DesktopTray, ScreenshotOfTheTrayMenu) {
    const fs::path png = fs::temp_directory_path() / "earshot_tray_menu_test.png";
    fs::remove(png);
    const auto result = earshot::test::run_shell(
        "QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME=/nonexistent/config " +
        earshot::test::shell_quote(EARSHOT_EXE) + " gui --model " +
        earshot::test::shell_quote(EARSHOT_MICRO_MODEL_DIR) + " --view tray --screenshot " +
        earshot::test::shell_quote(png.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    QImage image(QString::fromStdString(png.string()));
    ASSERT_FALSE(image.isNull());
    // A menu of three entries: wider than tall, a few lines high.
    EXPECT_GT(image.width(), 80);
    EXPECT_GT(image.height(), 50);
    EXPECT_LT(image.height(), 300);
    fs::remove(png);
}

}  // namespace
