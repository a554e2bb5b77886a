// The Earshot application icon, rendered from the SVG compiled into the resources.
#pragma once

#include <QIcon>

namespace earshot::ui {

// Pixmaps of the app icon at the usual sizes (16 to 256 px). Never null.
QIcon appIcon();

}  // namespace earshot::ui
