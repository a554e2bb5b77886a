// One transcription setup (earshot/core/transcription_setup.h) behind the three front ends:
// `earshot transcribe`, the Files page and dictation in the window are given the same good and
// bad settings (a language or task the model cannot run, a checkpoint naming an alignment head the
// model does not have) and give the same answer: all run, or all refuse with the same sentence.
#include <gtest/gtest.h>

#include <QSettings>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "earshot/ui/main_window.h"
#include "earshot/ui/settings/settings.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

struct Answer {
    bool ok = false;
    std::string message;  // the refusal, without the front end's prefix
};

std::ostream& operator<<(std::ostream& out, const Answer& a) {
    return out << (a.ok ? "ran" : "refused: " + a.message);
}

struct Case {
    std::string name;
    std::string language;
    std::string task;
    bool bad_head = false;
};

class FrontEndsAgree : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fs::exists(gui_jfk()))
            GTEST_SKIP() << "jfk.wav not found under " << EARSHOT_SHARED_DIR;
        ensure_gui_application();
        // The micro model, and a copy whose generation_config.json names a head it lacks.
        fs::copy(micro_model_dir(), dir_.path() / "bad-head");
        const fs::path config = dir_.path() / "bad-head" / "generation_config.json";
        nlohmann::json json = nlohmann::json::parse(std::ifstream(config));
        json["alignment_heads"] = nlohmann::json::array({nlohmann::json::array({99, 0})});
        std::ofstream(config, std::ios::trunc) << json.dump();
    }

    fs::path model(const Case& c) const {
        return c.bad_head ? dir_.path() / "bad-head" : micro_model_dir();
    }

    // `earshot transcribe` with word times (the Files page always times words).
    Answer cli(const Case& c) const {
        const fs::path out = dir_.path() / ("cli-" + c.name);
        const ProcessResult r =
            run_earshot("transcribe --model " + shell_quote(model(c).string()) + " --language " +
                        c.language + " --task " + c.task + " --word-timestamps --output-dir " +
                        shell_quote(out.string()) + " " + shell_quote(gui_jfk().string()));
        if (r.exit_code == 0) return {true, {}};
        std::string message = r.err;
        const std::string prefix = "earshot transcribe: ";
        if (message.rfind(prefix, 0) == 0) message = message.substr(prefix.size());
        while (!message.empty() && message.back() == '\n') message.pop_back();
        return {false, message};
    }

    // The window with `c`'s settings saved: a file on the Files page, then dictation.
    std::pair<Answer, Answer> window(const Case& c) const {
        const fs::path folder = dir_.path() / ("gui-" + c.name);
        fs::create_directories(folder);
        app::GuiPaths paths;
        paths.settingsFile = q(folder / "settings.ini");
        paths.journal = false;
        paths.listDevices = false;
        {
            QSettings store(paths.settingsFile, QSettings::IniFormat);
            ui::Settings settings;
            settings.language = QString::fromStdString(c.language);
            settings.task = QString::fromStdString(c.task);
            settings.save(store);
            store.sync();
        }
        ui::MainWindow window;
        app::GuiController controller(window, paths);
        EXPECT_TRUE(open_model_and_wait(controller, q(model(c)), QString(),
                                        app::GuiController::Remember::no));

        Answer files;
        QObject::connect(&controller.files(), &app::FilesWorker::jobFinished, [&files] {
            files = {true, {}};
        });
        QObject::connect(&controller.files(), &app::FilesWorker::jobFailed,
                         [&files](int, const QString& message) {
                             files = {false, message.toStdString()};
                         });
        controller.files().enqueue(1, q(gui_jfk()));
        EXPECT_TRUE(app::wait_for_files(controller, 120'000));

        Answer live;
        const QString error = controller.startLive(QStringLiteral("file:") + q(gui_jfk()));
        live = {error.isEmpty(), error.toStdString()};
        if (controller.live().isRunning()) {
            controller.live().stop();
            EXPECT_TRUE(wait_for_signal(&controller.live(), &app::LiveBridge::stopped, 60'000));
        }
        return {files, live};
    }

    TempDir dir_{"earshot-front-ends"};
};

TEST_F(FrontEndsAgree, SameAnswerForTheSameSettings) {
    const Case cases[] = {
        {"english", "en", "transcribe", false},
        {"french-on-english-only", "fr", "transcribe", false},
        {"translate-on-english-only", "auto", "translate", false},
        {"head-the-model-lacks", "en", "transcribe", true},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const Answer from_cli = cli(c);
        const auto [from_files, from_live] = window(c);
        EXPECT_EQ(from_cli.ok, c.name == "english") << from_cli;
        EXPECT_EQ(from_files.ok, from_cli.ok) << from_files << " / cli " << from_cli;
        EXPECT_EQ(from_live.ok, from_cli.ok) << from_live << " / cli " << from_cli;
        EXPECT_EQ(from_files.message, from_cli.message);
        EXPECT_EQ(from_live.message, from_cli.message);
        if (c.bad_head) {
            EXPECT_NE(from_cli.message.find("alignment head [99, 0]"), std::string::npos);
        }
        if (c.name == "french-on-english-only") {
            EXPECT_NE(from_cli.message.find("English-only"), std::string::npos) << from_cli;
        }
    }
}

}  // namespace
}  // namespace earshot::test
