// TapPanel: labels and a stats grid on top, the histogram, the slice pickers over the heatmap,
// Export at the bottom. The summary is recomputed on each setValue.
#include "earshot/ui/inspector/tap_panel.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

#include "earshot/ui/inspector/npy_file.h"
#include "earshot/ui/inspector/tap_heatmap.h"
#include "earshot/ui/inspector/tap_histogram.h"

namespace earshot::ui {

namespace {

QString shapeText(const QList<qint64>& shape) {
    QStringList parts;
    for (qint64 d : shape) parts.append(QString::number(d));
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

QString number(double x) { return QString::number(x, 'g', 6); }

}  // namespace

TapPanel::TapPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tapPanel"));
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("tapTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_type = new QLabel(this);
    m_type->setObjectName(QStringLiteral("tapType"));
    m_type->setWordWrap(true);
    m_type->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_source = new QLabel(this);
    m_source->setWordWrap(true);

    auto* statsBox = new QWidget(this);
    m_stats = new QFormLayout(statsBox);
    m_stats->setContentsMargins(0, 0, 0, 0);
    const QList<QPair<QString, QString>> rows = {
        {QStringLiteral("min"), tr("min")},   {QStringLiteral("max"), tr("max")},
        {QStringLiteral("mean"), tr("mean")}, {QStringLiteral("std"), tr("std")},
        {QStringLiteral("rms"), tr("rms")},   {QStringLiteral("nan"), tr("NaN")},
        {QStringLiteral("inf"), tr("Inf")},   {QStringLiteral("f16"), tr("outside f16")}};
    for (const auto& [key, text] : rows) {
        auto* label = new QLabel(statsBox);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_stats->addRow(text, label);
        m_statLabels.append({key, label});
    }
    m_histogram = new TapHistogram(this);
    m_pickerRow = new QWidget(this);
    auto* pickerLayout = new QHBoxLayout(m_pickerRow);
    pickerLayout->setContentsMargins(0, 0, 0, 0);
    m_sliceLabel = new QLabel(this);
    m_heatmap = new TapHeatmap(this);
    m_export = new QPushButton(tr("Export .npy..."), this);
    connect(m_export, &QPushButton::clicked, this, &TapPanel::exportDialog);

    auto* top = new QHBoxLayout;
    top->addWidget(statsBox);
    top->addWidget(m_histogram, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_type);
    layout->addWidget(m_source);
    layout->addLayout(top);
    layout->addWidget(m_pickerRow);
    layout->addWidget(m_sliceLabel);
    layout->addWidget(m_heatmap, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addStretch(1);
    bottom->addWidget(m_export);
    layout->addLayout(bottom);
}

QLabel* TapPanel::statsLabel(const QString& key) const {
    for (const auto& [name, label] : m_statLabels) {
        if (name == key) return label;
    }
    return nullptr;
}

void TapPanel::setValue(const TapValue& value) {
    const bool sameShape = value.shape == m_value.shape;
    m_value = value;
    m_title->setText(value.title.isEmpty() ? value.name : value.title);
    if (!value.error.isEmpty()) {
        m_type->setText(value.error);
        m_source->clear();
        m_summary = TapSummary{};
        for (const auto& entry : m_statLabels) entry.second->clear();
        m_histogram->setHistogram({}, 0.0, 0.0);
        m_heatmap->setSlice({});
        m_export->setEnabled(false);
        return;
    }
    const QString concrete = value.dtype + shapeText(value.shape);
    m_type->setText(value.symbolicType.isEmpty()
                        ? concrete
                        : tr("%1  =  %2").arg(value.symbolicType, concrete));
    m_source->setText(value.source);
    m_summary = summarize(value.values, kHistogramBins);
    const QLocale locale;
    const auto set = [this](const QString& key, const QString& text) {
        statsLabel(key)->setText(text);
    };
    const bool any = m_summary.finite > 0;
    set(QStringLiteral("min"), any ? number(m_summary.min) : QStringLiteral("-"));
    set(QStringLiteral("max"), any ? number(m_summary.max) : QStringLiteral("-"));
    set(QStringLiteral("mean"), any ? number(m_summary.mean) : QStringLiteral("-"));
    set(QStringLiteral("std"), any ? number(m_summary.std) : QStringLiteral("-"));
    set(QStringLiteral("rms"), any ? number(m_summary.rms) : QStringLiteral("-"));
    set(QStringLiteral("nan"), locale.toString(m_summary.nan));
    set(QStringLiteral("inf"), locale.toString(m_summary.inf));
    set(QStringLiteral("f16"), locale.toString(m_summary.outsideF16));
    m_histogram->setHistogram(m_summary.histogram, m_summary.min, m_summary.max);
    m_export->setEnabled(true);
    if (!sameShape || m_pickers.size() != std::max<qsizetype>(0, value.shape.size() - 2)) {
        rebuildPickers();
    }
    updateSlice();
}

void TapPanel::rebuildPickers() {
    auto* layout = static_cast<QHBoxLayout*>(m_pickerRow->layout());
    while (QLayoutItem* item = layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_pickers.clear();
    const QStringList names = dimensionNames(m_value.symbolicType);
    const qsizetype leading = std::max<qsizetype>(0, m_value.shape.size() - 2);
    for (qsizetype d = 0; d < leading; ++d) {
        const QString name = names.size() == m_value.shape.size() ? names[d] : tr("dim %1").arg(d);
        auto* label = new QLabel(name, m_pickerRow);
        auto* picker = new QSpinBox(m_pickerRow);
        picker->setObjectName(QStringLiteral("slicePicker%1").arg(d));
        picker->setRange(0, static_cast<int>(std::max<qint64>(0, m_value.shape[d] - 1)));
        picker->setToolTip(tr("%1: 0 to %2").arg(name).arg(m_value.shape[d] - 1));
        label->setBuddy(picker);
        connect(picker, &QSpinBox::valueChanged, this, [this] { updateSlice(); });
        layout->addWidget(label);
        layout->addWidget(picker);
        m_pickers.append(picker);
    }
    layout->addStretch(1);
    m_pickerRow->setVisible(leading > 0);
}

QList<qint64> TapPanel::sliceIndices() const {
    QList<qint64> indices;
    for (const QSpinBox* picker : m_pickers) indices.append(picker->value());
    return indices;
}

void TapPanel::setSliceIndex(int dimension, qint64 index) {
    if (dimension >= 0 && dimension < m_pickers.size()) {
        m_pickers[dimension]->setValue(static_cast<int>(index));
    }
}

void TapPanel::updateSlice() {
    const TapSlice slice = sliceOf(m_value.values, m_value.shape, sliceIndices());
    m_heatmap->setSlice(slice);
    const QStringList names = dimensionNames(m_value.symbolicType);
    const qsizetype rank = m_value.shape.size();
    QString axes;
    if (rank >= 2 && names.size() == rank) {
        axes = tr("rows: %1, columns: %2").arg(names[rank - 2], names[rank - 1]);
    }
    m_sliceLabel->setText(
        tr("Slice %1 x %2%3")
            .arg(slice.rows)
            .arg(slice.cols)
            .arg(axes.isEmpty() ? QString() : QStringLiteral(" (") + axes + QStringLiteral(")")));
}

QString TapPanel::exportNpy(const QString& path) const {
    if (!m_value.error.isEmpty() || m_value.values.empty()) return tr("no value to export");
    return writeNpy(path, m_value.shape, m_value.values);
}

void TapPanel::exportDialog() {
    QString suggested = m_value.name;
    suggested.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]+")), QStringLiteral("_"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Export tapped value"),
                                                      suggested + QStringLiteral(".npy"),
                                                      tr("NumPy arrays (*.npy)"));
    if (path.isEmpty()) return;
    const QString error = exportNpy(path);
    m_source->setText(error.isEmpty() ? tr("Exported to %1").arg(path)
                                      : tr("Cannot export: %1").arg(error));
}

}  // namespace earshot::ui
