// GuiController: wires the window's requests to model loading, LiveBridge, FilesWorker and the
// inspector, and their results back to the window.
#include "gui/gui_controller.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QSettings>
#include <QStatusBar>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <thread>

#include "desktop/x11_global_shortcut.h"
#include "earshot/audio/input_device.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "earshot/engine/tokenizer/tokenizer_error.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/live/transcript_journal.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"
#include "earshot/ui/model/model_summary.h"
#include "gui/cuda_availability.h"
#include "gui/files/files_history.h"
#include "gui/files/files_player.h"
#include "gui/files/files_worker.h"
#include "gui/gui_options.h"
#include "gui/inspector/inspector_data.h"
#include "gui/inspector/plan_data.h"
#include "gui/live/live_bridge.h"
#include "gui/models/default_model.h"
#include "gui/status_message.h"

namespace earshot::app {

namespace {
// Where the chosen microphone is kept (the device's name; empty: the default input).
const QString kInputDeviceKey = QStringLiteral("live/input_device");

// The Files page's options: the settings, then what the checkpoint itself carries (word times
// are asked for per job, FilesWorker's with_word_times).
decoding::TranscribeOptions files_options(const ui::Settings& settings, const LoadedModel& model) {
    return file_transcription_options(transcription_choice(settings), model);
}
}  // namespace

GuiController::GuiController(ui::MainWindow& window, const GuiPaths& paths, QObject* parent)
    : QObject(parent), m_window(window) {
    m_store = paths.settingsFile.isEmpty()
                  ? std::make_unique<QSettings>()
                  : std::make_unique<QSettings>(paths.settingsFile, QSettings::IniFormat);
    m_settings = ui::Settings::load(*m_store);
    m_window.setSettings(m_settings);
    m_window.setCudaAvailability(cuda_availability());
    showBackend();

    m_live = new LiveBridge(this);
    m_files = new FilesWorker(this);
    m_filesQueue = new ui::FilesQueue(this);
    m_window.filesPanel()->setQueue(m_filesQueue);
    m_inspector = new ui::InspectorWidget(&m_window);
    m_window.setInspectorWidget(m_inspector);
    if (paths.keepLayout) {
        m_window.setLayoutStore(m_store.get());
    }
    connectLive();
    connectFiles();
    connect(&m_window, &ui::MainWindow::modelChosen, this,
            [this](const QString& model, const QString& vocabulary) {
                openModel(model, vocabulary, Remember::yes);
            });
    connect(&m_window, &ui::MainWindow::settingsChanged, this, &GuiController::applySettings);

    if (paths.journal) {
        const QString journal =
            paths.journalFile.isEmpty() ? ui::TranscriptJournal::defaultPath() : paths.journalFile;
        m_window.livePanel()->attachJournal(journal);
        m_history = std::make_unique<FilesHistory>(paths.filesHistoryDir.isEmpty()
                                                       ? QFileInfo(journal).absolutePath() +
                                                             QStringLiteral("/file-results")
                                                       : paths.filesHistoryDir);
        restoreFilesHistory();
    }
    if (paths.listDevices) {
        fillDevices();
        // A microphone the user picks is remembered across restarts.
        QComboBox* picker = m_window.livePanel()->devicePicker();
        connect(picker, &QComboBox::activated, this, [this, picker](int index) {
            m_store->setValue(kInputDeviceKey, picker->itemData(index).toString());
        });
    }
    // The pre-roll's microphone, open while idle: the status bar says so.
    m_idleMicrophone = paths.listDevices;
    m_microphoneLabel = new QLabel(&m_window);
    m_microphoneLabel->setObjectName(QStringLiteral("microphoneLabel"));
    m_microphoneLabel->hide();
    m_window.statusBar()->addPermanentWidget(m_microphoneLabel);
    connect(m_live, &LiveBridge::idleMicrophoneChanged, this,
            [this](bool open, const QString& message) {
                m_microphoneLabel->setText(open ? tr("Mic open (pre-roll)") : QString());
                m_microphoneLabel->setToolTip(message);
                m_microphoneLabel->setVisible(open);
                if (!open) m_window.statusBar()->showMessage(message, kStatusMessageMs);
            });
    connect(m_window.livePanel()->devicePicker(), &QComboBox::currentIndexChanged, this,
            &GuiController::updateIdleMicrophone);
    // The global shortcut toggles dictation as `earshot toggle` does (X11 only).
    if (QGuiApplication::platformName() == QStringLiteral("xcb")) {
        m_shortcut = new X11GlobalShortcut(this);
        connect(m_shortcut, &X11GlobalShortcut::activated, this,
                &GuiController::toggleLiveFromShortcut);
    }
    applyGlobalShortcut();
    updateStartAllowed();
}

void GuiController::updateIdleMicrophone() {
    m_live->setPreRoll(m_settings.preRollSeconds, m_window.livePanel()->selectedDevice(),
                       m_idleMicrophone && m_model != nullptr && !m_loading);
}

void GuiController::applyGlobalShortcut() {
    if (m_shortcut == nullptr) return;
    if (m_shortcut->shortcut() == m_settings.globalShortcut.trimmed() &&
        (m_shortcut->isGrabbed() || m_settings.globalShortcut.isEmpty())) {
        return;
    }
    const QString why = m_shortcut->setShortcut(m_settings.globalShortcut);
    if (!why.isEmpty()) {
        std::cerr << "earshot: " << why.toStdString() << "\n";
        m_window.statusBar()->showMessage(why);  // stays until the next message
    }
}

GuiController::~GuiController() {
    // Quitting mid-file keeps what the file has so far, as Cancel does.
    m_files->stopForQuit();
    m_window.setLayoutStore(nullptr);
}

void GuiController::fillDevices() {
    QList<ui::InputDeviceEntry> entries;
    try {
        for (const audio::InputDevice& device : audio::list_input_devices()) {
            const QString name = QString::fromStdString(device.name);
            entries.append(
                {name, QStringLiteral("%1 (%2)").arg(name, QString::fromStdString(device.host_api)),
                 device.is_default});
        }
    } catch (const std::exception& error) {
        m_window.livePanel()->setStatusText(
            tr("No input devices: %1").arg(QString::fromStdString(error.what())));
    }
    m_window.livePanel()->setDevices(entries);
    // The microphone chosen last time, when it is there; else the default input, and the choice
    // is kept for when it comes back.
    QComboBox* picker = m_window.livePanel()->devicePicker();
    const QString chosen = m_store->value(kInputDeviceKey).toString();
    const int index = chosen.isEmpty() ? -1 : picker->findData(chosen);
    if (index >= 0) picker->setCurrentIndex(index);
}

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

void GuiController::applySettings(const ui::Settings& settings) {
    const bool backendChanged = settings.backend != m_settings.backend;
    m_settings = settings;
    m_settings.save(*m_store);
    m_store->sync();
    m_window.setSettings(m_settings);
    applyGlobalShortcut();
    updateIdleMicrophone();
    if (backendChanged && m_model) {
        if (m_live->isRunning() || m_files->isBusy()) {
            m_window.statusBar()->showMessage(
                tr("The new backend is used when the model is next opened (it is in use now)."),
                kStatusMessageMs);
        } else {
            openModel(m_modelPath, m_vocabularyPath, Remember::no);  // on the new backend
        }
    }
    showBackend();
    if (m_model) updateFilesOptions();
}

void GuiController::updateFilesOptions() {
    try {
        m_files->setOptions(files_options(m_settings, *m_model));
    } catch (const TranscriptionSetupError& error) {
        // The saved language or task is not for this model: files are refused with the sentence
        // (as `earshot transcribe` refuses them) until the settings change; the status bar says
        // it now.
        const QString message = QString::fromStdString(error.what());
        m_files->setSetupError(message);
        m_window.statusBar()->showMessage(message, kStatusMessageMs);
    }
}

QString GuiController::startLive(const QString& device) {
    if (!m_model) {
        return tr("No model is loaded.");
    }
    if (m_files->isBusy() && !m_files->isPaused()) {
        return tr("The model is transcribing files; pause them first.");
    }
    LiveOptions options;
    try {
        options = live_options(m_settings, device, m_model->tokenizer);
        // "file:PATH" (`earshot start --input`): that file, paced, instead of the microphone.
        if (device.startsWith(QLatin1String("file:"))) {
            options.input = device.mid(5).toStdString();
            options.device.clear();
        }
        // The checked language and task, suppressed tokens and word alignment heads, as
        // `earshot live` sets them.
        options.streaming = dictation_options(transcription_choice(m_settings), *m_model,
                                              std::move(options.streaming));
    } catch (const std::exception& error) {
        return QString::fromStdString(error.what());
    }
    const QString error = m_live->start(m_model, options);
    if (error.isEmpty()) {
        m_files->setHeld(true);
        m_window.setLiveRunning(true);
        // The pre-roll microphone is dictation's now: the status bar no longer says it is open
        // while idle.
        m_microphoneLabel->hide();
        m_window.livePanel()->setStatusText(device.isEmpty() ? tr("Listening on the default input…")
                                                             : tr("Listening on %1…").arg(device));
    }
    return error;
}

bool GuiController::liveRunning() const { return m_live->isRunning(); }

QString GuiController::setLiveRunning(bool running) {
    if (!running) {
        if (m_live->isRunning()) {
            m_window.livePanel()->setStatusText(tr("Stopping: hearing what is still queued…"));
            m_live->stop();
        }
        return {};
    }
    return setLiveRunningOn(m_window.livePanel()->selectedDevice());
}

QString GuiController::setLiveRunningOn(const QString& device) {
    if (m_live->isRunning()) {
        return {};
    }
    if (!m_startRefusal.isEmpty()) {
        return m_startRefusal;
    }
    if (m_files->isBusy() && !m_files->isPaused()) {
        // The file being transcribed pauses at its next window; dictation starts then
        // (FilesWorker::paused), and the files go on when it stops.
        m_pendingStartDevice = device;
        m_startPending = true;
        const QString waiting = tr("Pausing the files after the current window…");
        m_window.livePanel()->setStatusText(waiting);
        m_files->pause();
        return waiting;
    }
    return startLiveOrSay(device);
}

QString GuiController::startLiveOrSay(const QString& device) {
    const QString error = startLive(device);
    if (error.isEmpty()) {
        return {};
    }
    const QString said = tr("Could not start: %1").arg(error);
    m_window.livePanel()->setStatusText(said);
    if (m_files->isPaused()) {
        m_files->resume();  // the files go on
    }
    return said;
}

void GuiController::toggleLiveFromShortcut() {
    const bool start = !liveRunning();
    const QString said = setLiveRunning(start);
    if (start && !liveRunning() && !m_startPending && !said.isEmpty()) {
        m_window.statusBar()->showMessage(said, kStatusMessageMs);
    }
}

void GuiController::connectLive() {
    ui::LivePanel* panel = m_window.livePanel();
    connect(panel, &ui::LivePanel::startRequested, this, &GuiController::setLiveRunningOn);
    connect(panel, &ui::LivePanel::stopRequested, this, [this] { setLiveRunning(false); });
    connect(m_files, &FilesWorker::paused, this, [this] {
        if (!m_startPending) return;
        m_startPending = false;
        startLiveOrSay(m_pendingStartDevice);
        if (m_live->isRunning()) {
            m_window.statusBar()->showMessage(
                tr("The files are paused while you dictate; they go on when you stop."),
                kStatusMessageMs);
        }
    });
    connect(m_live, &LiveBridge::updated, &m_window, &ui::MainWindow::applyLiveUpdate);
    // The heat overlay: each call's share of the last update's engine time, on the entry the
    // inspector shows.
    connect(m_live, &LiveBridge::engineTimings, this, [this](const StepTimings& timings) {
        const QString entry = m_inspector->graphView()->entry();
        if (entry.isEmpty()) return;
        try {
            // An update that did not run the entry shown keeps the heat it has.
            const QHash<QString, double> shares = call_time_shares(entry.toStdString(), timings);
            if (!shares.isEmpty()) m_inspector->setHeat(shares);
        } catch (const std::exception& error) {
            m_window.statusBar()->showMessage(QString::fromStdString(error.what()),
                                              kStatusMessageMs);
        }
    });
    connect(m_live, &LiveBridge::levelChanged, panel, &ui::LivePanel::setLevelDbfs);
    connect(m_live, &LiveBridge::failed, panel,
            [panel](const QString& message) { panel->setStatusText(message); });
    connect(m_live, &LiveBridge::stopped, this, [this, panel] {
        m_window.setLiveRunning(false);
        m_microphoneLabel->setVisible(m_live->idleMicrophoneOpen());
        m_files->resume();  // a pause for dictation ends, and the queue goes on
        const LiveStats& stats = m_live->lastStats();
        // Why it stopped stays on the page: a lost microphone must not read like a normal stop.
        panel->setStatusText(stats.error.empty()
                                 ? tr("Stopped after %1 s of audio.").arg(stats.audio_s, 0, 'f', 1)
                                 : tr("Stopped after %1 s of audio: %2")
                                       .arg(stats.audio_s, 0, 'f', 1)
                                       .arg(QString::fromStdString(stats.error)));
        updateStartAllowed();
    });
}

void GuiController::connectFiles() {
    ui::FilesPanel* panel = m_window.filesPanel();
    ui::FilesQueue* queue = m_filesQueue;
    panel->setPlayer(std::make_unique<FilesPlayer>());  // Play and word clicks: the output device
    connect(queue, &ui::FilesQueue::jobQueued, m_files, &FilesWorker::enqueue);
    connect(panel, &ui::FilesPanel::cancelRequested, m_files, &FilesWorker::cancel);
    connect(panel, &ui::FilesPanel::exportRequested, this,
            [this](int id, const QString& format, const QString& path) {
                const QString error = m_files->exportTranscript(id, format, path);
                m_window.statusBar()->showMessage(
                    error.isEmpty() ? tr("Wrote %1").arg(path) : tr("Export failed: %1").arg(error),
                    kStatusMessageMs);
            });
    connect(panel, &ui::FilesPanel::exportAllRequested, this,
            [this](const QList<ui::ExportTarget>& targets, const QString& folder) {
                const FilesExportSummary summary = m_files->exportAll(targets, folder);
                // Failures stay until the next message: the user reads which and why.
                m_window.statusBar()->showMessage(
                    summary.message(folder), summary.failures.isEmpty() ? kStatusMessageMs : 0);
            });
    connect(queue, &ui::FilesQueue::jobsRemoved, this, [this](const QList<int>& ids) {
        for (int id : ids) {
            m_files->remove(id);  // a running one is cancelled and nothing of it is kept
            const QString error = m_history ? m_history->remove(id) : QString();
            if (!error.isEmpty()) {
                m_window.statusBar()->showMessage(tr("Could not forget the result: %1").arg(error),
                                                  kStatusMessageMs);
            }
        }
    });
    connect(m_files, &FilesWorker::jobStarted, queue, &ui::FilesQueue::setJobRunning);
    connect(m_files, &FilesWorker::jobProgress, queue, &ui::FilesQueue::setJobProgress);
    // A file paused for dictation says so in its row, and goes back to "Transcribing" after.
    connect(m_files, &FilesWorker::paused, queue, [this, queue] {
        // Unless dictation could not start and the files went on already.
        if (m_files->isPaused()) queue->setJobPaused(m_files->runningJob(), true);
    });
    connect(m_files, &FilesWorker::resumed, queue,
            [this, queue] { queue->setJobPaused(m_files->runningJob(), false); });
    connect(m_files, &FilesWorker::jobSegments, queue, &ui::FilesQueue::appendJobSegments);
    connect(m_files, &FilesWorker::jobFinished, queue, &ui::FilesQueue::setJobFinished);
    connect(m_files, &FilesWorker::jobFailed, queue, &ui::FilesQueue::setJobFailed);
    connect(m_files, &FilesWorker::jobCancelled, queue, &ui::FilesQueue::setJobCancelled);
    connect(m_files, &FilesWorker::busyChanged, this, &GuiController::updateStartAllowed);
    connect(m_files, &FilesWorker::jobFinished, this, [this](int id) { keepResult(id, false); });
    connect(m_files, &FilesWorker::jobCancelled, this,
            [this](int id, const QList<ui::SegmentRow>& partial) {
                if (!partial.isEmpty()) {
                    keepResult(id, true);
                }
            });
}

void GuiController::restoreFilesHistory() {
    for (FilesHistoryEntry& entry : m_history->load()) {
        const int id = m_filesQueue->addFinishedJob(
            entry.source, entry.rows, QString::fromStdString(entry.transcript.language),
            entry.cancelled ? ui::FileJobState::cancelled : ui::FileJobState::done);
        m_files->addResult(id, std::move(entry.transcript));
        m_history->attach(id, entry.file);
    }
}

void GuiController::keepResult(int id, bool cancelled) {
    const decoding::Transcript* transcript = m_files->transcript(id);
    if (!m_history || transcript == nullptr) {
        return;
    }
    const QString error = m_history->save(m_filesQueue->jobPath(id), *transcript, cancelled, id,
                                          m_filesQueue->jobSegments(id));
    if (!error.isEmpty()) {
        m_window.statusBar()->showMessage(tr("Could not keep the result: %1").arg(error),
                                          kStatusMessageMs);
    }
}

void GuiController::updateStartAllowed() {
    ui::LivePanel* panel = m_window.livePanel();
    m_startRefusal = m_loading  ? tr("The model is being loaded.")
                     : !m_model ? tr("No model is loaded: choose one on the Model page.")
                                : QString();
    panel->setStartAllowed(m_startRefusal.isEmpty(), m_startRefusal);
    updateIdleMicrophone();  // the model came or went
    // While files are transcribed, Start pauses them: say so where the user looks.
    const QString hint = tr("Files are being transcribed: Start pauses them while you dictate.");
    if (m_files->isBusy() && !m_files->isPaused() && !m_live->isRunning() &&
        panel->statusText().isEmpty()) {
        panel->setStatusText(hint);
    } else if (panel->statusText() == hint) {
        panel->setStatusText(QString());
    }
}

}  // namespace earshot::app
