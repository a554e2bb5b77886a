// Settings: what the user chooses for decoding, live updates and the backend, kept in QSettings
// and applied to both dictation and file transcription.
#pragma once

#include <QString>

class QSettings;

namespace earshot::ui {

// Whether `portableText` (QKeySequence's portable text, one combination) may be a global
// shortcut: it holds Ctrl, Alt or Super, or is a function key (F1-F35). A bare key ("Return",
// "A") would be taken from every application.
bool isGlobalShortcut(const QString& portableText);

struct Settings {
    QString language = QStringLiteral("auto");    // an openai code ("en"), or auto to detect
    QString task = QStringLiteral("transcribe");  // or "translate" (to English)
    int beamSize = 5;                             // files, at temperature 0; 1 = greedy
    int updateIntervalMs = 500;                   // live: new audio between two updates
    double vadMarginDb = 12.0;                    // live: speech is this far above the floor
    QString backend = QStringLiteral("auto");     // "auto", "cpu" or "cuda"
    // Live: committed text also goes to the focused window of another application, by
    // "auto" (simulated keys where they work, else the clipboard), "keys" or "clipboard".
    bool typeIntoFocusedWindow = false;
    QString typingMethod = QStringLiteral("auto");
    // Live: seconds of audio from just before Start that the session hears first; above 0 the
    // microphone stays open while dictation is idle (the app has a model). 0: closed when idle.
    double preRollSeconds = 0.5;
    // Live: a desktop-wide shortcut that starts and stops dictation (QKeySequence's portable
    // text, e.g. "Ctrl+Alt+D"; empty: none). Grabbed on X11.
    QString globalShortcut;
    // What the shortcut's press and release do: "toggle" (each press starts or stops), "hold"
    // (push-to-talk: dictation runs while it is held) or "both" (a tap toggles, a hold talks).
    QString shortcutMode = QStringLiteral("toggle");
    // Start Earshot in the tray when the user logs in (an XDG autostart entry). Not kept here:
    // the app reads it from whether the entry exists, and writes or removes the entry.
    bool startWithDesktop = false;
    // Live: spoken commands ("new line", "comma", "scratch that") edit the dictated text; from
    // `commandsFile` (phrase<TAB>action lines, as `earshot live --commands`), else the English
    // table.
    bool spokenCommands = true;
    QString commandsFile;
    // Live: hold back words the model may have invented (over silence, the phrases Whisper writes
    // on noise, repetition loops) instead of committing them; off as `earshot live --no-guard`.
    bool guardInventedWords = true;
    // Dictation and files: words to prefer, one a line (as `--vocabulary`); empty: none.
    QString vocabularyFile;

    static constexpr int kMinBeamSize = 1;
    static constexpr int kMaxBeamSize = 16;
    static constexpr int kMinUpdateIntervalMs = 100;
    static constexpr int kMaxUpdateIntervalMs = 10000;
    static constexpr double kMaxVadMarginDb = 60.0;
    static constexpr double kMaxPreRollSeconds = 5.0;

    // Reads the group "settings"; a missing or out-of-range value keeps its default, and a
    // global shortcut that isGlobalShortcut() refuses (saved by an older version) is none.
    static Settings load(QSettings& store);
    void save(QSettings& store) const;

    bool operator==(const Settings& other) const = default;
};

}  // namespace earshot::ui
