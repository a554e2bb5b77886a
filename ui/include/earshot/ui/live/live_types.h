// Plain data the live panel receives from the app: one dictation update (text, timings, losses)
// and the input devices to choose from. Value types, so they cross threads in queued signals.
#pragma once

#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

namespace earshot::ui {

// One token of the hypothesis as the token strip shows it.
struct LiveToken {
    QString text;               // with its leading space, as Whisper wrote it
    double probability = -1.0;  // how sure the decoder was (0..1); -1: not measured
    QList<QPair<QString, double>> alternatives;  // the most probable others, most probable first
    bool committed = false;                      // committed by its update; else tentative
};

struct LiveTextUpdate {
    QString committedText;  // newly committed by this update: appended to the transcript
    QString tentativeText;  // replaces the previous update's tentative text
    // Spoken commands ("scratch that") took back this many characters (code points) at the end
    // of the committed text before committedText is appended.
    int erasedChars = 0;
    QList<LiveToken> tokens;      // the tokens of both: the committed ones first
    double engineMs = 0.0;        // engine time of this update (listen + decode + policy)
    double delayMs = 0.0;         // publication time minus the end of the audio it heard
    double audioEndS = 0.0;       // stream seconds heard so far
    bool decoded = false;         // the engine ran on this update (not silence or empty)
    bool final = false;           // the last update of a session: everything is committed
    qint64 coalescedUpdates = 0;  // updates skipped while the engine was busy (running total)
    quint64 droppedFrames = 0;    // frames the engine queue refused (running total)
    quint64 overrunSamples = 0;   // samples the capture ring dropped (running total)
};

struct InputDeviceEntry {
    QString spec;   // what the app passes back to open it (a device name)
    QString label;  // shown in the picker: "name (host API)"
    bool isDefault = false;
};

}  // namespace earshot::ui

Q_DECLARE_METATYPE(earshot::ui::LiveTextUpdate)
