// Drawing the heat's colour bar: a caption, the gradient sampled from graph_style, and ticks.
#include "earshot/ui/inspector/heat_legend.h"

#include <QFontMetrics>
#include <QPainter>

namespace earshot::ui {

namespace {

constexpr int kBarWidthPx = 160;
constexpr int kBarHeightPx = 10;
constexpr int kGapPx = 6;

QString caption(graph_style::HeatScale scale) {
    return scale == graph_style::HeatScale::engineTime ? HeatLegend::tr("Engine time")
                                                       : HeatLegend::tr("Relative error");
}

}  // namespace

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    setScale(graph_style::HeatScale::engineTime);
}

void HeatLegend::setScale(graph_style::HeatScale scale) {
    m_scale = scale;
    setToolTip(scale == graph_style::HeatScale::engineTime
                   ? tr("Each block's share of the engine time of the last update")
                   : tr("Each block output's relative error ||A - B|| / ||A|| between the two "
                        "compared runs, on a logarithmic scale"));
    updateGeometry();
    update();
}

QStringList HeatLegend::tickLabels() const {
    if (m_scale == graph_style::HeatScale::engineTime) {
        return {QStringLiteral("0%"), QStringLiteral("50%"), QStringLiteral("100%")};
    }
    return {QStringLiteral("\u22641e-6"), QStringLiteral("1e-4"), QStringLiteral("1e-2"),
            QStringLiteral("\u22651")};
}

QSize HeatLegend::sizeHint() const {
    const QFontMetrics metrics(font());
    const int captionWidth = metrics.horizontalAdvance(caption(m_scale));
    const int ticksWidth = metrics.horizontalAdvance(tickLabels().last());
    return {captionWidth + kGapPx + kBarWidthPx + ticksWidth / 2 + 4,
            kBarHeightPx + metrics.height() + 6};
}

void HeatLegend::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QFontMetrics metrics(font());
    const QString text = caption(m_scale);
    const int captionWidth = metrics.horizontalAdvance(text);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(0, 0, captionWidth, kBarHeightPx + 4), Qt::AlignLeft | Qt::AlignVCenter,
                     text);
    const QRect bar(captionWidth + kGapPx, 2, kBarWidthPx, kBarHeightPx);
    for (int x = 0; x < bar.width(); ++x) {
        const double level = static_cast<double>(x) / (bar.width() - 1);
        // The same colours the nodes get, sampled along the scale.
        const double value =
            m_scale == graph_style::HeatScale::engineTime
                ? level
                : std::pow(10.0, std::log10(graph_style::kErrorHeatLowest) +
                                     level * (std::log10(graph_style::kErrorHeatHighest) -
                                              std::log10(graph_style::kErrorHeatLowest)));
        painter.setPen(graph_style::heatFill(m_scale, value));
        painter.drawLine(bar.left() + x, bar.top(), bar.left() + x, bar.bottom());
    }
    painter.setPen(graph_style::groupInk());
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    const QStringList ticks = tickLabels();
    painter.setPen(palette().color(QPalette::WindowText));
    for (int i = 0; i < ticks.size(); ++i) {
        const int x = bar.left() + bar.width() * i / static_cast<int>(ticks.size() - 1);
        const int w = metrics.horizontalAdvance(ticks[i]);
        const int left = std::clamp(x - w / 2, 0, width() - w);
        painter.drawText(QRect(left, bar.bottom() + 2, w, metrics.height()), Qt::AlignCenter,
                         ticks[i]);
    }
}

}  // namespace earshot::ui
