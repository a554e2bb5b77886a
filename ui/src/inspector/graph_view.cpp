// The graph panel: the request state (entry, opened and closed calls, type mode), redraws from
// the provider through the dot layout, search, heat and export.
#include "earshot/ui/inspector/graph_view.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QSvgGenerator>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "earshot/ui/inspector/graph_canvas.h"
#include "earshot/ui/inspector/graph_edge_item.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_layout.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_style.h"

namespace earshot::ui {

namespace {

constexpr qreal kSceneMargin = 16.0;
// Typing in the search field highlights at once; it opens calls once the typing pauses this long.
constexpr int kSearchDelayMs = 250;
// Every call open: what the search looks through.
constexpr int kFullDepth = 1000;

QToolButton* toolButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(tip);
    return button;
}

template <typename Item>
QList<Item*> itemsOf(const QGraphicsScene* scene) {
    QList<Item*> out;
    for (QGraphicsItem* item : scene->items(Qt::AscendingOrder)) {
        if (auto* typed = qgraphicsitem_cast<Item*>(item)) out.append(typed);
    }
    return out;
}

bool contains(const QString& text, const QString& needle) {
    return text.contains(needle, Qt::CaseInsensitive);
}

}  // namespace

GraphView::GraphView(QWidget* parent) : QWidget(parent) {
    m_scene = new QGraphicsScene(this);
    m_canvas = new GraphCanvas(this);
    m_canvas->setScene(m_scene);

    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search nodes or types"));
    m_search->setClearButtonEnabled(true);
    m_matches = new QLabel(this);
    // As wide as the longest count it will show, so that the search field keeps its width.
    m_matches->setFixedWidth(
        m_matches->fontMetrics().horizontalAdvance(tr("%1 matches").arg(8888)) + 8);
    m_matches->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_searchDelay = new QTimer(this);
    m_searchDelay->setSingleShot(true);
    m_searchDelay->setInterval(kSearchDelayMs);
    m_concrete = new QCheckBox(tr("Concrete types"), this);
    m_concrete->setToolTip(
        tr("Label edges with the checkpoint's bound types instead of the "
           "model's generics"));
    auto* zoomOutButton = toolButton(QStringLiteral("\u2212"), tr("Zoom out (-)"), this);
    auto* zoomInButton = toolButton(QStringLiteral("+"), tr("Zoom in (+)"), this);
    auto* fitButton = toolButton(tr("Fit"), tr("Fit the graph in view (0)"), this);
    auto* svgButton = toolButton(tr("SVG\u2026"), tr("Export the graph as SVG"), this);
    auto* pngButton = toolButton(tr("PNG\u2026"), tr("Export the graph as PNG"), this);

    auto* bar = new QHBoxLayout;
    bar->addWidget(m_search, 1);
    bar->addWidget(m_matches);
    bar->addWidget(m_concrete);
    bar->addWidget(zoomOutButton);
    bar->addWidget(zoomInButton);
    bar->addWidget(fitButton);
    bar->addWidget(svgButton);
    bar->addWidget(pngButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_canvas, 1);

    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_searchText = text.trimmed();
        highlightMatches();
        m_searchDelay->start();
    });
    connect(m_searchDelay, &QTimer::timeout, this, [this] { search(m_search->text()); });
    connect(m_concrete, &QCheckBox::toggled, this, &GraphView::setConcreteTypes);
    connect(zoomInButton, &QToolButton::clicked, this, &GraphView::zoomIn);
    connect(zoomOutButton, &QToolButton::clicked, this, &GraphView::zoomOut);
    connect(fitButton, &QToolButton::clicked, this, &GraphView::fit);
    connect(svgButton, &QToolButton::clicked, this, &GraphView::exportSvgDialog);
    connect(pngButton, &QToolButton::clicked, this, &GraphView::exportPngDialog);
    connect(m_canvas, &GraphCanvas::expandRequested, this, &GraphView::expandCall);
    connect(m_canvas, &GraphCanvas::collapseRequested, this, &GraphView::collapseCall);
    connect(m_canvas, &GraphCanvas::edgeClicked, this, &GraphView::edgeClicked);
    connect(m_canvas, &GraphCanvas::nodeClicked, this, [this](const QString& nodeId) {
        // A block stands for its output: the first edge leaving it (an output node: its input).
        for (const GraphEdge& edge : m_graph.edges) {
            if (edge.from == nodeId) {
                Q_EMIT edgeClicked(edge);
                return;
            }
        }
        for (const GraphEdge& edge : m_graph.edges) {
            if (edge.to == nodeId) {
                Q_EMIT edgeClicked(edge);
                return;
            }
        }
    });
    showMessage(tr("No model loaded: open a model to see its graphs."));
}

GraphView::~GraphView() = default;

void GraphView::setProvider(GraphProvider provider) {
    m_provider = std::move(provider);
    m_fullGraph = {};
}

void GraphView::showEntry(const QString& entry) {
    m_request.entry = entry;
    m_request.expandDepth = 1;
    m_request.expanded.clear();
    m_request.collapsed.clear();
    m_searchOpened.clear();
    m_fullGraph = {};
    rebuild({});
    if (!m_searchText.isEmpty()) search(m_searchText);
}

void GraphView::reload() {
    m_fullGraph = {};
    rebuild({});
}

QString GraphView::error() const { return m_graph.error.isEmpty() ? m_layoutError : m_graph.error; }

void GraphView::setConcreteTypes(bool on) {
    if (m_concrete->isChecked() != on) m_concrete->setChecked(on);  // re-enters through toggled
    if (m_request.concrete == on) return;
    m_request.concrete = on;
    m_fullGraph = {};  // other labels
    const QPointF centre = m_canvas->mapToScene(m_canvas->viewport()->rect().center());
    const qreal zoom = m_canvas->zoom();
    rebuild({});
    m_canvas->setZoom(zoom);
    m_canvas->centerOn(centre);
}

bool GraphView::knowsCall(const QString& callId) const {
    if (callId.isEmpty()) return false;
    for (const auto& n : m_graph.nodes) {
        if (n.callId == callId) return true;
    }
    for (const auto& g : m_graph.groups) {
        if (g.callId == callId && g.kind == QLatin1String("call")) return true;
    }
    return false;
}

bool GraphView::expandCall(const QString& callId) {
    if (!knowsCall(callId)) return false;
    m_request.collapsed.remove(callId);
    m_request.expanded.insert(callId);
    rebuild(callId);
    return true;
}

bool GraphView::collapseCall(const QString& callId) {
    if (!knowsCall(callId)) return false;
    m_request.expanded.remove(callId);
    m_request.collapsed.insert(callId);
    m_searchOpened.remove(callId);
    rebuild(callId);
    return true;
}

void GraphView::showMessage(const QString& text) {
    m_scene->clear();
    auto* item = m_scene->addSimpleText(text, graph_style::labelFont());
    item->setBrush(graph_style::sublabelInk());
    m_scene->setSceneRect(item->boundingRect().adjusted(-20, -20, 20, 20));
    m_canvas->setZoom(1.0);
    m_canvas->centerOn(item);
}

void GraphView::rebuild(const QString& focusCallId) {
    m_layoutError.clear();
    m_graph = GraphData{};
    if (m_request.entry.isEmpty() || !m_provider) {
        showMessage(m_provider ? tr("Choose an entry to draw its graph.")
                               : tr("No model loaded: open a model to see its graphs."));
        Q_EMIT graphChanged();
        return;
    }
    GraphRequest request = m_request;
    for (const QString& call : m_searchOpened) {
        request.expanded.insert(call);
        request.collapsed.remove(call);
    }
    m_graph = m_provider(request);
    if (!m_graph.error.isEmpty()) {
        showMessage(m_graph.error);
        Q_EMIT graphChanged();
        return;
    }
    const GraphLayout layout = layoutGraph(m_graph);
    if (!layout.error.isEmpty()) {
        m_layoutError = layout.error;
        showMessage(layout.error);
        Q_EMIT graphChanged();
        return;
    }
    m_scene->clear();
    for (const GraphGroup& group : m_graph.groups) {
        if (!layout.groups.contains(group.id)) continue;
        m_scene->addItem(new GraphGroupItem(group, layout.groups.value(group.id),
                                            layout.groupLabels.value(group.id)));
    }
    for (const GraphNode& node : m_graph.nodes) {
        if (!layout.nodes.contains(node.id)) continue;
        m_scene->addItem(new GraphNodeItem(node, layout.nodes.value(node.id)));
    }
    for (qsizetype e = 0; e < m_graph.edges.size() && e < layout.edges.size(); ++e) {
        if (layout.edges[e].path.isEmpty()) continue;
        m_scene->addItem(new GraphEdgeItem(m_graph.edges[e], layout.edges[e]));
    }
    m_scene->setSceneRect(
        layout.bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
    applyHeat();
    if (focusCallId.isEmpty()) {
        m_canvas->openGraph();
    } else {
        centreOnCall(focusCallId);
    }
    highlightMatches();
    Q_EMIT graphChanged();
}

void GraphView::centreOnCall(const QString& callId) {
    for (GraphGroupItem* group : groupItems()) {
        if (group->group().callId == callId) {
            m_canvas->focusOn(group->rect().center());
            return;
        }
    }
    for (GraphNodeItem* node : nodeItems()) {
        if (node->node().callId == callId) {
            m_canvas->focusOn(node->rect().center());
            return;
        }
    }
}

const GraphData& GraphView::fullGraph() {
    if (m_fullGraph.entry.isEmpty() && m_provider && !m_request.entry.isEmpty()) {
        GraphRequest all;
        all.entry = m_request.entry;
        all.expandDepth = kFullDepth;
        all.concrete = m_request.concrete;
        m_fullGraph = m_provider(all);
        m_fullGraph.entry = m_request.entry;
    }
    return m_fullGraph;
}

QSet<QString> GraphView::callsHoldingMatches(const QString& text) {
    const GraphData& full = fullGraph();
    QSet<QString> calls;
    if (!full.error.isEmpty()) return calls;
    QHash<QString, const GraphGroup*> groups;
    for (const GraphGroup& group : full.groups) groups.insert(group.id, &group);
    QHash<QString, QString> groupOfNode;
    for (const GraphNode& node : full.nodes) groupOfNode.insert(node.id, node.group);
    // The calls around `groupId`, itself included, up to the top.
    auto openAround = [&](QString groupId) {
        while (const GraphGroup* group = groups.value(groupId, nullptr)) {
            if (group->kind == QLatin1String("call") && !group->callId.isEmpty()) {
                calls.insert(group->callId);
            }
            groupId = group->parent;
        }
    };
    for (const GraphNode& node : full.nodes) {
        if (contains(node.label, text) || contains(node.sublabel, text) ||
            contains(node.description, text)) {
            openAround(node.group);
        }
    }
    for (const GraphGroup& group : full.groups) {
        // A matching call shows as a node where its parent is open: open what is around it.
        if (contains(group.label, text) || contains(group.sublabel, text)) {
            openAround(group.parent);
        }
    }
    for (const GraphEdge& edge : full.edges) {
        if (!contains(edge.label, text)) continue;
        openAround(groupOfNode.value(edge.from));
        openAround(groupOfNode.value(edge.to));
    }
    return calls;
}

int GraphView::search(const QString& text) {
    m_searchDelay->stop();
    m_searchText = text.trimmed();
    if (m_search->text().trimmed() != m_searchText) {
        const QSignalBlocker block(m_search);
        m_search->setText(m_searchText);
    }
    QSet<QString> open;
    if (!m_searchText.isEmpty()) open = callsHoldingMatches(m_searchText);
    // Calls drawn open for the user's own reasons need no opening by the search.
    for (const GraphGroup& group : m_graph.groups) {
        if (group.kind == QLatin1String("call") && !m_searchOpened.contains(group.callId)) {
            open.remove(group.callId);
        }
    }
    if (open != m_searchOpened) {
        m_searchOpened = open;
        rebuild({});
    }
    return highlightMatches();
}

int GraphView::highlightMatches() {
    const bool active = !m_searchText.isEmpty();
    int count = 0;
    QPointF first;
    bool haveFirst = false;
    auto note = [&](bool hit, const QPointF& at) {
        if (!hit) return;
        ++count;
        if (!haveFirst) first = at;
        haveFirst = true;
    };
    for (GraphNodeItem* node : nodeItems()) {
        const bool hit = active && (contains(node->node().label, m_searchText) ||
                                    contains(node->node().sublabel, m_searchText) ||
                                    contains(node->node().description, m_searchText));
        node->setHighlighted(hit);
        note(hit, node->rect().center());
    }
    for (GraphEdgeItem* edge : edgeItems()) {
        const bool hit = active && contains(edge->label(), m_searchText);
        edge->setHighlighted(hit);
        note(hit, edge->labelRect().center());
    }
    for (GraphGroupItem* group : groupItems()) {
        const bool hit = active && (contains(group->group().label, m_searchText) ||
                                    contains(group->group().sublabel, m_searchText));
        group->setHighlighted(hit);
        note(hit, group->labelRect().center());
    }
    m_matches->setText(!active      ? QString()
                       : count == 1 ? tr("1 match")
                                    : tr("%1 matches").arg(count));
    if (haveFirst) m_canvas->focusOn(first);
    return count;
}

void GraphView::setHeat(const QHash<QString, double>& shareByCallId, graph_style::HeatScale scale) {
    m_heat = shareByCallId;
    m_heatScale = scale;
    applyHeat();
}

void GraphView::applyHeat() {
    auto share = [this](const QString& callId) -> std::optional<double> {
        if (callId.isEmpty() || !m_heat.contains(callId)) return std::nullopt;
        return m_heat.value(callId);
    };
    // Calls by call id; op nodes by their node id (an op that runs outside every call).
    for (GraphNodeItem* node : nodeItems()) {
        const GraphNode& n = node->node();
        node->setHeat(share(n.kind == QLatin1String("op") ? n.id : n.callId), m_heatScale);
    }
    for (GraphGroupItem* group : groupItems())
        group->setHeat(share(group->group().callId), m_heatScale);
}

void GraphView::zoomIn() { m_canvas->zoomBy(1.2); }
void GraphView::zoomOut() { m_canvas->zoomBy(1.0 / 1.2); }
void GraphView::fit() { m_canvas->fitGraph(); }

bool GraphView::exportSvg(const QString& path) const {
    const QRectF area = m_scene->sceneRect();
    if (area.isEmpty()) return false;
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(area.size().toSize());
    svg.setViewBox(QRectF(QPointF(0, 0), area.size()));
    svg.setTitle(m_request.entry);
    svg.setDescription(tr("The %1 entry's graph, drawn by Earshot").arg(m_request.entry));
    QPainter painter;
    if (!painter.begin(&svg)) return false;
    painter.fillRect(QRectF(QPointF(0, 0), area.size()), Qt::white);
    m_scene->render(&painter, QRectF(QPointF(0, 0), area.size()), area);
    painter.end();
    return QFileInfo(path).size() > 0;
}

bool GraphView::exportPng(const QString& path, qreal scale) const {
    const QRectF area = m_scene->sceneRect();
    if (area.isEmpty() || scale <= 0.0) return false;
    QImage image((area.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(image.size())), area);
    painter.end();
    return image.save(path, "PNG");
}

void GraphView::exportSvgDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export graph as SVG"),
                                                      m_request.entry + QStringLiteral(".svg"),
                                                      tr("SVG images (*.svg)"));
    if (!path.isEmpty() && !exportSvg(path)) {
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(path));
    }
}

void GraphView::exportPngDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export graph as PNG"),
                                                      m_request.entry + QStringLiteral(".png"),
                                                      tr("PNG images (*.png)"));
    if (!path.isEmpty() && !exportPng(path)) {
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(path));
    }
}

QList<GraphNodeItem*> GraphView::nodeItems() const { return itemsOf<GraphNodeItem>(m_scene); }
QList<GraphGroupItem*> GraphView::groupItems() const { return itemsOf<GraphGroupItem>(m_scene); }
QList<GraphEdgeItem*> GraphView::edgeItems() const { return itemsOf<GraphEdgeItem>(m_scene); }

GraphNodeItem* GraphView::nodeItem(const QString& label) const {
    for (GraphNodeItem* node : nodeItems()) {
        if (node->node().label == label) return node;
    }
    return nullptr;
}

GraphGroupItem* GraphView::groupItem(const QString& label) const {
    for (GraphGroupItem* group : groupItems()) {
        if (group->group().label == label) return group;
    }
    return nullptr;
}

}  // namespace earshot::ui
