// Tests for the model manager page: the loaded model's details and bound generics, the no-model
// message, load errors shown verbatim, and the remembered choice in QSettings.
#include "earshot/ui/model/model_panel.h"

#include <gtest/gtest.h>

#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

#include "earshot/ui/model/model_summary.h"

namespace earshot::ui {
namespace {

TEST(ModelPanel, ShowsTheBoundGenerics) {
    ModelPanel panel;
    ModelSummary summary;
    summary.path = QStringLiteral("/models/micro/");
    summary.vocabularyPath = QStringLiteral("/assets/multilingual.tiktoken");
    summary.format = QStringLiteral("hf_directory");
    summary.dtypeSource = QStringLiteral("model.safetensors");
    summary.generics = {{QStringLiteral("Mels"), QStringLiteral("80")},
                        {QStringLiteral("Frames"), QStringLiteral("3000")},
                        {QStringLiteral("D"), QStringLiteral("64")},
                        {QStringLiteral("T"), QStringLiteral("f16")}};
    panel.showModel(summary);
    EXPECT_TRUE(panel.hasModel());
    EXPECT_EQ(panel.genericsTable()->rowCount(), 4);
    EXPECT_EQ(panel.genericsTable()->item(3, 0)->text(), QStringLiteral("T"));
    EXPECT_EQ(panel.genericsTable()->item(3, 1)->text(), QStringLiteral("f16"));
    auto* title = panel.findChild<QLabel*>(QStringLiteral("modelTitle"));
    ASSERT_NE(title, nullptr);
    EXPECT_EQ(title->text(), QStringLiteral("micro"));
    auto* details = panel.findChild<QLabel*>(QStringLiteral("modelDetails"));
    ASSERT_NE(details, nullptr);
    EXPECT_TRUE(details->text().contains(QStringLiteral("/assets/multilingual.tiktoken")));
    EXPECT_TRUE(details->text().contains(QStringLiteral("hf_directory")));
    auto* vocabulary = panel.findChild<QPushButton*>(QStringLiteral("chooseVocabularyButton"));
    ASSERT_NE(vocabulary, nullptr);
    EXPECT_TRUE(vocabulary->isEnabled());

    panel.showNoModel(QStringLiteral("No model is loaded."));
    EXPECT_FALSE(panel.hasModel());
    EXPECT_EQ(panel.noModelLabel()->text(), QStringLiteral("No model is loaded."));
    EXPECT_FALSE(vocabulary->isEnabled());
}

TEST(ModelPanel, LoadErrorIsShownVerbatimUntilCleared) {
    ModelPanel panel;
    panel.showNoModel(QStringLiteral("No model"));
    EXPECT_TRUE(panel.loadError().isEmpty());
    const QString reason = QStringLiteral("/m/config.json: missing key \"d_model\" (HF config)");
    panel.showLoadError(QStringLiteral("/m"), reason);
    EXPECT_EQ(panel.errorLabel()->text(), QStringLiteral("Could not load /m:\n") + reason);
    EXPECT_FALSE(panel.errorLabel()->isHidden());
    EXPECT_EQ(panel.noModelLabel()->text(), QStringLiteral("No model"));
    panel.clearLoadError();
    EXPECT_TRUE(panel.errorLabel()->isHidden());
}

TEST(ModelPanel, ACheckpointThatNeedsAVocabularyEnablesVocabularyForIt) {
    ModelPanel panel;
    panel.showNoModel(QStringLiteral("No model"));
    auto* vocabulary = panel.findChild<QPushButton*>(QStringLiteral("chooseVocabularyButton"));
    ASSERT_NE(vocabulary, nullptr);
    EXPECT_FALSE(vocabulary->isEnabled());
    ASSERT_NE(vocabulary->menu(), nullptr);  // a file or a folder
    EXPECT_EQ(vocabulary->menu()->actions().size(), 2);

    panel.showLoadError(QStringLiteral("/ck"), QStringLiteral("ck: neither tokenizer.json nor "
                                                              "vocab.json in the directory"));
    panel.showVocabularyNeeded(QStringLiteral("/ck"));
    EXPECT_TRUE(vocabulary->isEnabled());
    EXPECT_EQ(panel.vocabularyTarget(), QStringLiteral("/ck"));
    EXPECT_TRUE(panel.loadError().contains(QStringLiteral("needs a vocabulary")));
    // Another failure, not for want of a vocabulary, forgets that checkpoint.
    panel.showLoadError(QStringLiteral("/other"), QStringLiteral("no config.json"));
    EXPECT_TRUE(panel.vocabularyTarget().isEmpty());
    EXPECT_FALSE(vocabulary->isEnabled());
}

TEST(ModelChoice, TheVocabularyIsRememberedPerCheckpoint) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    QSettings store(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
    EXPECT_TRUE(rememberedVocabulary(store, QStringLiteral("/models/a")).isEmpty());
    rememberVocabulary(store, QStringLiteral("/models/a/"), QStringLiteral("/v/a.tiktoken"));
    rememberVocabulary(store, QStringLiteral("/models/b"), QStringLiteral("/v/b"));
    EXPECT_EQ(rememberedVocabulary(store, QStringLiteral("/models/a")),
              QStringLiteral("/v/a.tiktoken"));
    EXPECT_EQ(rememberedVocabulary(store, QStringLiteral("/models/b")), QStringLiteral("/v/b"));
    EXPECT_TRUE(rememberedVocabulary(store, QStringLiteral("/models/c")).isEmpty());
}

TEST(ModelChoice, IsRememberedInSettings) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("earshot.ini"));
    {
        QSettings store(file, QSettings::IniFormat);
        EXPECT_TRUE(ModelChoice::load(store).modelPath.isEmpty());
        ModelChoice{QStringLiteral("/models/tiny"), QStringLiteral("/v/gpt2.tiktoken")}.save(store);
    }
    QSettings store(file, QSettings::IniFormat);
    const ModelChoice choice = ModelChoice::load(store);
    EXPECT_EQ(choice.modelPath, QStringLiteral("/models/tiny"));
    EXPECT_EQ(choice.vocabularyPath, QStringLiteral("/v/gpt2.tiktoken"));
}

}  // namespace
}  // namespace earshot::ui
