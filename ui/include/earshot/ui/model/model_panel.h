// ModelPanel: the model manager page. Choose a checkpoint (HF folder, .safetensors or ggml .bin)
// and optionally a separate vocabulary; shows the loaded model's bound generics, or what is
// missing, or the loader's exact reason when a choice failed.
#pragma once

#include <QString>
#include <QWidget>

#include "earshot/ui/model/model_summary.h"

class QLabel;
class QPushButton;
class QStackedWidget;
class QTableWidget;

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

    bool hasModel() const { return m_hasModel; }
    const ModelSummary& summary() const { return m_summary; }
    QString loadError() const;

    QTableWidget* genericsTable() const { return m_generics; }
    QLabel* noModelLabel() const { return m_noModel; }
    QLabel* errorLabel() const { return m_error; }
    QLabel* titleLabel() const { return m_title; }
    QLabel* noteLabel() const { return m_note; }

public slots:
    void chooseFolder();      // HF checkpoint directory
    void chooseFile();        // .safetensors or ggml .bin
    void chooseVocabulary();  // .tiktoken, tokenizer.json / vocab.json, or a ggml .bin

signals:
    // Load `modelPath` with `vocabularyPath` (empty: the model's own tokenizer).
    void modelChosen(const QString& modelPath, const QString& vocabularyPath);

private:
    QStackedWidget* m_stack = nullptr;
    QLabel* m_noModel = nullptr;
    QLabel* m_error = nullptr;
    QWidget* m_modelPage = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_details = nullptr;
    QLabel* m_note = nullptr;
    QTableWidget* m_generics = nullptr;
    QPushButton* m_vocabulary = nullptr;
    ModelSummary m_summary;
    bool m_hasModel = false;
};

}  // namespace earshot::ui
