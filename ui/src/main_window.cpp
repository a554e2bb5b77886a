// MainWindow: builds the four pages and the status bar (the menus: main_window_menus.cpp), and
// routes dictation updates to the live page and the status bar.
#include "earshot/ui/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "earshot/ui/app_icon.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/live/transcript_view.h"
#include "earshot/ui/model/model_panel.h"
#include "earshot/ui/settings/settings_dialog.h"

namespace earshot::ui {

namespace {
constexpr int kStatusMessageMs = 8000;
constexpr int kInspectorTabIndex = 3;
const QString kLayoutGroup = QStringLiteral("window");
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Earshot"));
    setWindowIcon(appIcon());

    m_live = new LivePanel(this);
    m_files = new FilesPanel(this);
    m_model = new ModelPanel(this);
    auto* placeholder = new QLabel(tr("The model inspector is not available in this build."), this);
    placeholder->setObjectName(QStringLiteral("inspectorPlaceholder"));
    placeholder->setAlignment(Qt::AlignCenter);
    m_inspector = placeholder;

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_live, tr("&Live"));
    m_tabs->addTab(m_files, tr("&Files"));
    m_tabs->addTab(m_model, tr("&Model"));
    m_tabs->addTab(m_inspector, tr("&Inspector"));
    setCentralWidget(m_tabs);
    connect(m_model, &ModelPanel::modelChosen, this, &MainWindow::modelChosen);

    m_inspectorDock = new QDockWidget(tr("Inspector"), this);
    m_inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
    m_inspectorDock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    m_inspectorDock->setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea |
                                     Qt::BottomDockWidgetArea);
    // Scrolls rather than widening the window: the inspector's toolbars are wider than a dock
    // beside the Live page needs to be on a laptop screen.
    auto* dockScroll = new QScrollArea(m_inspectorDock);
    dockScroll->setObjectName(QStringLiteral("inspectorDockScroll"));
    dockScroll->setWidgetResizable(true);
    dockScroll->setFrameShape(QFrame::NoFrame);
    auto* dockContent = new QWidget(dockScroll);
    m_dockLayout = new QVBoxLayout(dockContent);
    m_dockLayout->setContentsMargins(0, 0, 0, 0);
    dockScroll->setWidget(dockContent);
    m_inspectorDock->setWidget(dockScroll);
    addDockWidget(Qt::RightDockWidgetArea, m_inspectorDock);
    m_inspectorDock->hide();

    m_latencyLabel = new QLabel(this);
    m_latencyLabel->setObjectName(QStringLiteral("latencyLabel"));
    m_latencyLabel->setToolTip(
        tr("Engine time of the last update, and how long after the end "
           "of its audio it arrived"));
    m_lossLabel = new QLabel(this);
    m_lossLabel->setObjectName(QStringLiteral("lossLabel"));
    m_lossLabel->setStyleSheet(QStringLiteral("QLabel { color: #b3261e; }"));
    m_lossLabel->hide();
    m_backendLabel = new QLabel(this);
    m_backendLabel->setObjectName(QStringLiteral("backendLabel"));
    m_loading = new QWidget(this);
    m_loading->setObjectName(QStringLiteral("loadingIndicator"));
    auto* loadingLayout = new QHBoxLayout(m_loading);
    loadingLayout->setContentsMargins(0, 0, 0, 0);
    m_loadingLabel = new QLabel(m_loading);
    auto* busy = new QProgressBar(m_loading);
    busy->setRange(0, 0);  // busy: no known end
    busy->setMaximumWidth(120);
    busy->setMaximumHeight(14);
    busy->setTextVisible(false);
    loadingLayout->addWidget(m_loadingLabel);
    loadingLayout->addWidget(busy);
    m_loading->hide();
    statusBar()->addPermanentWidget(m_loading);
    statusBar()->addPermanentWidget(m_lossLabel);
    statusBar()->addPermanentWidget(m_latencyLabel);
    statusBar()->addPermanentWidget(m_backendLabel);
    setBackendName(QStringLiteral("CPU"));

    createMenus();
    showNoModel(defaultNoModelMessage());
    resize(960, 680);
}

MainWindow::~MainWindow() = default;

QString MainWindow::defaultNoModelMessage() {
    return tr(
        "No model is loaded.\n\n"
        "Choose File > Open model folder… for a Hugging Face model directory "
        "(config.json, model.safetensors, tokenizer files), or File > Open model file… for a "
        "whisper.cpp ggml .bin or a model.safetensors file.\n\n"
        "From a terminal: earshot --model PATH opens it here, and "
        "earshot inspect --model PATH prints the same summary.");
}

void MainWindow::showPage(Page page) {
    if (page == Page::inspector && inspectorBeside()) {
        m_inspectorDock->show();
        m_inspectorDock->raise();
        return;
    }
    switch (page) {
        case Page::live:
            m_tabs->setCurrentWidget(m_live);
            return;
        case Page::files:
            m_tabs->setCurrentWidget(m_files);
            return;
        case Page::model:
            m_tabs->setCurrentWidget(m_model);
            return;
        case Page::inspector:
            m_tabs->setCurrentWidget(m_inspector);
            return;
    }
}

MainWindow::Page MainWindow::currentPage() const {
    QWidget* current = m_tabs->currentWidget();
    if (current == m_files) return Page::files;
    if (current == m_model) return Page::model;
    if (current == m_inspector) return Page::inspector;
    return Page::live;
}

void MainWindow::showModel(const ModelSummary& summary) {
    m_model->showModel(summary);
    m_live->setStartAllowed(true);
    m_live->setStatusText(QString());
    const QFileInfo info(QDir::cleanPath(summary.path));
    const QString name = !summary.name.isEmpty()     ? summary.name
                         : info.fileName().isEmpty() ? summary.path
                                                     : info.fileName();
    setWindowTitle(tr("%1 — Earshot").arg(name));
    // Where a user looks before speaking: what this model can hear.
    m_live->transcript()->setModelNote(summary.note);
}

void MainWindow::showNoModel(const QString& message) {
    m_model->showNoModel(message);
    m_live->transcript()->setModelNote(QString());
    m_live->setStartAllowed(false, tr("No model is loaded: choose one on the Model page."));
    setWindowTitle(QStringLiteral("Earshot"));
}

void MainWindow::showModelLoadError(const QString& path, const QString& reason) {
    m_model->showLoadError(path, reason);
    statusBar()->showMessage(tr("Could not load the model: %1").arg(reason), kStatusMessageMs);
}

void MainWindow::showLoading(const QString& what) {
    m_loadingLabel->setText(what);
    m_loading->setVisible(!what.isEmpty());
}

void MainWindow::setInspectorWidget(QWidget* widget) {
    if (inspectorBeside()) {
        m_dockLayout->removeWidget(m_inspector);
        m_inspector->deleteLater();
        m_inspector = widget;
        m_dockLayout->addWidget(m_inspector);
        return;
    }
    const int index = m_tabs->indexOf(m_inspector);
    const bool wasCurrent = m_tabs->currentIndex() == index;
    m_tabs->removeTab(index);
    m_inspector->deleteLater();
    m_inspector = widget;
    m_tabs->insertTab(index, m_inspector, tr("&Inspector"));
    if (wasCurrent) {
        m_tabs->setCurrentIndex(index);
    }
}

QWidget* MainWindow::inspectorWidget() const { return m_inspector; }

bool MainWindow::inspectorBeside() const { return m_tabs->indexOf(m_inspector) < 0; }

void MainWindow::setInspectorBeside(bool beside) {
    if (beside != inspectorBeside()) {
        if (beside) {
            const bool wasCurrent = m_tabs->currentWidget() == m_inspector;
            m_tabs->removeTab(m_tabs->indexOf(m_inspector));
            m_dockLayout->addWidget(m_inspector);
            m_inspector->show();
            m_inspectorDock->show();
            // Half the window: a graph drawn in a sliver is no use (a restored layout's own
            // width replaces this).
            resizeDocks({m_inspectorDock}, {std::max(width() / 2, 360)}, Qt::Horizontal);
            if (wasCurrent) {
                showPage(Page::live);  // the words, with the graph beside them
            }
        } else {
            m_dockLayout->removeWidget(m_inspector);
            m_inspectorDock->hide();
            m_tabs->insertTab(kInspectorTabIndex, m_inspector, tr("&Inspector"));
            m_tabs->setCurrentWidget(m_inspector);
        }
    }
    m_inspectorBesideAction->setChecked(beside);
}

void MainWindow::setLayoutStore(QSettings* store) {
    m_layoutStore = store;
    if (m_layoutStore != nullptr) {
        restoreLayout(*m_layoutStore);
    }
}

void MainWindow::saveLayout(QSettings& store) const {
    store.beginGroup(kLayoutGroup);
    store.setValue(QStringLiteral("geometry"), saveGeometry());
    store.setValue(QStringLiteral("state"), saveState());
    store.setValue(QStringLiteral("inspector_beside"), inspectorBeside());
    store.endGroup();
    store.sync();
}

void MainWindow::restoreLayout(QSettings& store) {
    store.beginGroup(kLayoutGroup);
    const QByteArray geometry = store.value(QStringLiteral("geometry")).toByteArray();
    const QByteArray state = store.value(QStringLiteral("state")).toByteArray();
    const bool beside = store.value(QStringLiteral("inspector_beside"), false).toBool();
    store.endGroup();
    if (!geometry.isEmpty()) {
        restoreGeometry(geometry);
    }
    setInspectorBeside(beside);
    if (!state.isEmpty()) {
        restoreState(state);  // the dock's area, size and whether it floats
    }
    m_inspectorDock->setVisible(beside);
}

QString MainWindow::aboutText() const {
    const ModelSummary& model = m_model->summary();
    QString text =
        tr("<p><b>Earshot %1</b></p>"
           "<p>Live dictation and file transcription with Whisper, and a look inside the model: "
           "the block graph of every entry with the tensor type on every edge.</p>")
            .arg(QStringLiteral(EARSHOT_VERSION));
    text += tr("<p>%1</p>").arg(m_backendLabel->text().toHtmlEscaped());
    if (!model.path.isEmpty()) {
        text += tr("<p>Model: %1</p>")
                    .arg((model.name.isEmpty() ? model.path : model.name).toHtmlEscaped());
        if (!model.note.isEmpty()) {
            text += QStringLiteral("<p>%1</p>").arg(model.note.toHtmlEscaped());
        }
    } else {
        text += tr("<p>No model is loaded.</p>");
    }
    text += tr("<p>Qt %1. From a terminal, <tt>earshot --help</tt> lists the commands.</p>")
                .arg(QString::fromLatin1(qVersion()));
    return text;
}

void MainWindow::showAbout() {
    auto* box = new QMessageBox(QMessageBox::NoIcon, tr("About Earshot"), aboutText(),
                                QMessageBox::Close, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setIconPixmap(appIcon().pixmap(64, 64));
    box->setTextFormat(Qt::RichText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::setBackendName(const QString& name, const QString& detail) {
    m_backendLabel->setText(tr("Backend: %1").arg(name));
    m_backendLabel->setToolTip(detail);
}

void MainWindow::applyLiveUpdate(const LiveTextUpdate& update) {
    m_live->applyUpdate(update);
    if (update.decoded) {
        m_latencyLabel->setText(tr("Engine %1 ms · delay %2 ms")
                                    .arg(update.engineMs, 0, 'f', 0)
                                    .arg(update.delayMs, 0, 'f', 0));
    }
    QStringList losses;
    if (update.overrunSamples > 0) {
        losses << tr("overruns: %1 samples").arg(update.overrunSamples);
    }
    if (update.droppedFrames > 0) {
        losses << tr("dropped: %1 frames").arg(update.droppedFrames);
    }
    if (update.coalescedUpdates > 0) {
        losses << tr("skipped: %1 updates").arg(update.coalescedUpdates);
    }
    m_lossLabel->setText(losses.join(QStringLiteral(" · ")));
    m_lossLabel->setVisible(!losses.isEmpty());
}

void MainWindow::setLiveRunning(bool running) {
    const bool changed = running != m_liveRunning;
    m_liveRunning = running;
    m_live->setRunning(running);
    m_toggleDictationAction->setText(running ? tr("&Stop dictation") : tr("&Start dictation"));
    if (running) {
        m_latencyLabel->clear();
        m_lossLabel->clear();
        m_lossLabel->hide();
    }
    if (changed) {
        Q_EMIT liveRunningChanged(running);
    }
}

void MainWindow::openSettings() {
    const ModelSummary& model = m_model->summary();
    SettingsDialog dialog(m_settings, {model.languages, model.languageNames, model.englishOnly},
                          m_cuda, this);
    if (dialog.exec() != QDialog::Accepted) {
        return;
    }
    const Settings chosen = dialog.settings();
    if (!(chosen == m_settings)) {
        m_settings = chosen;
        Q_EMIT settingsChanged(m_settings);
    }
}

QString MainWindow::unfinishedWork() const {
    QStringList work;
    if (m_liveRunning) {
        work << tr("Dictation is running; the words not yet committed will be lost.");
    }
    const int files = m_files->queue()->unfinishedJobs();
    if (files > 0) {
        work << (files == 1 ? tr("1 file is still queued or being transcribed; quitting stops "
                                 "it and its transcript is lost.")
                            : tr("%1 files are still queued or being transcribed; quitting "
                                 "stops them and their transcripts are lost.")
                                  .arg(files));
    }
    return work.join(QLatin1Char(' '));
}

void MainWindow::closeEvent(QCloseEvent* event) {
    const QString work = unfinishedWork();
    if (!work.isEmpty()) {
        const QString question = work + QLatin1Char(' ') + tr("Quit anyway?");
        if (!(m_confirmQuit ? m_confirmQuit(question) : askToQuit(question))) {
            event->ignore();
            return;
        }
    }
    if (m_layoutStore != nullptr) {
        saveLayout(*m_layoutStore);
    }
    QMainWindow::closeEvent(event);
}

bool MainWindow::askToQuit(const QString& question) {
    QMessageBox box(QMessageBox::Question, tr("Quit Earshot?"), question, QMessageBox::NoButton,
                    this);
    QPushButton* quit = box.addButton(tr("&Quit"), QMessageBox::AcceptRole);
    box.setDefaultButton(box.addButton(QMessageBox::Cancel));
    box.exec();
    return box.clickedButton() == quit;
}

}  // namespace earshot::ui
