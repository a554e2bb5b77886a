// TapTabs: each tab's panel carries its tap name as a property; closing one forgets it.
#include "earshot/ui/inspector/tap_tabs.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>

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

namespace {

// "encoder_layers[3].forward (4 of 6)": which iteration a tab shows, of how many.
QString iterationTitle(const QString& name, const QStringList& iterations) {
    const qsizetype at = iterations.indexOf(name);
    if (iterations.size() < 2 || at < 0) return name;
    return QStringLiteral("%1 (%2 of %3)").arg(name).arg(at + 1).arg(iterations.size());
}

}  // namespace

TapPanel* TapTabs::addPanel(const QString& name, const QString& title,
                            const QStringList& iterations) {
    auto* page = new QWidget(this);
    page->setProperty(kTapNameProperty, name);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    if (iterations.size() > 1) {
        auto* row = new QHBoxLayout;
        auto* picker = new QComboBox(page);
        picker->setObjectName(QStringLiteral("tapLayer"));
        picker->setToolTip(tr("The loop iteration (layer) whose value this tab shows"));
        picker->addItems(iterations);
        picker->setCurrentIndex(static_cast<int>(iterations.indexOf(name)));
        row->addWidget(new QLabel(tr("Layer:"), page));
        row->addWidget(picker);
        row->addStretch(1);
        layout->addLayout(row);
        connect(picker, &QComboBox::currentTextChanged, this,
                [this, page](const QString& iteration) { retarget(page, iteration); });
    }
    auto* scroll = new QScrollArea(page);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* panel = new TapPanel(scroll);
    scroll->setWidget(panel);
    layout->addWidget(scroll, 1);
    const int index = addTab(page, title);
    setTabToolTip(index, name);
    setCurrentIndex(index);
    return panel;
}

QComboBox* TapTabs::layerPicker(const QString& name) const {
    const int index = indexOf(name);
    return index < 0 ? nullptr : widget(index)->findChild<QComboBox*>(QStringLiteral("tapLayer"));
}

bool TapTabs::chooseIteration(const QString& name, const QString& iteration) {
    QComboBox* picker = layerPicker(name);
    if (picker == nullptr || picker->findText(iteration) < 0) return false;
    picker->setCurrentText(iteration);
    return true;
}

void TapTabs::retarget(QWidget* page, const QString& iteration) {
    const QString old = page->property(kTapNameProperty).toString();
    if (iteration == old) return;
    auto* picker = page->findChild<QComboBox*>(QStringLiteral("tapLayer"));
    const int open = indexOf(iteration);
    if (open >= 0) {  // that layer has a tab already: show it, and keep this one as it was
        const QSignalBlocker blocker(picker);
        picker->setCurrentText(old);
        setCurrentIndex(open);
        return;
    }
    QStringList iterations;
    for (int i = 0; i < picker->count(); ++i) iterations.append(picker->itemText(i));
    page->setProperty(kTapNameProperty, iteration);
    const int index = QTabWidget::indexOf(page);
    setTabText(index, iterationTitle(iteration, iterations));
    setTabToolTip(index, iteration);
    if (auto* panel = page->findChild<TapPanel*>()) {
        TapValue waiting;
        waiting.name = iteration;
        waiting.title = iterationTitle(iteration, iterations);
        waiting.error =
            tr("%1: waiting for a value (dictate, or pick a file's window).").arg(iteration);
        panel->setValue(waiting);
    }
    Q_EMIT tapClosed(old);
    Q_EMIT tapOpened(iteration);
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
    TapPanel* panel =
        addPanel(edge.tap, edge.tapTitle.isEmpty() ? edge.tap : edge.tapTitle, edge.tapIterations);
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
