// FileTimeline: the whole file along one axis: its waveform (peaks the app reads from the file),
// the segments as boxes over it and each segment's words as ticks under it, the selected segment
// marked; clicking a segment selects it.
#pragma once

#include <QList>
#include <QWidget>
#include <vector>

#include "earshot/ui/files/file_job.h"

namespace earshot::ui {

class FileTimeline : public QWidget {
    Q_OBJECT

public:
    explicit FileTimeline(QWidget* parent = nullptr);

    // The segments (and their words) along the file; the axis spans durationS, or the last
    // segment's end when that is longer.
    void setSegments(const QList<SegmentRow>& segments, double durationS);
    // The file's waveform: the largest |sample| of each of peaks.size() equal spans of durationS.
    void setWaveform(const std::vector<float>& peaks, double durationS);
    void setSelected(int row);
    int selected() const { return m_selected; }
    double durationS() const;

    QRectF segmentRect(int row) const;
    int segmentAt(QPointF point) const;

    QSize sizeHint() const override { return {640, 84}; }
    QSize minimumSizeHint() const override { return {200, 84}; }

Q_SIGNALS:
    void segmentClicked(int row);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    double xOf(double seconds) const;

    QList<SegmentRow> m_segments;
    std::vector<float> m_peaks;
    double m_durationS = 0.0;
    int m_selected = -1;
};

}  // namespace earshot::ui
