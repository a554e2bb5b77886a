// CompareTable: a comparison's block outputs, one a row, largest relative error first: block,
// relative error, max abs error (and the scale it is read against), shape, entry, edge type.
// Clicking a row selects that block.
#pragma once

#include <QTableWidget>

#include "earshot/ui/inspector/compare_data.h"

namespace earshot::ui {

class CompareTable : public QTableWidget {
    Q_OBJECT

public:
    // The numbers next to the name, the long type last (it scrolls).
    enum Column { block, relativeError, maxAbsError, maxAbsA, shape, entry, edge, columnCount };

    explicit CompareTable(QWidget* parent = nullptr);

    // Fills the table from `comparison` (its rows are sorted worst first; the table keeps that
    // order).
    void setComparison(const RunComparison& comparison);
    // The comparison row shown at table row `row`, -1 when none.
    int comparisonRow(int row) const;
    // Selects and scrolls to the table row of comparison row `index`.
    void selectComparisonRow(int index);

Q_SIGNALS:
    void blockChosen(int comparisonRow);
};

// "3.21e-03" for the table; "inf" for an infinite error.
QString formatError(double value);

}  // namespace earshot::ui
