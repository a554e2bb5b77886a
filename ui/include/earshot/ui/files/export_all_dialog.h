// ExportAllDialog: what "Export all…" asks before writing: the formats (any of TXT, SRT, VTT,
// JSON) and the folder the files go to.
#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>

class QCheckBox;
class QDialogButtonBox;
class QLineEdit;

namespace earshot::ui {

class ExportAllDialog : public QDialog {
    Q_OBJECT

public:
    // `results`: how many results will be written; `folder`: the folder proposed.
    ExportAllDialog(int results, const QString& folder, QWidget* parent = nullptr);

    QStringList formats() const;  // checked, in the order txt, srt, vtt, json
    QString folder() const;

private Q_SLOTS:
    void chooseFolder();

private:
    void updateOk();

    QList<QCheckBox*> m_formats;
    QLineEdit* m_folder = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

}  // namespace earshot::ui
