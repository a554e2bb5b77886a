// The pre-roll and global shortcut settings: kept in QSettings within their range, edited in the
// Settings dialog, which says whether the microphone stays open while idle.
#include <gtest/gtest.h>

#include <QDoubleSpinBox>
#include <QKeySequenceEdit>
#include <QLabel>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include "earshot/ui/settings/settings.h"
#include "earshot/ui/settings/settings_dialog.h"
#include "gui_fixture.h"

namespace earshot::ui {
namespace {

TEST(PreRollSettings, DefaultIsHalfASecondAndNoShortcut) {
    const Settings defaults;
    EXPECT_DOUBLE_EQ(defaults.preRollSeconds, 0.5);
    EXPECT_TRUE(defaults.globalShortcut.isEmpty());
}

TEST(PreRollSettings, RoundTripAndOutOfRangeValuesKeepTheDefault) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QSettings store(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
    Settings chosen;
    chosen.preRollSeconds = 1.5;
    chosen.globalShortcut = QStringLiteral("Ctrl+Alt+D");
    chosen.save(store);
    const Settings loaded = Settings::load(store);
    EXPECT_DOUBLE_EQ(loaded.preRollSeconds, 1.5);
    EXPECT_EQ(loaded.globalShortcut, QStringLiteral("Ctrl+Alt+D"));

    store.setValue(QStringLiteral("settings/pre_roll_seconds"), 60.0);
    EXPECT_DOUBLE_EQ(Settings::load(store).preRollSeconds, 0.5);
    store.setValue(QStringLiteral("settings/pre_roll_seconds"), -1.0);
    EXPECT_DOUBLE_EQ(Settings::load(store).preRollSeconds, 0.5);
    store.setValue(QStringLiteral("settings/pre_roll_seconds"), 0.0);
    EXPECT_DOUBLE_EQ(Settings::load(store).preRollSeconds, 0.0);  // off is a choice
}

TEST(PreRollSettings, TheDialogSaysWhenTheMicrophoneStaysOpen) {
    earshot::test::ensure_gui_application();
    Settings start;
    start.globalShortcut = QStringLiteral("Ctrl+Alt+D");
    SettingsDialog dialog(start, LanguageList{}, CudaAvailability{});
    EXPECT_DOUBLE_EQ(dialog.preRollBox()->value(), 0.5);
    EXPECT_EQ(dialog.preRollNote()->text().toStdString(),
              "The microphone stays open while dictation is idle; only the last 0.5 s are kept, "
              "in memory, and nothing is transcribed until you start.");
    EXPECT_EQ(dialog.shortcutEdit()->keySequence(), QKeySequence(QStringLiteral("Ctrl+Alt+D")));

    dialog.preRollBox()->setValue(0.0);
    EXPECT_EQ(dialog.preRollBox()->text(), QStringLiteral("Off"));
    EXPECT_EQ(dialog.preRollNote()->text().toStdString(),
              "The microphone is closed while dictation is idle.");
    dialog.preRollBox()->setValue(1.2);

    // A combination recorded as a user presses it.
    dialog.shortcutEdit()->clear();
    dialog.shortcutEdit()->setFocus();
    QTest::keyClick(dialog.shortcutEdit(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
    const Settings edited = dialog.settings();
    EXPECT_DOUBLE_EQ(edited.preRollSeconds, 1.2);
    EXPECT_EQ(edited.globalShortcut, QStringLiteral("Ctrl+Shift+D"));

    dialog.shortcutEdit()->clear();
    EXPECT_TRUE(dialog.settings().globalShortcut.isEmpty());
}

}  // namespace
}  // namespace earshot::ui
