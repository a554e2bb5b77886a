// Plain data of the model manager: what a loaded checkpoint binds, and the remembered choice of
// checkpoint and vocabulary.
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

class QSettings;

namespace earshot::ui {

struct ModelSummary {
    QString path;  // the checkpoint: HF directory, .safetensors or ggml .bin
    // What the model is, for the page heading and the window title ("Micro demo model (built
    // in)", "whisper-base.en (Whisper base.en)"); empty: the file or folder name.
    QString name;
    // What a user must know before relying on it, shown on the Model page and as the Live
    // page's hint (the micro model hears only espeak-ng saying its words); empty: nothing.
    QString note;
    // The same note as the Model page words it (it cannot send the user to the Model page);
    // empty: `note`.
    QString modelPageNote;
    QString vocabularyPath;                   // empty: the checkpoint's own tokenizer files
    QString format;                           // "Hugging Face safetensors", "ggml", ...
    QString dtypeSource;                      // where T was read from
    QList<QPair<QString, QString>> generics;  // bound generics in declaration order: D = 384
    QStringList languages;                    // language codes the vocabulary has slots for
    QStringList languageNames;                // openai's names of `languages`, same order
    bool englishOnly = false;                 // an English-only model: no other language, no
                                              // translation
};

// The model the user chose last, under the QSettings group "model".
struct ModelChoice {
    QString modelPath;       // empty: none chosen yet
    QString vocabularyPath;  // empty: the model's own

    static ModelChoice load(QSettings& store);
    void save(QSettings& store) const;
};

// The vocabulary last opened with each checkpoint (a checkpoint without tokenizer files needs
// one), under the QSettings key "model/vocabularies"; empty: none remembered for `modelPath`.
QString rememberedVocabulary(QSettings& store, const QString& modelPath);
void rememberVocabulary(QSettings& store, const QString& modelPath, const QString& vocabularyPath);

}  // namespace earshot::ui
