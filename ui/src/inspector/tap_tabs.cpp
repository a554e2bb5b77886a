// TapTabs: each tab's panel carries its tap name as a property; closing one forgets it.
#include "earshot/ui/inspector/tap_tabs.h"

#include <QScrollArea>

#include "earshot/ui/inspector/tap_panel.h"

namespace earshot::ui {

namespace {
const char* const kTapNameProperty = "tapName";
}

TapTabs::TapTabs(QWidget* parent) : QTabWidget(parent) {
    setObjectName(QStringLiteral("tapTabs"));
    setTabsClosable(true);
    setMovable(true);
    setDocumentMode(true);
    connect(this, &QTabWidget::tabCloseRequested, this, [this](int index) {
        QWidget* page = widget(index);
        const QString name = page->property(kTapNameProperty).toString();
        removeTab(index);
        page->deleteLater();
        Q_EMIT tapClosed(name);
    });
}

int TapTabs::indexOf(const QString& name) const {
    for (int i = 0; i < count(); ++i) {
        if (widget(i)->property(kTapNameProperty).toString() == name) return i;
    }
    return -1;
}

TapPanel* TapTabs::panel(const QString& name) const {
    const int index = indexOf(name);
    return index < 0 ? nullptr : widget(index)->findChild<TapPanel*>();
}

QStringList TapTabs::openTaps() const {
    QStringList names;
    for (int i = 0; i < count(); ++i)
        names.append(widget(i)->property(kTapNameProperty).toString());
    return names;
}

TapPanel* TapTabs::addPanel(const QString& name, const QString& title) {
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setProperty(kTapNameProperty, name);
    auto* panel = new TapPanel(scroll);
    scroll->setWidget(panel);
    const int index = addTab(scroll, title);
    setTabToolTip(index, name);
    setCurrentIndex(index);
    return panel;
}

QString TapTabs::openEdge(const GraphEdge& edge) {
    if (edge.tap.isEmpty()) {
        return edge.tapTitle.isEmpty()
                   ? tr("The value of this edge (%1) cannot be tapped.").arg(edge.label)
                   : tr("The value of this edge (%1) cannot be tapped: %2.")
                         .arg(edge.label, edge.tapTitle);
    }
    const int index = indexOf(edge.tap);
    if (index >= 0) {
        setCurrentIndex(index);
        return {};
    }
    TapPanel* panel = addPanel(edge.tap, edge.tapTitle.isEmpty() ? edge.tap : edge.tapTitle);
    TapValue waiting;
    waiting.name = edge.tap;
    waiting.title = edge.tapTitle.isEmpty() ? edge.tap : edge.tapTitle;
    waiting.error =
        tr("%1: waiting for a value (dictate, or pick a file's window).").arg(edge.label);
    panel->setValue(waiting);
    Q_EMIT tapOpened(edge.tap);
    return {};
}

void TapTabs::showValue(const TapValue& value) {
    TapPanel* target = panel(value.name);
    if (target == nullptr) {
        target = addPanel(value.name, value.title.isEmpty() ? value.name : value.title);
    }
    target->setValue(value);
}

void TapTabs::showMessage(const QString& name, const QString& message) {
    TapPanel* target = panel(name);
    if (target == nullptr) return;
    TapValue value;
    value.name = name;
    value.title = target->value().title;
    value.error = message;
    target->setValue(value);
}

}  // namespace earshot::ui
