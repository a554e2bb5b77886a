// TapPanel: one tapped value: its edge, symbolic type beside the concrete shape, dtype and where
// it was taken; min / max / mean / std / rms, NaN, Inf and outside-f16 counts; a histogram; a
// heatmap of a 2-D slice with a picker per leading dimension (an attention-shaped value, [B,
// Heads, N, Dh], is shown one head at a time); and export as .npy.
#pragma once

#include <QList>
#include <QWidget>

#include "earshot/ui/inspector/tap_data.h"
#include "earshot/ui/inspector/tap_summary.h"

class QFormLayout;
class QLabel;
class QPushButton;
class QSpinBox;

namespace earshot::ui {

class TapHeatmap;
class TapHistogram;

class TapPanel : public QWidget {
    Q_OBJECT

public:
    static constexpr int kHistogramBins = 40;

    explicit TapPanel(QWidget* parent = nullptr);

    // Shows `value`; the slice pickers keep their positions while the shape stays the same (a
    // live tap refreshed at each update).
    void setValue(const TapValue& value);
    const TapValue& value() const { return m_value; }
    const TapSummary& summary() const { return m_summary; }

    // The leading indices the heatmap's slice is taken at (one per dimension before the last two).
    QList<qint64> sliceIndices() const;
    void setSliceIndex(int dimension, qint64 index);

    // Writes the value as .npy; the reason on failure, empty on success.
    QString exportNpy(const QString& path) const;

    QLabel* titleLabel() const { return m_title; }
    QLabel* typeLabel() const { return m_type; }
    QLabel* statsLabel(const QString& key) const;  // "min", "max", "mean", "std", "rms", "nan", ...
    TapHistogram* histogram() const { return m_histogram; }
    TapHeatmap* heatmap() const { return m_heatmap; }
    QList<QSpinBox*> slicePickers() const { return m_pickers; }
    QPushButton* exportButton() const { return m_export; }

private:
    void rebuildPickers();
    void updateSlice();
    void exportDialog();

    TapValue m_value;
    TapSummary m_summary;
    QLabel* m_title = nullptr;
    QLabel* m_type = nullptr;
    QLabel* m_source = nullptr;
    QFormLayout* m_stats = nullptr;
    QList<QPair<QString, QLabel*>> m_statLabels;
    TapHistogram* m_histogram = nullptr;
    QWidget* m_pickerRow = nullptr;
    QList<QSpinBox*> m_pickers;
    QLabel* m_sliceLabel = nullptr;
    TapHeatmap* m_heatmap = nullptr;
    QPushButton* m_export = nullptr;
};

}  // namespace earshot::ui
