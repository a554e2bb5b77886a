// The graph view's fonts, sizes and colours, shared by the layout (which sizes nodes with them)
// and the scene items (which draw with them). Font sizes are in pixels = scene units = points of
// the Graphviz layout, so text measured here is the size dot reserves for it.
#pragma once

#include <QColor>
#include <QFont>
#include <QSizeF>
#include <QString>
#include <cmath>
#include <limits>

namespace earshot::ui::graph_style {

inline constexpr int kLabelPx = 12;     // node and group labels
inline constexpr int kSublabelPx = 10;  // the module or callee type under a label
inline constexpr int kEdgePx = 10;      // edge type labels
inline constexpr qreal kPadX = 10.0;    // inside a node, left and right of the text
inline constexpr qreal kPadY = 6.0;     // inside a node, above and below the text

inline QFont labelFont() {
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(kLabelPx);
    return font;
}

inline QFont sublabelFont() {
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPixelSize(kSublabelPx);
    return font;
}

inline QFont edgeFont() {
    QFont font(QStringLiteral("DejaVu Sans Mono"));
    font.setStyleHint(QFont::Monospace);
    font.setPixelSize(kEdgePx);
    // Unhinted: the text scales with the zoom as its box does. Hinted glyphs of a zoomed-out
    // view are wider than the box, and neighbouring types ran into each other.
    font.setHintingPreference(QFont::PreferNoHinting);
    return font;
}

// The clear space dot keeps on each side of an edge label (the drawn box is the text's own).
inline constexpr qreal kEdgeLabelMarginPx = 6.0;

// A heat badge: the share in whole percent, "<1%" for a share that rounds to nothing (a 0% badge
// on a step that ran would say it took no time).
inline QString heatBadgeText(double share) {
    const int percent = qRound(share * 100.0);
    return percent == 0 && share > 0.0 ? QStringLiteral("<1%") : QStringLiteral("%1%").arg(percent);
}

inline QColor ink() { return QColor(0x20, 0x20, 0x20); }
inline QColor sublabelInk() { return QColor(0x70, 0x70, 0x70); }
inline QColor edgeInk() { return QColor(0x40, 0x40, 0x40); }
inline QColor edgeLabelInk() { return QColor(0x1f, 0x4e, 0x8c); }
inline QColor groupInk() { return QColor(0x60, 0x60, 0x60); }
inline QColor highlight() { return QColor(0xf0, 0x8c, 0x00); }

// The fill for a node with `share` (0..1) of the engine time: white to a hot red-orange.
inline QColor heatFill(double share) {
    const double s = share < 0.0 ? 0.0 : share > 1.0 ? 1.0 : share;
    auto mix = [s](int from, int to) { return static_cast<int>(from + (to - from) * s + 0.5); };
    return QColor(mix(255, 0xe0), mix(255, 0x40), mix(255, 0x20));
}

// What a heat's numbers mean: a call's share of the engine time (0..1), or the relative error of
// its output between two compared runs (0 .. inf), each with its own colours and badge.
enum class HeatScale { engineTime, relativeError };

// The relative-error scale is logarithmic: kErrorHeatLowest and below are white, kErrorHeatHighest
// and above the full colour (f16 rounding is about 1e-3 relative; q8_0 weights a few 1e-3).
inline constexpr double kErrorHeatLowest = 1e-6;
inline constexpr double kErrorHeatHighest = 1.0;

// 0..1 along the error scale for a relative error (NaN and infinity: 1).
inline double errorHeatLevel(double relative) {
    if (!(relative == relative) || relative >= kErrorHeatHighest) return 1.0;
    if (relative <= kErrorHeatLowest) return 0.0;
    return (std::log10(relative) - std::log10(kErrorHeatLowest)) /
           (std::log10(kErrorHeatHighest) - std::log10(kErrorHeatLowest));
}

// White through a light blue to a violet, so that it reads apart from the time heat's orange and
// the label stays dark on light.
inline QColor errorHeatFill(double relative) {
    const double s = errorHeatLevel(relative);
    auto mix = [](int from, int to, double t) {
        return static_cast<int>(from + (to - from) * t + 0.5);
    };
    if (s < 0.5) {
        const double t = s / 0.5;
        return QColor(mix(255, 0x9e, t), mix(255, 0xc9, t), mix(255, 0xf0, t));
    }
    const double t = (s - 0.5) / 0.5;
    return QColor(mix(0x9e, 0xb0, t), mix(0xc9, 0x84, t), mix(0xf0, 0xe8, t));
}

// A relative error on a badge: "0", "3.2e-3", "inf".
inline QString errorBadgeText(double relative) {
    if (!(relative == relative) || relative == std::numeric_limits<double>::infinity()) {
        return QStringLiteral("inf");
    }
    if (relative == 0.0) return QStringLiteral("0");
    return QString::number(relative, 'e', 1).replace(QStringLiteral("e-0"), QStringLiteral("e-"));
}

inline QColor heatFill(HeatScale scale, double value) {
    return scale == HeatScale::engineTime ? heatFill(value) : errorHeatFill(value);
}
inline QString heatBadgeText(HeatScale scale, double value) {
    return scale == HeatScale::engineTime ? heatBadgeText(value) : errorBadgeText(value);
}

// The size a node of `kind` needs for its label and sublabel.
QSizeF nodeSize(const QString& kind, const QString& label, const QString& sublabel);
// The room an edge's type label takes (dot reserves exactly this beside the edge).
QSizeF edgeLabelSize(const QString& label);
// The room a group's label and sublabel take at the top of its box.
QSizeF groupLabelSize(const QString& label, const QString& sublabel);

}  // namespace earshot::ui::graph_style
