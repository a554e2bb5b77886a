// The global shortcut on Wayland through the desktop portal's GlobalShortcuts interface, against a
// fake portal on a private D-Bus daemon: the trigger written as the XDG shortcuts specification
// writes it, BindShortcuts asking for the Settings' combination, and the portal's Activated signal
// starting and stopping dictation in the app's window and controller.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDBusObjectPath>
#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "desktop/portal_global_shortcut.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/settings/settings.h"
#include "fake_portal.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "qt_wait.h"
#include "source_paths.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::app::PortalGlobalShortcut;
using earshot::test::FakePortal;
using earshot::test::PortalCall;
using earshot::test::PrivateBus;
using earshot::test::spin_until;
using earshot::test::TempDir;

TEST(PortalTrigger, WritesTheXdgShortcutsSpelling) {
    using earshot::app::portal_trigger;
    EXPECT_EQ(portal_trigger(QStringLiteral("Ctrl+Alt+D")), QStringLiteral("CTRL+ALT+d"));
    EXPECT_EQ(portal_trigger(QStringLiteral("Meta+Shift+F12")), QStringLiteral("SHIFT+LOGO+F12"));
    EXPECT_EQ(portal_trigger(QStringLiteral("Ctrl+Space")), QStringLiteral("CTRL+space"));
    EXPECT_EQ(portal_trigger(QStringLiteral("Alt+7")), QStringLiteral("ALT+7"));
    EXPECT_EQ(portal_trigger(QStringLiteral("Ctrl+Shift+Pause")),
              QStringLiteral("CTRL+SHIFT+Pause"));
    EXPECT_EQ(portal_trigger(QString()), QString());
    EXPECT_EQ(portal_trigger(QStringLiteral("Ctrl+A, Ctrl+B")), QString());  // not one combination
}

// The toggle shortcut's properties in the last BindShortcuts call (and that call's session).
QVariantMap last_binding(const FakePortal& portal, QString& session) {
    const std::vector<PortalCall> binds = portal.callsTo(QStringLiteral("BindShortcuts"));
    if (binds.empty()) return {};
    session = binds.back().arguments.value(0).value<QDBusObjectPath>().path();
    const auto shortcuts = earshot::test::portal_shortcuts(binds.back().arguments.value(1));
    if (shortcuts.size() != 1 || shortcuts[0].first != QLatin1String("toggle-dictation")) return {};
    return shortcuts[0].second;
}

TEST(PortalShortcut, BindsTheSettingsTriggerAndActivatedTogglesDictation) {
    earshot::test::ensure_gui_application();
    PrivateBus bus;
    if (!bus.available()) GTEST_SKIP() << bus.error();
    const fs::path wav = earshot::test::golden_dir() / ".." / ".." / "packaging" / "samples" /
                         "please-call-me-tomorrow.wav";
    ASSERT_TRUE(fs::exists(wav)) << wav;
    FakePortal portal(bus.connect());
    ASSERT_TRUE(portal.serving());

    const TempDir dir("earshot-portal-shortcut");
    const QString settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    {
        QSettings store(settingsFile, QSettings::IniFormat);
        earshot::ui::Settings settings;
        settings.globalShortcut = QStringLiteral("Ctrl+Alt+D");
        settings.save(store);
    }
    earshot::ui::MainWindow window;
    earshot::app::GuiPaths paths;
    paths.settingsFile = settingsFile;
    paths.journal = false;
    paths.listDevices = false;
    paths.keepLayout = false;
    earshot::app::GuiController controller(window, paths);
    ASSERT_TRUE(earshot::test::open_model_and_wait(
        controller, QString::fromStdString(earshot::test::micro_model_dir().string()), QString(),
        earshot::app::GuiController::Remember::no));
    PortalGlobalShortcut shortcut(bus.connect());
    QSignalSpy bound(&shortcut, &PortalGlobalShortcut::bound);
    earshot::app::connect_portal_shortcut(shortcut, window, controller);
    ASSERT_TRUE(spin_until([&] { return bound.count() == 1; }, 5000));
    EXPECT_TRUE(shortcut.isBound());
    const QString session = portal.session(QLatin1String(FakePortal::kGlobalShortcuts));
    ASSERT_FALSE(session.isEmpty());
    QString boundIn;
    const QVariantMap binding = last_binding(portal, boundIn);
    EXPECT_EQ(boundIn, session);
    EXPECT_EQ(binding.value(QStringLiteral("preferred_trigger")).toString(),
              QStringLiteral("CTRL+ALT+d"));
    EXPECT_FALSE(binding.value(QStringLiteral("description")).toString().isEmpty());

    // Another id, or another session's shortcut, is not ours.
    portal.activate(session, QStringLiteral("something-else"));
    portal.activate(session + QStringLiteral("x"), QStringLiteral("toggle-dictation"));
    spin_until([] { return false; }, 300);
    EXPECT_FALSE(window.livePanel()->showsRunning());

    // The input is the sample file, paced as a microphone would deliver it.
    window.livePanel()->setDevices({{QStringLiteral("file:") + QString::fromStdString(wav.string()),
                                     QStringLiteral("sample"), true}});
    window.livePanel()->devicePicker()->setCurrentIndex(1);  // after "Default input"
    ASSERT_TRUE(window.livePanel()->selectedDevice().startsWith(QStringLiteral("file:")));

    QSignalSpy activations(&shortcut, &PortalGlobalShortcut::activated);
    portal.activate(session, QStringLiteral("toggle-dictation"));
    ASSERT_TRUE(spin_until([&] { return window.livePanel()->showsRunning(); }, 5000))
        << activations.count() << " activations; " << window.livePanel()->statusText().toStdString()
        << " / " << window.statusBar()->currentMessage().toStdString();
    EXPECT_TRUE(controller.live().isRunning());
    portal.activate(session, QStringLiteral("toggle-dictation"));
    EXPECT_TRUE(spin_until([&] { return !controller.live().isRunning(); }, 30000));
    EXPECT_FALSE(window.livePanel()->showsRunning());

    // A new combination in Settings is bound again, in the same session.
    earshot::ui::Settings changed = controller.settings();
    changed.globalShortcut = QStringLiteral("Ctrl+Shift+F9");
    Q_EMIT window.settingsChanged(changed);
    ASSERT_TRUE(spin_until([&] { return bound.count() == 2; }, 5000));
    EXPECT_EQ(last_binding(portal, boundIn).value(QStringLiteral("preferred_trigger")).toString(),
              QStringLiteral("CTRL+SHIFT+F9"));
    EXPECT_EQ(boundIn, session);
    EXPECT_EQ(portal.callsTo(QStringLiteral("CreateSession")).size(), 1u);
}

// Hold to talk on Wayland: the portal's Activated starts dictation, Deactivated (the shortcut let
// go) stops it, and what was queued is still committed.
TEST(PortalShortcut, HoldToTalkRunsFromActivatedToDeactivated) {
    earshot::test::ensure_gui_application();
    PrivateBus bus;
    if (!bus.available()) GTEST_SKIP() << bus.error();
    const fs::path wav = earshot::test::golden_dir() / ".." / ".." / "packaging" / "samples" /
                         "please-call-me-tomorrow.wav";
    ASSERT_TRUE(fs::exists(wav)) << wav;
    FakePortal portal(bus.connect());
    ASSERT_TRUE(portal.serving());
    const TempDir dir("earshot-portal-hold");
    const QString settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    {
        QSettings store(settingsFile, QSettings::IniFormat);
        earshot::ui::Settings settings;
        settings.globalShortcut = QStringLiteral("Ctrl+Alt+D");
        settings.shortcutMode = QStringLiteral("hold");
        settings.save(store);
    }
    earshot::ui::MainWindow window;
    earshot::app::GuiPaths paths;
    paths.settingsFile = settingsFile;
    paths.journal = false;
    paths.listDevices = false;
    paths.keepLayout = false;
    earshot::app::GuiController controller(window, paths);
    ASSERT_EQ(controller.settings().shortcutMode, QStringLiteral("hold"));
    ASSERT_TRUE(earshot::test::open_model_and_wait(
        controller, QString::fromStdString(earshot::test::micro_model_dir().string()), QString(),
        earshot::app::GuiController::Remember::no));
    PortalGlobalShortcut shortcut(bus.connect());
    QSignalSpy bound(&shortcut, &PortalGlobalShortcut::bound);
    earshot::app::connect_portal_shortcut(shortcut, window, controller);
    ASSERT_TRUE(spin_until([&] { return bound.count() == 1; }, 5000));
    const QString session = portal.session(QLatin1String(FakePortal::kGlobalShortcuts));
    // The sentence and 10 s of silence: only Deactivated can end it within a few seconds.
    const fs::path padded = dir.path() / "padded.wav";
    ASSERT_EQ(
        std::system(("sox '" + wav.string() + "' '" + padded.string() + "' pad 0 10").c_str()), 0);
    window.livePanel()->setDevices(
        {{QStringLiteral("file:") + QString::fromStdString(padded.string()),
          QStringLiteral("sample"), true}});
    window.livePanel()->devicePicker()->setCurrentIndex(1);

    portal.activate(session, QStringLiteral("toggle-dictation"));
    ASSERT_TRUE(spin_until([&] { return controller.liveRunning(); }, 5000));
    // Held: it keeps running (a hold is not a tap).
    spin_until([] { return false; }, 1000);
    EXPECT_TRUE(controller.liveRunning());
    portal.deactivate(session, QStringLiteral("toggle-dictation"));
    EXPECT_TRUE(spin_until([&] { return !controller.live().isRunning(); }, 5000))
        << "letting go did not stop dictation";
    EXPECT_FALSE(window.livePanel()->showsRunning());
}

TEST(PortalShortcut, ACancelledBindingIsReportedInTheStatusBar) {
    earshot::test::ensure_gui_application();
    PrivateBus bus;
    if (!bus.available()) GTEST_SKIP() << bus.error();
    FakePortal portal(bus.connect());
    ASSERT_TRUE(portal.serving());
    portal.answer(QStringLiteral("BindShortcuts"), 1);
    earshot::ui::MainWindow window;
    const TempDir dir("earshot-portal-shortcut");
    earshot::app::GuiPaths paths;
    paths.settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    paths.journal = false;
    paths.listDevices = false;
    paths.keepLayout = false;
    earshot::app::GuiController controller(window, paths);
    earshot::ui::Settings settings = controller.settings();
    settings.globalShortcut = QStringLiteral("Ctrl+Alt+D");
    controller.applySettings(settings);

    PortalGlobalShortcut shortcut(bus.connect());
    QSignalSpy failed(&shortcut, &PortalGlobalShortcut::failed);
    earshot::app::connect_portal_shortcut(shortcut, window, controller);
    ASSERT_TRUE(spin_until([&] { return failed.count() == 1; }, 5000));
    const QString expected = QStringLiteral(
        "The global shortcut Ctrl+Alt+D was not bound: the desktop's dialog was cancelled");
    EXPECT_EQ(failed.at(0).at(0).toString(), expected);
    EXPECT_EQ(window.statusBar()->currentMessage(), expected);
    EXPECT_FALSE(shortcut.isBound());
}

TEST(PortalShortcut, WithoutAPortalTheFailureNamesIt) {
    earshot::test::ensure_gui_application();
    PrivateBus bus;
    if (!bus.available()) GTEST_SKIP() << bus.error();
    PortalGlobalShortcut shortcut(bus.connect());  // nobody serves the portal on this bus
    QSignalSpy failed(&shortcut, &PortalGlobalShortcut::failed);
    shortcut.setShortcut(QStringLiteral("Ctrl+Alt+D"));
    ASSERT_TRUE(spin_until([&] { return failed.count() == 1; }, 5000));
    EXPECT_TRUE(failed.at(0).at(0).toString().startsWith(
        QStringLiteral("The desktop has no global shortcuts portal (")))
        << failed.at(0).at(0).toString().toStdString();
}

}  // namespace
