// The compare table: one row per compared block output, worst first, in the order the
// comparison holds them; a click on a row says which block.
#include "earshot/ui/inspector/compare_table.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <cmath>

namespace earshot::ui {

namespace {

constexpr int kIndexRole = Qt::UserRole + 1;

QString shapeText(const QList<qint64>& shape) {
    QStringList parts;
    for (qint64 d : shape) parts.append(QString::number(d));
    return u'[' + parts.join(QStringLiteral(", ")) + u']';
}

}  // namespace

QString formatError(double value) {
    if (!std::isfinite(value)) return QStringLiteral("inf");
    return QString::number(value, 'e', 2);
}

CompareTable::CompareTable(QWidget* parent) : QTableWidget(0, columnCount, parent) {
    setHorizontalHeaderLabels({tr("Block"), tr("Relative error"), tr("Max abs error"),
                               tr("Max |A|"), tr("Shape"), tr("Entry"), tr("Edge type")});
    horizontalHeaderItem(relativeError)->setToolTip(tr("||A - B|| / ||A|| over every value"));
    horizontalHeaderItem(maxAbsA)->setToolTip(tr("The scale the max abs error is read against"));
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    verticalHeader()->setVisible(false);
    horizontalHeader()->setStretchLastSection(true);
    setWordWrap(false);
    connect(this, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
        const int index = comparisonRow(row);
        if (index >= 0) Q_EMIT blockChosen(index);
    });
}

void CompareTable::setComparison(const RunComparison& comparison) {
    const QSignalBlocker blocker(this);
    clearContents();
    setRowCount(static_cast<int>(comparison.rows.size()));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (int row = 0; row < comparison.rows.size(); ++row) {
        const CompareRow& r = comparison.rows[row];
        const QStringList texts = {r.name,
                                   formatError(r.relativeError),
                                   formatError(r.maxAbsError),
                                   formatError(r.maxAbsA),
                                   shapeText(r.shape),
                                   r.entry,
                                   r.symbolicType};
        for (int column = 0; column < columnCount; ++column) {
            auto* item = new QTableWidgetItem(texts[column]);
            item->setFont(mono);
            item->setToolTip(texts[column]);
            if (column >= relativeError && column <= maxAbsA)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            item->setData(kIndexRole, row);
            setItem(row, column, item);
        }
        if (r.nonfinite > 0) {
            item(row, relativeError)
                ->setToolTip(tr("%1 values are NaN or Inf in one run only").arg(r.nonfinite));
        }
    }
    resizeColumnsToContents();
}

int CompareTable::comparisonRow(int row) const {
    const QTableWidgetItem* cell = item(row, block);
    return cell == nullptr ? -1 : cell->data(kIndexRole).toInt();
}

void CompareTable::selectComparisonRow(int index) {
    for (int row = 0; row < rowCount(); ++row) {
        if (comparisonRow(row) != index) continue;
        const QSignalBlocker quiet(this);
        setCurrentCell(row, block);
        scrollToItem(item(row, block));
        return;
    }
}

}  // namespace earshot::ui
