// FileTimeline: three bands on one time axis: waveform, segment boxes, word ticks; times at the
// ends.
#include "earshot/ui/files/file_timeline.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

namespace earshot::ui {

namespace {
constexpr int kMarginPx = 6;
constexpr int kWaveTopPx = 4;
constexpr int kWaveHeightPx = 34;
constexpr int kSegmentTopPx = 40;
constexpr int kSegmentHeightPx = 18;
constexpr int kWordTopPx = 60;
constexpr int kWordHeightPx = 8;
}  // namespace

FileTimeline::FileTimeline(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("fileTimeline"));
    setToolTip(tr("The file: its waveform, segments and words. Click a segment to select it."));
}

void FileTimeline::setSegments(const QList<SegmentRow>& segments, double durationS) {
    m_segments = segments;
    m_durationS = std::max(m_durationS, durationS);
    if (m_selected >= m_segments.size()) m_selected = -1;
    update();
}

void FileTimeline::setWaveform(const std::vector<float>& peaks, double durationS) {
    m_peaks = peaks;
    m_durationS = durationS;
    update();
}

void FileTimeline::setSelected(int row) {
    m_selected = row;
    update();
}

double FileTimeline::durationS() const {
    double end = m_durationS;
    for (const SegmentRow& s : m_segments) end = std::max(end, s.endS);
    return end;
}

double FileTimeline::xOf(double seconds) const {
    const double span = durationS();
    const double w = width() - 2.0 * kMarginPx;
    return kMarginPx + (span > 0.0 ? std::clamp(seconds / span, 0.0, 1.0) * w : 0.0);
}

QRectF FileTimeline::segmentRect(int row) const {
    if (row < 0 || row >= m_segments.size()) return {};
    const double x0 = xOf(m_segments[row].startS);
    const double x1 = std::max(x0 + 2.0, xOf(m_segments[row].endS));
    return {x0, double(kSegmentTopPx), x1 - x0, double(kSegmentHeightPx)};
}

int FileTimeline::segmentAt(QPointF point) const {
    for (int row = 0; row < m_segments.size(); ++row) {
        if (segmentRect(row).adjusted(0, -kSegmentTopPx, 0, kWordHeightPx + 4).contains(point)) {
            return row;
        }
    }
    return -1;
}

void FileTimeline::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const double span = durationS();
    if (span <= 0.0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("The file's timeline appears here."));
        return;
    }
    // Waveform.
    painter.setPen(palette().color(QPalette::Mid));
    const double mid = kWaveTopPx + kWaveHeightPx / 2.0;
    const auto columns = std::max(1, width() - 2 * kMarginPx);
    for (int x = 0; x < columns && !m_peaks.empty(); ++x) {
        const auto from = m_peaks.size() * static_cast<size_t>(x) / static_cast<size_t>(columns);
        const auto to = std::max(
            from + 1, m_peaks.size() * static_cast<size_t>(x + 1) / static_cast<size_t>(columns));
        float peak = 0.0F;
        for (size_t i = from; i < std::min(to, m_peaks.size()); ++i)
            peak = std::max(peak, m_peaks[i]);
        const double h = static_cast<double>(std::min(1.0F, peak)) * kWaveHeightPx / 2.0;
        painter.drawLine(QPointF(kMarginPx + x, mid - h), QPointF(kMarginPx + x, mid + h));
    }
    // Segments and their words.
    const QFontMetrics metrics(painter.font());
    for (int row = 0; row < m_segments.size(); ++row) {
        const QRectF box = segmentRect(row);
        const bool selected = row == m_selected;
        painter.fillRect(box, selected
                                  ? palette().color(QPalette::Highlight)
                                  : (row % 2 == 0 ? QColor(120, 160, 210) : QColor(95, 135, 190)));
        if (selected) {
            painter.fillRect(QRectF(box.left(), kWaveTopPx, box.width(), kWaveHeightPx),
                             QColor(255, 200, 0, 60));
        }
        painter.setPen(selected ? palette().color(QPalette::HighlightedText) : QColor(Qt::white));
        painter.drawText(box.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                         metrics.elidedText(m_segments[row].text, Qt::ElideRight,
                                            static_cast<int>(box.width()) - 4));
        painter.setPen(palette().color(QPalette::Text));
        for (const TimedWord& word : m_segments[row].words) {
            const double x0 = xOf(word.startS);
            painter.drawLine(QPointF(x0, kWordTopPx), QPointF(x0, kWordTopPx + kWordHeightPx));
        }
    }
    painter.setPen(palette().color(QPalette::Text));
    const QRectF axis(kMarginPx, kWordTopPx + kWordHeightPx, width() - 2 * kMarginPx,
                      height() - kWordTopPx - kWordHeightPx);
    painter.drawText(axis, Qt::AlignLeft | Qt::AlignVCenter, formatSegmentTime(0.0));
    painter.drawText(axis, Qt::AlignRight | Qt::AlignVCenter, formatSegmentTime(span));
}

void FileTimeline::mousePressEvent(QMouseEvent* event) {
    const int row = segmentAt(event->position());
    if (row >= 0 && event->button() == Qt::LeftButton) {
        Q_EMIT segmentClicked(row);
        return;
    }
    QWidget::mousePressEvent(event);
}

}  // namespace earshot::ui
