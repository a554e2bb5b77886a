// ModelChoice and the vocabulary per checkpoint: the remembered choices in QSettings.
#include "earshot/ui/model/model_summary.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QVariantMap>

namespace earshot::ui {

namespace {
const QString kVocabulariesKey = QStringLiteral("model/vocabularies");

// One key per checkpoint however its path was spelled.
QString checkpoint_key(const QString& modelPath) {
    return QDir::cleanPath(QFileInfo(modelPath).absoluteFilePath());
}
}  // namespace

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

QString rememberedVocabulary(QSettings& store, const QString& modelPath) {
    return store.value(kVocabulariesKey).toMap().value(checkpoint_key(modelPath)).toString();
}

void rememberVocabulary(QSettings& store, const QString& modelPath, const QString& vocabularyPath) {
    QVariantMap vocabularies = store.value(kVocabulariesKey).toMap();
    if (vocabularyPath.isEmpty()) {
        vocabularies.remove(checkpoint_key(modelPath));
    } else {
        vocabularies.insert(checkpoint_key(modelPath), vocabularyPath);
    }
    store.setValue(kVocabulariesKey, vocabularies);
}

}  // namespace earshot::ui
