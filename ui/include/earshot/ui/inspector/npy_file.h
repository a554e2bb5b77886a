// writeNpy: a tapped value as a NumPy .npy file (format version 1.0, little-endian f32, C
// order), the form `earshot debug tap --out` writes too, for numpy.load.
#pragma once

#include <QList>
#include <QString>
#include <vector>

namespace earshot::ui {

// Writes `values` (row-major, shape's product of them) to `path`; the reason on failure, empty on
// success.
QString writeNpy(const QString& path, const QList<qint64>& shape, const std::vector<float>& values);

}  // namespace earshot::ui
