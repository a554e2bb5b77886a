// Settings -> a TranscriptionChoice, and LiveOptions / TranscribeOptions through the one
// transcription setup (the language checked against the vocabulary);
// the backend's name for the status bar.
#include "gui/gui_options.h"

#include <QObject>
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/dictation/spoken_command_table.h"
#include "core/transcription/vocabulary_list.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {

namespace {

constexpr int kMsPerFrame = 10;  // 10 ms hop (reference §1.1)

}  // namespace

TranscriptionChoice transcription_choice(const ui::Settings& settings) {
    TranscriptionChoice choice;
    choice.task = settings.task == QStringLiteral("translate") ? decoding::Task::translate
                                                               : decoding::Task::transcribe;
    choice.language = settings.language.trimmed().toStdString();
    choice.decoding.beam_size = std::max(1, settings.beamSize);
    // Throws VocabularyFileError: the front end shows it where Start or the file refused.
    if (!settings.vocabularyFile.isEmpty()) {
        choice.vocabulary = load_vocabulary(settings.vocabularyFile.toStdString());
    }
    return choice;
}

LiveOptions live_options(const ui::Settings& settings, const QString& device,
                         const tokenizer::Tokenizer& tokenizer) {
    LiveOptions options;
    options.device = device.toStdString();
    options.streaming.decoding = decoding_options(transcription_choice(settings), tokenizer);
    options.streaming.update_frames = std::max(1, settings.updateIntervalMs / kMsPerFrame);
    options.vad.margin_db = settings.vadMarginDb;
    options.guard_invented_words = settings.guardInventedWords;
    // Throws CommandFileError (FILE:LINE: problem).
    if (settings.spokenCommands) {
        options.spoken_commands = std::make_shared<const CommandTable>(
            settings.commandsFile.isEmpty()
                ? CommandTable::defaults_for_language(settings.language.toStdString())
                : CommandTable::load(settings.commandsFile.toStdString()));
    }
    return options;
}

decoding::TranscribeOptions transcribe_options(const ui::Settings& settings,
                                               const tokenizer::Tokenizer& tokenizer) {
    decoding::TranscribeOptions options;
    options.decoding = decoding_options(transcription_choice(settings), tokenizer);
    return options;
}

QString backend_display_name(const ui::Settings& settings, const LoadedModel* loaded) {
    if (loaded != nullptr && loaded->model != nullptr) {
        const std::string name = loaded->model->backend_name();
        if (!name.empty()) return QString::fromStdString(name);
    }
    if (settings.backend == QStringLiteral("cpu")) return QStringLiteral("CPU");
    if (settings.backend == QStringLiteral("cuda")) return QStringLiteral("CUDA");
    return QObject::tr("Automatic");
}

}  // namespace earshot::app
