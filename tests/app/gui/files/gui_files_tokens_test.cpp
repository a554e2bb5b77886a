// The Files page's tokens: after a file is transcribed with the micro model, each segment shows its
// text tokens with the probabilities the decode gave them (painted in the Live page's colours),
// and they are the same after a restart, read back from the kept results.
#include <gtest/gtest.h>

#include <QImage>
#include <array>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/files/segment_tokens_view.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/tokens/token_confidence.h"
#include "files_gui_paths.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/run_gui.h"
#include "gui_fixture.h"
#include "micro_model.h"
#include "micro_speech_file.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }

// One shown segment as the decode gave it: its text tokens' texts and probabilities.
struct ExpectedRow {
    QString text;
    std::vector<QString> tokens;
    std::vector<double> probabilities;
};

// The rows the Files page should list for `transcript` (non-blank segments), from the decode's own
// token ids and log-probabilities.
std::vector<ExpectedRow> expected_rows(const decoding::Transcript& transcript,
                                       const tokenizer::Tokenizer& tok) {
    std::vector<ExpectedRow> rows;
    for (const decoding::Segment& segment : transcript.segments) {
        const QString text = QString::fromStdString(segment.text).simplified();
        if (text.isEmpty()) continue;
        EXPECT_EQ(segment.token_logprobs.size(), segment.tokens.size()) << segment.text;
        ExpectedRow row{text, {}, {}};
        for (size_t i = 0; i < segment.tokens.size() && i < segment.token_logprobs.size(); ++i) {
            const double logprob = segment.token_logprobs[i];
            EXPECT_LE(logprob, 0.0);
            EXPECT_TRUE(std::isfinite(logprob)) << "token " << segment.tokens[i];
            if (segment.tokens[i] >= tok.specials().eot) continue;  // a timestamp
            const std::array<int32_t, 1> one{segment.tokens[i]};
            row.tokens.push_back(QString::fromStdString(tok.decode_text(one)));
            row.probabilities.push_back(std::exp(logprob));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// The panel's rows hold the expected tokens; selecting each segment shows them in the token view,
// each chip painted in the colour of its probability.
void expect_tokens_shown(ui::FilesPanel& panel, int id, const std::vector<ExpectedRow>& expected) {
    const QList<ui::SegmentRow> rows = panel.queue()->jobSegments(id);
    ASSERT_EQ(static_cast<size_t>(rows.size()), expected.size());
    ui::SegmentTokensView* view = panel.segmentTokens();
    ASSERT_NE(view, nullptr);
    for (size_t r = 0; r < expected.size(); ++r) {
        const ui::SegmentRow& row = rows[static_cast<qsizetype>(r)];
        EXPECT_EQ(row.text, expected[r].text);
        ASSERT_EQ(static_cast<size_t>(row.tokens.size()), expected[r].tokens.size()) << r;
        QString joined;
        for (const ui::SegmentToken& token : row.tokens) joined += token.text;
        EXPECT_EQ(joined.simplified(), row.text) << "the tokens spell the segment";

        panel.selectSegment(static_cast<int>(r));
        ASSERT_EQ(static_cast<size_t>(view->tokenCount()), expected[r].tokens.size());
        const QImage image = view->grab().toImage();
        for (size_t i = 0; i < expected[r].tokens.size(); ++i) {
            const int index = static_cast<int>(i);
            EXPECT_EQ(row.tokens[index].text, expected[r].tokens[i]);
            EXPECT_DOUBLE_EQ(row.tokens[index].probability, expected[r].probabilities[i]);
            EXPECT_EQ(view->token(index).text, expected[r].tokens[i]);
            EXPECT_DOUBLE_EQ(view->token(index).probability, expected[r].probabilities[i]);
            EXPECT_TRUE(view->describe(index).contains(
                ui::tokenConfidencePercent(expected[r].probabilities[i])));
            // Inside the chip, just within its frame: the fill, away from the text.
            const QRect chip = view->tokenRect(index);
            const QPoint inside(chip.left() + 1, chip.top() + 1);
            if (chip.bottom() < image.height() && chip.right() < image.width()) {
                EXPECT_EQ(image.pixelColor(inside).rgb(),
                          ui::tokenConfidenceColor(expected[r].probabilities[i]).rgb())
                    << "segment " << r << " token " << i;
            }
        }
    }
}

TEST(GuiFilesTokens, SegmentsShowTheDecodesTokenProbabilitiesAlsoAfterARestart) {
    ensure_gui_application();
    const TempDir dir("earshot-gui-files-tokens");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    ASSERT_FALSE(wav.empty()) << why;

    // The decode itself, outside the window, with the options the window's job gets.
    std::shared_ptr<app::LoadedModel> model = app::load_model(micro_model_dir(), {});
    decoding::TranscribeOptions options;
    app::apply_model_defaults(*model, options);
    const decoding::Transcript reference = app::transcribe_audio_file(
        *model, q(wav), options, [](double) {}, nullptr);
    const std::vector<ExpectedRow> expected = expected_rows(reference, model->tokenizer);
    ASSERT_GE(expected.size(), 2U) << reference.text;
    size_t tokens = 0;
    bool unsure = false;
    for (const ExpectedRow& row : expected) {
        tokens += row.tokens.size();
        for (double p : row.probabilities) unsure = unsure || p < 0.99;
    }
    ASSERT_GE(tokens, 10U) << reference.text;
    EXPECT_TRUE(unsure) << "every token at 99% or more: probabilities not measured?";

    {
        ui::MainWindow window;
        window.resize(1100, 800);
        app::GuiController controller(window, files_gui_paths(dir));
        ASSERT_TRUE(open_model_and_wait(controller, q(micro_model_dir()), QString(),
                                        app::GuiController::Remember::no));
        controller.files().setOptions(options);
        const int id = window.filesPanel()->queue()->addFiles({q(wav)}).first();
        ASSERT_TRUE(app::wait_for_files(controller, 120'000));
        ASSERT_EQ(window.filesPanel()->queue()->jobState(id), ui::FileJobState::done);
        window.filesPanel()->selectJob(id);
        expect_tokens_shown(*window.filesPanel(), id, expected);
    }

    // A restart: no model is needed to see the kept result and its tokens.
    ui::MainWindow window;
    window.resize(1100, 800);
    app::GuiController controller(window, files_gui_paths(dir));
    const QList<int> ids = window.filesPanel()->queue()->jobIds();
    ASSERT_EQ(ids.size(), 1);
    window.filesPanel()->selectJob(ids[0]);
    expect_tokens_shown(*window.filesPanel(), ids[0], expected);
}

// A segment without kept tokens (a result saved before tokens were kept) says so instead.
TEST(GuiFilesTokens, ASegmentWithoutTokensSaysSo) {
    ensure_gui_application();
    ui::FilesPanel panel;
    const int id = panel.queue()->addFinishedJob(QStringLiteral("/tmp/old.wav"),
                                                 {{0.0, 2.0, QStringLiteral("Old result."), {}}},
                                                 QStringLiteral("en"), ui::FileJobState::done);
    panel.selectJob(id);
    EXPECT_EQ(panel.segmentTokens()->tokenCount(), 0);
    EXPECT_TRUE(panel.segmentTokens()->placeholder().contains(QStringLiteral("Click a segment")));
    panel.selectSegment(0);
    EXPECT_EQ(panel.segmentTokens()->tokenCount(), 0);
    EXPECT_TRUE(panel.segmentTokens()->placeholder().contains(QStringLiteral("not kept")));
}

// Many tokens wrap over more rows in a narrow view, and the view asks for the height they take.
TEST(GuiFilesTokens, TheTokenViewWrapsALongSegment) {
    ensure_gui_application();
    ui::SegmentTokensView view;
    QList<ui::SegmentToken> tokens;
    for (int i = 0; i < 40; ++i) tokens.append({QStringLiteral(" word%1").arg(i), i / 40.0});
    view.resize(300, 40);
    view.setTokens(tokens);
    ASSERT_EQ(view.tokenCount(), 40);
    EXPECT_GT(view.tokenRect(39).top(), view.tokenRect(0).top());
    EXPECT_GT(view.heightForWidth(300), view.heightForWidth(3000));
    EXPECT_GE(view.heightForWidth(300), view.tokenRect(39).bottom());
    for (int i = 1; i < 40; ++i) {
        const QRect a = view.tokenRect(i - 1);
        const QRect b = view.tokenRect(i);
        EXPECT_FALSE(a.intersects(b)) << i;
        EXPECT_LE(b.right(), 300) << i;
    }
    EXPECT_EQ(view.tokenAt(view.tokenRect(7).center()), 7);
    EXPECT_EQ(view.describe(20), QStringLiteral("“ word20” 50% (alternatives are shown only while "
                                                "dictating)"));
}

}  // namespace
}  // namespace earshot::test
