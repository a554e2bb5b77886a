// `earshot gui` through the real executable: --screenshot writes a PNG of the asked-for page and
// exits (offscreen, no display needed), bad views exit 2, and the model and its files come from
// the command line.
#include <gtest/gtest.h>

#include <QImage>
#include <filesystem>
#include <fstream>
#include <string>

#include "gui_fixture.h"
#include "run_process.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

std::string model_args() {
    return " --model " + shell_quote(gui_random_checkpoint().string()) + " --vocab " +
           shell_quote(gui_vocab().string());
}

// No display (the command must pick the offscreen platform by itself), and settings and data
// folders of the test's own.
std::string gui_env(const TempDir& dir) {
    const fs::path config = dir.path() / "config";
    return "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM XDG_CONFIG_HOME=" +
           shell_quote(config.string()) +
           " XDG_DATA_HOME=" + shell_quote((dir.path() / "data").string()) + " " +
           shell_quote(EARSHOT_EXE);
}

TEST(GuiCommand, ScreenshotOfTheModelPage) {
    if (!gui_assets_present()) GTEST_SKIP() << "multilingual.tiktoken not found";
    const TempDir dir("earshot-gui-cli");
    const fs::path png = dir.path() / "model.png";
    const ProcessResult result =
        run_shell(gui_env(dir) + " gui --screenshot " + shell_quote(png.string()) +
                  " --view model" + model_args());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("wrote " + png.string()), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("loaded the model"), std::string::npos) << result.err;
    const QImage image(QString::fromStdString(png.string()));
    ASSERT_FALSE(image.isNull());
    EXPECT_GE(image.width(), 900);
    EXPECT_GE(image.height(), 600);
    EXPECT_GT(count_ink_pixels(image), 2000);
}

TEST(GuiCommand, ScreenshotWaitsForTheQueuedFiles) {
    if (!gui_assets_present()) GTEST_SKIP() << "multilingual.tiktoken not found";
    const TempDir dir("earshot-gui-cli-files");
    const fs::path png = dir.path() / "files.png";
    // A file FFmpeg cannot read fails at once; the page then shows the failure (the full
    // transcription is the in-process GuiScreenshot test).
    const fs::path bogus = dir.path() / "bogus.wav";
    std::ofstream(bogus) << "not audio";
    const ProcessResult result =
        run_shell(gui_env(dir) + " gui --screenshot " + shell_quote(png.string()) +
                  " --view files --transcribe " + shell_quote(bogus.string()) + model_args());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err.find("were not transcribed"), std::string::npos) << result.err;
    const QImage image(QString::fromStdString(png.string()));
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(count_ink_pixels(image), 2000);
}

TEST(GuiCommand, BadViewsAndAMissingModel) {
    const TempDir dir("earshot-gui-cli-bad");
    const fs::path png = dir.path() / "x.png";
    ProcessResult r =
        run_earshot("gui --screenshot " + shell_quote(png.string()) + " --view sideways");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("sideways"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(png));
    r = run_earshot("gui --screenshot " + shell_quote(png.string()) + " --view graph:");
    EXPECT_EQ(r.exit_code, 2) << r.err;

    // A model that does not load: the window still renders, with the loader's reason.
    const fs::path missing = dir.path() / "no-model";
    r = run_shell(gui_env(dir) + " gui --screenshot " + shell_quote(png.string()) +
                  " --view model --model " + shell_quote(missing.string()));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("could not load the model " + missing.string()), std::string::npos)
        << r.err;
    EXPECT_TRUE(fs::exists(png));
}

}  // namespace
}  // namespace earshot::test
