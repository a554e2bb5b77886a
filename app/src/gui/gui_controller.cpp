// GuiController: building the controller (its workers, the window's wiring, the journal and the
// Files history, the devices, the global shortcut) and applying settings. Its features live
// beside it, OBS-style, each in the folder of its concept: models/model_opening.cpp (loading a
// model), live/dictation_control.cpp (starting and stopping dictation), files/files_control.cpp
// (the Files queue and its worker).
#include "gui/gui_controller.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QSettings>
#include <QStatusBar>
#include <exception>
#include <iostream>

#include "core/files/data_root.h"
#include "desktop/autostart_entry.h"
#include "desktop/x11_global_shortcut.h"
#include "earshot/audio/input_device.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "gui/cuda_availability.h"
#include "gui/files/cross_attention_worker.h"
#include "gui/files/files_history.h"
#include "gui/files/files_worker.h"
#include "gui/gui_options.h"
#include "gui/live/live_bridge.h"
#include "gui/models/model_loader.h"
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
    m_store = std::make_unique<QSettings>(paths.settingsFile.isEmpty()
                                              ? QString::fromStdString(settings_file().string())
                                              : paths.settingsFile,
                                          QSettings::IniFormat);
    m_settings = ui::Settings::load(*m_store);
    m_settings.startWithDesktop = autostart_entry_exists();
    m_window.setSettings(m_settings);
    m_window.setCudaAvailability(cuda_availability());
    showBackend();

    m_live = new LiveBridge(this);
    m_loader = new ModelLoader(this);
    connect(m_loader, &ModelLoader::finished, this, &GuiController::modelLoadFinished);
    m_files = new FilesWorker(this);
    m_crossAttention = new CrossAttentionWorker(this);
    m_filesQueue = new ui::FilesQueue(this);
    m_window.filesPanel()->setQueue(m_filesQueue);
    m_inspector = new ui::InspectorWidget(&m_window);
    m_window.setInspectorWidget(m_inspector);
    if (paths.keepLayout) {
        m_window.setLayoutStore(m_store.get());
    }
    connectLive();
    connectFiles();
    connectCrossAttention();
    connectCompare();
    connect(&m_window, &ui::MainWindow::modelChosen, this,
            [this](const QString& model, const QString& vocabulary) {
                openModel(model, vocabulary, Remember::yes);
            });
    connect(&m_window, &ui::MainWindow::settingsChanged, this, &GuiController::applySettings);

    if (paths.journal) {
        const QString journal =
            paths.journalFile.isEmpty()
                ? QString::fromStdString((data_root() / "session-transcript.txt").string())
                : paths.journalFile;
        m_window.livePanel()->attachJournal(journal);
        m_history = std::make_unique<FilesHistory>(paths.filesHistoryDir.isEmpty()
                                                       ? QFileInfo(journal).absolutePath() +
                                                             QStringLiteral("/file-results")
                                                       : paths.filesHistoryDir);
        restoreFilesHistory();
    }
    connectFilesWatch();
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
        connect(m_shortcut, &X11GlobalShortcut::activated, this, &GuiController::shortcutPressed);
        connect(m_shortcut, &X11GlobalShortcut::released, this, &GuiController::shortcutReleased);
    }
    applyGlobalShortcut();
    updateStartAllowed();
}

void GuiController::updateIdleMicrophone() {
    m_live->setPreRoll(m_settings.preRollSeconds, m_window.livePanel()->selectedDevice(),
                       m_idleMicrophone && m_model != nullptr && !isLoadingModel());
}

void GuiController::applyStartWithDesktop() {
    if (m_settings.startWithDesktop == autostart_entry_exists()) return;
    const QString why = m_settings.startWithDesktop
                            ? write_autostart_entry(QCoreApplication::applicationFilePath())
                            : remove_autostart_entry();
    if (!why.isEmpty()) {
        const QString said = tr("Start with the desktop: %1").arg(why);
        std::cerr << "earshot: " << said.toStdString() << "\n";
        m_window.statusBar()->showMessage(said, kStatusMessageMs);
        m_settings.startWithDesktop = autostart_entry_exists();  // what is true now
    }
}

void GuiController::applyGlobalShortcut() {
    const ShortcutMode mode =
        parse_shortcut_mode(m_settings.shortcutMode.toStdString()).value_or(ShortcutMode::toggle);
    if (mode != m_gesture.mode()) m_gesture.setMode(mode);
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
    if (isLoadingModel()) {
        // Closed mid-load: the loader waits for its thread and drops the model it read.
        QGuiApplication::restoreOverrideCursor();
        m_window.showLoading(QString());
    }
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

void GuiController::applySettings(const ui::Settings& settings) {
    const bool backendChanged = settings.backend != m_settings.backend;
    m_settings = settings;
    m_settings.save(*m_store);
    m_store->sync();
    applyStartWithDesktop();
    m_window.setSettings(m_settings);
    applyGlobalShortcut();
    updateIdleMicrophone();
    if (backendChanged && m_model) {
        if (isLoadingModel()) {
            m_window.statusBar()->showMessage(
                tr("The new backend is used when the model is next opened (one is loading)."),
                kStatusMessageMs);
        } else if (m_live->isRunning() || m_files->isBusy()) {
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
    } catch (const std::exception& error) {
        // The saved language or task is not for this model, or the vocabulary file cannot be
        // used (TranscriptionSetupError, VocabularyFileError): files are refused with the
        // sentence (as `earshot transcribe` refuses them) until the settings change; the status
        // bar says it now.
        const QString message = QString::fromStdString(error.what());
        m_files->setSetupError(message);
        m_window.statusBar()->showMessage(message, kStatusMessageMs);
    }
}

}  // namespace earshot::app
