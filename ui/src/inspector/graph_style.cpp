// Node sizes from the view's fonts: the text's extent plus padding, per node kind.
#include "earshot/ui/inspector/graph_style.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>

namespace earshot::ui::graph_style {

QSizeF nodeSize(const QString& kind, const QString& label, const QString& sublabel) {
    const QFontMetricsF main(labelFont());
    const QFontMetricsF sub(sublabelFont());
    qreal width = main.horizontalAdvance(label);
    qreal height = main.height();
    if (!sublabel.isEmpty()) {
        width = std::max(width, sub.horizontalAdvance(sublabel));
        height += sub.height();
    }
    width += 2 * kPadX;
    height += 2 * kPadY;
    if (kind == QLatin1String("input") || kind == QLatin1String("output")) {
        width += height;  // the rounded ends of the pill
    }
    if (kind == QLatin1String("call")) width += 14.0;  // the expand marker
    return {std::ceil(width), std::ceil(height)};
}

QSizeF edgeLabelSize(const QString& label) {
    const QFontMetricsF metrics(edgeFont());
    return {std::ceil(metrics.horizontalAdvance(label) + 6.0), std::ceil(metrics.height() + 2.0)};
}

QSizeF groupLabelSize(const QString& label, const QString& sublabel) {
    const QFontMetricsF main(labelFont());
    const QFontMetricsF sub(sublabelFont());
    qreal width = main.horizontalAdvance(label);
    qreal height = main.height();
    if (!sublabel.isEmpty()) {
        width = std::max(width, sub.horizontalAdvance(sublabel));
        height += sub.height();
    }
    return {std::ceil(width + 8.0), std::ceil(height + 4.0)};
}

}  // namespace earshot::ui::graph_style
