// GuiController's models feature: the model opened at start (command line, remembered choice,
// the micro demo) and opening one on a loader thread, on the backend the settings choose.
#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QSettings>
#include <QStatusBar>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <thread>

#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
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
#include "gui/status_message.h"

namespace earshot::app {

void GuiController::openInitialModel(const QString& explicitModel,
                                     const QString& explicitVocabulary) {
    if (!explicitModel.isEmpty()) {
        openModel(explicitModel, explicitVocabulary, Remember::no);
    } else {
        const ui::ModelChoice remembered = ui::ModelChoice::load(*m_store);
        const bool loaded =
            !remembered.modelPath.isEmpty() &&
            openModel(remembered.modelPath, remembered.vocabularyPath, Remember::no);
        if (!loaded) {
            if (const auto fallback = default_model_path()) {
                if (openModel(QString::fromStdString(fallback->string()), QString(),
                              Remember::no)) {
                    // First start: say at once that this model is a demo.
                    m_window.statusBar()->showMessage(
                        tr("Opened the micro demo model (~200 words, espeak-ng voices only): "
                           "for real speech, open a Whisper model."));
                }
            }
        }
    }
    if (!m_model) {
        m_window.showNoModel(no_model_message());
        m_window.showPage(ui::MainWindow::Page::model);
    } else {
        m_window.showPage(ui::MainWindow::Page::live);
    }
}

bool GuiController::openModel(const QString& modelPath, const QString& vocabularyPath,
                              Remember remember) {
    if (m_loading) {
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
    std::shared_ptr<LoadedModel> loaded;
    QString reason;
    QString backendNote;
    bool needsVocabulary = false;
    // Read off the UI thread (large-v3 takes seconds): the window keeps drawing and answering,
    // with a busy bar in the status bar, while this waits in a local event loop. Nothing that
    // uses the model can start meanwhile (m_loading).
    m_loading = true;
    updateStartAllowed();
    m_window.showLoading(tr("Loading %1…").arg(QFileInfo(QDir::cleanPath(modelPath)).fileName()));
    QApplication::setOverrideCursor(Qt::BusyCursor);
    const backend::BackendChoice choice =
        backend::parse_backend_choice(m_settings.backend.toStdString())
            .value_or(backend::BackendChoice::automatic);
    std::exception_ptr failure;
    {
        QEventLoop wait;
        std::thread loader([&] {
            try {
                loaded = loadOnBackend(modelPath, vocabulary, choice, backendNote);
            } catch (...) {
                failure = std::current_exception();
            }
            QMetaObject::invokeMethod(&wait, &QEventLoop::quit, Qt::QueuedConnection);
        });
        wait.exec(QEventLoop::ExcludeUserInputEvents);
        loader.join();
    }
    QApplication::restoreOverrideCursor();
    m_window.showLoading(QString());
    m_loading = false;
    try {
        if (failure) std::rethrow_exception(failure);
    } catch (const tokenizer::TokenizerError& error) {
        // The checkpoint has no tokenizer files, or the vocabulary does not fit it.
        reason = QString::fromStdString(error.what());
        needsVocabulary = true;
    } catch (const std::exception& error) {
        reason = QString::fromStdString(error.what());
    }
    if (!loaded) {
        updateStartAllowed();
        std::cerr << "earshot: could not load the model " << modelPath.toStdString() << ": "
                  << reason.toStdString() << "\n";
        m_window.showModelLoadError(modelPath, reason);
        if (needsVocabulary) {
            m_window.modelPanel()->showVocabularyNeeded(modelPath);
        }
        Q_EMIT modelLoadFailed(modelPath, reason);
        return false;
    }
    m_model = std::move(loaded);
    m_modelPath = modelPath;
    m_vocabularyPath = vocabulary;
    m_backendNote = backendNote;
    showBackend();
    if (!m_backendNote.isEmpty()) {
        std::cerr << "earshot: " << m_backendNote.toStdString() << "\n";
        m_window.statusBar()->showMessage(m_backendNote, kStatusMessageMs);
    }
    updateFilesOptions();
    m_files->setModel(m_model);  // after the options: queued files may start right away
    m_window.showModel(model_summary(*m_model, modelPath, vocabulary));
    m_inspector->setGraphProvider(graph_provider(m_model->checkpoint.binding));
    m_inspector->setPlanBackend(plan_backend(*m_model));
    m_inspector->setPlanProvider(plan_provider(m_model->checkpoint.binding));
    m_inspector->setData(inspector_data(m_model->checkpoint.binding));
    if (remember == Remember::yes) {
        ui::ModelChoice{modelPath, vocabulary}.save(*m_store);
        if (!vocabulary.isEmpty()) {
            ui::rememberVocabulary(*m_store, modelPath, vocabulary);
        }
        m_store->sync();
    }
    std::cerr << "earshot: loaded the model " << modelPath.toStdString() << "\n";
    updateStartAllowed();
    Q_EMIT modelLoaded(modelPath);
    return true;
}

std::unique_ptr<LoadedModel> GuiController::loadOnBackend(const QString& modelPath,
                                                          const QString& vocabularyPath,
                                                          backend::BackendChoice choice,
                                                          QString& note) {
    const std::filesystem::path model(modelPath.toStdString());
    const std::filesystem::path vocabulary(vocabularyPath.toStdString());
    std::unique_ptr<LoadedModel> loaded;
    try {
        loaded = load_model(model, vocabulary, choice);
        note = QString::fromStdString(loaded->backend_fallback);
    } catch (const backend::CudaError& error) {
        // CUDA was chosen and cannot run this model: the app keeps working, on the CPU.
        loaded = load_model(model, vocabulary, backend::BackendChoice::cpu);
        const std::string_view kind = backend::cuda_error_kind_name(error.kind());
        note = tr("CUDA was chosen but cannot run (%1: %2); running on the CPU")
                   .arg(QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size())),
                        QString::fromStdString(error.what()));
    }
    return loaded;
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
