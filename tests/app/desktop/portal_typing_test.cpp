// Typing on Wayland through the desktop portal's RemoteDesktop keyboard, against a fake portal on
// a private D-Bus daemon: the session's calls, each character's keysym pressed and released in
// order, and a desktop that refuses (one clear message, the text typed by wtype instead).
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDBusObjectPath>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "desktop/focused_window_typer.h"
#include "desktop/portal_keyboard.h"
#include "fake_portal.h"
#include "gui_fixture.h"
#include "qt_wait.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::app::FocusedWindowTyper;
using earshot::test::FakePortal;
using earshot::test::PortalCall;
using earshot::test::PrivateBus;
using earshot::test::spin_until;
using earshot::test::TempDir;

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : m_name(name) {
        const char* old = std::getenv(name);
        m_had = old != nullptr;
        if (m_had) m_old = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (m_had) {
            ::setenv(m_name, m_old.c_str(), 1);
        } else {
            ::unsetenv(m_name);
        }
    }

private:
    const char* m_name;
    std::string m_old;
    bool m_had = false;
};

// The X keysyms of a phrase, from X11's keysymdef.h by hand: Latin-1 letters and punctuation are
// their own codes, others 0x01000000 + the code point (one for a character beyond the Basic
// Multilingual Plane, not two surrogates), newline and tab are Return and Tab.
TEST(PortalKeysyms, FollowTheKeysymTable) {
    const QString text = QStringLiteral("Hi, Zo\u00eb! \u0141\u00f3d\u017a?\n\t") +
                         QString::fromStdU32String(U"\U0001F600");
    EXPECT_EQ(
        earshot::app::portal_keysyms(text),
        (std::vector<std::int32_t>{0x48, 0x69, 0x2c, 0x20, 0x5a, 0x6f, 0xeb, 0x21, 0x20, 0x1000141,
                                   0xf3, 0x64, 0x100017a, 0x3f, 0xff0d, 0xff09, 0x101f600}));
    // Other control characters have no key.
    EXPECT_EQ(earshot::app::portal_keysyms(QStringLiteral("a\u0007b")),
              (std::vector<std::int32_t>{0x61, 0x62}));
}

// A private bus with the fake portal, a Wayland session as the typer sees it, and a `wtype` on
// PATH that writes what it was asked to type into a file.
class PortalTyping : public ::testing::Test {
protected:
    void SetUp() override {
        earshot::test::ensure_gui_application();
        if (!m_bus.available()) GTEST_SKIP() << m_bus.error();
        m_client = m_bus.connect();
        ASSERT_TRUE(m_client.isConnected());
        const fs::path wtype = m_dir.path() / "bin" / "wtype";
        fs::create_directories(wtype.parent_path());
        std::ofstream(wtype) << "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" << typed_file().string()
                             << "'\n";
        fs::permissions(wtype, fs::perms::owner_all);
        const char* path = std::getenv("PATH");
        m_path = std::make_unique<ScopedEnv>(
            "PATH", (wtype.parent_path().string() + ":" + (path != nullptr ? path : "")));
    }

    fs::path typed_file() const { return m_dir.path() / "typed.txt"; }
    std::string typed() const {
        std::ifstream in(typed_file());
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    // The remote-desktop restore token: <XDG_CONFIG_HOME>/earshot/remote-desktop-restore-token.
    fs::path token_file() const {
        return m_dir.path() / "config" / "earshot" / "remote-desktop-restore-token";
    }

    TempDir m_dir{"earshot-portal-typing"};
    ScopedEnv m_config{"XDG_CONFIG_HOME", (m_dir.path() / "config").string()};
    ScopedEnv m_wayland{"WAYLAND_DISPLAY", "wayland-earshot-test"};
    std::unique_ptr<ScopedEnv> m_path;
    PrivateBus m_bus;
    QDBusConnection m_client{QString()};
};

std::vector<std::pair<std::int32_t, uint>> keysym_events(const FakePortal& portal,
                                                         const QString& session) {
    std::vector<std::pair<std::int32_t, uint>> events;
    for (const PortalCall& call : portal.callsTo(QStringLiteral("NotifyKeyboardKeysym"))) {
        EXPECT_EQ(call.interface, QLatin1String(FakePortal::kRemoteDesktop));
        EXPECT_EQ(call.arguments.value(0).value<QDBusObjectPath>().path(), session);
        events.emplace_back(call.arguments.value(2).toInt(), call.arguments.value(3).toUInt());
    }
    return events;
}

// Press and release of each character's keysym, computed here from the text's code points.
std::vector<std::pair<std::int32_t, uint>> expected_events(const std::u32string& text) {
    std::vector<std::pair<std::int32_t, uint>> events;
    for (const char32_t c : text) {
        const auto keysym = static_cast<std::int32_t>(c <= 0xff ? c : 0x01000000u | c);
        events.emplace_back(keysym, 1u);
        events.emplace_back(keysym, 0u);
    }
    return events;
}

TEST_F(PortalTyping, ACommittedPhraseIsTypedAsKeysymPressesAndReleases) {
    FakePortal portal(m_bus.connect());
    ASSERT_TRUE(portal.serving());
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);
    EXPECT_EQ(typer.wayInUse(), QStringLiteral("the desktop portal's remote-desktop keyboard"));

    const std::u32string phrase = U"Call Zoë at 5, please: Łódź!";
    EXPECT_EQ(typer.send(QString::fromStdU32String(phrase)), QString());
    ASSERT_TRUE(spin_until(
        [&] {
            return portal.callsTo(QStringLiteral("NotifyKeyboardKeysym")).size() ==
                   2 * phrase.size();
        },
        5000))
        << portal.callsTo(QStringLiteral("NotifyKeyboardKeysym")).size() << " key events";
    // The session first: created, the keyboard selected, started.
    const QString session = portal.session(QLatin1String(FakePortal::kRemoteDesktop));
    ASSERT_FALSE(session.isEmpty());
    std::vector<QString> order;
    for (const PortalCall& call : portal.calls()) {
        if (order.empty() || order.back() != call.member) order.push_back(call.member);
    }
    EXPECT_EQ(order, (std::vector<QString>{QStringLiteral("CreateSession"),
                                           QStringLiteral("SelectDevices"), QStringLiteral("Start"),
                                           QStringLiteral("NotifyKeyboardKeysym")}));
    const PortalCall select = portal.callsTo(QStringLiteral("SelectDevices")).at(0);
    EXPECT_EQ(select.arguments.value(0).value<QDBusObjectPath>().path(), session);
    EXPECT_EQ(earshot::test::portal_map(select.arguments.value(1))
                  .value(QStringLiteral("types"))
                  .toUInt(),
              1u);  // the keyboard
    EXPECT_EQ(keysym_events(portal, session), expected_events(phrase));
    // The capital, the space and the non-ASCII letters as the table has them.
    EXPECT_EQ(keysym_events(portal, session).at(0).first, 0x43);        // C
    EXPECT_EQ(keysym_events(portal, session).at(8).first, 0x20);        // space
    EXPECT_EQ(keysym_events(portal, session).at(14).first, 0xeb);       // ë
    EXPECT_EQ(keysym_events(portal, session).at(46).first, 0x1000141);  // Ł

    // The next piece goes into the running session: no second session, and nothing reached wtype.
    const std::u32string more = U" Done.";
    EXPECT_EQ(typer.send(QString::fromStdU32String(more)), QString());
    ASSERT_TRUE(spin_until(
        [&] {
            return portal.callsTo(QStringLiteral("NotifyKeyboardKeysym")).size() ==
                   2 * (phrase.size() + more.size());
        },
        5000));
    EXPECT_EQ(keysym_events(portal, session), expected_events(phrase + more));
    EXPECT_EQ(portal.callsTo(QStringLiteral("CreateSession")).size(), 1u);
    EXPECT_EQ(typed(), "");
}

TEST_F(PortalTyping, ARefusedSessionSaysSoOnceAndTheTextGoesThroughWtype) {
    FakePortal portal(m_bus.connect());
    ASSERT_TRUE(portal.serving());
    portal.answer(QStringLiteral("Start"), 1);  // the user cancelled the desktop's dialog
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);
    QSignalSpy failures(&typer, &FocusedWindowTyper::sendFailed);

    EXPECT_EQ(typer.send(QStringLiteral("Hello there.")), QString());
    ASSERT_TRUE(spin_until([&] { return failures.count() > 0; }, 5000));
    EXPECT_EQ(failures.at(0).at(0).toString(),
              QStringLiteral("The desktop refused keyboard access through its remote-desktop "
                             "portal (Start was cancelled); typing with wtype instead"));
    EXPECT_EQ(typed(), "-- Hello there.\n");
    EXPECT_TRUE(portal.callsTo(QStringLiteral("NotifyKeyboardKeysym")).empty());

    // From now on wtype types at once, without asking the desktop again or repeating the message.
    EXPECT_EQ(typer.wayInUse(), QStringLiteral("wtype"));
    EXPECT_EQ(typer.send(QStringLiteral("Bye")), QString());
    EXPECT_EQ(typed(), "-- Hello there.\n-- Bye\n");
    spin_until([] { return false; }, 200);
    EXPECT_EQ(failures.count(), 1);
    EXPECT_EQ(portal.callsTo(QStringLiteral("CreateSession")).size(), 1u);
    EXPECT_EQ(portal.callsTo(QStringLiteral("Start")).size(), 1u);
}

TEST_F(PortalTyping, ADesktopWithoutTheKeyboardGrantedFallsBackToo) {
    FakePortal portal(m_bus.connect());
    ASSERT_TRUE(portal.serving());
    portal.grantDevices(2);  // the pointer only
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);
    QSignalSpy failures(&typer, &FocusedWindowTyper::sendFailed);
    EXPECT_EQ(typer.send(QStringLiteral("Yes")), QString());
    ASSERT_TRUE(spin_until([&] { return failures.count() > 0; }, 5000));
    EXPECT_EQ(failures.at(0).at(0).toString(),
              QStringLiteral("The desktop's remote-desktop portal did not grant the keyboard; "
                             "typing with wtype instead"));
    EXPECT_EQ(typed(), "-- Yes\n");
}

// SelectDevices' options in the order the sessions asked.
std::vector<QVariantMap> device_options(const FakePortal& portal) {
    std::vector<QVariantMap> options;
    for (const PortalCall& call : portal.callsTo(QStringLiteral("SelectDevices"))) {
        options.push_back(earshot::test::portal_map(call.arguments.value(1)));
    }
    return options;
}

std::string file_text(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Typing in two sessions (two runs of the app): the first asks for persistence and keeps the
// token the portal returns; the second hands it back, and the desktop shows its dialog once.
TEST_F(PortalTyping, TheNextSessionSendsTheRestoreTokenSoTheDesktopAsksOnce) {
    FakePortal portal(m_bus.connect());
    ASSERT_TRUE(portal.serving());
    portal.issueRestoreTokens(false);
    const auto keyEvents = [&] {
        return portal.callsTo(QStringLiteral("NotifyKeyboardKeysym")).size();
    };
    {
        FocusedWindowTyper typer;
        typer.setPortalBus(m_client);
        EXPECT_EQ(typer.send(QStringLiteral("One")), QString());
        ASSERT_TRUE(spin_until([&] { return keyEvents() == 6; }, 5000)) << keyEvents();
    }
    ASSERT_EQ(device_options(portal).size(), 1u);
    EXPECT_EQ(device_options(portal)[0].value(QStringLiteral("persist_mode")).toUInt(), 2u);
    EXPECT_FALSE(device_options(portal)[0].contains(QStringLiteral("restore_token")));
    EXPECT_EQ(file_text(token_file()), "restore-1\n");
    EXPECT_EQ(fs::status(token_file()).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write);
    {
        FocusedWindowTyper typer;
        typer.setPortalBus(m_client);
        EXPECT_EQ(typer.send(QStringLiteral("Two")), QString());
        ASSERT_TRUE(spin_until([&] { return keyEvents() == 12; }, 5000)) << keyEvents();
    }
    ASSERT_EQ(device_options(portal).size(), 2u);
    EXPECT_EQ(device_options(portal)[1].value(QStringLiteral("restore_token")).toString(),
              QStringLiteral("restore-1"));
    EXPECT_EQ(device_options(portal)[1].value(QStringLiteral("persist_mode")).toUInt(), 2u);
    EXPECT_EQ(portal.callsTo(QStringLiteral("CreateSession")).size(), 2u);
    EXPECT_EQ(portal.dialogsShown(), 1);
    // A token is good once: the second session's replaces it.
    EXPECT_EQ(file_text(token_file()), "restore-2\n");
    EXPECT_EQ(typed(), "");
}

// A stored token the desktop refuses (expired, revoked): it is dropped, the session is asked for
// again without it (the desktop asks the user), and the text is typed through the portal.
TEST_F(PortalTyping, ARefusedRestoreTokenIsDroppedAndTheDesktopAsksAgain) {
    FakePortal portal(m_bus.connect());
    ASSERT_TRUE(portal.serving());
    portal.issueRestoreTokens(true);
    fs::create_directories(token_file().parent_path());
    std::ofstream(token_file()) << "restore-expired\n";
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);
    QSignalSpy failures(&typer, &FocusedWindowTyper::sendFailed);

    EXPECT_EQ(typer.send(QStringLiteral("Hi")), QString());
    ASSERT_TRUE(spin_until(
        [&] { return portal.callsTo(QStringLiteral("NotifyKeyboardKeysym")).size() == 4; }, 5000));
    const std::vector<QVariantMap> options = device_options(portal);
    ASSERT_EQ(options.size(), 2u);
    EXPECT_EQ(options[0].value(QStringLiteral("restore_token")).toString(),
              QStringLiteral("restore-expired"));
    EXPECT_FALSE(options[1].contains(QStringLiteral("restore_token")));
    EXPECT_EQ(options[1].value(QStringLiteral("persist_mode")).toUInt(), 2u);
    EXPECT_EQ(portal.callsTo(QStringLiteral("CreateSession")).size(), 2u);
    EXPECT_EQ(portal.dialogsShown(), 1);
    EXPECT_EQ(file_text(token_file()), "restore-1\n");
    EXPECT_EQ(failures.count(), 0);
    EXPECT_EQ(typed(), "");
}

// The user cancelling the dialog is an answer even with a token: no second dialog.
TEST_F(PortalTyping, ACancelledDialogWithATokenIsNotAskedAgain) {
    FakePortal portal(m_bus.connect());
    ASSERT_TRUE(portal.serving());
    portal.issueRestoreTokens(false);
    portal.answer(QStringLiteral("Start"), 1);
    fs::create_directories(token_file().parent_path());
    std::ofstream(token_file()) << "restore-old\n";
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);
    QSignalSpy failures(&typer, &FocusedWindowTyper::sendFailed);
    EXPECT_EQ(typer.send(QStringLiteral("No")), QString());
    ASSERT_TRUE(spin_until([&] { return failures.count() > 0; }, 5000));
    EXPECT_EQ(portal.callsTo(QStringLiteral("CreateSession")).size(), 1u);
    EXPECT_EQ(typed(), "-- No\n");
    EXPECT_FALSE(fs::exists(token_file()));  // it restored nothing
}

TEST_F(PortalTyping, WithoutAPortalOnTheBusWtypeTypesAtOnce) {
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);  // nobody serves the portal here
    EXPECT_EQ(typer.wayInUse(), QStringLiteral("wtype"));
    EXPECT_EQ(typer.send(QStringLiteral("Plain text")), QString());
    EXPECT_EQ(typed(), "-- Plain text\n");
}

TEST_F(PortalTyping, TheClipboardSettingIsNamedAsTheWayInUse) {
    FakePortal portal(m_bus.connect());
    FocusedWindowTyper typer;
    typer.setPortalBus(m_client);
    typer.setMethod(earshot::app::TypingMethod::clipboard);
    EXPECT_EQ(typer.wayInUse(), QStringLiteral("the clipboard and the paste shortcut"));
}

}  // namespace
