// The pre-roll through a real (virtual) microphone: the app idles with the microphone open, a
// sentence starts, and 0.3 s into its first word dictation is toggled on through the instance
// socket, as `earshot toggle` does. With 0.5 s of pre-roll the first word is heard whole; with
// the pre-roll off the microphone opens only at the toggle and the first word is lost.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSettings>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <thread>

#include "desktop/instance_requests.h"
#include "desktop/instance_server.h"
#include "earshot/audio/capture.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/live/transcript_view.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/settings/settings.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "spoken_words.h"
#include "virtual_mic.h"

namespace earshot::test {
namespace {

using Clock = std::chrono::steady_clock;

// A hop louder than this is speech (the null sink is digital silence otherwise).
constexpr double kOnsetDbfs = -50.0;
constexpr std::size_t kHopSamples = 160;  // 10 ms at 16 kHz
// How far into the first word the toggle comes: the "a word that starts 0.3 s before".
constexpr auto kToggleAfterOnset = std::chrono::milliseconds(300);

// The lower-case words of `text`, punctuation dropped.
std::set<std::string> words_of(const std::string& text) {
    std::set<std::string> words;
    std::string word;
    for (const char c : text + " ") {
        if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!word.empty()) {
            words.insert(word);
            word.clear();
        }
    }
    return words;
}

void spin_for(std::chrono::milliseconds duration) {
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < duration.count()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
}

// Sends one request on the instance socket from another thread (a client, as `earshot toggle`
// is) while this thread runs the GUI's event loop, which answers it.
QString send_while_spinning(const QString& path, app::InstanceAction action) {
    std::atomic<bool> done{false};
    QString reply;
    std::thread client([&] {
        reply = app::send_instance_request(path, app::InstanceRequest{action, {}}, 10'000);
        done.store(true);
    });
    while (!done.load()) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    client.join();
    return reply;
}

// When the microphone first hears speech: a second recording stream on the same device, so it
// sees the sound when the app's stream does, however late the player started.
class OnsetWatcher {
public:
    OnsetWatcher() : m_capture([this](std::span<const float> samples) { listen(samples); }) {}
    bool start(std::string& why) {
        const audio::CaptureEvent event = m_capture.start({});
        why = event.message;
        return !event.is_error();
    }
    bool heard() const { return m_heard.load(); }
    Clock::time_point heard_at() const { return Clock::time_point(Clock::duration(m_at.load())); }

private:
    void listen(std::span<const float> samples) {
        for (float sample : samples) {
            m_sum += static_cast<double>(sample) * static_cast<double>(sample);
            if (++m_count < kHopSamples) continue;
            const double dbfs = 10.0 * std::log10(m_sum / static_cast<double>(kHopSamples) + 1e-12);
            m_sum = 0.0;
            m_count = 0;
            if (dbfs > kOnsetDbfs && !m_heard.load()) {
                m_at.store(Clock::now().time_since_epoch().count());
                m_heard.store(true);
            }
        }
    }

    double m_sum = 0.0;
    std::size_t m_count = 0;
    std::atomic<bool> m_heard{false};
    std::atomic<Clock::rep> m_at{0};
    audio::Capture m_capture;  // last: stopped before the members it writes go away
};

// What the app committed when the sentence in `wav` was toggled on 0.3 s into its first word
// and off after it ended, with `pre_roll_s` of pre-roll in the settings.
std::string dictate_toggled_late(const VirtualMic& mic, const std::filesystem::path& wav,
                                 double sentence_s, double pre_roll_s, bool& idle_open) {
    const TempDir dir("earshot-pre-roll");
    const QString settingsFile = QString::fromStdString((dir.path() / "settings.ini").string());
    {
        QSettings store(settingsFile, QSettings::IniFormat);
        ui::Settings settings;
        settings.preRollSeconds = pre_roll_s;
        settings.save(store);
    }
    ui::MainWindow window;
    app::GuiPaths paths;
    paths.settingsFile = settingsFile;
    paths.journalFile = QString::fromStdString((dir.path() / "journal.txt").string());
    app::GuiController controller(window, paths);
    EXPECT_TRUE(open_model_and_wait(controller, QString::fromStdString(micro_model_dir().string()),
                                    QString(), app::GuiController::Remember::no));
    idle_open = controller.live().idleMicrophoneOpen();

    const QString socket = QString::fromStdString((dir.path() / "instance.sock").string());
    app::InstanceServer server(socket, [&controller](const app::InstanceRequest& request) {
        return app::answer_instance_request(controller, request);
    });
    EXPECT_EQ(server.listen(), QString());

    OnsetWatcher watcher;
    std::string why;
    EXPECT_TRUE(watcher.start(why)) << why;
    spin_for(std::chrono::milliseconds(1000));  // both streams deliver before the sound starts
    EXPECT_TRUE(mic.play_in_background(wav));
    QElapsedTimer waited;
    waited.start();
    while (!watcher.heard() && waited.elapsed() < 15'000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 2);
    }
    EXPECT_TRUE(watcher.heard()) << "the sentence never reached the microphone";
    while (Clock::now() < watcher.heard_at() + kToggleAfterOnset) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
    }
    const auto late =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - watcher.heard_at());
    EXPECT_LT(late.count(), 400) << "the toggle came " << late.count() << " ms after the onset";
    EXPECT_EQ(send_while_spinning(socket, app::InstanceAction::toggle),
              QStringLiteral("listening"));
    spin_for(std::chrono::milliseconds(static_cast<int>(sentence_s * 1000.0) + 1000));
    EXPECT_EQ(send_while_spinning(socket, app::InstanceAction::toggle), QStringLiteral("idle"));
    if (controller.live().isRunning()) {
        EXPECT_TRUE(wait_for_signal(&controller.live(), &app::LiveBridge::stopped, 60'000));
    }
    return window.livePanel()->transcript()->committedText().toLower().toStdString();
}

TEST(PreRollLiveDevice, KeepsTheWordSaidTogetherWithTheToggle) {
    VirtualMic mic;
    ASSERT_TRUE(mic.available()) << mic.error();
    mic.export_environment();  // before PortAudio starts in this process
    ensure_gui_application();
    // Words the micro model knows; "tomorrow" (about 0.6 s) first.
    SpeechOptions speech;
    speech.lead_s = 0.3;
    speech.tail_s = 0.5;
    std::string why;
    const auto spoken = speak_sentences({{"tomorrow", "please", "call", "me"}}, speech, &why);
    ASSERT_TRUE(spoken) << why;
    const SpokenWord& first = spoken->words.front();
    ASSERT_GT(first.end_s - first.start_s, 0.45) << "the first word is too short to be cut";
    const TempDir dir("earshot-pre-roll-audio");
    const std::filesystem::path wav = dir.path() / "sentence.wav";
    write_wav_pcm16(wav, spoken->samples);
    const double sentence_s = spoken->duration_s() - first.start_s;

    bool idle_open = false;
    const std::string kept = dictate_toggled_late(mic, wav, sentence_s, 0.5, idle_open);
    EXPECT_TRUE(idle_open) << "the microphone is not open while idle with a pre-roll";
    EXPECT_NE(kept.find("tomorrow"), std::string::npos) << "with 0.5 s of pre-roll: " << kept;
    EXPECT_NE(kept.find("call"), std::string::npos) << kept;

    const std::string cut = dictate_toggled_late(mic, wav, sentence_s, 0.0, idle_open);
    EXPECT_FALSE(idle_open) << "the microphone is open while idle without a pre-roll";
    // The session heard the rest of the sentence, but not the first word it came in the middle of.
    // The session starts inside "tomorrow", so the micro model may mishear the next word too
    // ("please car me" in one CI run): at least two of the three words after it must be there.
    EXPECT_EQ(cut.find("tomorrow"), std::string::npos) << "without pre-roll: " << cut;
    const std::set<std::string> cut_words = words_of(cut);
    int rest_heard = 0;
    for (const char* word : {"please", "call", "me"}) {
        rest_heard += cut_words.count(word) > 0 ? 1 : 0;
    }
    EXPECT_GE(rest_heard, 2) << "without pre-roll: " << cut;
    std::printf("  with 0.5 s pre-roll: \"%s\"\n  without: \"%s\"\n", kept.c_str(), cut.c_str());
}

}  // namespace
}  // namespace earshot::test
