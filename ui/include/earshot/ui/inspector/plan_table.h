// PlanTable: the inspector's table of an entry's plan as a backend executes it (the rows of
// `earshot debug plan`): a backend picker and a row count, the listing's header, one row per
// kernel, and the command line's TOTAL line under it.
#pragma once

#include <QFont>
#include <QString>
#include <QWidget>

#include "earshot/ui/inspector/plan_data.h"

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace earshot::ui {

class PlanTable : public QWidget {
    Q_OBJECT

public:
    // The table's columns, in the command line's order.
    enum Column {
        IndexColumn,
        KernelColumn,
        ScopeColumn,
        ReadColumn,
        WrittenColumn,
        WorkColumn,  // FLOP
        InputsColumn,
        OutputsColumn,
        ColumnCount
    };

    explicit PlanTable(QWidget* parent = nullptr);

    // Asks `provider` for the plan shown (set by the app); an empty provider clears the table.
    void setProvider(PlanProvider provider);
    // Lists `entry`'s plan; an empty entry clears the table.
    void showEntry(const QString& entry);
    // "cpu" or "cuda": the backend whose kernels are listed (the picker follows).
    void setBackend(const QString& backend);
    QString backend() const;
    // Asks the provider again for the current entry, backend and rows.
    void reload();

    const PlanRequest& request() const { return m_request; }
    const PlanData& plan() const { return m_plan; }

    QComboBox* backendPicker() const { return m_backendPicker; }
    QSpinBox* rowsBox() const { return m_rowsBox; }
    QLabel* headerLabel() const { return m_header; }
    QTableWidget* table() const { return m_table; }
    QLabel* totalLabel() const { return m_total; }

Q_SIGNALS:
    void planChanged();  // after every refill

private:
    QFont cellFont() const;
    void fill();

    PlanProvider m_provider;
    PlanRequest m_request;
    PlanData m_plan;
    QComboBox* m_backendPicker = nullptr;
    QSpinBox* m_rowsBox = nullptr;
    QLabel* m_header = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_total = nullptr;
};

}  // namespace earshot::ui
