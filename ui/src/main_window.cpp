// MainWindow: builds the menus, the two central pages (model summary, no-model message) and the
// status bar; the file dialogs only report the chosen path through modelChosen().
#include "earshot/ui/main_window.h"

#include <QAction>
#include <QFileDialog>
#include <QFontDatabase>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

#include "earshot/ui/app_icon.h"

namespace earshot::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Earshot"));
    setWindowIcon(appIcon());

    m_noModelLabel = new QLabel(this);
    m_noModelLabel->setObjectName(QStringLiteral("noModelMessage"));
    m_noModelLabel->setAlignment(Qt::AlignCenter);
    m_noModelLabel->setWordWrap(true);
    m_noModelLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_noModelLabel->setMargin(24);

    m_modelPage = new QWidget(this);
    m_modelTitle = new QLabel(m_modelPage);
    m_modelTitle->setObjectName(QStringLiteral("modelTitle"));
    QFont titleFont = m_modelTitle->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    m_modelTitle->setFont(titleFont);
    m_inspectView = new QPlainTextEdit(m_modelPage);
    m_inspectView->setObjectName(QStringLiteral("inspectView"));
    m_inspectView->setReadOnly(true);
    m_inspectView->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_inspectView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* modelLayout = new QVBoxLayout(m_modelPage);
    modelLayout->addWidget(m_modelTitle);
    modelLayout->addWidget(m_inspectView, 1);

    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_noModelLabel);
    m_stack->addWidget(m_modelPage);
    setCentralWidget(m_stack);

    m_backendLabel = new QLabel(this);
    m_backendLabel->setObjectName(QStringLiteral("backendLabel"));
    statusBar()->addPermanentWidget(m_backendLabel);
    setBackendName(QStringLiteral("CPU"));

    createMenus();
    showNoModel(defaultNoModelMessage());
    resize(900, 640);
}

MainWindow::~MainWindow() = default;

QString MainWindow::defaultNoModelMessage() {
    return tr(
        "No model is loaded.\n\n"
        "Choose File > Open model… for a whisper.cpp ggml .bin or a model.safetensors file, "
        "or File > Open model folder… for a Hugging Face model directory "
        "(config.json, model.safetensors, tokenizer files).\n\n"
        "From a terminal: earshot --model PATH opens it here, and "
        "earshot inspect --model PATH prints the same summary.");
}

void MainWindow::showModel(const QString& title, const QString& inspectText) {
    m_modelTitle->setText(title);
    m_inspectView->setPlainText(inspectText);
    m_stack->setCurrentWidget(m_modelPage);
}

void MainWindow::showNoModel(const QString& message) {
    m_noModelLabel->setText(message);
    m_stack->setCurrentWidget(m_noModelLabel);
}

void MainWindow::setBackendName(const QString& name) {
    m_backendLabel->setText(tr("Backend: %1").arg(name));
}

void MainWindow::createMenus() {
    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));

    m_openModelAction = fileMenu->addAction(tr("&Open model…"));
    m_openModelAction->setObjectName(QStringLiteral("actionOpenModel"));
    m_openModelAction->setShortcut(QKeySequence::Open);
    m_openModelAction->setStatusTip(tr("Open a whisper.cpp .bin or a .safetensors checkpoint"));
    connect(m_openModelAction, &QAction::triggered, this, &MainWindow::chooseModelFile);

    m_openModelFolderAction = fileMenu->addAction(tr("Open model &folder…"));
    m_openModelFolderAction->setObjectName(QStringLiteral("actionOpenModelFolder"));
    m_openModelFolderAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openModelFolderAction->setStatusTip(tr("Open a Hugging Face model directory"));
    connect(m_openModelFolderAction, &QAction::triggered, this, &MainWindow::chooseModelFolder);

    fileMenu->addSeparator();

    m_quitAction = fileMenu->addAction(tr("&Quit"));
    m_quitAction->setObjectName(QStringLiteral("actionQuit"));
    m_quitAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::chooseModelFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model"), QString(),
        tr("Whisper checkpoints (*.bin *.safetensors);;All files (*)"));
    if (!path.isEmpty()) {
        emit modelChosen(path);
    }
}

void MainWindow::chooseModelFolder() {
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open model folder"));
    if (!path.isEmpty()) {
        emit modelChosen(path);
    }
}

}  // namespace earshot::ui
