// A small encode-like program for the inspector's widget tests, served as plain GraphData the way
// the app's provider serves the real one: a loop of layers, each a call holding an attention call
// and a residual add; calls open and close by id; symbolic or concrete labels.
#pragma once

#include <QList>

#include "earshot/ui/inspector/graph_data.h"

namespace earshot::ui::test {

// Call ids: "2" the loop, "3" the layer call, "4" its attention call, "5" the final norm call.
class FakeGraphs {
public:
    QList<GraphRequest> requests;  // every request, in order

    GraphProvider provider() {
        return [this](const GraphRequest& request) { return graph(request); };
    }

    GraphData graph(const GraphRequest& r) {
        requests.append(r);
        GraphData g;
        g.entry = r.entry;
        if (r.entry != QLatin1String("encode")) {
            g.error = QStringLiteral("The model has no entry named \"%1\".").arg(r.entry);
            return g;
        }
        auto open = [&](const QString& id, int depth) {
            if (r.collapsed.contains(id)) return false;
            return depth <= r.expandDepth || r.expanded.contains(id);
        };
        auto type = [&](const QString& symbolic, const QString& bound) {
            return r.concrete ? bound : symbolic;
        };
        const QString x = type(QStringLiteral("T[B, N, D]"), QStringLiteral("f16[1, 1500, 384]"));
        g.nodes.append(
            {QStringLiteral("in"),
             QStringLiteral("input"),
             QStringLiteral("mel : ") + type(QStringLiteral("Tensor[B, Mels, Frames; T]"),
                                             QStringLiteral("f16[1, 80, 3000]")),
             {},
             {},
             {}});
        g.nodes.append({QStringLiteral("conv"),
                        QStringLiteral("op"),
                        QStringLiteral("conv1d"),
                        QStringLiteral("whisper"),
                        {},
                        {}});
        g.edges.append(
            {QStringLiteral("in"), QStringLiteral("conv"),
             type(QStringLiteral("T[B, Mels, Frames]"), QStringLiteral("f16[1, 80, 3000]"))});
        g.groups.append({QStringLiteral("g2"),
                         QStringLiteral("loop"),
                         QStringLiteral("for layer in layers"),
                         type(QStringLiteral("x Layers = 4"), QStringLiteral("x 4")),
                         {},
                         QStringLiteral("2")});
        QString layerOut;
        if (open(QStringLiteral("3"), 1)) {
            g.groups.append({QStringLiteral("g3"), QStringLiteral("call"),
                             QStringLiteral("layers[layer].forward"), QStringLiteral("Layer<D, T>"),
                             QStringLiteral("g2"), QStringLiteral("3")});
            QString attnIn = QStringLiteral("conv");
            QString attnOut;
            if (open(QStringLiteral("4"), 2)) {
                g.groups.append({QStringLiteral("g4"), QStringLiteral("call"),
                                 QStringLiteral("attn.forward"), QStringLiteral("Attention<D, T>"),
                                 QStringLiteral("g3"), QStringLiteral("4")});
                g.nodes.append({QStringLiteral("q"),
                                QStringLiteral("op"),
                                QStringLiteral("linear"),
                                {},
                                QStringLiteral("g4"),
                                {}});
                g.nodes.append({QStringLiteral("att"),
                                QStringLiteral("op"),
                                QStringLiteral("attention"),
                                {},
                                QStringLiteral("g4"),
                                {}});
                g.edges.append({QStringLiteral("conv"), QStringLiteral("q"), x});
                g.edges.append({QStringLiteral("q"), QStringLiteral("att"),
                                type(QStringLiteral("T[B, Heads, N, D / Heads]"),
                                     QStringLiteral("f16[1, 6, 1500, 64]"))});
                attnOut = QStringLiteral("att");
            } else {
                g.nodes.append({QStringLiteral("c4"), QStringLiteral("call"),
                                QStringLiteral("attn.forward"), QStringLiteral("Attention<D, T>"),
                                QStringLiteral("g3"), QStringLiteral("4")});
                g.edges.append({attnIn, QStringLiteral("c4"), x});
                attnOut = QStringLiteral("c4");
            }
            g.nodes.append({QStringLiteral("add"),
                            QStringLiteral("op"),
                            QStringLiteral("+"),
                            {},
                            QStringLiteral("g3"),
                            {}});
            g.edges.append({attnOut, QStringLiteral("add"), x});
            g.edges.append({QStringLiteral("conv"), QStringLiteral("add"), x});  // residual
            layerOut = QStringLiteral("add");
        } else {
            g.nodes.append({QStringLiteral("c3"), QStringLiteral("call"),
                            QStringLiteral("layers[layer].forward"), QStringLiteral("Layer<D, T>"),
                            QStringLiteral("g2"), QStringLiteral("3")});
            g.edges.append({QStringLiteral("conv"), QStringLiteral("c3"), x});
            layerOut = QStringLiteral("c3");
        }
        g.nodes.append({QStringLiteral("c5"),
                        QStringLiteral("call"),
                        QStringLiteral("norm.forward"),
                        QStringLiteral("LayerNorm<D, T>"),
                        {},
                        QStringLiteral("5")});
        g.nodes.append({QStringLiteral("out"),
                        QStringLiteral("output"),
                        QStringLiteral("result : ") + type(QStringLiteral("Tensor[B, N, D; T]"),
                                                           QStringLiteral("f16[1, 1500, 384]")),
                        {},
                        {},
                        {}});
        g.edges.append({layerOut, QStringLiteral("c5"), x});
        g.edges.append({QStringLiteral("c5"), QStringLiteral("out"), x});
        return g;
    }
};

}  // namespace earshot::ui::test
