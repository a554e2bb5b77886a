// MainWindow: the top-level window: File menu, a central model summary or no-model message, and a
// status bar naming the compute backend.
#pragma once

#include <QMainWindow>
#include <QString>

class QAction;
class QLabel;
class QPlainTextEdit;
class QStackedWidget;

namespace earshot::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows `inspectText` (the output of `earshot inspect`) in a read-only monospace view under a
    // header reading `title`.
    void showModel(const QString& title, const QString& inspectText);
    // Shows `message` centred in place of a model summary.
    void showNoModel(const QString& message);
    // The backend named in the status bar ("CPU" until device selection exists).
    void setBackendName(const QString& name);

    // The standard no-model text: what is missing and how to load a model.
    static QString defaultNoModelMessage();

    QAction* openModelAction() const { return m_openModelAction; }
    QAction* openModelFolderAction() const { return m_openModelFolderAction; }
    QAction* quitAction() const { return m_quitAction; }

signals:
    // The user picked a model: a whisper.cpp .bin, a .safetensors file or a Hugging Face folder.
    void modelChosen(const QString& path);

private slots:
    void chooseModelFile();
    void chooseModelFolder();

private:
    void createMenus();

    QStackedWidget* m_stack = nullptr;
    QLabel* m_noModelLabel = nullptr;
    QWidget* m_modelPage = nullptr;
    QLabel* m_modelTitle = nullptr;
    QPlainTextEdit* m_inspectView = nullptr;
    QLabel* m_backendLabel = nullptr;
    QAction* m_openModelAction = nullptr;
    QAction* m_openModelFolderAction = nullptr;
    QAction* m_quitAction = nullptr;
};

}  // namespace earshot::ui
