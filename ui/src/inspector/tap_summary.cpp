// TapSummary and TapSlice: two passes over the finite values (range and sums, then the
// histogram); the slice copies the trailing 2-D block at the chosen leading indices.
#include "earshot/ui/inspector/tap_summary.h"

#include <QRegularExpression>
#include <algorithm>
#include <cmath>

#include "earshot/ui/inspector/tap_data.h"

namespace earshot::ui {

QStringList dimensionNames(const QString& symbolicType) {
    const qsizetype open = symbolicType.indexOf(QLatin1Char('['));
    const qsizetype close = symbolicType.lastIndexOf(QLatin1Char(']'));
    if (open < 0 || close <= open) return {};
    // "B, Heads, N, D / Heads; T": the dims before the dtype, split at top-level commas.
    QString inside = symbolicType.mid(open + 1, close - open - 1);
    const qsizetype semicolon = inside.lastIndexOf(QLatin1Char(';'));
    if (semicolon >= 0) inside = inside.left(semicolon);
    QStringList names;
    int depth = 0;
    QString current;
    for (const QChar c : inside) {
        if (c == QLatin1Char('(')) ++depth;
        if (c == QLatin1Char(')')) --depth;
        if (c == QLatin1Char(',') && depth == 0) {
            names.append(current.trimmed());
            current.clear();
        } else {
            current.append(c);
        }
    }
    if (!current.trimmed().isEmpty()) names.append(current.trimmed());
    return names;
}

TapSummary summarize(const std::vector<float>& values, int bins) {
    TapSummary s;
    s.count = static_cast<qint64>(values.size());
    double sum = 0.0;
    double squares = 0.0;
    for (const float v : values) {
        if (std::isnan(v)) {
            ++s.nan;
            continue;
        }
        if (std::isinf(v)) {
            ++s.inf;
            continue;
        }
        const double x = v;
        if (s.finite == 0) s.min = s.max = x;
        s.min = std::min(s.min, x);
        s.max = std::max(s.max, x);
        sum += x;
        squares += x * x;
        if (std::fabs(x) > kF16Max) ++s.outsideF16;
        ++s.finite;
    }
    if (s.finite == 0) return s;
    const auto n = static_cast<double>(s.finite);
    s.mean = sum / n;
    s.rms = std::sqrt(squares / n);
    double deviations = 0.0;
    for (const float v : values) {
        if (std::isfinite(v)) {
            const double d = static_cast<double>(v) - s.mean;
            deviations += d * d;
        }
    }
    s.std = std::sqrt(deviations / n);
    if (s.min == s.max || bins <= 1) {
        s.histogram = {s.finite};
        return s;
    }
    s.histogram.assign(static_cast<size_t>(bins), 0);
    const double width = (s.max - s.min) / bins;
    for (const float v : values) {
        if (!std::isfinite(v)) continue;
        const auto bin =
            std::clamp(static_cast<int>((static_cast<double>(v) - s.min) / width), 0, bins - 1);
        ++s.histogram[static_cast<size_t>(bin)];
    }
    return s;
}

TapSlice sliceOf(const std::vector<float>& values, const QList<qint64>& shape,
                 const QList<qint64>& leading) {
    TapSlice slice;
    const qsizetype rank = shape.size();
    slice.rows = rank >= 2 ? static_cast<int>(shape[rank - 2]) : 1;
    slice.cols = rank >= 1 ? static_cast<int>(shape[rank - 1]) : 1;
    qint64 offset = 0;
    for (qsizetype d = 0; d + 2 < rank; ++d) {
        const qint64 index = std::clamp<qint64>(d < leading.size() ? leading[d] : 0, 0,
                                                std::max<qint64>(0, shape[d] - 1));
        offset = offset * shape[d] + index;
    }
    const auto size = static_cast<size_t>(slice.rows) * static_cast<size_t>(slice.cols);
    offset *= static_cast<qint64>(size);
    if (static_cast<size_t>(offset) + size > values.size()) {
        slice.rows = slice.cols = 0;
        return slice;
    }
    slice.values.assign(values.begin() + offset,
                        values.begin() + offset + static_cast<qint64>(size));
    return slice;
}

}  // namespace earshot::ui
