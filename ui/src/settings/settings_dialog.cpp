// SettingsDialog: a form over Settings; OK accepts, the caller reads settings() and saves them.
#include "earshot/ui/settings/settings_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QKeySequenceEdit>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

namespace earshot::ui {

namespace {

const QString kAuto = QStringLiteral("auto");

// "haitian creole" -> "Haitian creole"
QString capitalised(const QString& name) {
    return name.isEmpty() ? name : name.left(1).toUpper() + name.mid(1);
}

void setItemEnabled(QComboBox* box, int index, bool enabled, const QString& tip) {
    if (auto* model = qobject_cast<QStandardItemModel*>(box->model())) {
        model->item(index)->setEnabled(enabled);
    }
    box->setItemData(index, enabled ? QVariant() : QVariant(tip), Qt::ToolTipRole);
}

}  // namespace

SettingsDialog::SettingsDialog(const Settings& settings, const LanguageList& languages,
                               const CudaAvailability& cuda, QWidget* parent)
    : QDialog(parent), m_languages(languages) {
    setObjectName(QStringLiteral("settingsDialog"));
    setWindowTitle(tr("Settings"));

    const QString englishOnly = tr("This model is English-only.");
    m_language = new QComboBox(this);
    m_language->setObjectName(QStringLiteral("languageBox"));
    m_language->setEditable(true);  // a name or code can be typed
    m_language->setInsertPolicy(QComboBox::NoInsert);
    m_language->addItem(tr("Automatic (detect)"), kAuto);
    for (qsizetype i = 0; i < languages.codes.size(); ++i) {
        const QString& code = languages.codes[i];
        const QString name = capitalised(languages.names.value(i));
        m_language->addItem(name.isEmpty() ? code : tr("%1 (%2)").arg(name, code), code);
        if (languages.englishOnly && code != QStringLiteral("en")) {
            setItemEnabled(m_language, m_language->count() - 1, false, englishOnly);
        }
    }
    const int languageIndex = m_language->findData(settings.language);
    if (languageIndex >= 0) {
        m_language->setCurrentIndex(languageIndex);
    } else {
        m_language->setCurrentText(settings.language);
    }
    m_language->setToolTip(tr("The spoken language, by name or code, or Automatic to detect it"));
    m_languageNote = new QLabel(this);
    m_languageNote->setObjectName(QStringLiteral("languageNote"));
    m_languageNote->setWordWrap(true);
    m_languageNote->setStyleSheet(QStringLiteral("QLabel { color: #b3261e; }"));
    m_languageNote->hide();

    m_task = new QComboBox(this);
    m_task->setObjectName(QStringLiteral("taskBox"));
    m_task->addItem(tr("Transcribe"), QStringLiteral("transcribe"));
    m_task->addItem(tr("Translate to English"), QStringLiteral("translate"));
    m_task->setCurrentIndex(std::max(0, m_task->findData(settings.task)));
    if (languages.englishOnly) {
        setItemEnabled(m_task, 1, false, englishOnly);
        m_task->setCurrentIndex(0);
    }

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

    m_typeInto = new QCheckBox(tr("T&ype into the focused window"), this);
    m_typeInto->setObjectName(QStringLiteral("typeIntoBox"));
    m_typeInto->setChecked(settings.typeIntoFocusedWindow);
    m_typeInto->setToolTip(
        tr("Dictation: committed text also goes to the application that has focus"));
    m_typingMethod = new QComboBox(this);
    m_typingMethod->setObjectName(QStringLiteral("typingMethodBox"));
    m_typingMethod->addItem(tr("Automatic"), QStringLiteral("auto"));
    m_typingMethod->addItem(tr("Simulated typing"), QStringLiteral("keys"));
    m_typingMethod->addItem(tr("Clipboard and paste"), QStringLiteral("clipboard"));
    m_typingMethod->setCurrentIndex(std::max(0, m_typingMethod->findData(settings.typingMethod)));

    m_preRoll = new QDoubleSpinBox(this);
    m_preRoll->setObjectName(QStringLiteral("preRollBox"));
    m_preRoll->setRange(0.0, Settings::kMaxPreRollSeconds);
    m_preRoll->setDecimals(1);
    m_preRoll->setSingleStep(0.1);
    m_preRoll->setSuffix(tr(" s"));
    m_preRoll->setSpecialValueText(tr("Off"));
    m_preRoll->setValue(settings.preRollSeconds);
    m_preRoll->setToolTip(
        tr("Dictation starts with this much audio from just before Start, so a word said "
           "together with the shortcut is not cut"));
    m_preRollNote = new QLabel(this);
    m_preRollNote->setObjectName(QStringLiteral("preRollNote"));
    m_preRollNote->setWordWrap(true);
    connect(m_preRoll, &QDoubleSpinBox::valueChanged, this, &SettingsDialog::updatePreRollNote);
    updatePreRollNote();

    m_shortcut = new QKeySequenceEdit(this);
    m_shortcut->setObjectName(QStringLiteral("shortcutEdit"));
    // Enter and Return confirm the dialog, as in every other field; they are never recorded.
    m_shortcut->installEventFilter(this);
    m_shortcutNote = new QLabel(this);
    m_shortcutNote->setObjectName(QStringLiteral("shortcutNote"));
    m_shortcutNote->setWordWrap(true);
    m_shortcutNote->hide();
    // One key combination: a finished recording keeps its first, and a key without Ctrl, Alt or
    // Super (function keys aside) is refused: it would be taken from every application.
    connect(m_shortcut, &QKeySequenceEdit::editingFinished, this, [this] {
        const QKeySequence keys = m_shortcut->keySequence();
        if (keys.isEmpty()) return;
        if (!isGlobalShortcut(QKeySequence(keys[0]).toString(QKeySequence::PortableText))) {
            m_shortcutNote->setText(
                tr("%1 alone would be taken from every application: a shortcut needs Ctrl, Alt "
                   "or Super (or is a function key).")
                    .arg(QKeySequence(keys[0]).toString(QKeySequence::NativeText)));
            m_shortcutNote->show();
            m_shortcut->clear();
            growToFit();
            return;
        }
        m_shortcutNote->hide();
        if (keys.count() > 1) m_shortcut->setKeySequence(QKeySequence(keys[0]));
    });
    m_shortcut->setClearButtonEnabled(true);
    m_shortcut->setKeySequence(
        QKeySequence::fromString(settings.globalShortcut, QKeySequence::PortableText));
    m_shortcut->setToolTip(
        tr("Starts and stops dictation from any application (X11). Empty: none. On other "
           "desktops bind a shortcut to `earshot toggle`."));

    m_shortcutMode = new QComboBox(this);
    m_shortcutMode->setObjectName(QStringLiteral("shortcutModeBox"));
    m_shortcutMode->addItem(tr("Press to start, press to stop"), QStringLiteral("toggle"));
    m_shortcutMode->addItem(tr("Hold to talk"), QStringLiteral("hold"));
    m_shortcutMode->addItem(tr("Both: tap toggles, hold talks"), QStringLiteral("both"));
    m_shortcutMode->setCurrentIndex(std::max(0, m_shortcutMode->findData(settings.shortcutMode)));
    m_shortcutMode->setToolTip(
        tr("Hold to talk: dictation runs while the shortcut is held; when it is let go, what "
           "was said is still heard and committed. On desktops without a global shortcut, "
           "bind the key's press to `earshot start` and its release to `earshot stop`."));
    m_spokenCommands = new QCheckBox(tr("Spoken &commands"), this);
    m_spokenCommands->setObjectName(QStringLiteral("spokenCommandsBox"));
    m_spokenCommands->setChecked(settings.spokenCommands);
    m_spokenCommands->setToolTip(
        tr("Dictation: \"new line\", \"comma\", \"period\", \"scratch that\", \"undo that\", "
           "... edit the text instead of being written (earshot live --no-commands)"));
    m_commandsFile = new QLineEdit(settings.commandsFile, this);
    m_commandsFile->setObjectName(QStringLiteral("commandsFileEdit"));
    m_commandsFile->setPlaceholderText(tr("The built-in table of the language"));
    m_commandsFile->setToolTip(
        tr("A file of phrase<TAB>action lines that replaces the table (earshot live --commands)"));
    connect(m_spokenCommands, &QCheckBox::toggled, m_commandsFile, &QLineEdit::setEnabled);
    m_commandsFile->setEnabled(settings.spokenCommands);
    m_guard = new QCheckBox(tr("&Hold back words the model may have invented"), this);
    m_guard->setObjectName(QStringLiteral("guardBox"));
    m_guard->setChecked(settings.guardInventedWords);
    m_guard->setToolTip(
        tr("Dictation: words over silence, phrases Whisper writes on noise (\"Thanks for "
           "watching!\") and repetition loops are shown as doubtful and not typed (earshot live "
           "--no-guard turns this off)"));
    m_vocabularyFile = new QLineEdit(settings.vocabularyFile, this);
    m_vocabularyFile->setObjectName(QStringLiteral("vocabularyFileEdit"));
    m_vocabularyFile->setPlaceholderText(tr("None"));
    m_vocabularyFile->setToolTip(
        tr("Dictation and files: a file of words to prefer (names, terms), one a line, given "
           "to the decoder as its prompt (--vocabulary)"));

    m_startWithDesktop = new QCheckBox(tr("Start with the &desktop, in the tray"), this);
    m_startWithDesktop->setObjectName(QStringLiteral("startWithDesktopBox"));
    m_startWithDesktop->setChecked(settings.startWithDesktop);
    m_startWithDesktop->setToolTip(
        tr("Adds Earshot to the desktop's autostart (~/.config/autostart/earshot.desktop, "
           "`earshot gui --hidden`): it starts in the tray, ready for the shortcut."));

    auto* form = new QFormLayout;
    form->addRow(tr("&Language:"), m_language);
    form->addRow(QString(), m_languageNote);
    form->addRow(tr("&Task:"), m_task);
    form->addRow(tr("&Beam size:"), m_beam);
    form->addRow(tr("&Update interval:"), m_interval);
    // Named as the command line names it (--vad-margin-db): a margin above the noise floor.
    form->addRow(tr("&VAD margin:"), m_vad);
    m_vad->setToolTip(
        tr("How far above the measured noise floor sound must be to count as "
           "speech (earshot live --vad-margin-db)"));
    form->addRow(tr("B&ackend:"), m_backend);
    form->addRow(QString(), m_backendNote);
    form->addRow(tr("Dictation:"), m_typeInto);
    form->addRow(tr("Typing &method:"), m_typingMethod);
    form->addRow(tr("&Pre-roll:"), m_preRoll);
    form->addRow(QString(), m_preRollNote);
    form->addRow(tr("Global &shortcut:"), m_shortcut);
    form->addRow(QString(), m_shortcutNote);
    form->addRow(tr("Shortcut act&ion:"), m_shortcutMode);
    form->addRow(tr("Login:"), m_startWithDesktop);
    form->addRow(tr("Commands:"), m_spokenCommands);
    form->addRow(tr("Commands &file:"), m_commandsFile);
    form->addRow(tr("Guard:"), m_guard);
    form->addRow(tr("V&ocabulary file:"), m_vocabularyFile);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    connect(m_language, &QComboBox::editTextChanged, this, &SettingsDialog::checkLanguage);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    checkLanguage();
}

QString SettingsDialog::chosenLanguage(QString* why) const {
    const QString text = m_language->currentText().trimmed();
    if (text.isEmpty()) return kAuto;
    // An entry of the list by its text, or a code or name typed in any case.
    int index = m_language->findText(text, Qt::MatchFixedString);
    if (index < 0) index = m_language->findData(text.toLower());
    if (index < 0) {
        const qsizetype name = m_languages.names.indexOf(text.toLower());
        if (name >= 0) index = m_language->findData(m_languages.codes[name]);
    }
    if (index < 0 && text.compare(kAuto, Qt::CaseInsensitive) == 0) index = 0;
    if (index < 0) {
        if (m_languages.codes.isEmpty()) return text;  // no model to check it against
        if (why) *why = tr("Unknown language \"%1\": choose one from the list.").arg(text);
        return {};
    }
    const QString code = m_language->itemData(index).toString();
    if (m_languages.englishOnly && code != kAuto && code != QStringLiteral("en")) {
        if (why) {
            *why = tr("This model is English-only: it cannot transcribe %1.")
                       .arg(capitalised(m_languages.names.value(m_languages.codes.indexOf(code))));
        }
        return {};
    }
    return code;
}

void SettingsDialog::checkLanguage() {
    QString why;
    const bool usable = !chosenLanguage(&why).isEmpty();
    m_languageNote->setText(why);
    m_languageNote->setVisible(!usable);
    m_ok->setEnabled(usable);
    growToFit();
}

void SettingsDialog::growToFit() {
    // After the note's text is laid out: the dialog grows to the height its notes need at its
    // width, instead of squeezing the other notes until their lines are cut.
    QTimer::singleShot(0, this, [this] {
        if (!isVisible() || layout() == nullptr) return;
        layout()->activate();
        const int needed = layout()->hasHeightForWidth() ? layout()->totalHeightForWidth(width())
                                                         : layout()->totalSizeHint().height();
        if (needed > height()) resize(width(), needed);
    });
}

void SettingsDialog::updatePreRollNote() {
    m_preRollNote->setText(
        m_preRoll->value() > 0.0
            ? tr("The microphone stays open while dictation is idle; only the last %1 s are "
                 "kept, in memory, and nothing is transcribed until you start.")
                  .arg(m_preRoll->value(), 0, 'f', 1)
            : tr("The microphone is closed while dictation is idle."));
}

bool SettingsDialog::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_shortcut && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
            key->modifiers() == Qt::NoModifier) {
            if (m_ok->isEnabled()) accept();
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

Settings SettingsDialog::settings() const {
    Settings s;
    const QString language = chosenLanguage();
    s.language = language.isEmpty() ? kAuto : language;
    s.task = m_task->currentData().toString();
    s.beamSize = m_beam->value();
    s.updateIntervalMs = m_interval->value();
    s.vadMarginDb = m_vad->value();
    s.backend = m_backend->currentData().toString();
    s.typeIntoFocusedWindow = m_typeInto->isChecked();
    s.typingMethod = m_typingMethod->currentData().toString();
    s.preRollSeconds = m_preRoll->value();
    const QKeySequence keys = m_shortcut->keySequence();
    const QString shortcut =
        keys.isEmpty() ? QString() : QKeySequence(keys[0]).toString(QKeySequence::PortableText);
    s.globalShortcut = isGlobalShortcut(shortcut) ? shortcut : QString();
    s.shortcutMode = m_shortcutMode->currentData().toString();
    s.startWithDesktop = m_startWithDesktop->isChecked();
    s.spokenCommands = m_spokenCommands->isChecked();
    s.guardInventedWords = m_guard->isChecked();
    s.commandsFile = m_commandsFile->text().trimmed();
    s.vocabularyFile = m_vocabularyFile->text().trimmed();
    return s;
}

}  // namespace earshot::ui
