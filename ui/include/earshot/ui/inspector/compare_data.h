// Plain data of "Compare runs": what the user asks for (the second run and the input) and what
// comes back (each block output's error between the two runs, with both values when kept), as
// the inspector's compare panel, table and graph heat show them.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <vector>

#include "earshot/ui/inspector/tap_data.h"

namespace earshot::ui {

// The comparison the user chose in the dialog. Run A is the loaded model on `backendA`; run B is
// `modelB` (empty: the loaded model again) on `backendB`.
struct CompareChoice {
    QString backendA = QStringLiteral("cpu");  // "cpu" or "cuda"
    QString modelB;                            // a checkpoint path; "" = the loaded model
    QString backendB = QStringLiteral("cpu");
    enum class Input { filesPage, audioFile, melFile };
    Input input = Input::audioFile;
    QString inputPath;     // the audio file or the .npy (filesPage: ignored)
    bool decoder = false;  // listen and the decoder's prefill too, not only encode
    // CPU threads of each run (1 to the machine's hardware threads); 0: the shared pool.
    int threadsA = 0;
    int threadsB = 0;
    // The most MiB of block values the comparison holds at once (block_comparison.h); the values
    // of the blocks past half of it are computed again when clicked.
    int budgetMib = 256;
};

// What the dialog can offer: the loaded model, whether CUDA can run (and why not), the Files
// page's shown window.
struct CompareOffer {
    QString modelA;  // the loaded model's path, "" when none is loaded
    bool cudaAvailable = false;
    QString cudaWhyNot;      // shown beside a disabled CUDA choice
    QString filesPageInput;  // "talk.wav, the window from 00:12 (segment 3)"; "" when none
};

// One block output compared: error of run B against run A.
struct CompareRow {
    QString name;   // "encoder_layers[3].forward"
    QString entry;  // "encode", "listen" or "prefill"
    QString op;
    QList<qint64> shape;
    double relativeError = 0.0;  // ||a - b|| / ||a||; infinite when either run has NaN or Inf
    double maxAbsError = 0.0;    // max |a - b|
    double maxAbsA = 0.0;        // max |a|
    qint64 nonfinite = 0;
    QStringList callIds;  // the calls of `entry`'s graph whose result this is (the heat's keys)
    // Both values as f32, row-major; empty when the comparison did not keep them (past its
    // budget): a click computes them again (ComparePanel::valuesRequested).
    std::vector<float> valuesA;
    std::vector<float> valuesB;
    QString symbolicType;  // "T[B, 1 + (-1 + Frames) / 2, D]"; "" when unknown
};

struct RunComparison {
    QString labelA;
    QString labelB;
    QString input;           // what both runs heard: "talk.wav, first window", "mel.npy"
    QList<CompareRow> rows;  // largest relative error first
    QString error;           // why there is no comparison (then rows is empty)
    bool cancelled = false;
};

}  // namespace earshot::ui

Q_DECLARE_METATYPE(earshot::ui::RunComparison)
Q_DECLARE_METATYPE(earshot::ui::CompareRow)
