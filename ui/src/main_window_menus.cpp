// MainWindow's menu bar: File, Edit, Dictation, View and Help, their shortcuts and what each
// action does.
#include <QAction>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>

#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/live/live_panel.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/model/model_panel.h"

namespace earshot::ui {

void MainWindow::createMenus() {
    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
    m_transcribeFilesAction = fileMenu->addAction(tr("&Transcribe files…"));
    m_transcribeFilesAction->setObjectName(QStringLiteral("actionTranscribeFiles"));
    m_transcribeFilesAction->setShortcut(QKeySequence::Open);
    connect(m_transcribeFilesAction, &QAction::triggered, this, [this] {
        showPage(Page::files);
        m_files->chooseFiles();
    });
    fileMenu->addSeparator();
    m_openModelFolderAction = fileMenu->addAction(tr("Open model &folder…"));
    m_openModelFolderAction->setObjectName(QStringLiteral("actionOpenModelFolder"));
    m_openModelFolderAction->setStatusTip(tr("Open a Hugging Face model directory"));
    connect(m_openModelFolderAction, &QAction::triggered, m_model, &ModelPanel::chooseFolder);
    m_openModelAction = fileMenu->addAction(tr("Open &model file…"));
    m_openModelAction->setObjectName(QStringLiteral("actionOpenModel"));
    m_openModelAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openModelAction->setStatusTip(tr("Open a whisper.cpp .bin or a .safetensors checkpoint"));
    connect(m_openModelAction, &QAction::triggered, m_model, &ModelPanel::chooseFile);
    fileMenu->addSeparator();
    m_quitAction = fileMenu->addAction(tr("&Quit"));
    m_quitAction->setObjectName(QStringLiteral("actionQuit"));
    m_quitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
    QAction* copy = editMenu->addAction(tr("&Copy transcript"));
    copy->setObjectName(QStringLiteral("actionCopyTranscript"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(copy, &QAction::triggered, m_live, &LivePanel::copyTranscript);
    QAction* clear = editMenu->addAction(tr("C&lear transcript"));
    clear->setObjectName(QStringLiteral("actionClearTranscript"));
    connect(clear, &QAction::triggered, m_live, &LivePanel::clearTranscript);
    editMenu->addSeparator();
    m_settingsAction = editMenu->addAction(tr("&Settings…"));
    m_settingsAction->setObjectName(QStringLiteral("actionSettings"));
    m_settingsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    m_settingsAction->setMenuRole(QAction::PreferencesRole);
    connect(m_settingsAction, &QAction::triggered, this, &MainWindow::openSettings);

    QMenu* dictationMenu = menuBar()->addMenu(tr("&Dictation"));
    m_toggleDictationAction = dictationMenu->addAction(tr("&Start dictation"));
    m_toggleDictationAction->setObjectName(QStringLiteral("actionToggleDictation"));
    m_toggleDictationAction->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::Key_Space), QKeySequence(Qt::Key_F5)});
    connect(m_toggleDictationAction, &QAction::triggered, this, [this] {
        showPage(Page::live);
        m_live->requestToggle();
    });

    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    const struct {
        QString text;
        Page page;
        Qt::Key key;
    } pages[] = {{tr("&Live"), Page::live, Qt::Key_1},
                 {tr("&Files"), Page::files, Qt::Key_2},
                 {tr("&Model"), Page::model, Qt::Key_3},
                 {tr("&Inspector"), Page::inspector, Qt::Key_4}};
    for (const auto& entry : pages) {
        QAction* action = viewMenu->addAction(entry.text);
        action->setShortcut(QKeySequence(Qt::CTRL | entry.key));
        const Page page = entry.page;
        connect(action, &QAction::triggered, this, [this, page] { showPage(page); });
    }
    viewMenu->addSeparator();
    m_inspectorBesideAction = viewMenu->addAction(tr("Inspector &beside the pages"));
    m_inspectorBesideAction->setObjectName(QStringLiteral("actionInspectorBeside"));
    m_inspectorBesideAction->setCheckable(true);
    m_inspectorBesideAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    m_inspectorBesideAction->setStatusTip(
        tr("Show the model's graph beside the transcript, to watch it while dictating"));
    connect(m_inspectorBesideAction, &QAction::toggled, this, &MainWindow::setInspectorBeside);

    QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
    m_aboutAction = helpMenu->addAction(tr("&About Earshot"));
    m_aboutAction->setObjectName(QStringLiteral("actionAbout"));
    m_aboutAction->setMenuRole(QAction::AboutRole);
    connect(m_aboutAction, &QAction::triggered, this, &MainWindow::showAbout);
}

}  // namespace earshot::ui
