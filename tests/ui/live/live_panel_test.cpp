// Tests for the live page: the transcript's committed and tentative text (colours, edits, undo),
// the journal that autosaves it and reopens it, copy and clear, start/stop, the device picker and
// the level meter.
#include "earshot/ui/live/live_panel.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>

#include "earshot/ui/live/level_meter.h"
#include "earshot/ui/live/token_strip.h"
#include "earshot/ui/live/transcript_journal.h"
#include "earshot/ui/live/transcript_view.h"
#include "ink_pixels.h"
#include "wait_for.h"

namespace earshot::ui {
namespace {

// The foreground colour of the character at `position` of the view's document.
QColor colorAt(TranscriptView& view, int position) {
    QTextCursor cursor(view.document());
    cursor.setPosition(position + 1);  // charFormat() is the format of the character before
    return cursor.charFormat().foreground().color();
}

QString readFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return QStringLiteral("<missing>");
    }
    return QString::fromUtf8(file.readAll());
}

LiveTextUpdate textUpdate(const QString& committed, const QString& tentative) {
    LiveTextUpdate update;
    update.committedText = committed;
    update.tentativeText = tentative;
    update.decoded = true;
    return update;
}

TEST(TranscriptView, CommittedThenGreyTentative) {
    TranscriptView view;
    view.applyText(QStringLiteral("Hello"), QStringLiteral(" wor"));
    EXPECT_EQ(view.toPlainText(), QStringLiteral("Hello wor"));
    EXPECT_EQ(view.committedText(), QStringLiteral("Hello"));
    EXPECT_EQ(view.tentativeText(), QStringLiteral(" wor"));
    EXPECT_NE(colorAt(view, 0), TranscriptView::tentativeColor());
    EXPECT_EQ(colorAt(view, 6), TranscriptView::tentativeColor());

    // The next update replaces the tentative tail and appends what it committed.
    view.applyText(QStringLiteral(" world,"), QStringLiteral(" how are"));
    EXPECT_EQ(view.toPlainText(), QStringLiteral("Hello world, how are"));
    EXPECT_EQ(view.committedText(), QStringLiteral("Hello world,"));
    EXPECT_NE(colorAt(view, 8), TranscriptView::tentativeColor());
    EXPECT_EQ(colorAt(view, 14), TranscriptView::tentativeColor());

    // A final update commits everything.
    view.applyText(QStringLiteral(" how are you?"), QString());
    EXPECT_EQ(view.toPlainText(), QStringLiteral("Hello world, how are you?"));
    EXPECT_EQ(view.tentativeText(), QString());
    EXPECT_NE(colorAt(view, 20), TranscriptView::tentativeColor());
}

TEST(TranscriptView, UserEditsOfCommittedTextSurviveUpdates) {
    TranscriptView view;
    view.applyText(QStringLiteral("helo there"), QStringLiteral(" gen"));
    QTextCursor cursor(view.document());
    cursor.setPosition(3);
    cursor.insertText(QStringLiteral("l"));  // "hello there"
    EXPECT_EQ(view.committedText(), QStringLiteral("hello there"));
    EXPECT_EQ(view.tentativeText(), QStringLiteral(" gen"));
    view.applyText(QStringLiteral(" general"), QStringLiteral(" Kenobi"));
    EXPECT_EQ(view.toPlainText(), QStringLiteral("hello there general Kenobi"));
    EXPECT_EQ(view.committedText(), QStringLiteral("hello there general"));
}

// Shows `widget` and makes its window the active one, so that key events and shortcuts reach it
// as they reach a user's window.
void showActive(QWidget& widget) {
    widget.show();
    widget.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&widget));
}

// Typing at the end while the last word is still grey: the typed text goes before the grey tail
// (never into it), so the words the model commits next arrive exactly once.
TEST(TranscriptView, TypingWhileATailShowsKeepsEveryWordOnce) {
    TranscriptView view;
    showActive(view);
    view.applyText(QStringLiteral("i need coffee and"), QStringLiteral(" bread"));
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);  // the caret after "bread"
    QTest::keyClicks(&view, QStringLiteral("!"));
    EXPECT_EQ(view.committedText(), QStringLiteral("i need coffee and!"));
    EXPECT_EQ(view.tentativeText(), QStringLiteral(" bread"));
    EXPECT_EQ(view.toPlainText(), QStringLiteral("i need coffee and! bread"));
    EXPECT_NE(colorAt(view, 17), TranscriptView::tentativeColor());  // the "!"
    EXPECT_EQ(colorAt(view, 20), TranscriptView::tentativeColor());  // "bread" stays grey
    // More typing follows the first, still before the tail.
    QTest::keyClicks(&view, QStringLiteral(" now"));
    view.applyText(QStringLiteral(" bread"), QStringLiteral(" four"));
    // The caret stays where the next keys go: after the user's text, before the model's words.
    EXPECT_EQ(view.textCursor().position(), QStringLiteral("i need coffee and! now").size());
    view.applyText(QStringLiteral(" four breakfast"), QString());
    EXPECT_EQ(view.toPlainText(), QStringLiteral("i need coffee and! now bread four breakfast"));
    EXPECT_EQ(view.committedText(), view.toPlainText());
}

// A commit that arrives in the middle of a word being typed at the end goes after it: the
// typed word stays whole ("TYPED!", not "T project YPED!").
TEST(TranscriptView, ACommitWhileTypingDoesNotSplitTheTypedWord) {
    TranscriptView view;
    showActive(view);
    view.applyText(QStringLiteral("wait"), QStringLiteral(" project"));
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);
    QTest::keyClicks(&view, QStringLiteral(" T"));
    view.applyText(QStringLiteral(" project"), QStringLiteral(" his"));
    QTest::keyClicks(&view, QStringLiteral("YPED!"));
    view.applyText(QStringLiteral(" his"), QString());
    EXPECT_EQ(view.committedText(), QStringLiteral("wait TYPED! project his"));
    // Once the caret is moved to the end, it follows the model's words again.
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);
    view.applyText(QStringLiteral(" question"), QString());
    EXPECT_EQ(view.textCursor().position(), view.committedText().size());
}

// An edit that reaches from the committed text into the tail: what it removed of the committed
// text stays removed, the typed text stays, and the tail is the model's again.
TEST(TranscriptView, AnEditReachingIntoTheTailKeepsTheTail) {
    TranscriptView view;
    showActive(view);
    view.applyText(QStringLiteral("one two"), QStringLiteral(" three"));
    QTextCursor selection = view.textCursor();
    selection.setPosition(4);                            // "two"
    selection.setPosition(11, QTextCursor::KeepAnchor);  // ... and " thr"
    view.setTextCursor(selection);
    QTest::keyClicks(&view, QStringLiteral("2"));
    EXPECT_EQ(view.committedText(), QStringLiteral("one 2"));
    EXPECT_EQ(view.tentativeText(), QStringLiteral(" three"));
    view.applyText(QStringLiteral(" three"), QString());
    EXPECT_EQ(view.toPlainText(), QStringLiteral("one 2 three"));

    // The same through the document (a drop, a context-menu action): moved from the event loop,
    // or by the next update at the latest.
    view.applyText(QString(), QStringLiteral(" four"));
    QTextCursor cursor(view.document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(QStringLiteral("."));
    view.applyText(QStringLiteral(" four"), QString());
    EXPECT_EQ(view.toPlainText(), QStringLiteral("one 2 three. four"));
}

TEST(TranscriptView, CtrlZUndoesTheUsersEditsNotTheModelsWords) {
    TranscriptView view;
    showActive(view);
    view.applyText(QStringLiteral("first"), QString());
    QTest::keyClick(&view, Qt::Key_End, Qt::ControlModifier);
    QTest::keyClicks(&view, QStringLiteral(" typed"));
    view.applyText(QStringLiteral(" second"), QStringLiteral(" thi"));
    EXPECT_EQ(view.toPlainText(), QStringLiteral("first typed second thi"));
    QTest::keyClick(&view, Qt::Key_Z, Qt::ControlModifier);  // the typing, as one step
    EXPECT_EQ(view.committedText(), QStringLiteral("first second"));
    EXPECT_EQ(view.tentativeText(), QStringLiteral(" thi"));
    EXPECT_FALSE(view.canUndo());
    QTest::keyClick(&view, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    EXPECT_EQ(view.committedText(), QStringLiteral("first typed second"));
}

TEST(TranscriptJournal, SavesAtomicallyAndLoads) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("nested/folder/session.txt"));
    TranscriptJournal journal(path);
    EXPECT_EQ(journal.load(), QString());
    ASSERT_TRUE(journal.save(QStringLiteral("Grüße, world\nsecond line")))
        << journal.lastError().toStdString();
    EXPECT_EQ(readFile(path), QStringLiteral("Grüße, world\nsecond line"));
    EXPECT_EQ(TranscriptJournal(path).load(), QStringLiteral("Grüße, world\nsecond line"));
    // A folder in the way of the file: save fails with a message naming the path.
    TranscriptJournal blocked(dir.path());
    EXPECT_FALSE(blocked.save(QStringLiteral("x")));
    EXPECT_TRUE(blocked.lastError().contains(dir.path())) << blocked.lastError().toStdString();
}

TEST(LivePanel, CommittedTextIsJournaledAtOnceAndReopened) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("session-transcript.txt"));
    {
        LivePanel panel;
        panel.attachJournal(path);
        EXPECT_EQ(panel.journalPath(), path);
        panel.applyUpdate(
            textUpdate(QStringLiteral("And so, my fellow Americans,"), QStringLiteral(" ask not")));
        // Saved before the update returns (a crash now loses nothing committed); the tentative
        // text is not part of it.
        EXPECT_EQ(readFile(path), QStringLiteral("And so, my fellow Americans,"));
        panel.applyUpdate(textUpdate(QStringLiteral(" ask not what"), QString()));
        EXPECT_EQ(readFile(path), QStringLiteral("And so, my fellow Americans, ask not what"));
    }
    LivePanel reopened;
    reopened.attachJournal(path);
    EXPECT_EQ(reopened.transcript()->committedText(),
              QStringLiteral("And so, my fellow Americans, ask not what"));
}

TEST(LivePanel, UserEditsAreJournaledAfterAPause) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("journal.txt"));
    LivePanel panel;
    panel.attachJournal(path);
    panel.applyUpdate(textUpdate(QStringLiteral("first"), QString()));
    panel.transcript()->moveCursor(QTextCursor::End);
    panel.transcript()->insertPlainText(QStringLiteral(" edited"));
    EXPECT_EQ(panel.transcript()->committedText(), QStringLiteral("first edited"));
    EXPECT_TRUE(waitFor([&] { return readFile(path) == QStringLiteral("first edited"); }, 3000))
        << "the journal holds: " << readFile(path).toStdString();
}

TEST(LivePanel, CopyAndClear) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("journal.txt"));
    LivePanel panel;
    panel.attachJournal(path);
    panel.applyUpdate(textUpdate(QStringLiteral("copied text"), QStringLiteral(" not this")));
    panel.copyTranscript();
    EXPECT_EQ(QApplication::clipboard()->text(), QStringLiteral("copied text"));
    auto* clear = panel.findChild<QPushButton*>(QStringLiteral("clearButton"));
    ASSERT_NE(clear, nullptr);
    clear->click();
    EXPECT_EQ(panel.transcript()->toPlainText(), QString());
    EXPECT_TRUE(waitFor([&] { return readFile(path).isEmpty(); }, 3000))
        << "the journal holds: " << readFile(path).toStdString();
}

// Clear takes everything away at once; Ctrl+Z brings the text back (words committed since come
// after it), from the transcript or with the focus still on the Clear button.
TEST(LivePanel, CtrlZUndoesClear) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("journal.txt"));
    LivePanel panel;
    panel.attachJournal(path);
    showActive(panel);
    panel.applyUpdate(textUpdate(QStringLiteral("keep these words"), QStringLiteral(" maybe")));
    auto* clear = panel.findChild<QPushButton*>(QStringLiteral("clearButton"));
    ASSERT_NE(clear, nullptr);
    QTest::mouseClick(clear, Qt::LeftButton);
    EXPECT_EQ(panel.transcript()->toPlainText(), QString());
    panel.applyUpdate(textUpdate(QStringLiteral(" new"), QString()));
    QTest::keyClick(panel.transcript(), Qt::Key_Z, Qt::ControlModifier);
    EXPECT_EQ(panel.transcript()->committedText(), QStringLiteral("keep these words new"));
    EXPECT_TRUE(
        waitFor([&] { return readFile(path) == QStringLiteral("keep these words new"); }, 3000))
        << "the journal holds: " << readFile(path).toStdString();

    QTest::mouseClick(clear, Qt::LeftButton);
    EXPECT_EQ(panel.transcript()->toPlainText(), QString());
    clear->setFocus();
    QTest::keyClick(clear, Qt::Key_Z, Qt::ControlModifier);
    EXPECT_EQ(panel.transcript()->committedText(), QStringLiteral("keep these words new"));
}

// The journal follows the cleared transcript, but the cleared text stays on disk beside it for
// the rest of the session and all of the next one.
TEST(LivePanel, ClearedTextStaysOnDiskUntilTheSessionAfterNext) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("session-transcript.txt"));
    const QString cleared = dir.filePath(QStringLiteral("session-transcript.cleared.txt"));
    const QString previous =
        dir.filePath(QStringLiteral("session-transcript.cleared-previous.txt"));
    EXPECT_EQ(TranscriptJournal(path).clearedPath(), cleared);
    EXPECT_EQ(TranscriptJournal(path).previousClearedPath(), previous);
    {
        LivePanel panel;
        panel.attachJournal(path);
        panel.applyUpdate(textUpdate(QStringLiteral("notes to self"), QString()));
        panel.clearTranscript();
        EXPECT_TRUE(readFile(cleared).contains(QStringLiteral("\nnotes to self\n")))
            << readFile(cleared).toStdString();
        EXPECT_TRUE(waitFor([&] { return readFile(path).isEmpty(); }, 3000))
            << "the journal holds: " << readFile(path).toStdString();
        panel.applyUpdate(textUpdate(QStringLiteral("more notes"), QString()));
        panel.clearTranscript();
        EXPECT_TRUE(readFile(cleared).contains(QStringLiteral("\nnotes to self\n")));
        EXPECT_TRUE(readFile(cleared).contains(QStringLiteral("\nmore notes\n")));
    }
    {
        LivePanel next;  // the next session
        next.attachJournal(path);
        EXPECT_EQ(next.transcript()->committedText(), QString());
        EXPECT_TRUE(readFile(previous).contains(QStringLiteral("\nnotes to self\n")));
        EXPECT_TRUE(readFile(previous).contains(QStringLiteral("\nmore notes\n")));
        EXPECT_FALSE(QFile::exists(cleared));
    }
    LivePanel afterNext;  // cleared nothing in between: the copy is gone
    afterNext.attachJournal(path);
    EXPECT_FALSE(QFile::exists(previous));
    EXPECT_FALSE(QFile::exists(cleared));
}

TEST(LivePanel, StartStopButtonFollowsTheState) {
    LivePanel panel;
    QPushButton* button = panel.startStopButton();
    QSignalSpy starts(&panel, &LivePanel::startRequested);
    QSignalSpy stops(&panel, &LivePanel::stopRequested);
    EXPECT_EQ(button->text(), QStringLiteral("● Start"));
    button->click();
    ASSERT_EQ(starts.count(), 1);
    panel.setRunning(true);
    EXPECT_EQ(button->text(), QStringLiteral("■ Stop"));
    EXPECT_FALSE(panel.devicePicker()->isEnabled());
    button->click();
    EXPECT_EQ(stops.count(), 1);
    panel.setRunning(false);
    EXPECT_TRUE(panel.devicePicker()->isEnabled());

    panel.setStartAllowed(false, QStringLiteral("No model is loaded."));
    EXPECT_FALSE(button->isEnabled());
    EXPECT_EQ(button->toolTip(), QStringLiteral("No model is loaded."));
    panel.requestToggle();
    EXPECT_EQ(starts.count(), 1);
}

// Whisper's words arrive with a leading space: the transcript and its journal never start with
// one, and each Start opens a paragraph of its own after the earlier sessions' text.
TEST(LivePanel, EachSessionIsAParagraphWithoutALeadingSpace) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("journal.txt"));
    LivePanel panel;
    panel.attachJournal(path);
    panel.setRunning(true);
    panel.applyUpdate(textUpdate(QString(), QStringLiteral(" send the")));
    EXPECT_EQ(panel.transcript()->toPlainText(), QStringLiteral("send the"));
    panel.applyUpdate(textUpdate(QStringLiteral(" send the"), QStringLiteral(" report")));
    panel.applyUpdate(textUpdate(QStringLiteral(" report today."), QString()));
    EXPECT_EQ(panel.transcript()->committedText(), QStringLiteral("send the report today."));
    EXPECT_EQ(readFile(path), QStringLiteral("send the report today."));
    panel.setRunning(false);

    panel.setRunning(true);  // a second session
    panel.applyUpdate(textUpdate(QString(), QStringLiteral(" call")));
    EXPECT_EQ(panel.transcript()->toPlainText(), QStringLiteral("send the report today.\n\ncall"));
    panel.applyUpdate(textUpdate(QStringLiteral(" call me"), QString()));
    panel.applyUpdate(textUpdate(QStringLiteral(" later."), QString()));
    EXPECT_EQ(panel.transcript()->committedText(),
              QStringLiteral("send the report today.\n\ncall me later."));
    EXPECT_EQ(readFile(path), QStringLiteral("send the report today.\n\ncall me later."));
    panel.setRunning(false);

    // A line the user began with Enter takes the next words without a space.
    panel.transcript()->moveCursor(QTextCursor::End);
    QTest::keyClick(panel.transcript(), Qt::Key_Return);
    panel.setRunning(true);
    panel.applyUpdate(textUpdate(QStringLiteral(" thanks."), QString()));
    EXPECT_EQ(panel.transcript()->committedText(),
              QStringLiteral("send the report today.\n\ncall me later.\n\nthanks."));
}

// Typed text that ends in a space takes the next dictated word without a second space, during a
// session and at its start (a line left open with a space goes on; one that ends in a word opens
// a paragraph).
TEST(LivePanel, TypedTextEndingInASpaceTakesTheNextWordWithOneSpace) {
    LivePanel panel;
    showActive(panel);
    panel.setRunning(true);
    panel.applyUpdate(textUpdate(QStringLiteral(" send the"), QString()));
    panel.transcript()->moveCursor(QTextCursor::End);
    QTest::keyClicks(panel.transcript(), QStringLiteral(" weekly "));
    panel.applyUpdate(textUpdate(QString(), QStringLiteral(" report")));
    EXPECT_EQ(panel.transcript()->toPlainText(), QStringLiteral("send the weekly report"));
    panel.applyUpdate(textUpdate(QStringLiteral(" report today."), QString()));
    EXPECT_EQ(panel.transcript()->committedText(), QStringLiteral("send the weekly report today."));
    panel.setRunning(false);

    panel.transcript()->moveCursor(QTextCursor::End);
    QTest::keyClicks(panel.transcript(), QStringLiteral(" Also: "));
    panel.setRunning(true);
    panel.applyUpdate(textUpdate(QStringLiteral(" call me."), QString()));
    EXPECT_EQ(panel.transcript()->committedText(),
              QStringLiteral("send the weekly report today. Also: call me."));
    panel.setRunning(false);

    panel.setRunning(true);  // text that ends in a word: a paragraph of its own, as before
    panel.applyUpdate(textUpdate(QStringLiteral(" thanks."), QString()));
    EXPECT_EQ(panel.transcript()->committedText(),
              QStringLiteral("send the weekly report today. Also: call me.\n\nthanks."));
}

// "The model is transcribing files; ..." while Start is refused, and gone once it is allowed.
TEST(LivePanel, TheReasonStartIsRefusedGoesWhenItIsAllowed) {
    LivePanel panel;
    panel.setStartAllowed(false, QStringLiteral("The model is transcribing files."));
    EXPECT_EQ(panel.statusText(), QStringLiteral("The model is transcribing files."));
    panel.setStartAllowed(true);
    EXPECT_EQ(panel.statusText(), QString());
    EXPECT_TRUE(panel.startStopButton()->isEnabled());
    // A message of the session's own (not a refusal) stays.
    panel.setStatusText(QStringLiteral("Stopped after 3.0 s of audio."));
    panel.setStartAllowed(true);
    EXPECT_EQ(panel.statusText(), QStringLiteral("Stopped after 3.0 s of audio."));
}

TEST(LivePanel, DevicePickerOffersDefaultAndListedDevices) {
    LivePanel panel;
    panel.setDevices({{QStringLiteral("pulse"), QStringLiteral("pulse (ALSA)"), true},
                      {QStringLiteral("hw:1"), QStringLiteral("USB mic (ALSA)"), false}});
    QComboBox* picker = panel.devicePicker();
    ASSERT_EQ(picker->count(), 3);
    EXPECT_EQ(picker->itemText(0), QStringLiteral("Default input"));
    EXPECT_EQ(picker->itemText(1), QStringLiteral("pulse (ALSA) (default)"));
    EXPECT_EQ(panel.selectedDevice(), QString());
    picker->setCurrentIndex(2);
    EXPECT_EQ(panel.selectedDevice(), QStringLiteral("hw:1"));
    QSignalSpy starts(&panel, &LivePanel::startRequested);
    panel.requestToggle();
    ASSERT_EQ(starts.count(), 1);
    EXPECT_EQ(starts.at(0).at(0).toString(), QStringLiteral("hw:1"));
}

LiveToken liveToken(const QString& text, double probability, bool committed,
                    QList<QPair<QString, double>> alternatives = {}) {
    LiveToken token;
    token.text = text;
    token.probability = probability;
    token.committed = committed;
    token.alternatives = std::move(alternatives);
    return token;
}

// Clear while dictating takes the cleared words' tokens too, and the empty transcript says it is
// listening (not "Press Start"); after Stop it says how to start again.
TEST(LivePanel, ClearWhileDictatingClearsTheTokensAndSaysItListens) {
    LivePanel panel;
    showActive(panel);
    EXPECT_TRUE(panel.transcript()->placeholderText().startsWith(QStringLiteral("Press Start")));
    panel.transcript()->setModelNote(QStringLiteral("A demo model."));
    panel.setRunning(true);
    EXPECT_EQ(panel.transcript()->placeholderText(),
              QStringLiteral("Listening: speak, and the words appear here as they are "
                             "heard.\n\nA demo model."));
    LiveTextUpdate update = textUpdate(QStringLiteral(" send"), QStringLiteral(" the"));
    update.tokens = {liveToken(QStringLiteral(" send"), 0.9, true),
                     liveToken(QStringLiteral(" the"), 0.3, false)};
    panel.applyUpdate(update);
    ASSERT_EQ(panel.tokenStrip()->tokenCount(), 2);
    QTest::mouseClick(panel.tokenStrip(), Qt::LeftButton, {},
                      panel.tokenStrip()->tokenRect(0).center());
    EXPECT_NE(panel.tokenDetails()->text().indexOf(QStringLiteral("send")), -1);

    panel.findChild<QPushButton*>(QStringLiteral("clearButton"))->click();
    EXPECT_EQ(panel.transcript()->toPlainText(), QString());
    EXPECT_EQ(panel.tokenStrip()->tokenCount(), 0);
    EXPECT_EQ(panel.tokenDetails()->text().indexOf(QStringLiteral("send")), -1);
    EXPECT_TRUE(panel.transcript()->placeholderText().startsWith(QStringLiteral("Listening")));

    panel.setRunning(false);
    EXPECT_EQ(panel.transcript()->placeholderText(),
              QStringLiteral("Press Start (Ctrl+Space) and speak; the transcript appears "
                             "here.\n\nA demo model."));
}

// The hypothesis as tokens: coloured by probability, committed ones kept before the tentative
// ones, which the next update replaces; hover and click give a token's alternatives.
TEST(TokenStrip, ShowsTokensByProbabilityWithTheirAlternatives) {
    LivePanel panel;
    panel.resize(700, 500);
    showActive(panel);
    TokenStrip* strip = panel.tokenStrip();
    ASSERT_NE(strip, nullptr);
    panel.setRunning(true);
    LiveTextUpdate first = textUpdate(QStringLiteral(" send"), QStringLiteral(" the"));
    first.tokens = {liveToken(QStringLiteral(" send"), 0.9, true),
                    liveToken(QStringLiteral(" the"), 0.3, false,
                              {{QStringLiteral(" a"), 0.2}, {QStringLiteral(" this"), 0.004}})};
    panel.applyUpdate(first);
    ASSERT_EQ(strip->tokenCount(), 2);
    EXPECT_TRUE(strip->token(0).committed);
    EXPECT_FALSE(strip->token(1).committed);

    // Sure is green, unsure is red; the chip is painted in its colour.
    const QColor sure = TokenStrip::colorFor(0.9);
    const QColor unsure = TokenStrip::colorFor(0.3);
    EXPECT_GT(sure.green(), sure.red());
    EXPECT_GT(unsure.red(), unsure.green());
    const QImage image = strip->grab().toImage();
    for (int i = 0; i < 2; ++i) {
        const QRect rect = strip->tokenRect(i);
        ASSERT_GE(rect.width(), 10);
        const QColor painted = image.pixelColor(rect.left() + 2, rect.top() + 2);
        const QColor expected = TokenStrip::colorFor(strip->token(i).probability);
        EXPECT_NEAR(painted.red(), expected.red(), 3) << i;
        EXPECT_NEAR(painted.green(), expected.green(), 3) << i;
    }

    // The next update commits " the" and shows " report" as tentative.
    LiveTextUpdate second = textUpdate(QStringLiteral(" the"), QStringLiteral(" report"));
    second.tokens = {liveToken(QStringLiteral(" the"), 0.35, true,
                               {{QStringLiteral(" a"), 0.2}, {QStringLiteral(" this"), 0.004}}),
                     liveToken(QStringLiteral(" re"), 0.7, false),
                     liveToken(QStringLiteral("port"), 0.95, false)};
    panel.applyUpdate(second);
    ASSERT_EQ(strip->tokenCount(), 4);
    EXPECT_EQ(strip->token(1).text, QStringLiteral(" the"));
    EXPECT_TRUE(strip->token(1).committed);
    EXPECT_EQ(strip->token(3).text, QStringLiteral("port"));
    // A piece of a word sits closer to its word than the next word does.
    EXPECT_LT(strip->tokenRect(3).left() - strip->tokenRect(2).right(),
              strip->tokenRect(2).left() - strip->tokenRect(1).right());
    EXPECT_EQ(strip->describe(2), QStringLiteral("“ re” 70%, tentative"));

    // A click on " the" shows its alternatives in the line under the strip.
    QTest::mouseClick(strip, Qt::LeftButton, Qt::NoModifier, strip->tokenRect(1).center());
    EXPECT_EQ(strip->selectedToken(), 1);
    EXPECT_EQ(panel.tokenDetails()->text(),
              QStringLiteral("“ the” 35%, committed · alternatives: “ a” 20%, “ this” <1%"));

    // Many committed tokens: the newest stay in view, within the strip's rows.
    LiveTextUpdate many = textUpdate(QStringLiteral(" w"), QString());
    for (int i = 0; i < 300; ++i) {
        many.tokens.append(liveToken(QStringLiteral(" w%1").arg(i), 0.5, true));
    }
    panel.applyUpdate(many);
    ASSERT_GT(strip->tokenCount(), 10);
    EXPECT_LT(strip->tokenCount(), 300);
    EXPECT_EQ(strip->token(strip->tokenCount() - 1).text, QStringLiteral(" w299"));
    EXPECT_LE(strip->tokenRect(strip->tokenCount() - 1).bottom(), strip->height());

    // A new session starts with an empty strip.
    panel.setRunning(false);
    panel.setRunning(true);
    EXPECT_EQ(strip->tokenCount(), 0);
}

TEST(LevelMeter, FillFollowsTheLevel) {
    LevelMeter meter;
    meter.resize(300, 20);
    meter.setLevelDbfs(-120.0);
    EXPECT_DOUBLE_EQ(meter.fillFraction(), 0.0);
    const int emptyInk = test::countInkPixels(meter.grab().toImage());
    meter.setLevelDbfs(-30.0);
    EXPECT_DOUBLE_EQ(meter.fillFraction(), 0.5);
    const int halfInk = test::countInkPixels(meter.grab().toImage());
    meter.setLevelDbfs(3.0);
    EXPECT_DOUBLE_EQ(meter.fillFraction(), 1.0);
    const int fullInk = test::countInkPixels(meter.grab().toImage());
    // The lit bar: about 115 px wide at half scale, 230 px at full, 14 px high.
    EXPECT_GT(halfInk, emptyInk + 1000);
    EXPECT_GT(fullInk, halfInk + 1000);
}

}  // namespace
}  // namespace earshot::ui
