// writeNpy: the magic, version 1.0, a header dict padded with spaces to a multiple of 64 bytes
// and ending in a newline (NumPy's format.py documents the layout), then the raw f32 values.
#include "earshot/ui/inspector/npy_file.h"

#include <QFile>
#include <QSaveFile>
#include <QtEndian>

namespace earshot::ui {

QString writeNpy(const QString& path, const QList<qint64>& shape,
                 const std::vector<float>& values) {
    qint64 numel = 1;
    for (qint64 d : shape) numel *= d;
    if (numel != static_cast<qint64>(values.size())) {
        return QStringLiteral("%1 values do not fill shape of %2").arg(values.size()).arg(numel);
    }
    QString dims;
    for (qint64 d : shape) dims += QString::number(d) + QStringLiteral(", ");
    if (shape.size() > 1) dims.chop(2);  // (3, 4) but (3,)
    if (shape.isEmpty()) dims.clear();
    QByteArray header = QStringLiteral("{'descr': '<f4', 'fortran_order': False, 'shape': (%1), }")
                            .arg(dims.trimmed())
                            .toLatin1();
    const qsizetype prefix = 10;  // magic (6) + version (2) + header length (2)
    while ((prefix + header.size() + 1) % 64 != 0) header.append(' ');
    header.append('\n');
    QByteArray bytes("\x93NUMPY\x01\x00", 8);
    const auto length = static_cast<quint16>(header.size());
    bytes.append(static_cast<char>(length & 0xFF));
    bytes.append(static_cast<char>(length >> 8));
    bytes.append(header);
    const qsizetype start = bytes.size();
    bytes.resize(start + static_cast<qsizetype>(values.size() * sizeof(float)));
    for (size_t i = 0; i < values.size(); ++i) {
        qToLittleEndian(values[i],
                        bytes.data() + start + static_cast<qsizetype>(i * sizeof(float)));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return file.errorString();
    if (file.write(bytes) != bytes.size()) return file.errorString();
    if (!file.commit()) return file.errorString();
    return {};
}

}  // namespace earshot::ui
