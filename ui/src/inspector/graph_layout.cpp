// Graph layout through libgvc: GraphData -> DOT text with fixed node sizes -> dot -> positions
// read back from the attributes Graphviz writes (pos, lp, bb), flipped to y-down.
#include "earshot/ui/inspector/graph_layout.h"

#include <graphviz/gvc.h>

#include <QHash>
#include <QStringList>
#include <QtMath>

#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

namespace {

constexpr double kPointsPerInch = 72.0;  // Graphviz sizes nodes in inches, places in points

QString quoted(const QString& text) {
    QString out = QStringLiteral("\"");
    for (QChar c : text) {
        if (c == u'"' || c == u'\\') out += u'\\';
        if (c == u'\n') {
            out += QStringLiteral("\\n");
            continue;
        }
        out += c;
    }
    return out + u'"';
}

QString inches(qreal px) { return QString::number(px / kPointsPerInch, 'f', 4); }

// A label dot sizes exactly as the view will draw it: an empty HTML table of that many points
// (Graphviz's own text metrics differ from Qt's).
QString fixedLabel(const QSizeF& size) {
    return QStringLiteral(
               "<<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" "
               "CELLPADDING=\"0\" FIXEDSIZE=\"TRUE\" WIDTH=\"%1\" "
               "HEIGHT=\"%2\"><TR><TD></TD></TR></TABLE>>")
        .arg(qCeil(size.width()))
        .arg(qCeil(size.height()));
}

// The one Graphviz context of the process (loading its plugins once); used on the UI thread.
GVC_t* context() {
    static GVC_t* gvc = [] {
        agseterr(AGMAX);  // keep messages for aglasterr() instead of printing them
        return gvContext();
    }();
    return gvc;
}

QString attr(void* object, const char* name) {
    const char* value = agget(object, const_cast<char*>(name));
    return value ? QString::fromUtf8(value) : QString();
}

bool parsePoint(const QString& text, QPointF* point) {
    const QStringList xy = text.split(u',');
    if (xy.size() != 2) return false;
    bool okX = false;
    bool okY = false;
    *point = QPointF(xy[0].toDouble(&okX), xy[1].toDouble(&okY));
    return okX && okY;
}

// "llx,lly,urx,ury" in points, y up.
bool parseBox(const QString& text, QRectF* box) {
    const QStringList v = text.split(u',');
    if (v.size() != 4) return false;
    *box = QRectF(QPointF(v[0].toDouble(), v[1].toDouble()),
                  QPointF(v[2].toDouble(), v[3].toDouble()));
    return true;
}

class Flip {
public:
    explicit Flip(const QRectF& bb) : m_left(bb.left()), m_top(bb.bottom()) {}
    QPointF operator()(const QPointF& p) const { return {p.x() - m_left, m_top - p.y()}; }
    QRectF operator()(const QRectF& box) const {
        return QRectF((*this)(box.topLeft()), (*this)(box.bottomRight())).normalized();
    }

private:
    qreal m_left;
    qreal m_top;
};

// "e,x,y s,x,y p0 p1 ... p3n": a cubic B-spline with optional arrowhead end points.
EdgeLayout parseSpline(const QString& pos, const Flip& flip) {
    EdgeLayout edge;
    QList<QPointF> points;
    bool hasEnd = false;
    bool hasStart = false;
    QPointF end;
    QPointF start;
    const QString first = pos.section(u';', 0, 0);
    for (const QString& token : first.split(u' ', Qt::SkipEmptyParts)) {
        QPointF p;
        if (token.startsWith(QStringLiteral("e,"))) {
            hasEnd = parsePoint(token.mid(2), &end);
        } else if (token.startsWith(QStringLiteral("s,"))) {
            hasStart = parsePoint(token.mid(2), &start);
        } else if (parsePoint(token, &p)) {
            points.append(flip(p));
        }
    }
    if (points.isEmpty()) return edge;
    edge.path.moveTo(hasStart ? flip(start) : points.front());
    if (hasStart) edge.path.lineTo(points.front());
    for (qsizetype i = 1; i + 2 < points.size(); i += 3) {
        edge.path.cubicTo(points[i], points[i + 1], points[i + 2]);
    }
    edge.arrowBase = points.back();
    edge.arrowTip = hasEnd ? flip(end) : points.back();
    return edge;
}

void readClusters(Agraph_t* graph, const Flip& flip, const GraphData& data, GraphLayout* layout) {
    for (Agraph_t* sub = agfstsubg(graph); sub; sub = agnxtsubg(sub)) {
        const QString name = QString::fromUtf8(agnameof(sub));
        bool ok = false;
        const int index = name.mid(QStringLiteral("cluster_").size()).toInt(&ok);
        QRectF box;
        if (ok && index >= 0 && index < data.groups.size() && parseBox(attr(sub, "bb"), &box)) {
            const QString& id = data.groups[index].id;
            layout->groups.insert(id, flip(box));
            QPointF label;
            if (parsePoint(attr(sub, "lp"), &label)) layout->groupLabels.insert(id, flip(label));
        }
        readClusters(sub, flip, data, layout);
    }
}

}  // namespace

QString layoutDot(const GraphData& graph) {
    QHash<QString, QList<int>> nodesIn;
    QHash<QString, QList<int>> groupsIn;
    QHash<QString, int> nodeIndex;
    for (int i = 0; i < graph.nodes.size(); ++i) {
        nodesIn[graph.nodes[i].group].append(i);
        nodeIndex.insert(graph.nodes[i].id, i);
    }
    for (int i = 0; i < graph.groups.size(); ++i) groupsIn[graph.groups[i].parent].append(i);

    QString dot = QStringLiteral("digraph G {\n");
    dot += QStringLiteral(
               "  graph [rankdir=TB, nodesep=0.25, ranksep=0.3, fontname=\"DejaVu Sans\", "
               "fontsize=%1];\n")
               .arg(graph_style::kLabelPx);
    dot += QStringLiteral("  node [shape=box, fixedsize=true, label=\"\"];\n");
    dot += QStringLiteral("  edge [fontname=\"DejaVu Sans Mono\", fontsize=%1];\n")
               .arg(graph_style::kEdgePx);
    auto writeGroup = [&](auto&& self, const QString& group, int depth) -> void {
        const QString pad(depth * 2 + 2, u' ');
        for (int i : nodesIn.value(group)) {
            const GraphNode& n = graph.nodes[i];
            const QSizeF size = graph_style::nodeSize(n.kind, n.label, n.sublabel);
            dot += pad + QStringLiteral("n%1 [width=%2, height=%3];\n")
                             .arg(i)
                             .arg(inches(size.width()), inches(size.height()));
        }
        for (int k : groupsIn.value(group)) {
            const GraphGroup& g = graph.groups[k];
            dot += pad + QStringLiteral("subgraph cluster_%1 {\n").arg(k);
            dot += pad + QStringLiteral("  label=%1;\n")
                             .arg(fixedLabel(graph_style::groupLabelSize(g.label, g.sublabel)));
            self(self, g.id, depth + 1);
            dot += pad + QStringLiteral("}\n");
        }
    };
    writeGroup(writeGroup, QString(), 0);
    for (int e = 0; e < graph.edges.size(); ++e) {
        const GraphEdge& edge = graph.edges[e];
        if (!nodeIndex.contains(edge.from) || !nodeIndex.contains(edge.to)) continue;
        // The type rides along as a comment for whoever reads the DOT; dot sizes the label.
        const QString label = edge.label.isEmpty()
                                  ? QStringLiteral("\"\"")
                                  : fixedLabel(graph_style::edgeLabelSize(edge.label) +
                                               QSizeF(2 * graph_style::kEdgeLabelMarginPx,
                                                      2 * graph_style::kEdgeLabelMarginPx));
        dot += QStringLiteral("  n") + QString::number(nodeIndex.value(edge.from)) +
               QStringLiteral(" -> n") + QString::number(nodeIndex.value(edge.to)) +
               QStringLiteral(" [comment=") + quoted(edge.label) + QStringLiteral(", label=") +
               label + QStringLiteral(", eid=") + QString::number(e) + QStringLiteral("];\n");
    }
    return dot + QStringLiteral("}\n");
}

GraphLayout layoutGraph(const GraphData& graph) {
    GraphLayout layout;
    for (int e = 0; e < graph.edges.size(); ++e) layout.edges.append(EdgeLayout{});
    GVC_t* gvc = context();
    if (!gvc) {
        layout.error = QStringLiteral("Graphviz could not start (gvContext failed)");
        return layout;
    }
    const QByteArray dot = layoutDot(graph).toUtf8();
    Agraph_t* g = agmemread(dot.constData());
    if (!g) {
        const char* why = aglasterr();
        layout.error = QStringLiteral("Graphviz could not read the graph: %1")
                           .arg(why ? QString::fromUtf8(why).trimmed() : QStringLiteral("?"));
        return layout;
    }
    if (gvLayout(gvc, g, "dot") != 0) {
        const char* why = aglasterr();
        layout.error = QStringLiteral("Graphviz dot layout failed: %1")
                           .arg(why ? QString::fromUtf8(why).trimmed() : QStringLiteral("?"));
        agclose(g);
        return layout;
    }
    // Rendering to "dot" writes pos, lp and bb back as attributes.
    char* rendered = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, g, "dot", &rendered, &length) != 0) {
        layout.error = QStringLiteral("Graphviz could not write the layout (dot renderer)");
    }
    if (rendered) gvFreeRenderData(rendered);

    QRectF bb;
    if (layout.error.isEmpty() && !parseBox(attr(g, "bb"), &bb)) {
        layout.error = QStringLiteral("Graphviz wrote no bounding box");
    }
    if (layout.error.isEmpty()) {
        const Flip flip(bb);
        layout.bounds = QRectF(0, 0, bb.width(), bb.height());
        for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
            const int index = QString::fromUtf8(agnameof(n)).mid(1).toInt();
            QPointF centre;
            if (index < 0 || index >= graph.nodes.size() || !parsePoint(attr(n, "pos"), &centre)) {
                continue;
            }
            const GraphNode& node = graph.nodes[index];
            const QSizeF size = graph_style::nodeSize(node.kind, node.label, node.sublabel);
            const QPointF c = flip(centre);
            layout.nodes.insert(node.id, QRectF(c.x() - size.width() / 2, c.y() - size.height() / 2,
                                                size.width(), size.height()));
            for (Agedge_t* e = agfstout(g, n); e; e = agnxtout(g, e)) {
                bool ok = false;
                const int eid = attr(e, "eid").toInt(&ok);
                if (!ok || eid < 0 || eid >= layout.edges.size()) continue;
                EdgeLayout edge = parseSpline(attr(e, "pos"), flip);
                QPointF label;
                if (parsePoint(attr(e, "lp"), &label)) edge.labelCentre = flip(label);
                layout.edges[eid] = edge;
            }
        }
        readClusters(g, flip, graph, &layout);
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    return layout;
}

}  // namespace earshot::ui
