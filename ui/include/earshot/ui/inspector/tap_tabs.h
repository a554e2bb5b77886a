// TapTabs: the open taps, one TapPanel per tab, closable; a tab is keyed by its edge's tap name,
// so a value for a name already open refreshes that tab in place.
#pragma once

#include <QStringList>
#include <QTabWidget>

class QComboBox;

#include "earshot/ui/inspector/graph_data.h"
#include "earshot/ui/inspector/tap_data.h"

namespace earshot::ui {

class TapPanel;

class TapTabs : public QTabWidget {
    Q_OBJECT

public:
    explicit TapTabs(QWidget* parent = nullptr);

    // Opens (or brings forward) the tab of `edge`, waiting for a value; tapOpened for a new one.
    // An edge without a tap name opens nothing and says so in the returned text.
    QString openEdge(const GraphEdge& edge);
    // Shows `value` in its tab; opens one when none is open for it.
    void showValue(const TapValue& value);
    // The tab of `name` says `message` instead of a value (no model, no input, a failure).
    void showMessage(const QString& name, const QString& message);

    // A tab opened on an edge inside loops has a layer picker (object name "tapLayer") listing
    // every iteration's name; choosing one retargets the tab: tapClosed(old), tapOpened(new).
    QComboBox* layerPicker(const QString& name) const;
    // Retargets the tab of `name` to `iteration` (one of its picker's names); false when that tab
    // has no such iteration.
    bool chooseIteration(const QString& name, const QString& iteration);

    QStringList openTaps() const;
    TapPanel* panel(const QString& name) const;
    int indexOf(const QString& name) const;

Q_SIGNALS:
    void tapOpened(const QString& name);
    void tapClosed(const QString& name);

private:
    TapPanel* addPanel(const QString& name, const QString& title,
                       const QStringList& iterations = {});
    void retarget(QWidget* page, const QString& iteration);
};

}  // namespace earshot::ui
