// InspectorData: the `inspect` report of the loaded model as plain Qt values (entries, the
// generics the checkpoint binds, every block's members and functions) for the inspector tables.
#pragma once

#include <QList>
#include <QString>

namespace earshot::ui {

struct InspectorEntry {
    QString name;       // "encode"
    QString signature;  // "encode<B: Dim>(mel: Tensor[B, Mels, Frames; T]) -> ..."
};

struct InspectorGeneric {
    QString name;   // "Frames"
    QString value;  // "3000", "f16"
};

// One line of a block's declaration: a member or a function.
struct InspectorMember {
    QString kind;  // "param", "state", "sub", "pub entry", "pub fn", "fn"
    QString name;  // "q_proj", "forward"
    QString type;  // members: "Linear<D, D, T>"; functions: the signature after the name
};

struct InspectorBlock {
    QString name;                    // "Attention"
    QString header;                  // "whisper::Attention<D: Dim, Heads: Dim, T: Float>"
    QList<InspectorMember> members;  // declaration order, members first, then functions
};

struct InspectorData {
    QString checkpoint;   // the checkpoint's path, "" when no model is loaded
    QString format;       // "safetensors", "ggml"
    QString dtypeSource;  // where T came from
    QList<InspectorEntry> entries;
    QList<InspectorGeneric> generics;  // the root's declaration order
    QList<InspectorBlock> blocks;      // sorted by name, as `inspect` prints them
};

}  // namespace earshot::ui
