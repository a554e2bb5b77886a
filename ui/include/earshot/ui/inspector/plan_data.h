// PlanData: one entry's plan as a backend executes it (what `earshot debug plan` prints) as plain
// Qt values for the inspector's plan table, and PlanProvider, through which the table asks the
// app for a plan.
#pragma once

#include <QList>
#include <QString>
#include <functional>

namespace earshot::ui {

// One kernel (or CPU op) of the plan, in launch order.
struct PlanKernelRow {
    QString kernel;   // what runs: "gemv_f16", "cublas_gemm", "layer_norm"
    QString op;       // the plan op it is part of: "linear", "attention"
    QString scope;    // "decoder_layers[1].encoder_attn.attend"; "(entry)" at the entry's top
    QString inputs;   // "f32[1, 64], f16[51864, 64]"
    QString outputs;  // "f32[1, 51864]"
    qint64 readBytes = 0;
    qint64 writtenBytes = 0;
    qint64 flops = 0;  // 2 per multiply-add
    // The numbers as the command line prints them: "6.33 MiB", "256 B", "6.64 MFLOP", "-".
    QString read;
    QString written;
    QString work;
};

struct PlanData {
    QString entry;    // "step"
    QString backend;  // "cpu" or "cuda"
    int rows = 1;
    // The listing's header line without its "# ": "step on cpu, rows 1: weights f16, caches f32;
    // 2 views launch nothing".
    QString header;
    QList<PlanKernelRow> kernels;
    QString total;  // the command line's last line: "TOTAL: 38 kernels, 6.94 MiB read, ..."
    // Why there is no plan (an entry that is not listed, a row count the listing refuses); the
    // other fields but entry, backend and rows are then empty.
    QString note;
};

struct PlanRequest {
    QString entry;
    QString backend = QStringLiteral("cpu");  // "cpu" or "cuda"
    int rows = 1;                             // Batch (encode: B)
};

using PlanProvider = std::function<PlanData(const PlanRequest&)>;

}  // namespace earshot::ui
