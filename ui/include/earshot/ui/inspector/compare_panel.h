// ComparePanel: "Compare runs" in the inspector: while a comparison runs, what it is doing with a
// Cancel button; then the two runs and their input, the CompareTable of block errors, and for the
// block chosen (in the table or on the graph) three tap panels: run A's value, run B's, and A - B.
#pragma once

#include <QHash>
#include <QWidget>

#include "earshot/ui/inspector/compare_data.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace earshot::ui {

class CompareTable;
class TapPanel;

class ComparePanel : public QWidget {
    Q_OBJECT

public:
    explicit ComparePanel(QWidget* parent = nullptr);

    // A comparison is running: `what` it does now, as step `step` of `steps`.
    void setRunning(const QString& what, int step, int steps);
    bool isRunning() const { return m_running; }
    // The result (or its error, or that it was cancelled); the worst block is chosen.
    void setComparison(const RunComparison& comparison);
    const RunComparison& comparison() const { return m_comparison; }

    // For the calls of `entry`'s graph: the largest relative error among the block outputs
    // they return (a call in a loop returns one per iteration). Empty without a comparison.
    QHash<QString, double> heatFor(const QString& entry) const;
    // Chooses comparison row `index`: the table selects it, the three panels show its values.
    void selectRow(int index);
    // Chooses the worst row of `entry` whose calls include `callId`; false when none.
    bool selectCall(const QString& entry, const QString& callId);
    int selectedRow() const { return m_selected; }
    // The values of a row the comparison did not keep, computed again (valuesRequested): shown
    // when it is still chosen. Only the last such row keeps them (the comparison's budget plus
    // one block); the one before lets its values go. An `error` is shown instead of values.
    void setBlockValues(const CompareRow& computed, const QString& error = {});
    // The row whose values are being computed again; -1 when none.
    int pendingRow() const { return m_pending; }

    QLabel* statusLabel() const { return m_status; }
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* cancelButton() const { return m_cancel; }
    CompareTable* table() const { return m_table; }
    QTabWidget* valueTabs() const { return m_valueTabs; }
    TapPanel* panelA() const { return m_panelA; }
    TapPanel* panelB() const { return m_panelB; }
    TapPanel* panelDifference() const { return m_panelDiff; }

Q_SIGNALS:
    void cancelRequested();
    void closeRequested();
    // The chosen block changed (row index in comparison().rows).
    void rowSelected(int index);
    // The chosen row's values were not kept: compute block `name` of `entry` again.
    void valuesRequested(const QString& entry, const QString& name);

private:
    RunComparison m_comparison;
    int m_selected = -1;
    int m_pending = -1;     // valuesRequested for this row, not answered yet
    int m_recomputed = -1;  // the row holding values computed again
    bool m_running = false;
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_close = nullptr;
    CompareTable* m_table = nullptr;
    QLabel* m_blockTitle = nullptr;
    QTabWidget* m_valueTabs = nullptr;
    TapPanel* m_panelA = nullptr;
    TapPanel* m_panelB = nullptr;
    TapPanel* m_panelDiff = nullptr;
};

// The tap panel's value for one side of `row` ("A", "B") or its difference A - B, element by
// element.
enum class CompareSide { a, b, difference };
TapValue compareValue(const RunComparison& comparison, const CompareRow& row, CompareSide side);

}  // namespace earshot::ui
