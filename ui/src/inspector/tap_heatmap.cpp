// TapHeatmap: the slice as an image, one pixel per cell, scaled to the widget.
#include "earshot/ui/inspector/tap_heatmap.h"

#include <QHelpEvent>
#include <QImage>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace earshot::ui {

TapHeatmap::TapHeatmap(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("tapHeatmap"));
}

void TapHeatmap::setSlice(const TapSlice& slice) {
    m_slice = slice;
    m_scale = 0.0F;
    for (float v : m_slice.values) {
        if (std::isfinite(v)) m_scale = std::max(m_scale, std::fabs(v));
    }
    update();
}

QColor TapHeatmap::colorOf(float value, float scale) {
    if (!std::isfinite(value)) return Qt::black;
    const double t =
        scale > 0.0F ? static_cast<double>(std::clamp(value / scale, -1.0F, 1.0F)) : 0.0;
    const int fade = static_cast<int>(std::lround(255.0 * (1.0 - std::fabs(t))));
    return t >= 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
}

QRectF TapHeatmap::cellRect(int row, int col) const {
    if (m_slice.rows <= 0 || m_slice.cols <= 0) return {};
    const double w = static_cast<double>(width()) / m_slice.cols;
    const double h = static_cast<double>(height()) / m_slice.rows;
    return {col * w, row * h, w, h};
}

void TapHeatmap::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (m_slice.rows <= 0 || m_slice.cols <= 0) return;
    QImage image(m_slice.cols, m_slice.rows, QImage::Format_RGB32);
    for (int r = 0; r < m_slice.rows; ++r) {
        for (int c = 0; c < m_slice.cols; ++c) {
            image.setPixelColor(c, r, colorOf(m_slice.at(r, c), m_scale));
        }
    }
    painter.drawImage(QRectF(rect()), image);
}

bool TapHeatmap::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_slice.rows > 0 && m_slice.cols > 0) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int c =
            std::clamp(help->pos().x() * m_slice.cols / std::max(1, width()), 0, m_slice.cols - 1);
        const int r =
            std::clamp(help->pos().y() * m_slice.rows / std::max(1, height()), 0, m_slice.rows - 1);
        QToolTip::showText(help->globalPos(),
                           tr("[%1, %2] = %3").arg(r).arg(c).arg(m_slice.at(r, c), 0, 'g', 6));
        return true;
    }
    return QWidget::event(event);
}

}  // namespace earshot::ui
