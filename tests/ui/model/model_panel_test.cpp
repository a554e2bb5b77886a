// Tests for the model manager page: the loaded model's details and bound generics, the no-model
// message, load errors shown verbatim, the remembered choice in QSettings, and the catalog's
// rows, progress bars and actions.
#include "earshot/ui/model/model_panel.h"

#include <gtest/gtest.h>

#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

#include "earshot/ui/model/model_catalog_view.h"
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

CatalogRow catalog_row(const char* name, CatalogRow::State state) {
    CatalogRow row;
    row.name = QString::fromLatin1(name);
    row.form = QStringLiteral("ggml");
    row.download = QStringLiteral("~148.9 MB");
    row.memory = QStringLiteral("~388.0 MB");
    row.languages = QStringLiteral("English");
    row.state = state;
    return row;
}

TEST(ModelCatalogView, EachStateOffersItsActions) {
    ModelPanel panel;
    ModelCatalogView* view = panel.catalogView();
    ASSERT_NE(view, nullptr);
    CatalogRow downloading = catalog_row("ggml-base.en", CatalogRow::State::downloading);
    downloading.receivedBytes = 250;
    downloading.totalBytes = 1000;
    downloading.progressText = QStringLiteral("ggml-base.en.bin: 250 B of 1.0 kB, 5 s left");
    CatalogRow installed = catalog_row("ggml-tiny.en", CatalogRow::State::installed);
    installed.location = QStringLiteral("/data/models/ggml-tiny.en/ggml-tiny.en.bin");
    CatalogRow failed = catalog_row("whisper-small", CatalogRow::State::failed);
    failed.error = QStringLiteral("not found (404): config.json is not in openai/whisper-small");
    view->setRows(
        {downloading, installed, failed, catalog_row("ggml-small", CatalogRow::State::available)});
    EXPECT_EQ(view->table()->rowCount(), 4);
    EXPECT_EQ(view->table()->item(1, 2)->text(), QStringLiteral("~148.9 MB"));

    view->selectModel(QStringLiteral("ggml-base.en"));
    ASSERT_NE(view->progressBar(QStringLiteral("ggml-base.en")), nullptr);
    EXPECT_EQ(view->progressBar(QStringLiteral("ggml-base.en"))->value(), 250);  // of 1000
    EXPECT_TRUE(view->cancelButton()->isEnabled());
    EXPECT_FALSE(view->downloadButton()->isEnabled());
    EXPECT_FALSE(view->removeButton()->isEnabled());
    EXPECT_EQ(view->statusLabel()->text(),
              QStringLiteral("ggml-base.en: ") + downloading.progressText);
    QSignalSpy cancelled(view, &ModelCatalogView::cancelRequested);
    view->cancelButton()->click();
    ASSERT_EQ(cancelled.size(), 1);
    EXPECT_EQ(cancelled.at(0).at(0).toString(), QStringLiteral("ggml-base.en"));

    // Use opens the installed model through the panel, like a chosen checkpoint.
    view->selectModel(QStringLiteral("ggml-tiny.en"));
    EXPECT_EQ(view->progressBar(QStringLiteral("ggml-tiny.en")), nullptr);
    EXPECT_TRUE(view->useButton()->isEnabled());
    EXPECT_TRUE(view->removeButton()->isEnabled());
    QSignalSpy chosen(&panel, &ModelPanel::modelChosen);
    view->useButton()->click();
    ASSERT_EQ(chosen.size(), 1);
    EXPECT_EQ(chosen.at(0).at(0).toString(), installed.location);

    view->selectModel(QStringLiteral("whisper-small"));
    EXPECT_TRUE(view->downloadButton()->isEnabled());
    EXPECT_FALSE(view->useButton()->isEnabled());
    EXPECT_EQ(view->statusLabel()->text(),
              QStringLiteral("whisper-small: download failed: ") + failed.error);

    // The download ends: the bar goes, and the selection stays on the row.
    view->selectModel(QStringLiteral("ggml-base.en"));
    CatalogRow done = catalog_row("ggml-base.en", CatalogRow::State::installed);
    done.location = QStringLiteral("/data/models/ggml-base.en/ggml-base.en.bin");
    view->updateRow(done);
    EXPECT_EQ(view->progressBar(QStringLiteral("ggml-base.en")), nullptr);
    EXPECT_EQ(view->selectedModel(), QStringLiteral("ggml-base.en"));
    EXPECT_TRUE(view->useButton()->isEnabled());
}

}  // namespace
}  // namespace earshot::ui
