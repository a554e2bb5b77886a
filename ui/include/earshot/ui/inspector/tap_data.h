// Plain data of a tapped value as the inspector shows it: which edge, its symbolic type, the
// concrete shape and dtype, and the values (as f32, row-major) for the input it was taken on.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace earshot::ui {

struct TapValue {
    QString name;               // the tappable edge's name, the key of its tab
    QString title;              // "encoder_layers[7].forward output"
    QString symbolicType;       // "T[B, 1 + (-1 + Frames) / 2, D]"; "" when unknown
    QString dtype;              // the tensor's own dtype: "f32", "f16", "i32"
    QList<qint64> shape;        // concrete
    std::vector<float> values;  // numel values, row-major, converted to f32
    QString source;             // what it was taken on: "live update 12", "talk.wav 00:00-00:30"
    QString error;              // why there is no value (then only name and title are set)

    qint64 numel() const {
        qint64 n = 1;
        for (qint64 d : shape) n *= d;
        return n;
    }
};

// The names of a symbolic type's dimensions, "T[B, Heads, N, D / Heads]" -> {"B", "Heads", "N",
// "D / Heads"}; empty when the text has no brackets.
QStringList dimensionNames(const QString& symbolicType);

}  // namespace earshot::ui

Q_DECLARE_METATYPE(earshot::ui::TapValue)
