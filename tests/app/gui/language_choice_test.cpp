// Languages and tasks a model cannot run are refused before any audio is read: an English-only
// model (the micro model) with another language or translate, and codes that are no language.
#include "core/transcription/language_choice.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "earshot/core/loaded_model.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "gui/gui_options.h"
#include "gui/models/default_model.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kMicro = EARSHOT_MICRO_MODEL_DIR;

std::string micro_args(const TempDir& dir) {
    return shell_quote((dir.path() / "a.wav").string()) + " --model " +
           shell_quote(kMicro.string());
}

TEST(LanguageChoice, EnglishOnlyModelsRefuseOtherLanguagesAndTranslation) {
    const tokenizer::Tokenizer english = tokenizer::Tokenizer::load(kMicro);
    ASSERT_FALSE(english.multilingual());
    EXPECT_EQ(app::language_task_error(english, "auto", decoding::Task::transcribe), "");
    EXPECT_EQ(app::language_task_error(english, "en", decoding::Task::transcribe), "");
    EXPECT_EQ(app::language_task_error(english, "English", decoding::Task::transcribe), "");
    EXPECT_EQ(app::language_task_error(english, "fr", decoding::Task::transcribe),
              "this model is English-only: it cannot transcribe french (fr); use en or auto, or "
              "a multilingual model");
    EXPECT_EQ(app::language_task_error(english, "auto", decoding::Task::translate),
              "this model is English-only: it cannot translate (translate needs a multilingual "
              "model)");
    EXPECT_EQ(app::language_task_error(english, "klingon", decoding::Task::transcribe),
              "unknown language \"klingon\" (a Whisper language code such as en, or its name, "
              "or auto)");
    EXPECT_EQ(app::language_code("French"), "fr");
    EXPECT_EQ(app::language_code("auto"), "auto");
    EXPECT_EQ(app::language_code("klingon"), "");
}

TEST(LanguageChoice, TheWindowsSettingsAreRefusedTheSameWay) {
    const tokenizer::Tokenizer english = tokenizer::Tokenizer::load(kMicro);
    ui::Settings settings;
    settings.language = QStringLiteral("fr");
    try {
        app::live_options(settings, QString(), english);
        FAIL() << "fr accepted for an English-only model";
    } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("English-only"), std::string::npos);
    }
    settings.language = QStringLiteral("auto");
    settings.task = QStringLiteral("translate");
    EXPECT_THROW(app::transcribe_options(settings, english), std::invalid_argument);
    settings.task = QStringLiteral("transcribe");
    settings.language = QStringLiteral("English");  // a name is taken as its code
    EXPECT_EQ(app::transcribe_options(settings, english).decoding.language, "en");
}

TEST(LanguageChoice, TheModelSummaryNamesTheLanguagesAndSaysEnglishOnly) {
    const auto loaded = app::load_model(kMicro, {}, backend::BackendChoice::cpu);
    const ui::ModelSummary summary = app::model_summary(*loaded, QString(), QString());
    EXPECT_TRUE(summary.englishOnly);
    ASSERT_EQ(summary.languageNames.size(), summary.languages.size());
    EXPECT_EQ(summary.languages.value(1), QStringLiteral("zh"));
    EXPECT_EQ(summary.languageNames.value(1), QStringLiteral("chinese"));
    EXPECT_EQ(summary.languageNames.value(5), QStringLiteral("korean"));
}

TEST(LanguageChoice, TheCommandLineExitsTwoWithTheReason) {
    const TempDir dir("earshot-language-choice");
    ProcessResult r = run_earshot("transcribe " + micro_args(dir) + " --language fr");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("English-only: it cannot transcribe french (fr)"), std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;

    r = run_earshot("transcribe " + micro_args(dir) + " --task translate");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("English-only: it cannot translate"), std::string::npos) << r.err;

    r = run_earshot("live --input " + micro_args(dir) + " --language fr");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("English-only: it cannot transcribe french (fr)"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "a.json"));
}

}  // namespace
}  // namespace earshot::test
