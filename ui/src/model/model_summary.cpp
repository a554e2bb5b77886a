// ModelChoice: the remembered checkpoint and vocabulary in QSettings.
#include "earshot/ui/model/model_summary.h"

#include <QSettings>

namespace earshot::ui {

ModelChoice ModelChoice::load(QSettings& store) {
    ModelChoice choice;
    store.beginGroup(QStringLiteral("model"));
    choice.modelPath = store.value(QStringLiteral("path")).toString();
    choice.vocabularyPath = store.value(QStringLiteral("vocabulary")).toString();
    store.endGroup();
    return choice;
}

void ModelChoice::save(QSettings& store) const {
    store.beginGroup(QStringLiteral("model"));
    store.setValue(QStringLiteral("path"), modelPath);
    store.setValue(QStringLiteral("vocabulary"), vocabularyPath);
    store.endGroup();
}

}  // namespace earshot::ui
