// The default model's locations, the no-model message and the model manager's summary.
#include "gui/models/default_model.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <system_error>

#include "earshot/engine/checkpoint/whisper_config.h"
#include "earshot/engine/tokenizer/special_tokens.h"
#include "earshot/ui/main_window.h"

namespace earshot::app {

namespace fs = std::filesystem;

namespace {

fs::path executable_dir() {
    if (QCoreApplication::instance() != nullptr) {
        return fs::path(QCoreApplication::applicationDirPath().toStdString());
    }
    std::error_code error;
    const fs::path exe = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::path() : exe.parent_path();
}

bool same_file(const fs::path& a, const fs::path& b) {
    std::error_code error;
    return fs::equivalent(a, b, error) && !error;
}

bool holds_checkpoint(const fs::path& path) {
    std::error_code error;
    if (fs::is_directory(path, error)) {
        return fs::is_regular_file(path / "config.json", error);
    }
    return fs::is_regular_file(path, error);
}

}  // namespace

std::vector<fs::path> default_model_candidates() {
    std::vector<fs::path> candidates;
    const fs::path exe_dir = executable_dir();
    if (!exe_dir.empty()) {
        candidates.push_back(
            (exe_dir / ".." / "share" / "earshot" / "models" / "micro").lexically_normal());
    }
#ifdef EARSHOT_SOURCE_MODEL_DIR
    candidates.emplace_back(EARSHOT_SOURCE_MODEL_DIR);
#endif
    return candidates;
}

std::optional<fs::path> default_model_path() {
    for (const fs::path& candidate : default_model_candidates()) {
        if (holds_checkpoint(candidate)) {
            return candidate;
        }
    }
    return std::nullopt;
}

bool is_micro_model(const fs::path& path) {
    for (const fs::path& candidate : default_model_candidates()) {
        if (same_file(path, candidate)) return true;
    }
    return false;
}

QString whisper_kind(const checkpoint::WhisperConfig& config) {
    // openai's released sizes by width and encoder depth (whisper/__init__.py checkpoints).
    struct Size {
        int64_t d;
        int64_t layers;
        const char* name;
    };
    static constexpr Size kSizes[] = {{384, 4, "tiny"},
                                      {512, 6, "base"},
                                      {768, 12, "small"},
                                      {1024, 24, "medium"},
                                      {1280, 32, "large"}};
    const bool english_only = config.n_vocab < tokenizer::kMultilingualVocab;
    for (const Size& size : kSizes) {
        if (config.n_audio_state != size.d || config.n_audio_layer != size.layers) continue;
        QString name = QString::fromLatin1(size.name);
        if (name == QStringLiteral("large")) {
            if (config.n_text_layer == 4) {
                name += QStringLiteral("-v3-turbo");
            } else if (config.n_mels == 128) {
                name += QStringLiteral("-v3");
            }
        }
        if (english_only) name += QStringLiteral(".en");
        return QObject::tr("Whisper %1").arg(name);
    }
    return QObject::tr("Whisper-shaped: D %1, %2 + %3 layers, %4")
        .arg(config.n_audio_state)
        .arg(config.n_audio_layer)
        .arg(config.n_text_layer)
        .arg(english_only ? QObject::tr("English-only") : QObject::tr("multilingual"));
}

QString no_model_message() {
    QString message = ui::MainWindow::defaultNoModelMessage();
    message +=
        QObject::tr("\n\nThe built-in micro model is not installed; Earshot looks for it in:");
    for (const fs::path& candidate : default_model_candidates()) {
        message += QStringLiteral("\n") + QString::fromStdString(candidate.string());
    }
    return message;
}

ui::ModelSummary model_summary(const LoadedModel& loaded, const QString& modelPath,
                               const QString& vocabularyPath) {
    ui::ModelSummary summary;
    summary.path = modelPath;
    summary.vocabularyPath = vocabularyPath;
    const checkpoint::WhisperConfig& config = loaded.checkpoint.binding.config;
    if (is_micro_model(fs::path(modelPath.toStdString()))) {
        summary.name = QObject::tr("Micro demo model (built in)");
        const QString demo = QObject::tr(
            "The built-in micro model is a demo: it was trained only on espeak-ng voices saying "
            "the ~200 words of its word list (resources/models/micro/words.txt) and the digits. "
            "It understands those words spoken by espeak-ng, not human speech. ");
        summary.note = demo + QObject::tr(
                                  "For real speech, open a Whisper checkpoint (File ▸ Open model "
                                  "folder… or Open model file…) or download one from the list "
                                  "of models on the Model page.");
        summary.modelPageNote =
            demo + QObject::tr(
                       "For real speech, open a Whisper checkpoint (Checkpoint folder… or "
                       "Checkpoint file… above) or download one from the list of models below.");
    } else {
        const QFileInfo info(QDir::cleanPath(modelPath));
        const QString file = info.fileName().isEmpty() ? modelPath : info.fileName();
        summary.name = QStringLiteral("%1 (%2)").arg(file, whisper_kind(config));
    }
    summary.format = QString::fromUtf8(checkpoint::format_name(config.format));
    summary.dtypeSource = QString::fromStdString(config.dtype_source);
    for (const auto& [name, value] : loaded.checkpoint.binding.generics) {
        summary.generics.append({QString::fromStdString(name), QString::fromStdString(value)});
    }
    const tokenizer::SpecialTokens& specials = loaded.tokenizer.specials();
    for (int32_t i = 0; i < specials.num_languages; ++i) {
        const std::string_view code = loaded.tokenizer.language_code(specials.first_language + i);
        if (!code.empty()) {
            const std::string_view name = tokenizer::language_name(code);
            summary.languages.append(
                QString::fromUtf8(code.data(), static_cast<qsizetype>(code.size())));
            summary.languageNames.append(
                QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
        }
    }
    summary.englishOnly = !loaded.tokenizer.multilingual();
    return summary;
}

}  // namespace earshot::app
