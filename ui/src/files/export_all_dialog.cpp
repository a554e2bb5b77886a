// ExportAllDialog: a check box per format, a folder field with a chooser, OK while at least one
// format is checked and a folder is named.
#include "earshot/ui/files/export_all_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace earshot::ui {

ExportAllDialog::ExportAllDialog(int results, const QString& folder, QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("exportAllDialog"));
    setWindowTitle(tr("Export all results"));

    auto* formats = new QHBoxLayout;
    for (const QString& format : {QStringLiteral("txt"), QStringLiteral("srt"),
                                  QStringLiteral("vtt"), QStringLiteral("json")}) {
        auto* box = new QCheckBox(format.toUpper(), this);
        box->setObjectName(QStringLiteral("exportAll_") + format);
        box->setProperty("format", format);
        box->setChecked(format == QLatin1String("txt"));
        connect(box, &QCheckBox::toggled, this, &ExportAllDialog::updateOk);
        formats->addWidget(box);
        m_formats.append(box);
    }
    formats->addStretch(1);

    m_folder = new QLineEdit(folder, this);
    m_folder->setObjectName(QStringLiteral("exportAllFolder"));
    connect(m_folder, &QLineEdit::textChanged, this, &ExportAllDialog::updateOk);
    auto* choose = new QPushButton(tr("&Choose…"), this);
    choose->setObjectName(QStringLiteral("exportAllChooseFolder"));
    connect(choose, &QPushButton::clicked, this, &ExportAllDialog::chooseFolder);
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(choose);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(
        new QLabel((results == 1 ? tr("1 result, named after its file.")
                                 : tr("%n results, each named after its file.", nullptr, results)) +
                       QLatin1Char(' ') + tr("Files of the same name in the folder are replaced."),
                   this));
    layout->addWidget(new QLabel(tr("Formats:"), this));
    layout->addLayout(formats);
    layout->addWidget(new QLabel(tr("Folder:"), this));
    layout->addLayout(folderRow);
    layout->addWidget(m_buttons);
    updateOk();
}

QStringList ExportAllDialog::formats() const {
    QStringList checked;
    for (const QCheckBox* box : m_formats) {
        if (box->isChecked()) {
            checked.append(box->property("format").toString());
        }
    }
    return checked;
}

QString ExportAllDialog::folder() const { return m_folder->text().trimmed(); }

void ExportAllDialog::chooseFolder() {
    const QString chosen =
        QFileDialog::getExistingDirectory(this, tr("Export all results to"), folder());
    if (!chosen.isEmpty()) {
        m_folder->setText(chosen);
    }
}

void ExportAllDialog::updateOk() {
    m_buttons->button(QDialogButtonBox::Ok)
        ->setEnabled(!formats().isEmpty() && !folder().isEmpty());
}

}  // namespace earshot::ui
