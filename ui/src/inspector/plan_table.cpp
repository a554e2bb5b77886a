// The plan table: asks the provider for the entry, backend and rows shown and fills one row per
// kernel in the command line's column order, with the listing's header above and TOTAL below.
#include "earshot/ui/inspector/plan_table.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace earshot::ui {

namespace {

// A beam of 5 or a batch of windows; the listing itself takes any count.
constexpr int kMaxRows = 256;

QTableWidgetItem* cell(const QString& text, const QFont& font, Qt::Alignment alignment,
                       const QString& toolTip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setFont(font);
    item->setTextAlignment(alignment | Qt::AlignVCenter);
    item->setToolTip(toolTip.isEmpty() ? text : toolTip);
    return item;
}

QString bytesToolTip(qint64 bytes) { return PlanTable::tr("%1 bytes").arg(bytes); }

}  // namespace

PlanTable::PlanTable(QWidget* parent) : QWidget(parent) {
    m_backendPicker = new QComboBox(this);
    m_backendPicker->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_backendPicker->addItem(tr("CUDA"), QStringLiteral("cuda"));
    m_backendPicker->setToolTip(
        tr("The backend whose kernels are listed (read from the model's configuration, so the "
           "CUDA plan can be read on a machine without a GPU)"));
    m_rowsBox = new QSpinBox(this);
    m_rowsBox->setRange(1, kMaxRows);
    m_rowsBox->setToolTip(tr("Batch rows (a beam of 5: 5; encode: B)"));

    m_header = new QLabel(this);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Kernel"), tr("Scope"), tr("Read"),
                                        tr("Written"), tr("FLOP"), tr("Inputs"), tr("Outputs")});
    m_table->horizontalHeaderItem(ReadColumn)
        ->setToolTip(tr("Bytes the kernel reads from device (or main) memory"));
    m_table->horizontalHeaderItem(WrittenColumn)
        ->setToolTip(tr("Bytes the kernel writes to device (or main) memory"));
    m_table->horizontalHeaderItem(WorkColumn)
        ->setToolTip(tr("Floating-point operations: 2 per multiply-add"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    // Rows as tall as a line of the cells' font, so that a screen holds many kernels.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(QFontMetrics(cellFont()).height() + 6);

    m_total = new QLabel(this);
    m_total->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_total->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_total->setToolTip(tr("The last line of `earshot debug plan` for this entry"));

    auto* pickers = new QHBoxLayout;
    pickers->addWidget(new QLabel(tr("Plan on"), this));
    pickers->addWidget(m_backendPicker);
    pickers->addWidget(new QLabel(tr("Rows:"), this));
    pickers->addWidget(m_rowsBox);
    pickers->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(pickers);
    layout->addWidget(m_header);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_total);

    connect(m_backendPicker, &QComboBox::currentIndexChanged, this, [this] {
        m_request.backend = m_backendPicker->currentData().toString();
        reload();
    });
    connect(m_rowsBox, &QSpinBox::valueChanged, this, [this](int rows) {
        m_request.rows = rows;
        reload();
    });
    m_request.backend = m_backendPicker->currentData().toString();
    m_request.rows = m_rowsBox->value();
    fill();
}

void PlanTable::setProvider(PlanProvider provider) {
    m_provider = std::move(provider);
    reload();
}

void PlanTable::showEntry(const QString& entry) {
    if (entry == m_request.entry && entry == m_plan.entry) return;
    m_request.entry = entry;
    reload();
}

void PlanTable::setBackend(const QString& backend) {
    const int at = m_backendPicker->findData(backend);
    if (at < 0 || at == m_backendPicker->currentIndex()) return;
    m_backendPicker->setCurrentIndex(at);  // asks again
}

QString PlanTable::backend() const { return m_request.backend; }

void PlanTable::reload() {
    m_plan = PlanData{};
    m_plan.entry = m_request.entry;
    m_plan.backend = m_request.backend;
    m_plan.rows = m_request.rows;
    if (m_provider && !m_request.entry.isEmpty()) m_plan = m_provider(m_request);
    fill();
}

// The cells' font: the fixed-width font a point smaller, so that a half of the inspector shows
// the names and the numbers.
QFont PlanTable::cellFont() const {
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (mono.pointSizeF() > 8.0) mono.setPointSizeF(mono.pointSizeF() - 1.0);
    return mono;
}

void PlanTable::fill() {
    const QFont mono = cellFont();
    const Qt::Alignment left = Qt::AlignLeft;
    const Qt::Alignment right = Qt::AlignRight;
    m_table->setRowCount(0);
    if (!m_plan.note.isEmpty()) {
        m_header->setText(m_plan.note);
    } else if (m_plan.kernels.isEmpty() && m_plan.total.isEmpty()) {
        m_header->setText(m_provider ? tr("No entry shown.") : tr("No model loaded."));
    } else {
        m_header->setText(m_plan.header);
    }
    m_total->setText(m_plan.total);
    m_total->setVisible(!m_plan.total.isEmpty());

    m_table->setRowCount(static_cast<int>(m_plan.kernels.size()));
    for (int row = 0; row < m_plan.kernels.size(); ++row) {
        const PlanKernelRow& k = m_plan.kernels[row];
        m_table->setItem(row, IndexColumn, cell(QString::number(row), mono, right));
        m_table->setItem(row, KernelColumn,
                         cell(k.kernel, mono, left, tr("%1 (plan op: %2)").arg(k.kernel, k.op)));
        m_table->setItem(row, ScopeColumn, cell(k.scope, mono, left));
        m_table->setItem(row, ReadColumn, cell(k.read, mono, right, bytesToolTip(k.readBytes)));
        m_table->setItem(row, WrittenColumn,
                         cell(k.written, mono, right, bytesToolTip(k.writtenBytes)));
        m_table->setItem(row, WorkColumn, cell(k.work, mono, right, tr("%1 FLOP").arg(k.flops)));
        m_table->setItem(row, InputsColumn, cell(k.inputs, mono, left));
        m_table->setItem(row, OutputsColumn, cell(k.outputs, mono, left));
    }
    m_table->resizeColumnsToContents();
    Q_EMIT planChanged();
}

}  // namespace earshot::ui
