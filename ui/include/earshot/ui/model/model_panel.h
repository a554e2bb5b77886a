// ModelPanel: the model manager page. Choose a checkpoint (HF folder, .safetensors or ggml .bin)
// and optionally a separate vocabulary; shows the loaded model's bound generics, or what is
// missing, or the loader's exact reason when a choice failed; below, the catalog of models to
// download and the installed ones (ModelCatalogView).
#pragma once

#include <QString>
#include <QWidget>

#include "earshot/ui/model/model_summary.h"

class QLabel;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace earshot::ui {
class ModelCatalogView;
}

namespace earshot::ui {

class ModelPanel : public QWidget {
    Q_OBJECT

public:
    explicit ModelPanel(QWidget* parent = nullptr);

    void showModel(const ModelSummary& summary);
    // No model: `message` says what is missing and how to get a model.
    void showNoModel(const QString& message);
    // Loading `path` failed with `reason` (the loader's message, verbatim). The page keeps what
    // it showed before (the model still loaded, or the no-model message) under the error.
    void showLoadError(const QString& path, const QString& reason);
    void clearLoadError();
    // Loading `checkpointPath` failed for want of a vocabulary (it has no tokenizer files, or the
    // one given does not fit): "Vocabulary…" opens that checkpoint with the one chosen next.
    void showVocabularyNeeded(const QString& checkpointPath);
    // The checkpoint a chosen vocabulary is opened with: the one that needs a vocabulary, else
    // the loaded model's; empty: none, and "Vocabulary…" is disabled.
    QString vocabularyTarget() const;

    bool hasModel() const { return m_hasModel; }
    const ModelSummary& summary() const { return m_summary; }
    QString loadError() const;

    QTableWidget* genericsTable() const { return m_generics; }
    QLabel* noModelLabel() const { return m_noModel; }
    QLabel* errorLabel() const { return m_error; }
    QLabel* titleLabel() const { return m_title; }
    QLabel* noteLabel() const { return m_note; }
    // The downloadable and installed models; its Use opens a model through modelChosen.
    ModelCatalogView* catalogView() const { return m_catalog; }

public Q_SLOTS:
    void chooseFolder();            // HF checkpoint directory
    void chooseFile();              // .safetensors or ggml .bin
    void chooseVocabularyFile();    // .tiktoken, tokenizer.json / vocab.json, or a ggml .bin
    void chooseVocabularyFolder();  // an HF folder: tokenizer.json, or vocab.json + merges.txt

Q_SIGNALS:
    // Load `modelPath` with `vocabularyPath` (empty: the model's own tokenizer).
    void modelChosen(const QString& modelPath, const QString& vocabularyPath);

private:
    void updateVocabularyButton();

    QStackedWidget* m_stack = nullptr;
    QLabel* m_noModel = nullptr;
    QLabel* m_error = nullptr;
    QWidget* m_modelPage = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_details = nullptr;
    QLabel* m_note = nullptr;
    QTableWidget* m_generics = nullptr;
    QPushButton* m_vocabulary = nullptr;
    ModelCatalogView* m_catalog = nullptr;
    ModelSummary m_summary;
    bool m_hasModel = false;
    QString m_needsVocabulary;  // the checkpoint that failed for want of a vocabulary
};

}  // namespace earshot::ui
