// Settings: reading and writing the QSettings group "settings", with every value checked against
// the range the dialog offers.
#include "earshot/ui/settings/settings.h"

#include <QKeySequence>
#include <QSettings>

namespace earshot::ui {

Settings Settings::load(QSettings& store) {
    Settings s;
    store.beginGroup(QStringLiteral("settings"));
    const QString language = store.value(QStringLiteral("language"), s.language).toString();
    if (!language.trimmed().isEmpty()) {
        s.language = language.trimmed();
    }
    const QString task = store.value(QStringLiteral("task"), s.task).toString();
    if (task == QStringLiteral("transcribe") || task == QStringLiteral("translate")) {
        s.task = task;
    }
    bool ok = false;
    const int beam = store.value(QStringLiteral("beam_size"), s.beamSize).toInt(&ok);
    if (ok && beam >= kMinBeamSize && beam <= kMaxBeamSize) {
        s.beamSize = beam;
    }
    const int interval =
        store.value(QStringLiteral("update_interval_ms"), s.updateIntervalMs).toInt(&ok);
    if (ok && interval >= kMinUpdateIntervalMs && interval <= kMaxUpdateIntervalMs) {
        s.updateIntervalMs = interval;
    }
    const double margin = store.value(QStringLiteral("vad_margin_db"), s.vadMarginDb).toDouble(&ok);
    if (ok && margin >= 0.0 && margin <= kMaxVadMarginDb) {
        s.vadMarginDb = margin;
    }
    const QString backend = store.value(QStringLiteral("backend"), s.backend).toString();
    if (backend == QStringLiteral("auto") || backend == QStringLiteral("cpu") ||
        backend == QStringLiteral("cuda")) {
        s.backend = backend;
    }
    s.typeIntoFocusedWindow =
        store.value(QStringLiteral("type_into_focused_window"), s.typeIntoFocusedWindow).toBool();
    const QString method = store.value(QStringLiteral("typing_method"), s.typingMethod).toString();
    if (method == QStringLiteral("auto") || method == QStringLiteral("keys") ||
        method == QStringLiteral("clipboard")) {
        s.typingMethod = method;
    }
    const double preRoll =
        store.value(QStringLiteral("pre_roll_seconds"), s.preRollSeconds).toDouble(&ok);
    if (ok && preRoll >= 0.0 && preRoll <= kMaxPreRollSeconds) {
        s.preRollSeconds = preRoll;
    }
    const QString shortcut =
        store.value(QStringLiteral("global_shortcut"), s.globalShortcut).toString().trimmed();
    if (shortcut.isEmpty() || isGlobalShortcut(shortcut)) s.globalShortcut = shortcut;
    const QString mode = store.value(QStringLiteral("shortcut_mode"), s.shortcutMode).toString();
    if (mode == QStringLiteral("toggle") || mode == QStringLiteral("hold") ||
        mode == QStringLiteral("both")) {
        s.shortcutMode = mode;
    }
    s.spokenCommands = store.value(QStringLiteral("spoken_commands"), s.spokenCommands).toBool();
    s.guardInventedWords =
        store.value(QStringLiteral("guard_invented_words"), s.guardInventedWords).toBool();
    s.commandsFile = store.value(QStringLiteral("commands_file")).toString().trimmed();
    s.vocabularyFile = store.value(QStringLiteral("vocabulary_file")).toString().trimmed();
    store.endGroup();
    return s;
}

bool isGlobalShortcut(const QString& portableText) {
    const QKeySequence keys = QKeySequence::fromString(portableText, QKeySequence::PortableText);
    if (keys.count() != 1) return false;
    const Qt::Key key = keys[0].key();
    if (key >= Qt::Key_F1 && key <= Qt::Key_F35) return true;
    return (keys[0].keyboardModifiers() &
            (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) != Qt::NoModifier;
}

void Settings::save(QSettings& store) const {
    store.beginGroup(QStringLiteral("settings"));
    store.setValue(QStringLiteral("language"), language);
    store.setValue(QStringLiteral("task"), task);
    store.setValue(QStringLiteral("beam_size"), beamSize);
    store.setValue(QStringLiteral("update_interval_ms"), updateIntervalMs);
    store.setValue(QStringLiteral("vad_margin_db"), vadMarginDb);
    store.setValue(QStringLiteral("backend"), backend);
    store.setValue(QStringLiteral("type_into_focused_window"), typeIntoFocusedWindow);
    store.setValue(QStringLiteral("typing_method"), typingMethod);
    store.setValue(QStringLiteral("pre_roll_seconds"), preRollSeconds);
    store.setValue(QStringLiteral("global_shortcut"), globalShortcut);
    store.setValue(QStringLiteral("shortcut_mode"), shortcutMode);
    store.setValue(QStringLiteral("spoken_commands"), spokenCommands);
    store.setValue(QStringLiteral("guard_invented_words"), guardInventedWords);
    store.setValue(QStringLiteral("commands_file"), commandsFile);
    store.setValue(QStringLiteral("vocabulary_file"), vocabularyFile);
    store.endGroup();
}

}  // namespace earshot::ui
