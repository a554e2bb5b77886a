// What "Type into the focused window" sends for each committed piece: spacing and capitals follow
// what was already sent, and only committed text goes out.
#include <gtest/gtest.h>

#include <QStringList>

#include "earshot/ui/live/dictation_target.h"

namespace {

using earshot::ui::DictationTarget;
using earshot::ui::LiveTextUpdate;

QString send(const QString& before, const QString& piece) {
    return DictationTarget::textToSend(before, piece);
}

TEST(DesktopDictationText, SpacesBetweenWordsAndNoneBeforePunctuation) {
    // The first piece without Whisper's leading space, in Whisper's case.
    EXPECT_EQ(send(QString(), QStringLiteral(" please call")), QStringLiteral("please call"));
    EXPECT_EQ(send(QString(), QStringLiteral(" Please call")), QStringLiteral("Please call"));
    EXPECT_EQ(send(QStringLiteral("Please call"), QStringLiteral(" me")), QStringLiteral(" me"));
    EXPECT_EQ(send(QStringLiteral("Please call me"), QStringLiteral(".")), QStringLiteral("."));
    EXPECT_EQ(send(QStringLiteral("Yes"), QStringLiteral(" ,")), QStringLiteral(","));
    // A piece without Whisper's leading space continues the word before.
    EXPECT_EQ(send(QStringLiteral("Call me tomor"), QStringLiteral("row")), QStringLiteral("row"));
    // What the user typed after the last piece already ends in a space: no second one.
    EXPECT_EQ(send(QStringLiteral("Call me "), QStringLiteral(" now")), QStringLiteral("now"));
    EXPECT_EQ(send(QStringLiteral("x"), QStringLiteral("   ")), QString());
}

TEST(DesktopDictationText, CapitalAfterASentenceEnd) {
    EXPECT_EQ(send(QStringLiteral("Call me."), QStringLiteral(" thank you")),
              QStringLiteral(" Thank you"));
    EXPECT_EQ(send(QStringLiteral("Really?"), QStringLiteral("yes")), QStringLiteral(" Yes"));
    EXPECT_EQ(send(QStringLiteral("Call me,"), QStringLiteral(" thank you")),
              QStringLiteral(" thank you"));
    EXPECT_EQ(send(QStringLiteral("Done."), QStringLiteral(" 3 rooms")),
              QStringLiteral(" 3 rooms"));
}

TEST(DesktopDictationText, OnlyCommittedTextReachesTheSink) {
    DictationTarget target;
    QStringList sent;
    target.setSink([&sent](const QString& text) {
        sent << text;
        return QString();
    });
    LiveTextUpdate update;
    update.committedText = QStringLiteral(" Please");
    update.tentativeText = QStringLiteral(" call me");
    target.apply(update);
    EXPECT_TRUE(sent.isEmpty()) << "disabled: nothing is sent";
    target.setEnabled(true);
    target.apply(update);
    update.committedText = QString();
    update.tentativeText = QStringLiteral(" call me tomorrow");
    target.apply(update);
    update.committedText = QStringLiteral(" call me tomorrow.");
    update.tentativeText = QString();
    target.apply(update);
    EXPECT_EQ(sent, (QStringList{QStringLiteral("Please"), QStringLiteral(" call me tomorrow.")}));
    EXPECT_EQ(target.sent(), QStringLiteral("Please call me tomorrow."));
}

TEST(DesktopDictationText, ASinkFailureIsReportedAndNotCountedAsSent) {
    DictationTarget target;
    target.setEnabled(true);
    target.setSink([](const QString&) {
        return QStringLiteral(
            "Typing into other windows on Wayland needs wtype or ydotool: "
            "install the Debian package wtype (or ydotool)");
    });
    QString message;
    QObject::connect(&target, &DictationTarget::failed,
                     [&message](const QString& why) { message = why; });
    LiveTextUpdate update;
    update.committedText = QStringLiteral(" hello");
    target.apply(update);
    EXPECT_TRUE(message.contains(QStringLiteral("Debian package wtype")));
    EXPECT_TRUE(target.sent().isEmpty());
}

}  // namespace

namespace {

// Spoken commands: a line break stays, and text taken back ("scratch that") goes first as
// backspaces (U+0008), which the typer presses as BackSpace.
TEST(DesktopDictationText, LineBreaksStayAndScratchedTextGoesAsBackspaces) {
    EXPECT_EQ(send(QStringLiteral("Dear team,"), QStringLiteral("\n\nThe report")),
              QStringLiteral("\n\nThe report"));
    EXPECT_EQ(send(QStringLiteral("Milk.\n"), QStringLiteral("Bread")), QStringLiteral("Bread"));
    DictationTarget target;
    QStringList sent;
    target.setSink([&sent](const QString& text) {
        sent << text;
        return QString();
    });
    target.setEnabled(true);
    LiveTextUpdate update;
    update.committedText = QStringLiteral("Hello there.");
    target.apply(update);
    update.committedText = QStringLiteral(" How are you");
    target.apply(update);
    update.committedText = QString();
    update.erasedChars = 12;  // " How are you"
    target.apply(update);
    update.committedText = QStringLiteral(" Bye.");
    update.erasedChars = 0;
    target.apply(update);
    EXPECT_EQ(sent, (QStringList{QStringLiteral("Hello there."), QStringLiteral(" How are you"),
                                 QString(12, QChar(0x08)), QStringLiteral(" Bye.")}));
    EXPECT_EQ(target.sent(), QStringLiteral("Hello there. Bye."));
}

}  // namespace
