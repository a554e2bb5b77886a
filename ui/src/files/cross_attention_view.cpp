// CrossAttentionView: strips stacked on one time axis (the window's positions), labels in a left
// column: waveform, log-mel, words, one row per token of the map with the warp path over it.
#include "earshot/ui/files/cross_attention_view.h"

#include <QHelpEvent>
#include <QImage>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <array>
#include <cmath>

namespace earshot::ui {

namespace {

constexpr int kLabelWidthPx = 120;
constexpr int kMarginPx = 6;
constexpr int kWaveformHeightPx = 56;
constexpr int kMelHeightPx = 72;
constexpr int kWordsHeightPx = 30;
constexpr int kGapPx = 4;
constexpr int kMinRowHeightPx = 12;
constexpr int kMaxRowHeightPx = 22;

// min and max of `values`, ignoring NaN; {0, 1} when there is none.
std::pair<float, float> valueRange(const std::vector<float>& values) {
    float lo = 0.0F;
    float hi = 0.0F;
    bool any = false;
    for (float v : values) {
        if (std::isnan(v)) continue;
        if (!any) {
            lo = hi = v;
            any = true;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    return any ? std::pair{lo, hi} : std::pair{0.0F, 1.0F};
}

}  // namespace

CrossAttentionView::CrossAttentionView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("crossAttentionView"));
    setMouseTracking(true);
    clear(tr("Select a segment to see where its tokens look in the audio."));
}

void CrossAttentionView::setMap(const CrossAttentionMap& map) {
    m_map = map;
    updateGeometry();
    update();
}

void CrossAttentionView::clear(const QString& message) {
    m_map = CrossAttentionMap{};
    m_map.message = message;
    updateGeometry();
    update();
}

QColor CrossAttentionView::pathColor() { return QColor(255, 64, 64); }

QColor CrossAttentionView::heatColor(double fraction) {
    // Dark blue through teal and green to yellow: low attention recedes, high stands out.
    static constexpr std::array<std::array<int, 3>, 5> kStops = {
        {{20, 20, 70}, {40, 70, 140}, {30, 140, 140}, {110, 200, 80}, {250, 230, 40}}};
    const double f = std::clamp(fraction, 0.0, 1.0) * (kStops.size() - 1);
    const auto i = std::min(static_cast<size_t>(f), kStops.size() - 2);
    const double t = f - static_cast<double>(i);
    auto mix = [&](size_t c) {
        return static_cast<int>(std::lround(kStops[i][c] + t * (kStops[i + 1][c] - kStops[i][c])));
    };
    return QColor(mix(0), mix(1), mix(2));
}

int CrossAttentionView::rowHeight() const {
    const int rows = static_cast<int>(m_map.tokens.size());
    if (rows == 0) return kMinRowHeightPx;
    const int fixed =
        2 * kMarginPx + kWaveformHeightPx + kMelHeightPx + kWordsHeightPx + 3 * kGapPx;
    return std::clamp((height() - fixed) / rows, kMinRowHeightPx, kMaxRowHeightPx);
}

QRectF CrossAttentionView::waveformRect() const {
    if (m_map.positions <= 0) return {};
    return {double(kLabelWidthPx), double(kMarginPx),
            double(std::max(1, width() - kLabelWidthPx - kMarginPx)), double(kWaveformHeightPx)};
}

QRectF CrossAttentionView::melRect() const {
    const QRectF wave = waveformRect();
    if (wave.isEmpty()) return {};
    return {wave.left(), wave.bottom() + kGapPx, wave.width(), double(kMelHeightPx)};
}

QRectF CrossAttentionView::wordsRect() const {
    const QRectF mel = melRect();
    if (mel.isEmpty()) return {};
    return {mel.left(), mel.bottom() + kGapPx, mel.width(), double(kWordsHeightPx)};
}

QRectF CrossAttentionView::mapRect() const {
    const QRectF words = wordsRect();
    if (words.isNull()) return {};
    return {words.left(), words.bottom() + kGapPx, words.width(),
            double(rowHeight() * static_cast<int>(m_map.tokens.size()))};
}

QRectF CrossAttentionView::cellRect(int row, int position) const {
    const QRectF map = mapRect();
    if (map.isNull()) return {};
    const double w = map.width() / m_map.positions;
    return {map.left() + position * w, map.top() + row * rowHeight(), w, double(rowHeight())};
}

double CrossAttentionView::xOfSeconds(double secondsInWindow) const {
    const QRectF map = waveformRect();
    const double span = m_map.positions * m_map.secondsPerPosition;
    return map.left() + std::clamp(secondsInWindow / span, 0.0, 1.0) * map.width();
}

QRectF CrossAttentionView::wordRect(int index) const {
    const QRectF words = wordsRect();
    if (words.isNull() || index < 0 || index >= m_map.words.size()) return {};
    const TimedWord& word = m_map.words[index];
    const double x0 = xOfSeconds(word.startS - m_map.startS);
    const double x1 = std::max(x0 + 2.0, xOfSeconds(word.endS - m_map.startS));
    return {x0, words.top(), x1 - x0, words.height()};
}

int CrossAttentionView::wordAt(QPointF point) const {
    for (int i = 0; i < m_map.words.size(); ++i) {
        if (wordRect(i).contains(point)) return i;
    }
    return -1;
}

QSize CrossAttentionView::minimumSizeHint() const {
    const int rows = std::max(1, static_cast<int>(m_map.tokens.size()));
    return {kLabelWidthPx + 240, 2 * kMarginPx + kWaveformHeightPx + kMelHeightPx + kWordsHeightPx +
                                     3 * kGapPx + rows * kMinRowHeightPx};
}

QSize CrossAttentionView::sizeHint() const {
    const int rows = std::max(1, static_cast<int>(m_map.tokens.size()));
    return {kLabelWidthPx + 640, 2 * kMarginPx + kWaveformHeightPx + kMelHeightPx + kWordsHeightPx +
                                     3 * kGapPx + rows * 16};
}

void CrossAttentionView::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (m_map.positions <= 0 || m_map.tokens.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(kMarginPx, kMarginPx, -kMarginPx, -kMarginPx),
                         Qt::AlignCenter | Qt::TextWordWrap, m_map.message);
        return;
    }
    painter.setPen(palette().color(QPalette::Text));
    const auto label = [&](const QRectF& strip, const QString& text) {
        painter.drawText(
            QRectF(kMarginPx, strip.top(), kLabelWidthPx - 2 * kMarginPx, strip.height()),
            Qt::AlignRight | Qt::AlignVCenter, text);
    };
    label(waveformRect(), tr("waveform"));
    label(melRect(), tr("log-mel"));
    label(wordsRect(), tr("words"));
    paintWaveform(painter);
    paintMel(painter);
    paintMap(painter);
    paintWords(painter);
}

void CrossAttentionView::paintWaveform(QPainter& painter) const {
    const QRectF r = waveformRect();
    painter.fillRect(r, palette().alternateBase());
    if (m_map.samples.empty()) return;
    const double windowS = m_map.positions * m_map.secondsPerPosition;
    const auto columns = static_cast<int>(r.width());
    const double samplesPerColumn = windowS * m_map.sampleRateHz / std::max(1, columns);
    painter.setPen(palette().color(QPalette::Highlight));
    const double mid = r.center().y();
    for (int x = 0; x < columns; ++x) {
        const auto from = static_cast<size_t>(x * samplesPerColumn);
        const auto to =
            std::min(m_map.samples.size(), static_cast<size_t>((x + 1) * samplesPerColumn));
        float peak = 0.0F;
        for (size_t i = from; i < to; ++i) peak = std::max(peak, std::fabs(m_map.samples[i]));
        const double h = static_cast<double>(std::min(1.0F, peak)) * r.height() / 2.0;
        painter.drawLine(QPointF(r.left() + x, mid - h), QPointF(r.left() + x, mid + h));
    }
}

void CrossAttentionView::paintMel(QPainter& painter) const {
    const QRectF r = melRect();
    if (m_map.mel.empty() || m_map.mels <= 0 || m_map.melFrames <= 0) {
        painter.fillRect(r, palette().alternateBase());
        return;
    }
    // The window's frames only (2 per audio position); low mel bins at the bottom.
    const int frames = std::min(m_map.melFrames, 2 * m_map.positions);
    const auto [lo, hi] = valueRange(m_map.mel);
    QImage image(frames, m_map.mels, QImage::Format_RGB32);
    for (int m = 0; m < m_map.mels; ++m) {
        for (int f = 0; f < frames; ++f) {
            const float v =
                m_map.mel[static_cast<size_t>(m) * static_cast<size_t>(m_map.melFrames) +
                          static_cast<size_t>(f)];
            const double fraction = hi > lo ? static_cast<double>((v - lo) / (hi - lo)) : 0.0;
            image.setPixelColor(f, m_map.mels - 1 - m, heatColor(fraction));
        }
    }
    QRectF target = r;
    target.setWidth(r.width() * frames / (2.0 * m_map.positions));
    painter.drawImage(target, image);
}

void CrossAttentionView::paintMap(QPainter& painter) const {
    const QRectF r = mapRect();
    const int rows = static_cast<int>(m_map.tokens.size());
    const auto [lo, hi] = valueRange(m_map.values);
    QImage image(m_map.positions, rows, QImage::Format_RGB32);
    for (int row = 0; row < rows; ++row) {
        for (int p = 0; p < m_map.positions; ++p) {
            const float v = m_map.value(row, p);
            image.setPixelColor(
                p, row, heatColor(hi > lo ? static_cast<double>((v - lo) / (hi - lo)) : 0.0));
        }
    }
    painter.drawImage(r, image);
    painter.setPen(palette().color(QPalette::Text));
    const QFontMetrics metrics(painter.font());
    for (int row = 0; row < rows; ++row) {
        const QRectF cell = cellRect(row, 0);
        const QRectF labelRect(kMarginPx, cell.top(), kLabelWidthPx - 2 * kMarginPx, cell.height());
        painter.drawText(labelRect, Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(m_map.tokens[row], Qt::ElideRight,
                                            static_cast<int>(labelRect.width())));
    }
    if (m_map.path.size() < 2) return;
    QPainterPath path;
    path.moveTo(cellRect(m_map.path[0].y(), m_map.path[0].x()).center());
    for (int k = 1; k < m_map.path.size(); ++k) {
        path.lineTo(cellRect(m_map.path[k].y(), m_map.path[k].x()).center());
    }
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(QPen(pathColor(), 2.0));
    painter.drawPath(path);
}

void CrossAttentionView::paintWords(QPainter& painter) const {
    const QRectF strip = wordsRect();
    painter.fillRect(strip, palette().alternateBase());
    const QFontMetrics metrics(painter.font());
    for (int i = 0; i < m_map.words.size(); ++i) {
        const QRectF box = wordRect(i);
        painter.fillRect(box, i % 2 == 0 ? QColor(70, 130, 200) : QColor(40, 100, 170));
        painter.setPen(Qt::white);
        painter.drawText(box.adjusted(2, 0, -2, 0), Qt::AlignCenter,
                         metrics.elidedText(m_map.words[i].text, Qt::ElideRight,
                                            static_cast<int>(box.width()) - 4));
    }
}

void CrossAttentionView::mousePressEvent(QMouseEvent* event) {
    const int index = wordAt(event->position());
    if (index >= 0 && event->button() == Qt::LeftButton) {
        const TimedWord& word = m_map.words[index];
        Q_EMIT wordClicked(index, word.startS, word.endS);
        return;
    }
    QWidget::mousePressEvent(event);
}

bool CrossAttentionView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_map.positions > 0) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QRectF map = mapRect();
        const int word = wordAt(help->pos());
        if (word >= 0) {
            const TimedWord& w = m_map.words[word];
            QToolTip::showText(help->globalPos(), tr("%1: %2 - %3 (click to hear it)")
                                                      .arg(w.text, formatSegmentTime(w.startS),
                                                           formatSegmentTime(w.endS)));
            return true;
        }
        if (map.contains(help->pos())) {
            const int row =
                std::clamp(static_cast<int>((help->pos().y() - map.top()) / rowHeight()), 0,
                           static_cast<int>(m_map.tokens.size()) - 1);
            const int p = std::clamp(
                static_cast<int>((help->pos().x() - map.left()) / map.width() * m_map.positions), 0,
                m_map.positions - 1);
            QToolTip::showText(
                help->globalPos(),
                tr("%1 at %2: %3")
                    .arg(m_map.tokens[row],
                         formatSegmentTime(m_map.startS + p * m_map.secondsPerPosition))
                    .arg(m_map.value(row, p), 0, 'g', 3));
            return true;
        }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

}  // namespace earshot::ui
