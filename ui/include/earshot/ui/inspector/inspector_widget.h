// InspectorWidget: the model inspector: Entries, Generics and Blocks tables of the loaded model
// (the `inspect` report) and the Graph tab with an entry picker over a GraphView.
#pragma once

#include <QHash>
#include <QString>
#include <QWidget>

#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/inspector_data.h"

class QComboBox;
class QLabel;
class QTabWidget;
class QTableWidget;
class QTreeWidget;

namespace earshot::ui {

class GraphView;

class InspectorWidget : public QWidget {
    Q_OBJECT

public:
    explicit InspectorWidget(QWidget* parent = nullptr);

    // The tables of the loaded model; an empty InspectorData (no checkpoint) clears them. The
    // graph redraws its entry, or the first entry when it showed none.
    void setData(const InspectorData& data);
    const InspectorData& data() const { return m_data; }
    // The graph view asks for graphs through this (set by the app).
    void setGraphProvider(GraphProvider provider);
    // Switches to the Graph tab showing `entry`.
    void showEntry(const QString& entry);
    // 0..1 per call id: each call node's share of the engine time of the last update.
    void setHeat(const QHash<QString, double>& shareByCallId);

    GraphView* graphView() const { return m_graph; }
    QTabWidget* tabs() const { return m_tabs; }
    QTableWidget* entriesTable() const { return m_entries; }
    QTableWidget* genericsTable() const { return m_generics; }
    QTreeWidget* blocksTree() const { return m_blocks; }
    QComboBox* entryPicker() const { return m_entryPicker; }

private:
    InspectorData m_data;
    QTabWidget* m_tabs = nullptr;
    QLabel* m_source = nullptr;
    QTableWidget* m_entries = nullptr;
    QTableWidget* m_generics = nullptr;
    QTreeWidget* m_blocks = nullptr;
    QComboBox* m_entryPicker = nullptr;
    GraphView* m_graph = nullptr;
};

}  // namespace earshot::ui
