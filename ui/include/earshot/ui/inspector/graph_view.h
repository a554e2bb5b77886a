// GraphView: the inspector's graph panel: asks the provider for an entry's graph, lays it out with
// dot, and draws it in a GraphCanvas; expand/collapse in place, symbolic or concrete types,
// search, heat overlay, zoom and fit, SVG and PNG export.
#pragma once

#include <QHash>
#include <QList>
#include <QSet>
#include <QWidget>

#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/graph_style.h"

class QCheckBox;
class QGraphicsScene;
class QLabel;
class QLineEdit;
class QTimer;

namespace earshot::ui {

class GraphCanvas;
class GraphEdgeItem;
class GraphGroupItem;
class GraphNodeItem;

class GraphView : public QWidget {
    Q_OBJECT

public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;

    void setProvider(GraphProvider provider);
    // Draws `entry` with calls opened to the first level (the default view), or clears the view
    // when `entry` is empty.
    void showEntry(const QString& entry);
    // Asks the provider again with the current request (a new model, say).
    void reload();

    QString entry() const { return m_request.entry; }
    const GraphRequest& request() const { return m_request; }
    const GraphData& graph() const { return m_graph; }
    QString error() const;  // the provider's or the layout's message, "" when drawn

    bool concreteTypes() const { return m_request.concrete; }
    void setConcreteTypes(bool on);

    // Open or close one call in place; the view stays centred on it. False for an unknown call.
    bool expandCall(const QString& callId);
    bool collapseCall(const QString& callId);

    // Searches the whole traced graph, not only what is drawn: opens the calls that hold a node,
    // group or edge whose label or type contains `text` (any case), highlights the matches and
    // centres the first; returns how many are drawn highlighted. Calls opened for a search close
    // again when the search changes (unless the user opened them); empty text clears it. The
    // search field runs this shortly after the typing stops.
    int search(const QString& text);
    // The calls the current search opened (call ids).
    const QSet<QString>& searchOpenedCalls() const { return m_searchOpened; }
    QLabel* matchesLabel() const { return m_matches; }

    // Colours call nodes and groups by their share (0..1) of the engine time, or under
    // HeatScale::relativeError by their output's relative error between two runs; empty clears.
    void setHeat(const QHash<QString, double>& shareByCallId,
                 graph_style::HeatScale scale = graph_style::HeatScale::engineTime);
    graph_style::HeatScale heatScale() const { return m_heatScale; }

    void zoomIn();
    void zoomOut();
    void fit();

    bool exportSvg(const QString& path) const;
    bool exportPng(const QString& path, qreal scale = 2.0) const;

    GraphCanvas* canvas() const { return m_canvas; }
    QGraphicsScene* scene() const { return m_scene; }
    QCheckBox* concreteToggle() const { return m_concrete; }
    QLineEdit* searchField() const { return m_search; }
    QList<GraphNodeItem*> nodeItems() const;
    QList<GraphGroupItem*> groupItems() const;
    QList<GraphEdgeItem*> edgeItems() const;
    GraphNodeItem* nodeItem(const QString& label) const;  // the first node with that label
    GraphGroupItem* groupItem(const QString& label) const;

Q_SIGNALS:
    void graphChanged();  // after every redraw
    // An edge was clicked, or a node (then its first outgoing edge: a block's output).
    void edgeClicked(const earshot::ui::GraphEdge& edge);

private Q_SLOTS:
    void exportSvgDialog();
    void exportPngDialog();

private:
    void rebuild(const QString& focusCallId);
    int highlightMatches();
    // The calls of the fully expanded graph that hold a match of `text`.
    QSet<QString> callsHoldingMatches(const QString& text);
    const GraphData& fullGraph();
    void showMessage(const QString& text);
    void applyHeat();
    void centreOnCall(const QString& callId);
    bool knowsCall(const QString& callId) const;

    GraphProvider m_provider;
    GraphRequest m_request;
    GraphData m_graph;
    QString m_layoutError;
    QHash<QString, double> m_heat;
    graph_style::HeatScale m_heatScale = graph_style::HeatScale::engineTime;
    QString m_searchText;
    QSet<QString> m_searchOpened;  // calls open only because the search needs them
    GraphData m_fullGraph;         // every call open, for the search; empty entry: not asked yet
    QTimer* m_searchDelay = nullptr;

    QGraphicsScene* m_scene = nullptr;
    GraphCanvas* m_canvas = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_matches = nullptr;
    QCheckBox* m_concrete = nullptr;
};

}  // namespace earshot::ui
