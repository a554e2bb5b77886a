// The Files page's words: a transcribed file shows its words with their times; while it plays, the
// word whose [start, end) holds the player's position is highlighted (none between words or past
// the end) and scrolled into view; clicking a word plays from its start; a player that cannot
// play says why once; a file is read (on the player's own thread) before it plays, the page
// saying how far; the micro model's words come from the worker and survive a restart. A fake
// player stands in for the output device here; (label device) the real one plays into the
// virtual PulseAudio sink.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QTest>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "earshot/audio/file_decoder.h"
#include "earshot/core/loaded_model.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/files/transcript_player.h"
#include "earshot/ui/files/transcript_words_view.h"
#include "earshot/ui/main_window.h"
#include "files_gui_paths.h"
#include "gui/files/files_history.h"
#include "gui/files/files_player.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "micro_speech_file.h"
#include "virtual_mic.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

// A player whose position the test sets: what the page asked of it is recorded.
class FakePlayer : public ui::TranscriptPlayer {
public:
    QString play(const QString& path, double startS) override {
        ++plays;
        lastPath = path;
        lastStart = startS;
        if (!refusal.isEmpty()) return refusal;
        playing = true;
        position = startS;
        return {};
    }
    void pause() override {
        ++pauses;
        playing = false;
    }
    bool isPlaying() const override { return playing; }
    double positionS() const override { return position; }
    double durationS() const override { return plays > 0 ? duration : 0.0; }

    int plays = 0;
    int pauses = 0;
    QString lastPath;
    double lastStart = -1.0;
    bool playing = false;
    double position = 0.0;
    double duration = 5.0;
    QString refusal;  // play() fails with this when set
};

// A player that reads the file first, as the real one does with a long recording: play()
// returns at once, and the file is read when the test says (`finish`), or fails to be.
class ReadingPlayer : public FakePlayer {
public:
    QString play(const QString& path, double startS) override {
        FakePlayer::play(path, startS);  // recorded as asked; it plays once read
        playing = false;
        readingNow = true;
        playWhenRead = true;
        return {};
    }
    void pause() override {
        FakePlayer::pause();
        playWhenRead = false;
    }
    std::optional<double> reading() const override {
        return readingNow ? std::optional<double>(fraction) : std::nullopt;
    }
    bool playsWhenRead() const override { return readingNow && playWhenRead; }
    QString poll() override {
        ++polls;
        if (!readingNow || !finish) return {};
        readingNow = false;
        if (!readError.isEmpty()) return readError;
        playing = playWhenRead;
        return {};
    }

    bool readingNow = false;
    bool playWhenRead = false;
    bool finish = false;  // the next poll() ends the read
    double fraction = 0.0;
    QString readError;  // the read fails with this when set
    int polls = 0;
};

// Two segments: "Ask not what" and "your country."
QList<ui::SegmentRow> two_segments() {
    ui::SegmentRow first{0.0, 2.0, QStringLiteral("Ask not what"), {}, {}};
    first.words = {{QStringLiteral("Ask"), 0.5, 0.9, 0.9},
                   {QStringLiteral("not"), 1.0, 1.3, 0.8},
                   {QStringLiteral("what"), 1.3, 1.8, 0.7}};
    ui::SegmentRow second{2.0, 4.0, QStringLiteral("your country."), {}, {}};
    second.words = {{QStringLiteral("your"), 3.0, 3.4, 0.9},
                    {QStringLiteral("country."), 3.4, 4.0, 0.6}};
    return {first, second};
}

// The page with one transcribed file shown and a fake player of type Player.
template <typename Player>
struct PanelWith {
    PanelWith() {
        auto owned = std::make_unique<Player>();
        fake = owned.get();
        panel.setPlayer(std::move(owned));
        panel.resize(900, 700);
        id = panel.queue()->addFinishedJob(QStringLiteral("/tmp/ask.wav"), two_segments(),
                                           QStringLiteral("en"), ui::FileJobState::done);
        panel.selectJob(id);
        panel.show();
    }
    // Lets the page's playback timer read the fake's position.
    void tick() const { QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3); }

    bool application = (ensure_gui_application(), true);  // before the panel
    ui::FilesPanel panel;
    Player* fake = nullptr;
    int id = -1;
};
using PanelWithFake = PanelWith<FakePlayer>;

TEST(GuiFilesWords, WordAtFindsTheWordHoldingATime) {
    QList<ui::TimedWord> words;
    for (const ui::SegmentRow& row : two_segments()) words.append(row.words);
    EXPECT_EQ(ui::wordAt(words, 0.0), -1);  // before the first
    EXPECT_EQ(ui::wordAt(words, 0.5), 0);   // its start is in it
    EXPECT_EQ(ui::wordAt(words, 0.89), 0);
    EXPECT_EQ(ui::wordAt(words, 0.9), -1);  // its end is not
    EXPECT_EQ(ui::wordAt(words, 1.3), 2);   // "not" ends where "what" starts
    EXPECT_EQ(ui::wordAt(words, 2.5), -1);  // between segments
    EXPECT_EQ(ui::wordAt(words, 3.99), 4);
    EXPECT_EQ(ui::wordAt(words, 4.0), -1);  // past the end
    EXPECT_EQ(ui::wordAt({}, 1.0), -1);
}

TEST(GuiFilesWords, TheHighlightFollowsThePlayersPosition) {
    PanelWithFake p;
    ui::TranscriptWordsView* view = p.panel.transcriptWords();
    ASSERT_EQ(view->wordCount(), 5);
    EXPECT_EQ(view->word(4).text, QStringLiteral("country."));
    EXPECT_EQ(view->highlightedWord(), -1);

    QTest::mouseClick(p.panel.playButton(), Qt::LeftButton);
    EXPECT_EQ(p.fake->plays, 1);
    EXPECT_EQ(p.fake->lastPath, QStringLiteral("/tmp/ask.wav"));
    EXPECT_DOUBLE_EQ(p.fake->lastStart, 0.0);
    EXPECT_EQ(p.panel.playButton()->text(), QStringLiteral("&Pause"));

    struct Expected {
        double position;
        int word;
        const char* text;
    };
    for (const Expected& e :
         {Expected{0.2, -1, ""}, Expected{0.7, 0, "Ask"}, Expected{0.95, -1, ""},
          Expected{1.1, 1, "not"}, Expected{1.3, 2, "what"}, Expected{2.5, -1, ""},
          Expected{3.5, 4, "country."}, Expected{3.2, 3, "your"}, Expected{4.5, -1, ""}}) {
        p.fake->position = e.position;
        p.tick();
        EXPECT_EQ(view->highlightedWord(), e.word) << "at " << e.position << " s";
        EXPECT_EQ(view->highlightedText(), QString::fromUtf8(e.text)) << "at " << e.position;
    }
    p.fake->position = 3.5;
    p.tick();
    EXPECT_EQ(p.panel.playbackLabel()->text(), QStringLiteral("00:03.500 / 00:05.000"));

    // Pause holds the highlight; the end of the audio stops the timer and offers Play again.
    QTest::mouseClick(p.panel.playButton(), Qt::LeftButton);
    EXPECT_EQ(p.fake->pauses, 1);
    EXPECT_EQ(p.panel.playButton()->text(), QStringLiteral("&Play"));
    EXPECT_EQ(view->highlightedWord(), 4);
    QTest::mouseClick(p.panel.playButton(), Qt::LeftButton);  // resumes where it paused
    EXPECT_DOUBLE_EQ(p.fake->lastStart, 3.5);
    p.fake->position = 5.0;
    p.fake->playing = false;
    p.tick();
    EXPECT_EQ(p.panel.playButton()->text(), QStringLiteral("&Play"));
    EXPECT_EQ(view->highlightedWord(), -1);
    QTest::mouseClick(p.panel.playButton(), Qt::LeftButton);  // at the end: from the start
    EXPECT_DOUBLE_EQ(p.fake->lastStart, 0.0);
}

TEST(GuiFilesWords, ClickingAWordPlaysFromItsStart) {
    PanelWithFake p;
    ui::TranscriptWordsView* view = p.panel.transcriptWords();
    ASSERT_EQ(view->wordCount(), 5);
    const QRect rect = view->wordRect(3);  // "your"
    ASSERT_TRUE(rect.isValid());
    EXPECT_EQ(view->wordAtPoint(rect.center()), 3);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, rect.center());
    EXPECT_EQ(p.fake->plays, 1);
    EXPECT_DOUBLE_EQ(p.fake->lastStart, 3.0);
    EXPECT_EQ(view->highlightedWord(), 3);
    EXPECT_EQ(view->highlightedText(), QStringLiteral("your"));

    // Another word while it plays: from that word's start.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->wordRect(1).center());
    EXPECT_EQ(p.fake->plays, 2);
    EXPECT_DOUBLE_EQ(p.fake->lastStart, 1.0);
    EXPECT_EQ(view->highlightedText(), QStringLiteral("not"));
}

TEST(GuiFilesWords, TheHighlightedWordIsScrolledIntoView) {
    ensure_gui_application();
    auto owned = std::make_unique<FakePlayer>();
    FakePlayer* fake = owned.get();
    ui::FilesPanel panel;
    panel.setPlayer(std::move(owned));
    panel.resize(700, 500);
    QList<ui::SegmentRow> rows;
    for (int s = 0; s < 120; ++s) {
        ui::SegmentRow row{2.0 * s, 2.0 * s + 2.0, QStringLiteral("w"), {}, {}};
        for (int w = 0; w < 4; ++w) {
            row.words.append({QStringLiteral("word%1").arg(4 * s + w), 2.0 * s + 0.5 * w,
                              2.0 * s + 0.5 * w + 0.4, 0.9});
        }
        rows.append(row);
    }
    fake->duration = 240.0;
    const int id = panel.queue()->addFinishedJob(QStringLiteral("/tmp/long.wav"), rows, {},
                                                 ui::FileJobState::done);
    panel.selectJob(id);
    panel.show();
    ui::TranscriptWordsView* view = panel.transcriptWords();
    ASSERT_EQ(view->wordCount(), 480);
    ASSERT_GT(view->verticalScrollBar()->maximum(), 0) << "the words fit: nothing to scroll";
    panel.playFrom(0.0);
    for (double at : {200.1, 20.1, 239.1}) {
        fake->position = at;
        QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
        const int index = view->highlightedWord();
        ASSERT_GE(index, 0) << at;
        EXPECT_EQ(view->word(index).text,
                  QStringLiteral("word%1").arg(std::lround((at - 0.1) * 2)));
        EXPECT_TRUE(view->viewport()->rect().contains(view->wordRect(index)))
            << "word " << index << " at " << view->wordRect(index).y() << " not in a viewport of "
            << view->viewport()->height();
    }
}

TEST(GuiFilesWords, APlayerThatCannotPlaySaysWhyOnce) {
    PanelWithFake p;
    p.fake->refusal = QStringLiteral("there is no audio output device to play through");
    QTest::mouseClick(p.panel.playButton(), Qt::LeftButton);
    EXPECT_EQ(p.fake->plays, 1);
    EXPECT_EQ(p.panel.playbackLabel()->text(),
              QStringLiteral("Cannot play: there is no audio output device to play through"));
    EXPECT_EQ(p.panel.playButton()->text(), QStringLiteral("&Play"));
    p.tick();
    EXPECT_EQ(p.fake->plays, 1) << "no retries behind the user's back";
    EXPECT_EQ(p.panel.transcriptWords()->highlightedWord(), -1);
    EXPECT_TRUE(p.panel.playbackLabel()->text().startsWith(QStringLiteral("Cannot play")));
}

// A long recording is read before it plays: the page says how far the read is and keeps
// answering, plays once the file is read, and a Pause meanwhile means it does not start.
TEST(GuiFilesWords, AFileBeingReadSaysHowFarThenPlays) {
    PanelWith<ReadingPlayer> p;
    ReadingPlayer* player = p.fake;
    ui::FilesPanel& panel = p.panel;
    ui::TranscriptWordsView* view = panel.transcriptWords();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->wordRect(3).center());
    EXPECT_EQ(player->plays, 1);
    EXPECT_DOUBLE_EQ(player->lastStart, 3.0);
    player->fraction = 0.37;
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_EQ(panel.playbackLabel()->text(), QStringLiteral("Reading the audio… 37%"));
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Pause"));
    EXPECT_FALSE(player->isPlaying());
    EXPECT_GT(player->polls, 0) << "the page's timer advances the read";
    EXPECT_EQ(view->highlightedText(), QStringLiteral("your")) << "the clicked word, at once";

    player->finish = true;
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_TRUE(player->isPlaying());
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Pause"));
    player->position = 3.5;
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_EQ(view->highlightedText(), QStringLiteral("country."));

    // Pause while another read is under way: when it ends, nothing plays.
    player->finish = false;
    player->playing = false;
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->wordRect(0).center());
    EXPECT_EQ(player->plays, 2);
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Pause"));
    QTest::mouseClick(panel.playButton(), Qt::LeftButton);
    EXPECT_EQ(player->pauses, 1);
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Play")) << "paused while it reads";
    EXPECT_TRUE(panel.playbackLabel()->text().startsWith(QStringLiteral("Reading the audio")));
    // Play again before the read ends: it will play from the clicked word once read.
    QTest::mouseClick(panel.playButton(), Qt::LeftButton);
    EXPECT_EQ(player->plays, 3);
    EXPECT_DOUBLE_EQ(player->lastStart, 0.5);
    EXPECT_TRUE(player->playsWhenRead());
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Pause"));
    QTest::mouseClick(panel.playButton(), Qt::LeftButton);
    EXPECT_EQ(player->pauses, 2);
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Play"));
    player->finish = true;
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_FALSE(player->isPlaying());
    EXPECT_FALSE(player->reading().has_value()) << "the read went on to its end";
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Play"));
}

// A file that turns out unreadable once read says why once; nothing retries.
TEST(GuiFilesWords, AFileThatCannotBeReadSaysWhyOnce) {
    PanelWith<ReadingPlayer> p;
    ReadingPlayer* player = p.fake;
    ui::FilesPanel& panel = p.panel;
    QTest::mouseClick(panel.playButton(), Qt::LeftButton);
    player->readError = QStringLiteral("/tmp/ask.wav is not an audio file");
    player->finish = true;
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_EQ(panel.playbackLabel()->text(),
              QStringLiteral("Cannot play: /tmp/ask.wav is not an audio file"));
    EXPECT_EQ(panel.playButton()->text(), QStringLiteral("&Play"));
    const int polls = player->polls;
    QTest::qWait(ui::FilesPanel::kPlaybackTickMs * 3);
    EXPECT_EQ(player->polls, polls) << "the timer stopped";
    EXPECT_EQ(player->plays, 1);
    EXPECT_TRUE(panel.playbackLabel()->text().startsWith(QStringLiteral("Cannot play")));
}

// The real player reads on its own thread: play() returns while it reads, poll() hands over the
// decoder's reason for a file that is not audio, once; a readable file is held once read.
TEST(GuiFilesWords, TheRealPlayerReadsOnItsOwnThread) {
    const TempDir dir("earshot-gui-files-read");
    const fs::path text = dir.path() / "notes.wav";
    {
        std::ofstream out(text);
        out << "not audio at all\n";
    }
    app::FilesPlayer player;
    EXPECT_EQ(player.play(q(text), 0.0), QString());
    QString error;
    for (int i = 0; i < 500 && error.isEmpty() && player.reading(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        error = player.poll();
    }
    EXPECT_FALSE(error.isEmpty());
    EXPECT_TRUE(error.contains(q(text))) << error.toStdString();
    EXPECT_FALSE(player.reading().has_value());
    EXPECT_EQ(player.poll(), QString()) << "said once";
    EXPECT_FALSE(player.isPlaying());

    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;
    EXPECT_EQ(player.play(q(wav), 1.5), QString());
    EXPECT_DOUBLE_EQ(player.positionS(), 1.5) << "while reading: where it will start";
    EXPECT_TRUE(player.playsWhenRead());
    player.pause();  // no output device is needed: it will not play
    EXPECT_FALSE(player.playsWhenRead());
    EXPECT_TRUE(player.reading().has_value()) << "the read goes on";
    for (int i = 0; i < 500 && player.reading(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        EXPECT_EQ(player.poll(), QString());
    }
    EXPECT_FALSE(player.reading().has_value());
    EXPECT_FALSE(player.isPlaying());
    const double seconds = static_cast<double>(audio::decode_file(wav).samples.size()) /
                           audio::FileDecoder::kSampleRateHz;
    EXPECT_NEAR(player.durationS(), seconds, 1e-6) << "the file is held once read";

    // Back to the held file while another is being read: the read is dropped, and the held
    // file stays (no device here, so playing it says why).
    const fs::path other = dir.path() / "other.wav";
    fs::copy_file(wav, other);
    EXPECT_EQ(player.play(q(other), 0.0), QString());
    ASSERT_TRUE(player.reading().has_value());
    player.play(q(wav), 0.5);
    EXPECT_FALSE(player.reading().has_value()) << "the other file's read goes on";
    EXPECT_EQ(player.poll(), QString());
    EXPECT_NEAR(player.durationS(), seconds, 1e-6);
}

TEST(GuiFilesWords, AResultWithoutWordTimesSaysSo) {
    PanelWithFake p;
    const int old = p.panel.queue()->addFinishedJob(
        QStringLiteral("/tmp/old.wav"), {{0.0, 2.0, QStringLiteral("Old result."), {}, {}}},
        QStringLiteral("en"), ui::FileJobState::done);
    p.panel.selectJob(old);
    EXPECT_EQ(p.panel.transcriptWords()->wordCount(), 0);
    EXPECT_TRUE(p.panel.transcriptWords()->placeholder().contains(QStringLiteral("No word times")));
    EXPECT_TRUE(p.panel.playButton()->isEnabled()) << "the audio still plays";
}

// A kept result from before word times were kept (no "words" in its segments) still loads.
TEST(GuiFilesWords, HistoryWithoutWordsStillLoads) {
    const TempDir dir("earshot-files-words-old");
    const QString folder = q(dir.path() / "results");
    ASSERT_TRUE(QDir().mkpath(folder));
    QJsonObject segment{
        {"id", 0}, {"start", 0.0}, {"end", 2.0}, {"text", " Hi."}, {"tokens", QJsonArray{}}};
    QJsonObject transcript{{"text", " Hi."}, {"segments", QJsonArray{segment}}, {"language", "en"}};
    QJsonObject entry{{"source", "/tmp/hi.wav"}, {"cancelled", false}, {"transcript", transcript}};
    QFile file(folder + QStringLiteral("/000001700000000000-hi.wav.json"));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(entry).toJson());
    file.close();
    const std::vector<app::FilesHistoryEntry> loaded = app::FilesHistory(folder).load();
    ASSERT_EQ(loaded.size(), 1U);
    ASSERT_EQ(loaded[0].rows.size(), 1);
    EXPECT_EQ(loaded[0].rows[0].text, QStringLiteral("Hi."));
    EXPECT_TRUE(loaded[0].rows[0].words.isEmpty());
}

// The words of every row, in order.
QList<ui::TimedWord> all_words(const QList<ui::SegmentRow>& rows) {
    QList<ui::TimedWord> words;
    for (const ui::SegmentRow& row : rows) words.append(row.words);
    return words;
}

// The micro model's words: each row's words spell its text, lie in time order, and are what the
// page shows; after a restart the kept result shows the same words (times to the millisecond the
// JSON keeps).
TEST(GuiFilesWords, TheMicroModelsWordsShowAndSurviveARestart) {
    ensure_gui_application();
    const TempDir dir("earshot-gui-files-words");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;

    QList<ui::TimedWord> before;
    {
        ui::MainWindow window;
        window.resize(1100, 800);
        app::GuiController controller(window, files_gui_paths(dir));
        ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                        app::GuiController::Remember::no));
        const int id = window.filesPanel()->queue()->addFiles({q(wav)}).first();
        ASSERT_TRUE(app::wait_for_files(controller, 120'000));
        ASSERT_EQ(window.filesPanel()->queue()->jobState(id), ui::FileJobState::done);
        const QList<ui::SegmentRow> rows = window.filesPanel()->queue()->jobSegments(id);
        ASSERT_GE(rows.size(), 2);
        double last_start = 0.0;
        for (const ui::SegmentRow& row : rows) {
            ASSERT_FALSE(row.words.isEmpty()) << row.text.toStdString();
            QStringList texts;
            for (const ui::TimedWord& word : row.words) {
                texts.append(word.text);
                EXPECT_LE(word.startS, word.endS) << word.text.toStdString();
                EXPECT_GE(word.startS, last_start) << word.text.toStdString();
                EXPECT_GE(word.startS, row.startS - 0.5) << word.text.toStdString();
                EXPECT_LE(word.endS, row.endS + 0.5) << word.text.toStdString();
                last_start = word.startS;
            }
            EXPECT_EQ(texts.join(QLatin1Char(' ')).simplified(), row.text);
        }
        before = all_words(rows);
        window.filesPanel()->selectJob(id);
        ASSERT_EQ(window.filesPanel()->transcriptWords()->wordCount(), before.size());
        EXPECT_EQ(window.filesPanel()->transcriptWords()->word(0).text, before[0].text);
    }

    ui::MainWindow window;
    window.resize(1100, 800);
    app::GuiController controller(window, files_gui_paths(dir));
    const QList<int> ids = window.filesPanel()->queue()->jobIds();
    ASSERT_EQ(ids.size(), 1);
    const QList<ui::TimedWord> after = all_words(window.filesPanel()->queue()->jobSegments(ids[0]));
    ASSERT_EQ(after.size(), before.size());
    for (qsizetype i = 0; i < after.size(); ++i) {
        EXPECT_EQ(after[i].text, before[i].text) << i;
        EXPECT_NEAR(after[i].startS, before[i].startS, 0.0005) << i;
        EXPECT_NEAR(after[i].endS, before[i].endS, 0.0005) << i;
    }
    window.filesPanel()->selectJob(ids[0]);
    EXPECT_EQ(window.filesPanel()->transcriptWords()->wordCount(), after.size());
}

// The real player into the virtual PulseAudio sink: Play runs the highlight through the file's
// words in order, from the stream's position, and it ends on its own.
TEST(GuiFilesWordsLiveDevice, PlayingAFileHighlightsItsWordsInOrder) {
    ensure_gui_application();
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();
    const TempDir dir("earshot-gui-files-play");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;

    ui::FilesPanel panel;
    panel.setPlayer(std::make_unique<app::FilesPlayer>());
    panel.resize(900, 700);
    // Word times as a transcription would give them: each sentence's words spread over its
    // second.
    QList<ui::SegmentRow> rows;
    for (int s = 0; s < 3; ++s) {
        ui::SegmentRow row{3.0 * s, 3.0 * s + 2.0, QStringLiteral("a b c d"), {}, {}};
        for (int w = 0; w < 4; ++w) {
            row.words.append({QStringLiteral("w%1").arg(4 * s + w), 3.0 * s + 0.5 * w,
                              3.0 * s + 0.5 * w + 0.45, 0.9});
        }
        rows.append(row);
    }
    const int id =
        panel.queue()->addFinishedJob(q(wav), rows, QStringLiteral("en"), ui::FileJobState::done);
    panel.selectJob(id);
    panel.show();
    panel.playFrom(rows[1].words[0].startS);
    for (int i = 0; i < 500 && panel.player()->reading(); ++i) QTest::qWait(10);
    ASSERT_TRUE(panel.player()->isPlaying()) << panel.playbackLabel()->text().toStdString();
    std::set<int> seen;
    int last = -1;
    bool backwards = false;
    QElapsedTimer timer;
    timer.start();
    while (panel.player()->isPlaying() && timer.elapsed() < 30'000) {
        QTest::qWait(10);
        const int index = panel.transcriptWords()->highlightedWord();
        if (index < 0) continue;
        backwards = backwards || index < last;
        last = index;
        seen.insert(index);
    }
    EXPECT_FALSE(panel.player()->isPlaying()) << "still playing after 30 s";
    EXPECT_FALSE(backwards);
    EXPECT_GE(seen.size(), 6U) << "the highlight moved over too few words";
    EXPECT_GE(*seen.begin(), 4) << "words before the start were highlighted";
    EXPECT_NEAR(panel.player()->positionS(), panel.player()->durationS(), 0.001);
}

}  // namespace
}  // namespace earshot::test
