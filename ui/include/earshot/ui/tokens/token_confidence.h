// How every page shows the decoder's confidence in a token: one colour scale (red unsure .. green
// sure, neutral grey when not measured), one way to write a probability and one hint, shared by
// the Live page's token strip and the Files page's segment tokens.
#pragma once

#include <QColor>
#include <QString>

namespace earshot::ui {

// The chip colour for a probability in 0..1 (negative: not measured, neutral grey).
QColor tokenConfidenceColor(double probability);
// "62%", "<1%", or "not measured" for a negative probability.
QString tokenConfidencePercent(double probability);
// What the colours mean, for a token view's tooltip.
QString tokenConfidenceHint();

}  // namespace earshot::ui
