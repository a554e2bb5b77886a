// MainWindow: the top-level window. Tabs Live (dictation), Files (transcription queue), Model
// (model manager) and Inspector; menus; a status bar with the backend, the running latency and
// any audio losses. Plain data in, requests out: the app does the work.
#pragma once

#include <QMainWindow>
#include <QString>
#include <functional>

#include "earshot/ui/live/live_types.h"
#include "earshot/ui/model/model_summary.h"
#include "earshot/ui/settings/cuda_availability.h"
#include "earshot/ui/settings/settings.h"

class QAction;
class QCloseEvent;
class QDockWidget;
class QLabel;
class QSettings;
class QTabWidget;
class QVBoxLayout;

namespace earshot::ui {

class FilesPanel;
class LivePanel;
class ModelPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class Page { live, files, model, inspector };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    LivePanel* livePanel() const { return m_live; }
    FilesPanel* filesPanel() const { return m_files; }
    ModelPanel* modelPanel() const { return m_model; }
    QTabWidget* tabs() const { return m_tabs; }
    void showPage(Page page);
    Page currentPage() const;

    // The loaded model: the model page shows it, dictation may start, the title names it.
    void showModel(const ModelSummary& summary);
    // No model (`message` says how to get one): dictation cannot start.
    void showNoModel(const QString& message);
    // Loading `path` failed: the loader's `reason` on the model page and in the status bar.
    void showModelLoadError(const QString& path, const QString& reason);

    // A busy bar and `what` ("Loading large-v3…") in the status bar while the app reads a model;
    // empty hides them.
    void showLoading(const QString& what);
    QWidget* loadingIndicator() const { return m_loading; }

    // The Inspector tab's content (until set, a placeholder says it is not available).
    void setInspectorWidget(QWidget* widget);
    QWidget* inspectorWidget() const;

    // The inspector beside the pages (a dock, right of them by default) instead of a tab of its
    // own, so the graph and its heat are seen while the Live page shows the words; View menu.
    void setInspectorBeside(bool beside);
    bool inspectorBeside() const;
    QDockWidget* inspectorDock() const { return m_inspectorDock; }
    // The window's layout (size, the inspector's place, the dock's size) kept in `store` when the
    // window closes, and restored from it now; null stops keeping it.
    void setLayoutStore(QSettings* store);
    void saveLayout(QSettings& store) const;
    void restoreLayout(QSettings& store);

    // Help > About: the version, the backend and the model.
    QString aboutText() const;

    // The backend the model runs on ("CPU", "CUDA (NVIDIA H200)"); `detail` (why it is not the
    // one chosen, e.g. auto's fallback reason) becomes the label's tooltip.
    void setBackendName(const QString& name, const QString& detail = QString());
    // What the Settings dialog says about CUDA (its device, or why it cannot run).
    void setCudaAvailability(const CudaAvailability& cuda) { m_cuda = cuda; }
    void setSettings(const Settings& settings) { m_settings = settings; }
    const Settings& settings() const { return m_settings; }

    // A dictation update: the transcript, and the latency and losses in the status bar.
    void applyLiveUpdate(const LiveTextUpdate& update);
    // Shows dictation running or stopped (the Live page, the Dictation menu, the status bar), as
    // the app's controller says; liveRunningChanged tells the others that show it (the tray).
    void setLiveRunning(bool running);

    // Work that quitting would lose (dictation running, files queued or being transcribed), as
    // the sentences the quit question starts with; empty when there is none.
    QString unfinishedWork() const;
    // Asked before the window closes with unfinished work: true quits. By default a question box
    // (Quit / Cancel); tests put their own answer here.
    using QuitConfirmation = std::function<bool(const QString& question)>;
    void setQuitConfirmation(QuitConfirmation confirm) { m_confirmQuit = std::move(confirm); }

    // The standard no-model text: what is missing and how to load a model.
    static QString defaultNoModelMessage();

    QAction* openModelFolderAction() const { return m_openModelFolderAction; }
    QAction* openModelAction() const { return m_openModelAction; }
    QAction* transcribeFilesAction() const { return m_transcribeFilesAction; }
    QAction* toggleDictationAction() const { return m_toggleDictationAction; }
    QAction* settingsAction() const { return m_settingsAction; }
    QAction* quitAction() const { return m_quitAction; }
    QAction* inspectorBesideAction() const { return m_inspectorBesideAction; }
    QAction* aboutAction() const { return m_aboutAction; }
    QLabel* latencyLabel() const { return m_latencyLabel; }
    QLabel* lossLabel() const { return m_lossLabel; }

public Q_SLOTS:
    // The settings dialog; on OK with changes, settingsChanged().
    void openSettings();
    // The About box (not modal: the window keeps working).
    void showAbout();

Q_SIGNALS:
    // The user picked a model (and perhaps a separate vocabulary; empty: the model's own).
    void modelChosen(const QString& modelPath, const QString& vocabularyPath);
    void settingsChanged(const earshot::ui::Settings& settings);
    // setLiveRunning changed what the window shows.
    void liveRunningChanged(bool running);

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createMenus();
    bool askToQuit(const QString& question);

    QTabWidget* m_tabs = nullptr;
    LivePanel* m_live = nullptr;
    FilesPanel* m_files = nullptr;
    ModelPanel* m_model = nullptr;
    QWidget* m_inspector = nullptr;
    QDockWidget* m_inspectorDock = nullptr;
    QVBoxLayout* m_dockLayout = nullptr;  // holds m_inspector while it is beside the pages
    QSettings* m_layoutStore = nullptr;
    QLabel* m_backendLabel = nullptr;
    QWidget* m_loading = nullptr;  // the busy bar and its label
    QLabel* m_loadingLabel = nullptr;
    QLabel* m_latencyLabel = nullptr;
    QLabel* m_lossLabel = nullptr;
    QAction* m_openModelFolderAction = nullptr;
    QAction* m_openModelAction = nullptr;
    QAction* m_transcribeFilesAction = nullptr;
    QAction* m_toggleDictationAction = nullptr;
    bool m_liveRunning = false;  // as setLiveRunning last said
    QAction* m_settingsAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_inspectorBesideAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QuitConfirmation m_confirmQuit;
    Settings m_settings;
    CudaAvailability m_cuda;
};

}  // namespace earshot::ui
