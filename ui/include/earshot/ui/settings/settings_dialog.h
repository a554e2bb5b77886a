// SettingsDialog: edits a Settings (language, task, beam size, update interval, VAD margin,
// backend, typing, pre-roll, the global shortcut). Languages are listed by name and checked as they
// are typed; an English-only model offers English only and no translation. The CUDA choice names
// its device, or is disabled with the reason CUDA cannot run.
#pragma once

#include <QDialog>
#include <QStringList>

#include "earshot/ui/settings/cuda_availability.h"
#include "earshot/ui/settings/settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QKeySequenceEdit;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace earshot::ui {

// The languages the loaded model knows.
struct LanguageList {
    QStringList codes;         // openai codes in token order: "en", "zh", ...
    QStringList names;         // openai's names, the same order: "english", "chinese", ...
    bool englishOnly = false;  // only English (or auto) can be chosen, and no translation
};

class SettingsDialog : public QDialog {
    Q_OBJECT

public:
    // `languages`: what the loaded model knows, listed as "French (fr)" after "Automatic" (none:
    // no model, any typed code is taken). `cuda`: when available, the note under the backend
    // shows its device; otherwise the CUDA choice is disabled and the note gives the reason.
    SettingsDialog(const Settings& settings, const LanguageList& languages,
                   const CudaAvailability& cuda, QWidget* parent = nullptr);

    Settings settings() const;

    QComboBox* languageBox() const { return m_language; }
    QComboBox* taskBox() const { return m_task; }
    QSpinBox* beamBox() const { return m_beam; }
    QSpinBox* intervalBox() const { return m_interval; }
    QDoubleSpinBox* vadBox() const { return m_vad; }
    QComboBox* backendBox() const { return m_backend; }
    QCheckBox* typeIntoBox() const { return m_typeInto; }
    QComboBox* typingMethodBox() const { return m_typingMethod; }
    QDoubleSpinBox* preRollBox() const { return m_preRoll; }
    // Says whether the microphone stays open while idle, as the pre-roll box is set.
    QLabel* preRollNote() const { return m_preRollNote; }
    QKeySequenceEdit* shortcutEdit() const { return m_shortcut; }
    QCheckBox* spokenCommandsBox() const { return m_spokenCommands; }
    QCheckBox* guardBox() const { return m_guard; }
    QLineEdit* commandsFileEdit() const { return m_commandsFile; }
    QLineEdit* vocabularyFileEdit() const { return m_vocabularyFile; }
    // Why the last recorded shortcut was refused (hidden when none was).
    QLabel* shortcutNote() const { return m_shortcutNote; }
    QComboBox* shortcutModeBox() const { return m_shortcutMode; }
    QCheckBox* startWithDesktopBox() const { return m_startWithDesktop; }
    QLabel* backendNote() const { return m_backendNote; }
    // Why the typed language cannot be used (hidden when it can); OK stays disabled meanwhile.
    QLabel* languageNote() const { return m_languageNote; }
    QPushButton* okButton() const { return m_ok; }

protected:
    // Enter and Return in the shortcut field confirm the dialog instead of being recorded.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The code the language box names ("auto" included); "" when it names none this model can
    // use, with the reason in `why`.
    QString chosenLanguage(QString* why = nullptr) const;
    void checkLanguage();
    // Makes the dialog tall enough for its notes as they are now (a note just shown).
    void growToFit();
    void updatePreRollNote();

    LanguageList m_languages;
    QLabel* m_languageNote = nullptr;
    QPushButton* m_ok = nullptr;
    QComboBox* m_language = nullptr;
    QComboBox* m_task = nullptr;
    QSpinBox* m_beam = nullptr;
    QSpinBox* m_interval = nullptr;
    QDoubleSpinBox* m_vad = nullptr;
    QComboBox* m_backend = nullptr;
    QLabel* m_backendNote = nullptr;
    QCheckBox* m_typeInto = nullptr;
    QComboBox* m_typingMethod = nullptr;
    QDoubleSpinBox* m_preRoll = nullptr;
    QLabel* m_preRollNote = nullptr;
    QKeySequenceEdit* m_shortcut = nullptr;
    QLabel* m_shortcutNote = nullptr;
    QComboBox* m_shortcutMode = nullptr;
    QCheckBox* m_startWithDesktop = nullptr;
    QCheckBox* m_spokenCommands = nullptr;
    QCheckBox* m_guard = nullptr;
    QLineEdit* m_commandsFile = nullptr;
    QLineEdit* m_vocabularyFile = nullptr;
};

}  // namespace earshot::ui
