// GuiController: the app side of the main window. Loads models (and remembers the user's choice),
// applies settings, runs dictation through LiveBridge and the Files queue through FilesWorker,
// and keeps the two from using the model at the same time. It holds the state the window shows:
// whether dictation runs (every trigger goes through setLiveRunning) and the Files queue
// (ui::FilesQueue, which the Files page shows).
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <vector>

#include "desktop/shortcut_gesture.h"
#include "earshot/core/loaded_model.h"
#include "earshot/engine/backend/backend_choice.h"
#include "earshot/engine/backend/tap_channel.h"
#include "earshot/engine/decoding/live_cross_attention.h"
#include "earshot/engine/decoding/transcript.h"
#include "earshot/ui/files/cross_attention_data.h"
#include "earshot/ui/inspector/compare_data.h"
#include "earshot/ui/settings/settings.h"

class QLabel;
class QSettings;

namespace earshot::ui {
class FilesQueue;
class InspectorWidget;
class MainWindow;
}  // namespace earshot::ui

namespace earshot::app {

class CompareWorker;
class CrossAttentionWorker;
class FilesHistory;
class FilesWatch;
class FilesWorker;
class X11GlobalShortcut;
class LiveBridge;
class ModelLoader;
struct ModelLoadResult;

struct GuiPaths {
    QString settingsFile;  // an INI file; empty: settings_file() ($XDG_CONFIG_HOME/earshot)
    QString journalFile;   // the session transcript; empty: data_root()/session-transcript.txt
    bool journal = true;   // false: no journal is read or written (screenshots)
    // Use the audio devices: fill the input picker from PortAudio at start, and keep the
    // microphone open while idle when the pre-roll setting asks for it.
    bool listDevices = true;
    bool keepLayout = true;  // restore the window's layout from the settings, save it on close
    // Finished Files results, kept over restarts (with the journal; none when journal is false);
    // empty: the folder file-results beside the journal.
    QString filesHistoryDir;
};

class GuiController : public QObject {
    Q_OBJECT

public:
    GuiController(ui::MainWindow& window, const GuiPaths& paths = {}, QObject* parent = nullptr);
    ~GuiController() override;

    // At start: `explicitModel` (the command line) when given, else the remembered choice, else
    // the default micro model, else the no-model message; each tried after the one before
    // failed to load. Command-line models are not remembered. Returns at once;
    // initialModelSettled() follows when a model is loaded or none could be.
    void openInitialModel(const QString& explicitModel, const QString& explicitVocabulary);
    // Starts loading a model on the loader's thread and returns at once: true when the load
    // started (modelLoaded or modelLoadFailed follows), false when it was refused (another load
    // runs, or the model is in use; the window says why). On failure the window shows the
    // loader's reason and the previous model (if any) stays. `remember` stores a successful
    // choice in the settings.
    enum class Remember { no, yes };
    bool openModel(const QString& modelPath, const QString& vocabularyPath, Remember remember);
    // A model is being read (Start is refused, queued files wait).
    bool isLoadingModel() const;
    // The backend for this run (`earshot gui --backend`: "auto", "cpu" or "cuda"), over the
    // saved setting and not saved; call before openInitialModel.
    void overrideBackend(const QString& backend);
    // Why the model does not run on the backend chosen (auto or cuda fell back to the CPU); empty
    // when it does. The status bar's backend label shows it as its tooltip.
    const QString& backendNote() const { return m_backendNote; }

    bool hasModel() const { return m_model != nullptr; }
    std::shared_ptr<LoadedModel> model() const { return m_model; }
    const ui::Settings& settings() const { return m_settings; }
    void applySettings(const ui::Settings& settings);

    LiveBridge& live() const { return *m_live; }
    // Whether dictation runs: the one answer for the Live page, the tray, the global shortcuts
    // and `earshot toggle`.
    bool liveRunning() const;
    // Starts dictation on the input chosen on the Live page, or stops it (what is queued is
    // still heard and committed), whichever way it was asked for (the Live page's button and
    // the Dictation menu, the tray, the global shortcuts, `earshot toggle`/`start`/`stop`).
    // Returns what the Live page now says when dictation did not start: why it cannot, or that
    // it waits for the file being transcribed to pause (isStartPending()); empty otherwise.
    QString setLiveRunning(bool running);
    // The same start on `device` ("" = the default input; "file:PATH" = that file, paced).
    QString setLiveRunningOn(const QString& device);
    // A global shortcut's toggle: a start that cannot happen says why in the status bar.
    void toggleLiveFromShortcut();
    // The global shortcut's key went down / up (X11 grab or the portal's Activated /
    // Deactivated): toggle, push-to-talk or both, as the Settings' shortcut mode says.
    void shortcutPressed();
    void shortcutReleased();
    // Start was asked for while a file ran or a model loaded: dictation starts once the file
    // pauses, or once the model is there.
    bool isStartPending() const { return m_startPending || m_startAfterLoad; }
    // The Files page's queue: the worker's reports change it, history reads it.
    ui::FilesQueue& filesQueue() const { return *m_filesQueue; }
    ui::InspectorWidget& inspector() const { return *m_inspector; }
    FilesWorker& files() const { return *m_files; }
    // The Files page's watch folder (its setting: files/watchFolder).
    FilesWatch& filesWatch() const { return *m_watch; }
    // Starts dictation on `device` ("" = default input) now, without the checks and the pause
    // of the files that setLiveRunning makes first; the reason when it cannot start.
    QString startLive(const QString& device);

Q_SIGNALS:
    void modelLoaded(const QString& path);
    void modelLoadFailed(const QString& path, const QString& reason);
    // openInitialModel is done: a model is loaded, or none of the choices could be.
    void initialModelSettled();

private:
    void connectLive();
    // startLive, and when it fails: "Could not start: why" on the Live page (returned) and the
    // files paused for it go on.
    QString startLiveOrSay(const QString& device);
    void connectFiles();
    // The Files page's timeline and cross-attention maps (files_cross_attention.cpp).
    void connectCrossAttention();
    void requestCrossAttention(const ui::CrossAttentionRequest& request);
    // The inspector's open taps on the Files page's selected segment's window.
    void requestTaps();
    // The inspector's "Compare runs" (gui/inspector/inspector_compare.cpp).
    void connectCompare();
    void startCompare(const ui::CompareChoice& choice);
    // The transcript segment a Files row shows (rows leave blank segments out); null if none.
    const decoding::Segment* fileSegment(int job, int row) const;
    void restoreFilesHistory();
    void connectFilesWatch();  // after restoreFilesHistory: the history says what is done
    void keepResult(int id, bool cancelled);
    void updateStartAllowed();
    void fillDevices();
    void updateIdleMicrophone();
    void applyGlobalShortcut();
    void applyStartWithDesktop();  // the autostart entry as the settings say
    void modelLoadFinished(const ModelLoadResult& result);
    void openNextInitialModel();  // the next of m_initialChoices, or settle
    void settleInitialModel();
    void startAfterLoad();  // the start asked for during the load, now that it ended
    void showBackend();
    // The Files page's options from the settings and the model, or the sentence saying why they
    // do not fit it (every job then fails with it).
    void updateFilesOptions();

    ui::MainWindow& m_window;
    std::unique_ptr<QSettings> m_store;
    ui::Settings m_settings;
    std::shared_ptr<LoadedModel> m_model;
    QString m_modelPath;       // the loaded model's path and vocabulary, to reload it on another
    QString m_vocabularyPath;  // backend
    QString m_backendNote;
    LiveBridge* m_live = nullptr;
    FilesWorker* m_files = nullptr;
    CrossAttentionWorker* m_crossAttention = nullptr;
    CompareWorker* m_compare = nullptr;
    // The inspector's open taps while dictating: each update taps them and publishes a snapshot.
    std::shared_ptr<backend::TapChannel> m_liveTaps = std::make_shared<backend::TapChannel>();
    // What the inspector's live cross-attention asks of dictation's updates.
    std::shared_ptr<decoding::LiveCrossAttentionChoice> m_liveMapChoice =
        std::make_shared<decoding::LiveCrossAttentionChoice>();
    uint64_t m_shownTapUpdate = 0;  // the last snapshot the inspector shows
    ui::FilesQueue* m_filesQueue = nullptr;
    FilesWatch* m_watch = nullptr;
    std::unique_ptr<FilesHistory> m_history;
    ui::InspectorWidget* m_inspector = nullptr;
    bool m_idleMicrophone = true;             // GuiPaths::listDevices
    X11GlobalShortcut* m_shortcut = nullptr;  // on X11 only
    ShortcutGesture m_gesture;                // what the shortcut's press and release do
    QLabel* m_microphoneLabel = nullptr;      // the status bar's "microphone open" note
    ModelLoader* m_loader = nullptr;
    Remember m_rememberLoading = Remember::no;  // the load in progress: store it when it succeeds
    struct InitialChoice {
        QString modelPath;
        QString vocabularyPath;
        bool demo = false;  // the built-in micro model: say so when it opens
    };
    std::vector<InitialChoice> m_initialChoices;  // openInitialModel's choices not tried yet
    bool m_openingInitial = false;
    bool m_initialIsDemo = false;
    QString m_startRefusal;  // why Start cannot be pressed now (loading, no model); empty: it can
    bool m_startPending = false;    // Start was pressed while a file ran: waiting for the pause
    bool m_startAfterLoad = false;  // Start was asked for while a model loaded
    QString m_pendingStartDevice;   // the device of either pending start
};

}  // namespace earshot::app
