// SettingsDialog: edits a Settings (language, task, beam size, update interval, VAD margin,
// backend); the CUDA choice names its device, or is disabled with the reason CUDA cannot run.
#pragma once

#include <QDialog>
#include <QStringList>

#include "earshot/ui/settings/cuda_availability.h"
#include "earshot/ui/settings/settings.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace earshot::ui {

class SettingsDialog : public QDialog {
    Q_OBJECT

public:
    // `languages`: the codes the loaded model knows ("en", "de", ...); "auto" comes first
    // anyway. `cuda`: when available, the note under the backend shows its device; otherwise the
    // CUDA choice is disabled and the note gives the reason.
    SettingsDialog(const Settings& settings, const QStringList& languages,
                   const CudaAvailability& cuda, QWidget* parent = nullptr);

    Settings settings() const;

    QComboBox* languageBox() const { return m_language; }
    QComboBox* taskBox() const { return m_task; }
    QSpinBox* beamBox() const { return m_beam; }
    QSpinBox* intervalBox() const { return m_interval; }
    QDoubleSpinBox* vadBox() const { return m_vad; }
    QComboBox* backendBox() const { return m_backend; }
    QLabel* backendNote() const { return m_backendNote; }

private:
    QComboBox* m_language = nullptr;
    QComboBox* m_task = nullptr;
    QSpinBox* m_beam = nullptr;
    QSpinBox* m_interval = nullptr;
    QDoubleSpinBox* m_vad = nullptr;
    QComboBox* m_backend = nullptr;
    QLabel* m_backendNote = nullptr;
};

}  // namespace earshot::ui
