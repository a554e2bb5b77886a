// appIcon(): renders resources/icons/earshot.svg with QSvgRenderer, so no image plugin is needed.
#include "earshot/ui/app_icon.h"

#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

// Registers the rcc data of resources/earshot.qrc; at global scope as Q_INIT_RESOURCE requires.
static void initEarshotResources() { Q_INIT_RESOURCE(earshot); }

namespace earshot::ui {

QIcon appIcon() {
    initEarshotResources();
    QSvgRenderer renderer(QStringLiteral(":/earshot/icon.svg"));
    QIcon icon;
    for (const int size : {16, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        if (renderer.isValid()) {
            QPainter painter(&pixmap);
            painter.setRenderHint(QPainter::Antialiasing);
            renderer.render(&painter);
        }
        icon.addPixmap(pixmap);
    }
    return icon;
}

}  // namespace earshot::ui
