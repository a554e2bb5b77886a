// SettingsDialog: a form over Settings; OK accepts, the caller reads settings() and saves them.
#include "earshot/ui/settings/settings_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>

namespace earshot::ui {

SettingsDialog::SettingsDialog(const Settings& settings, const QStringList& languages,
                               const CudaAvailability& cuda, QWidget* parent)
    : QDialog(parent) {
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));

    m_language = new QComboBox(this);
    m_language->setObjectName(QStringLiteral("languageBox"));
    m_language->setEditable(true);  // a code the list lacks can still be typed
    m_language->addItem(QStringLiteral("auto"));
    for (const QString& code : languages) {
        if (code != QStringLiteral("auto")) {
            m_language->addItem(code);
        }
    }
    m_language->setCurrentText(settings.language);
    m_language->setToolTip(tr("The spoken language, or auto to detect it"));

    m_task = new QComboBox(this);
    m_task->setObjectName(QStringLiteral("taskBox"));
    m_task->addItem(tr("Transcribe"), QStringLiteral("transcribe"));
    m_task->addItem(tr("Translate to English"), QStringLiteral("translate"));
    m_task->setCurrentIndex(std::max(0, m_task->findData(settings.task)));

    m_beam = new QSpinBox(this);
    m_beam->setObjectName(QStringLiteral("beamBox"));
    m_beam->setRange(Settings::kMinBeamSize, Settings::kMaxBeamSize);
    m_beam->setValue(settings.beamSize);
    m_beam->setToolTip(tr("Files: beams at temperature 0 (1 = greedy). Dictation is greedy."));

    m_interval = new QSpinBox(this);
    m_interval->setObjectName(QStringLiteral("intervalBox"));
    m_interval->setRange(Settings::kMinUpdateIntervalMs, Settings::kMaxUpdateIntervalMs);
    m_interval->setSingleStep(100);
    m_interval->setSuffix(tr(" ms"));
    m_interval->setValue(settings.updateIntervalMs);
    m_interval->setToolTip(tr("Dictation: new audio between two updates"));

    m_vad = new QDoubleSpinBox(this);
    m_vad->setObjectName(QStringLiteral("vadBox"));
    m_vad->setRange(0.0, Settings::kMaxVadMarginDb);
    m_vad->setDecimals(1);
    m_vad->setSingleStep(1.0);
    m_vad->setSuffix(tr(" dB"));
    m_vad->setValue(settings.vadMarginDb);
    m_vad->setToolTip(tr("Dictation: speech must be this much louder than the noise floor"));

    m_backend = new QComboBox(this);
    m_backend->setObjectName(QStringLiteral("backendBox"));
    m_backend->addItem(tr("Automatic"), QStringLiteral("auto"));
    m_backend->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_backend->addItem(tr("CUDA"), QStringLiteral("cuda"));
    m_backendNote = new QLabel(this);
    m_backendNote->setObjectName(QStringLiteral("backendNote"));
    m_backendNote->setWordWrap(true);
    if (cuda.available) {
        m_backendNote->setText(tr("CUDA device: %1. Automatic runs on it.").arg(cuda.detail));
        m_backend->setItemData(2, cuda.detail, Qt::ToolTipRole);
    } else {
        if (auto* model = qobject_cast<QStandardItemModel*>(m_backend->model())) {
            model->item(2)->setEnabled(false);
        }
        m_backendNote->setText(
            tr("CUDA is not available: %1. Automatic runs on the CPU.").arg(cuda.detail));
    }
    int backendIndex = m_backend->findData(settings.backend);
    if (backendIndex < 0 || (!cuda.available && settings.backend == QStringLiteral("cuda"))) {
        backendIndex = 0;
    }
    m_backend->setCurrentIndex(backendIndex);

    auto* form = new QFormLayout;
    form->addRow(tr("&Language:"), m_language);
    form->addRow(tr("&Task:"), m_task);
    form->addRow(tr("&Beam size:"), m_beam);
    form->addRow(tr("&Update interval:"), m_interval);
    form->addRow(tr("&VAD threshold:"), m_vad);
    form->addRow(tr("B&ackend:"), m_backend);
    form->addRow(QString(), m_backendNote);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

Settings SettingsDialog::settings() const {
    Settings s;
    const QString language = m_language->currentText().trimmed();
    s.language = language.isEmpty() ? QStringLiteral("auto") : language;
    s.task = m_task->currentData().toString();
    s.beamSize = m_beam->value();
    s.updateIntervalMs = m_interval->value();
    s.vadMarginDb = m_vad->value();
    s.backend = m_backend->currentData().toString();
    return s;
}

}  // namespace earshot::ui
