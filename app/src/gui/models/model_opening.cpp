// GuiController's models feature: the model opened at start (command line, remembered choice,
// the micro demo) and opening one on the loader's thread, on the backend the settings choose;
// the result comes back as a signal (no nested event loop).
#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStatusBar>
#include <iostream>

#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"
#include "earshot/ui/model/model_summary.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/gui_options.h"
#include "gui/inspector/inspector_data.h"
#include "gui/inspector/plan_data.h"
#include "gui/live/live_bridge.h"
#include "gui/models/default_model.h"
#include "gui/models/model_loader.h"
#include "gui/status_message.h"

namespace earshot::app {

void GuiController::openInitialModel(const QString& explicitModel,
                                     const QString& explicitVocabulary) {
    m_initialChoices.clear();
    if (!explicitModel.isEmpty()) {
        // A model named on the command line is the only choice: no fallback hides its error.
        m_initialChoices.push_back({explicitModel, explicitVocabulary, false});
    } else {
        const ui::ModelChoice remembered = ui::ModelChoice::load(*m_store);
        if (!remembered.modelPath.isEmpty()) {
            m_initialChoices.push_back({remembered.modelPath, remembered.vocabularyPath, false});
        }
        if (const auto fallback = default_model_path()) {
            m_initialChoices.push_back(
                {QString::fromStdString(fallback->string()), QString(), true});
        }
    }
    m_openingInitial = true;
    openNextInitialModel();
}

void GuiController::openNextInitialModel() {
    while (!m_initialChoices.empty()) {
        const InitialChoice next = m_initialChoices.front();
        m_initialChoices.erase(m_initialChoices.begin());
        m_initialIsDemo = next.demo;
        if (openModel(next.modelPath, next.vocabularyPath, Remember::no)) {
            return;  // goes on in modelLoadFinished
        }
    }
    settleInitialModel();
}

void GuiController::settleInitialModel() {
    m_openingInitial = false;
    if (!m_model) {
        m_window.showNoModel(no_model_message());
        m_window.showPage(ui::MainWindow::Page::model);
    } else {
        m_window.showPage(ui::MainWindow::Page::live);
    }
    Q_EMIT initialModelSettled();
}

bool GuiController::isLoadingModel() const { return m_loader->isLoading(); }

bool GuiController::openModel(const QString& modelPath, const QString& vocabularyPath,
                              Remember remember) {
    if (m_loader->isLoading()) {
        m_window.showModelLoadError(modelPath, tr("another model is being loaded"));
        return false;
    }
    if (m_live->isRunning() || m_files->isBusy()) {
        m_window.showModelLoadError(
            modelPath, tr("the current model is in use; stop dictation and wait for the files "
                          "being transcribed (or cancel them) first"));
        return false;
    }
    // No vocabulary given: the one last opened with this checkpoint, if any.
    const QString vocabulary =
        vocabularyPath.isEmpty() ? ui::rememberedVocabulary(*m_store, modelPath) : vocabularyPath;
    const backend::BackendChoice choice =
        backend::parse_backend_choice(m_settings.backend.toStdString())
            .value_or(backend::BackendChoice::automatic);
    // Read off the UI thread (large-v3 takes seconds): the window keeps drawing and answering,
    // with a busy bar in the status bar, and modelLoadFinished takes the result. Nothing that
    // uses the model starts meanwhile: Start is refused and queued files wait for a model.
    m_loader->start(modelPath, vocabulary, choice);
    m_rememberLoading = remember;
    m_files->setModel(nullptr);
    updateStartAllowed();
    m_window.showLoading(tr("Loading %1…").arg(QFileInfo(QDir::cleanPath(modelPath)).fileName()));
    QApplication::setOverrideCursor(Qt::BusyCursor);
    return true;
}

void GuiController::modelLoadFinished(const ModelLoadResult& result) {
    QApplication::restoreOverrideCursor();
    m_window.showLoading(QString());
    if (!result.model) {
        m_files->setModel(m_model);  // the previous model, if any, stays
        updateStartAllowed();
        std::cerr << "earshot: could not load the model " << result.modelPath.toStdString() << ": "
                  << result.failure.toStdString() << "\n";
        m_window.showModelLoadError(result.modelPath, result.failure);
        if (result.needsVocabulary) {
            m_window.modelPanel()->showVocabularyNeeded(result.modelPath);
        }
        Q_EMIT modelLoadFailed(result.modelPath, result.failure);
        if (m_openingInitial) openNextInitialModel();
        startAfterLoad();  // unless the next choice loads now
        return;
    }
    m_model = result.model;
    m_modelPath = result.modelPath;
    m_vocabularyPath = result.vocabularyPath;
    m_backendNote = result.backendNote;
    showBackend();
    if (!m_backendNote.isEmpty()) {
        std::cerr << "earshot: " << m_backendNote.toStdString() << "\n";
        m_window.statusBar()->showMessage(m_backendNote, kStatusMessageMs);
    }
    updateFilesOptions();
    m_files->setModel(m_model);  // after the options: queued files may start right away
    m_window.showModel(model_summary(*m_model, m_modelPath, m_vocabularyPath));
    m_inspector->setGraphProvider(graph_provider(m_model->checkpoint.binding));
    m_inspector->setPlanBackend(plan_backend(*m_model));
    m_inspector->setPlanProvider(plan_provider(m_model->checkpoint.binding));
    m_inspector->setData(inspector_data(m_model->checkpoint.binding));
    if (m_rememberLoading == Remember::yes) {
        ui::ModelChoice{m_modelPath, m_vocabularyPath}.save(*m_store);
        if (!m_vocabularyPath.isEmpty()) {
            ui::rememberVocabulary(*m_store, m_modelPath, m_vocabularyPath);
        }
        m_store->sync();
    }
    std::cerr << "earshot: loaded the model " << m_modelPath.toStdString() << "\n";
    updateStartAllowed();
    Q_EMIT modelLoaded(m_modelPath);
    if (m_openingInitial) {
        if (m_initialIsDemo) {
            // First start: say at once that this model is a demo.
            m_window.statusBar()->showMessage(
                tr("Opened the micro demo model (~200 words, espeak-ng voices only): "
                   "for real speech, open a Whisper model."));
        }
        settleInitialModel();
    }
    startAfterLoad();
}

void GuiController::showBackend() {
    m_window.setBackendName(backend_display_name(m_settings, m_model.get()), m_backendNote);
}

void GuiController::overrideBackend(const QString& backend) {
    m_settings.backend = backend;
    m_window.setSettings(m_settings);
    showBackend();
}

}  // namespace earshot::app
