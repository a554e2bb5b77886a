// The token confidence scale: hue from red (0) to green (1/3 of the circle) by probability, pale
// enough that the token's text stays readable on it.
#include "earshot/ui/tokens/token_confidence.h"

#include <QObject>
#include <QtMath>
#include <algorithm>

namespace earshot::ui {

QColor tokenConfidenceColor(double probability) {
    if (probability < 0.0) return QColor(0xe4, 0xe4, 0xe4);
    const double p = std::clamp(probability, 0.0, 1.0);
    return QColor::fromHsvF(static_cast<float>(p / 3.0), 0.38F, 1.0F);  // red 0 .. green 1/3
}

QString tokenConfidencePercent(double probability) {
    if (probability < 0.0) return QObject::tr("not measured");
    if (probability < 0.01) return QStringLiteral("<1%");
    return QStringLiteral("%1%").arg(qRound(probability * 100.0));
}

QString tokenConfidenceHint() {
    return QObject::tr("The decoder's tokens, coloured by how sure it was");
}

}  // namespace earshot::ui
