// ModelPanel: the choose buttons, the error line, a stack of the no-model message and the
// loaded model's details (files, format, bound generics), and under it the model catalog.
#include "earshot/ui/model/model_panel.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "earshot/ui/model/model_catalog_view.h"

namespace earshot::ui {

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("modelPanel"));

    auto* folder = new QPushButton(tr("Checkpoint &folder…"), this);
    folder->setObjectName(QStringLiteral("chooseFolderButton"));
    folder->setToolTip(
        tr("A Hugging Face model directory (config.json, model.safetensors, "
           "tokenizer files)"));
    connect(folder, &QPushButton::clicked, this, &ModelPanel::chooseFolder);
    auto* file = new QPushButton(tr("Checkpoint f&ile…"), this);
    file->setObjectName(QStringLiteral("chooseFileButton"));
    file->setToolTip(tr("A whisper.cpp ggml .bin, or a model.safetensors with config.json"));
    connect(file, &QPushButton::clicked, this, &ModelPanel::chooseFile);
    m_vocabulary = new QPushButton(tr("&Vocabulary…"), this);
    m_vocabulary->setObjectName(QStringLiteral("chooseVocabularyButton"));
    m_vocabulary->setToolTip(
        tr("A vocabulary for a checkpoint without tokenizer files, or another one for the loaded "
           "checkpoint: a .tiktoken or ggml .bin file, or a Hugging Face folder"));
    m_vocabulary->setEnabled(false);
    auto* vocabularyMenu = new QMenu(m_vocabulary);
    QAction* vocabularyFile = vocabularyMenu->addAction(tr("Vocabulary &file…"));
    vocabularyFile->setObjectName(QStringLiteral("chooseVocabularyFileAction"));
    connect(vocabularyFile, &QAction::triggered, this, &ModelPanel::chooseVocabularyFile);
    QAction* vocabularyFolder = vocabularyMenu->addAction(tr("Vocabulary f&older…"));
    vocabularyFolder->setObjectName(QStringLiteral("chooseVocabularyFolderAction"));
    connect(vocabularyFolder, &QAction::triggered, this, &ModelPanel::chooseVocabularyFolder);
    m_vocabulary->setMenu(vocabularyMenu);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(folder);
    buttons->addWidget(file);
    buttons->addWidget(m_vocabulary);
    buttons->addStretch(1);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("modelError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b3261e; }"));
    m_error->hide();

    m_noModel = new QLabel(this);
    m_noModel->setObjectName(QStringLiteral("noModelMessage"));
    m_noModel->setAlignment(Qt::AlignCenter);
    m_noModel->setWordWrap(true);
    m_noModel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noModel->setMargin(24);

    m_modelPage = new QWidget(this);
    m_title = new QLabel(m_modelPage);
    m_title->setObjectName(QStringLiteral("modelTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    m_title->setFont(titleFont);
    m_note = new QLabel(m_modelPage);
    m_note->setObjectName(QStringLiteral("modelNote"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setStyleSheet(
        QStringLiteral("QLabel { background: #fff4ce; border: 1px solid #e0b000; "
                       "border-radius: 3px; padding: 6px; color: #3a2f00; }"));
    m_note->hide();
    m_details = new QLabel(m_modelPage);
    m_details->setObjectName(QStringLiteral("modelDetails"));
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setWordWrap(true);
    m_generics = new QTableWidget(0, 2, m_modelPage);
    m_generics->setObjectName(QStringLiteral("genericsTable"));
    m_generics->setHorizontalHeaderLabels({tr("Generic"), tr("Bound to")});
    m_generics->verticalHeader()->hide();
    m_generics->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_generics->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_generics->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto* modelLayout = new QVBoxLayout(m_modelPage);
    modelLayout->setContentsMargins(0, 0, 0, 0);
    modelLayout->addWidget(m_title);
    modelLayout->addWidget(m_note);
    modelLayout->addWidget(m_details);
    modelLayout->addWidget(m_generics, 1);

    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_noModel);
    m_stack->addWidget(m_modelPage);

    m_catalog = new ModelCatalogView(this);
    connect(m_catalog, &ModelCatalogView::useRequested, this,
            [this](const QString& location) { Q_EMIT modelChosen(location, QString()); });
    auto* catalogBox = new QWidget(this);
    auto* catalogTitle =
        new QLabel(tr("Models to download (Hugging Face hub) and installed"), catalogBox);
    QFont catalogFont = catalogTitle->font();
    catalogFont.setBold(true);
    catalogTitle->setFont(catalogFont);
    auto* catalogLayout = new QVBoxLayout(catalogBox);
    catalogLayout->setContentsMargins(0, 0, 0, 0);
    catalogLayout->addWidget(catalogTitle);
    catalogLayout->addWidget(m_catalog, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("modelSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_stack);
    splitter->addWidget(catalogBox);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_error);
    layout->addWidget(splitter, 1);
}

void ModelPanel::showModel(const ModelSummary& summary) {
    m_summary = summary;
    m_hasModel = true;
    const QFileInfo info(QDir::cleanPath(summary.path));
    m_title->setText(!summary.name.isEmpty()     ? summary.name
                     : info.fileName().isEmpty() ? summary.path
                                                 : info.fileName());
    const QString note = summary.modelPageNote.isEmpty() ? summary.note : summary.modelPageNote;
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
    m_details->setText(tr("Checkpoint: %1\nFormat: %2 (T from %3)\nVocabulary: %4")
                           .arg(summary.path, summary.format, summary.dtypeSource,
                                summary.vocabularyPath.isEmpty() ? tr("the checkpoint's own")
                                                                 : summary.vocabularyPath));
    m_generics->setRowCount(static_cast<int>(summary.generics.size()));
    for (int row = 0; row < summary.generics.size(); ++row) {
        m_generics->setItem(row, 0, new QTableWidgetItem(summary.generics[row].first));
        m_generics->setItem(row, 1, new QTableWidgetItem(summary.generics[row].second));
    }
    m_needsVocabulary.clear();
    updateVocabularyButton();
    clearLoadError();
    m_stack->setCurrentWidget(m_modelPage);
}

void ModelPanel::showNoModel(const QString& message) {
    m_hasModel = false;
    m_summary = {};
    m_noModel->setText(message);
    updateVocabularyButton();
    m_stack->setCurrentWidget(m_noModel);
}

void ModelPanel::showLoadError(const QString& path, const QString& reason) {
    m_error->setText(tr("Could not load %1:\n%2").arg(path, reason));
    m_error->show();
    m_needsVocabulary.clear();
    updateVocabularyButton();
}

void ModelPanel::showVocabularyNeeded(const QString& checkpointPath) {
    m_needsVocabulary = checkpointPath;
    updateVocabularyButton();
    const QString hint =
        tr("This checkpoint needs a vocabulary: choose one with \"Vocabulary…\" (a .tiktoken or "
           "ggml .bin file, or a Hugging Face folder with tokenizer.json, or vocab.json and "
           "merges.txt).");
    m_error->setText(m_error->text().isEmpty() ? hint
                                               : m_error->text() + QStringLiteral("\n") + hint);
    m_error->show();
}

QString ModelPanel::vocabularyTarget() const {
    if (!m_needsVocabulary.isEmpty()) {
        return m_needsVocabulary;
    }
    return m_hasModel ? m_summary.path : QString();
}

void ModelPanel::updateVocabularyButton() {
    m_vocabulary->setEnabled(!vocabularyTarget().isEmpty());
}

void ModelPanel::clearLoadError() {
    m_error->clear();
    m_error->hide();
}

QString ModelPanel::loadError() const { return m_error->isHidden() ? QString() : m_error->text(); }

void ModelPanel::chooseFolder() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open checkpoint folder"));
    if (!path.isEmpty()) {
        Q_EMIT modelChosen(path, QString());
    }
}

void ModelPanel::chooseFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open checkpoint"), QString(),
        tr("Whisper checkpoints (*.bin *.safetensors);;All files (*)"));
    if (!path.isEmpty()) {
        Q_EMIT modelChosen(path, QString());
    }
}

void ModelPanel::chooseVocabularyFile() {
    const QString checkpoint = vocabularyTarget();
    if (checkpoint.isEmpty()) {
        return;
    }
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open vocabulary"), QString(),
        tr("Vocabularies (*.tiktoken tokenizer.json vocab.json *.bin);;All files (*)"));
    if (!path.isEmpty()) {
        Q_EMIT modelChosen(checkpoint, path);
    }
}

void ModelPanel::chooseVocabularyFolder() {
    const QString checkpoint = vocabularyTarget();
    if (checkpoint.isEmpty()) {
        return;
    }
    const QString path = QFileDialog::getExistingDirectory(
        this, tr("Open vocabulary folder (tokenizer.json, or vocab.json and merges.txt)"));
    if (!path.isEmpty()) {
        Q_EMIT modelChosen(checkpoint, path);
    }
}

}  // namespace earshot::ui
