// LevelMeter: paints the bar and the level text; the app feeds it from the audio thread's level at
// about 20 Hz.
#include "earshot/ui/live/level_meter.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace earshot::ui {

namespace {
constexpr double kAmberDbfs = -12.0;  // the bar turns amber above this...
constexpr double kRedDbfs = -3.0;     // ... and red above this: close to clipping
constexpr int kTextWidthPx = 64;
}  // namespace

LevelMeter::LevelMeter(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("levelMeter"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Input level (dBFS)"));
}

void LevelMeter::setLevelDbfs(double levelDbfs) {
    if (std::isnan(levelDbfs)) {
        levelDbfs = -120.0;
    }
    if (levelDbfs != m_levelDbfs) {
        m_levelDbfs = levelDbfs;
        update();
    }
}

double LevelMeter::fillFraction() const {
    return std::clamp((m_levelDbfs - kFloorDbfs) / -kFloorDbfs, 0.0, 1.0);
}

QSize LevelMeter::sizeHint() const { return {240, 18}; }
QSize LevelMeter::minimumSizeHint() const { return {kTextWidthPx + 40, 14}; }

void LevelMeter::paintEvent(QPaintEvent* /*event*/) {
    QPainter painter(this);
    const QRect bar = rect().adjusted(0, 2, -kTextWidthPx, -2);
    painter.fillRect(bar, palette().color(QPalette::Base));
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(bar.adjusted(0, 0, -1, -1));

    // Segments by dB so the colours sit at fixed places along the bar.
    auto xAt = [&bar](double dbfs) {
        const double f = std::clamp((dbfs - kFloorDbfs) / -kFloorDbfs, 0.0, 1.0);
        return bar.left() + 1 + static_cast<int>(std::lround(f * (bar.width() - 2)));
    };
    const int lit = xAt(m_levelDbfs);
    const struct {
        double fromDbfs;
        double toDbfs;
        QColor color;
    } zones[] = {{kFloorDbfs, kAmberDbfs, QColor(0x3c, 0xb3, 0x4a)},
                 {kAmberDbfs, kRedDbfs, QColor(0xe6, 0xa1, 0x17)},
                 {kRedDbfs, 0.0, QColor(0xd9, 0x3b, 0x2b)}};
    for (const auto& zone : zones) {
        const int left = xAt(zone.fromDbfs);
        const int right = std::min(lit, xAt(zone.toDbfs));
        if (right > left) {
            painter.fillRect(QRect(left, bar.top() + 1, right - left, bar.height() - 2),
                             zone.color);
        }
    }

    const QString text =
        m_levelDbfs <= -119.0 ? tr("-∞ dB") : tr("%1 dB").arg(m_levelDbfs, 0, 'f', 0);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(bar.right() + 6, 0, kTextWidthPx - 6, height()),
                     Qt::AlignVCenter | Qt::AlignLeft, text);
}

}  // namespace earshot::ui
