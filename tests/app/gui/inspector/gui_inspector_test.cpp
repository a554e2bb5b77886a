// The inspector fed by the engine: the tables of a large-v3 binding rebuild the `inspect` report
// byte for byte, the widget draws the real `encode` graph (the seed's picture at one level, with
// expand/collapse, concrete labels, search and export), and heat shares from real CPU timings.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QSet>
#include <QTableWidget>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_binding.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/ui/inspector/graph_edge_item.h"
#include "earshot/ui/inspector/graph_group_item.h"
#include "earshot/ui/inspector/graph_node_item.h"
#include "earshot/ui/inspector/graph_view.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "gui/inspector/inspector_data.h"
#include "large_v3_config.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::ui::GraphView;

// One QApplication for the binary, on the offscreen platform (other tests may have made it).
void ensureApplication() {
    if (QApplication::instance()) return;
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "earshot_app_tests";
    static char* argv[] = {name, nullptr};
    static QApplication application(argc, argv);
}

earshot::model::WhisperBinding large_v3() {
    return earshot::model::bind_whisper(earshot::test::large_v3_config());
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

QSet<QString> node_labels(const GraphView& view) {
    QSet<QString> out;
    for (const auto* item : view.nodeItems()) out.insert(item->node().label);
    return out;
}

QSet<QString> edge_labels(const GraphView& view) {
    QSet<QString> out;
    for (const auto* item : view.edgeItems()) out.insert(item->label());
    return out;
}

QSet<QString> groups_shown(const GraphView& view) {
    QSet<QString> out;
    for (const auto* item : view.groupItems()) out.insert(item->group().label);
    return out;
}

// Also keeps the PNG in $EARSHOT_INSPECTOR_PNG_DIR when that is set, to look at.
void keep_png(const GraphView& view, const QString& name) {
    const QByteArray dir = qgetenv("EARSHOT_INSPECTOR_PNG_DIR");
    if (!dir.isEmpty()) view.exportPng(QString::fromLocal8Bit(dir) + u'/' + name, 1.5);
}

class GuiInspector : public ::testing::Test {
protected:
    static void SetUpTestSuite() { ensureApplication(); }  // before the widget member exists

    void SetUp() override {
        widget_.resize(1200, 900);
        widget_.setGraphProvider(earshot::app::graph_provider(binding_));
        widget_.setData(earshot::app::inspector_data(binding_));
        widget_.showEntry(QStringLiteral("encode"));
    }

    GraphView& view() { return *widget_.graphView(); }

    earshot::model::WhisperBinding binding_ = large_v3();
    earshot::ui::InspectorWidget widget_;
};

const QString kN = QStringLiteral("1 + (-1 + Frames) / 2");

TEST_F(GuiInspector, TablesRebuildTheInspectReport) {
    const earshot::ui::InspectorData data = earshot::app::inspector_data(binding_);
    // The report as `inspect` lays it out, from the plain data alone.
    QString report = QStringLiteral("Entries\n\nEntry\tSignature\n");
    for (const auto& e : data.entries) report += e.name + u'\t' + e.signature + u'\n';
    report += QStringLiteral(
        "\nGenerics\n\nThe root block's generics as this checkpoint binds "
        "them.\n\n");
    for (const auto& g : data.generics) report += g.name + u'\t' + g.value + u'\n';
    report += QStringLiteral(
        "\nBlocks\n\nEvery block of the program with its members and "
        "functions, as earshot inspect prints them.");
    for (const auto& b : data.blocks) {
        report += QStringLiteral("\n\n") + b.name + QStringLiteral("\n\n") + b.header;
        for (const auto& m : b.members) {
            const bool function =
                m.kind.endsWith(QStringLiteral("fn")) || m.kind == QStringLiteral("pub entry");
            report += QStringLiteral("\n  ") + m.kind + u' ' + m.name +
                      (function ? QString() : QStringLiteral(": ")) + m.type;
        }
    }
    const std::string golden =
        read_text(fs::path(EARSHOT_TEST_GOLDEN_DIR) / "inspect_large_v3.txt");
    ASSERT_FALSE(golden.empty());
    EXPECT_EQ(report.toStdString(), golden);

    EXPECT_EQ(widget_.entriesTable()->rowCount(), 5);
    EXPECT_EQ(widget_.genericsTable()->rowCount(), 10);
    EXPECT_EQ(data.checkpoint, QStringLiteral("large-v3"));
}

TEST_F(GuiInspector, EncodeAtOneLevelIsTheSeedPicture) {
    ASSERT_TRUE(view().error().isEmpty()) << view().error().toStdString();
    const QString x = QStringLiteral("T[B, %1, D]").arg(kN);
    EXPECT_EQ(node_labels(view()),
              (QSet<QString>{
                  QStringLiteral("mel : Tensor[B, Mels, Frames; T]"), QStringLiteral("permute"),
                  QStringLiteral("conv1d"), QStringLiteral("gelu_erf"), QStringLiteral("+"),
                  QStringLiteral("self_attn_layer_norm.forward"), QStringLiteral("none"),
                  QStringLiteral("self_attn.forward"), QStringLiteral("final_layer_norm.forward"),
                  QStringLiteral("mlp.forward"), QStringLiteral("layer_norm"),
                  QStringLiteral("result : Tensor[B, %1, D; T]").arg(kN)}));
    EXPECT_EQ(view().nodeItems().size(), 16);
    EXPECT_EQ(view().edgeItems().size(), 17);  // the residuals included
    EXPECT_EQ(
        edge_labels(view()),
        (QSet<QString>{QStringLiteral("T[B, Mels, Frames]"), QStringLiteral("T[B, Frames, Mels]"),
                       QStringLiteral("T[B, Frames, D]"), x,
                       QStringLiteral("Tensor[%1, %1; bool]?").arg(kN)}));
    const auto* loop = view().groupItem(QStringLiteral("for layer in encoder_layers"));
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->group().sublabel, QStringLiteral("x EncoderLayers = 32"));
    const auto* layer = view().groupItem(QStringLiteral("encoder_layers[layer].forward"));
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(layer->group().sublabel, QStringLiteral("EncoderLayer<D, Heads, Inner, T>"));
    EXPECT_TRUE(loop->rect().contains(layer->rect()));
    EXPECT_NE(view().groupItem(QStringLiteral("encoder_norm.forward")), nullptr);
    // Top to bottom: the input above the first conv1d above the layer group above the norm.
    const auto* mel = view().nodeItem(QStringLiteral("mel : Tensor[B, Mels, Frames; T]"));
    const auto* conv = view().nodeItem(QStringLiteral("conv1d"));
    const auto* norm = view().nodeItem(QStringLiteral("layer_norm"));
    EXPECT_LT(mel->rect().bottom(), conv->rect().top());
    EXPECT_LT(conv->rect().bottom(), layer->rect().top());
    EXPECT_LT(layer->rect().bottom(), norm->rect().top());
    // dot reserved each label's drawn size: no type label covers a node or another label.
    const auto edges = view().edgeItems();
    for (qsizetype i = 0; i < edges.size(); ++i) {
        const QRectF label = edges[i]->labelRect().adjusted(1, 1, -1, -1);
        for (const auto* node : view().nodeItems()) {
            EXPECT_FALSE(label.intersects(node->rect()))
                << edges[i]->label().toStdString() << " over " << node->node().label.toStdString();
        }
        for (qsizetype j = i + 1; j < edges.size(); ++j) {
            EXPECT_FALSE(label.intersects(edges[j]->labelRect().adjusted(1, 1, -1, -1)))
                << edges[i]->label().toStdString() << " over " << edges[j]->label().toStdString();
        }
    }
    keep_png(view(), QStringLiteral("inspector-encode.png"));
}

TEST_F(GuiInspector, ExpandCollapseAndConcreteTypes) {
    const QString attention = view().nodeItem(QStringLiteral("self_attn.forward"))->node().callId;
    ASSERT_TRUE(view().expandCall(attention));
    for (const char* label : {"keys", "values", "attend"}) {
        EXPECT_TRUE(node_labels(view()).contains(QString::fromLatin1(label))) << label;
    }
    EXPECT_FALSE(node_labels(view()).contains(QStringLiteral("self_attn.forward")));
    EXPECT_TRUE(edge_labels(view()).contains(QStringLiteral("T[B, Heads, %1, D / Heads]").arg(kN)));
    keep_png(view(), QStringLiteral("inspector-encode-attention.png"));

    const QString layer =
        view().groupItem(QStringLiteral("encoder_layers[layer].forward"))->group().callId;
    ASSERT_TRUE(view().collapseCall(layer));
    EXPECT_EQ(view().nodeItems().size(), 10);  // mel, permute, 2 x conv1d/gelu, +, layer, norm, out
    EXPECT_TRUE(node_labels(view()).contains(QStringLiteral("encoder_layers[layer].forward")));

    view().concreteToggle()->setChecked(true);
    EXPECT_TRUE(edge_labels(view()).contains(QStringLiteral("f16[1, 128, 3000]")));
    EXPECT_TRUE(edge_labels(view()).contains(QStringLiteral("f16[1, 3000, 128]")));
    EXPECT_TRUE(edge_labels(view()).contains(QStringLiteral("f16[1, 1500, 1280]")));
    EXPECT_EQ(view().groupItem(QStringLiteral("for layer in encoder_layers"))->group().sublabel,
              QStringLiteral("x 32"));
    for (const QString& label : edge_labels(view())) {
        EXPECT_FALSE(label.contains(QStringLiteral("Frames"))) << label.toStdString();
    }
    ASSERT_TRUE(view().expandCall(layer));  // the attention call is still open inside
    EXPECT_TRUE(edge_labels(view()).contains(QStringLiteral("Tensor[1500, 1500; bool]?")));
    EXPECT_TRUE(edge_labels(view()).contains(QStringLiteral("f16[1, 20, 1500, 64]")));
    keep_png(view(), QStringLiteral("inspector-encode-concrete.png"));
}

TEST_F(GuiInspector, SearchAndExport) {
    // The whole traced graph is searched: the two layer norm calls of the layer open to show
    // their layer_norm ops; with encoder_norm's op, five matches.
    EXPECT_EQ(view().search(QStringLiteral("layer_norm")), 5);
    EXPECT_TRUE(groups_shown(view()).contains(QStringLiteral("self_attn_layer_norm.forward")));
    EXPECT_TRUE(groups_shown(view()).contains(QStringLiteral("final_layer_norm.forward")));
    EXPECT_EQ(view().search(QStringLiteral("Frames, Mels")), 1);
    EXPECT_EQ(view().search(QStringLiteral("gelu")), 3);  // the two after the convs, the MLP's
    EXPECT_TRUE(groups_shown(view()).contains(QStringLiteral("mlp.forward")));
    EXPECT_FALSE(groups_shown(view()).contains(QStringLiteral("final_layer_norm.forward")));
    // Two levels down: split_heads inside keys, values and attend, inside self_attn.forward.
    EXPECT_EQ(view().search(QStringLiteral("split_heads")), 3);
    EXPECT_TRUE(groups_shown(view()).contains(QStringLiteral("self_attn.forward")));
    EXPECT_TRUE(groups_shown(view()).contains(QStringLiteral("keys")));
    // What an op computes is searched too: the softmax is inside the attention op, in attend.
    EXPECT_EQ(view().search(QStringLiteral("softmax")), 1);
    EXPECT_TRUE(groups_shown(view()).contains(QStringLiteral("attend")));
    view().search(QString());

    earshot::test::TempDir dir("earshot-gui-inspector");
    const QString svg = QString::fromStdString((dir.path() / "encode.svg").string());
    const QString png = QString::fromStdString((dir.path() / "encode.png").string());
    ASSERT_TRUE(view().exportSvg(svg));
    ASSERT_TRUE(view().exportPng(png));
    EXPECT_GT(fs::file_size(svg.toStdString()), 10000U);
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(image.height(), image.width());  // a tall picture, top to bottom
    EXPECT_EQ(image.size(), (view().scene()->sceneRect().size() * 2.0).toSize());
}

// A random checkpoint of the small shape the heat tests time (D 64, 2 heads, 2 encoder layers,
// the multilingual vocabulary's size), written in `dir` and loaded.
earshot::model::WhisperCheckpoint small_random_checkpoint(const earshot::test::TempDir& dir,
                                                          int decoder_layers) {
    earshot::model::RandomCheckpointOptions options;
    options.d = 64;
    options.heads = 2;
    options.enc_layers = 2;
    options.dec_layers = decoder_layers;
    options.vocab = 51865;
    earshot::model::write_random_checkpoint(dir.path(), options);
    return earshot::model::load_whisper_checkpoint(dir.path());
}

// A live update's timings hold listen, prefill and steps together. The step graph's heat is the
// share of the step's own time (it read 0-1% when the encoder counted too), and the vocabulary
// projection, an op outside every call, gets its badge.
TEST_F(GuiInspector, StepHeatIsTheShareOfTheStepsOwnTime) {
    earshot::test::TempDir dir("earshot-gui-inspector-step-heat");
    const auto checkpoint = small_random_checkpoint(dir, 2);
    earshot::backend::CpuWhisper backend(checkpoint);
    backend.set_profiling(true);
    std::vector<earshot::backend::StepTiming> update;
    (void)backend.listen(earshot::backend::HostTensor::f32({1, 80, 3000}, 0.25F));
    update.insert(update.end(), backend.last_timings().begin(), backend.last_timings().end());
    (void)backend.prefill(earshot::backend::HostTensor::i32({1, 3}, {50258, 50259, 50359}));
    update.insert(update.end(), backend.last_timings().begin(), backend.last_timings().end());
    (void)backend.step(earshot::backend::HostTensor::i32({1, 1}, {50363}), 3);
    update.insert(update.end(), backend.last_timings().begin(), backend.last_timings().end());

    double step_ms = 0.0;
    double step_layers_ms = 0.0;
    double step_linear_at_top_ms = 0.0;
    for (const auto& t : update) {
        if (!t.entry.ends_with(".step")) continue;
        step_ms += t.ms;
        step_layers_ms += t.scope.rfind("decoder_layers.", 0) == 0 ? t.ms : 0.0;
        step_linear_at_top_ms += t.scope.empty() && t.op == "linear" ? t.ms : 0.0;
    }
    ASSERT_GT(step_ms, 0.0);
    ASSERT_GT(step_linear_at_top_ms, 0.0) << "the vocabulary projection runs at the top";

    widget_.showEntry(QStringLiteral("step"));
    ASSERT_TRUE(view().error().isEmpty()) << view().error().toStdString();
    const QHash<QString, double> shares = earshot::app::call_time_shares("step", update);
    const earshot::ui::GraphGroupItem* loop =
        view().groupItem(QStringLiteral("for layer in decoder_layers"));
    ASSERT_NE(loop, nullptr);
    EXPECT_NEAR(shares.value(loop->group().callId), step_layers_ms / step_ms, 1e-12);
    earshot::ui::GraphNodeItem* vocabulary = nullptr;
    for (earshot::ui::GraphNodeItem* node : view().nodeItems()) {
        if (node->node().kind == QLatin1String("op") &&
            node->node().label == QLatin1String("linear")) {
            vocabulary = node;
        }
    }
    ASSERT_NE(vocabulary, nullptr);
    EXPECT_NEAR(shares.value(vocabulary->node().id), step_linear_at_top_ms / step_ms, 1e-12);
    // The step's shares are of the step alone: the layers and the projection are most of it.
    EXPECT_GT(shares.value(loop->group().callId) + shares.value(vocabulary->node().id), 0.5);

    widget_.setHeat(shares);
    ASSERT_TRUE(vocabulary->heat().has_value());
    EXPECT_NEAR(*vocabulary->heat(), step_linear_at_top_ms / step_ms, 1e-12);

    // An update without a step leaves nothing for the step graph.
    std::vector<earshot::backend::StepTiming> listen_only;
    for (const auto& t : update) {
        if (t.entry.ends_with(".listen")) listen_only.push_back(t);
    }
    EXPECT_TRUE(earshot::app::call_time_shares("step", listen_only).isEmpty());
    keep_png(view(), QStringLiteral("inspector-step-heat.png"));
}

// Edge labels keep clear of each other and of the nodes, with every call of an encoder and a
// decoder layer open, symbolic and concrete: a reader never sees two types run together.
TEST_F(GuiInspector, EdgeLabelsDoNotTouch) {
    // The least clear space around a label: with less, a zoomed-out view runs them together.
    constexpr qreal kGapPx = 8.0;
    for (const char* entry : {"encode", "decode", "listen", "prefill", "step"}) {
        for (bool concrete : {false, true}) {
            widget_.showEntry(QString::fromLatin1(entry));
            view().setConcreteTypes(concrete);
            // Open every call that shows, three rounds deep.
            for (int round = 0; round < 3; ++round) {
                QStringList calls;
                for (earshot::ui::GraphNodeItem* node : view().nodeItems()) {
                    if (node->isCall()) calls.append(node->node().callId);
                }
                for (const QString& call : calls) view().expandCall(call);
            }
            ASSERT_TRUE(view().error().isEmpty()) << view().error().toStdString();
            const QList<earshot::ui::GraphEdgeItem*> edges = view().edgeItems();
            int labels = 0;
            for (int a = 0; a < edges.size(); ++a) {
                if (edges[a]->edge().label.isEmpty()) continue;
                ++labels;
                const QRectF around =
                    edges[a]->labelRect().adjusted(-kGapPx, -kGapPx, kGapPx, kGapPx);
                for (int b = a + 1; b < edges.size(); ++b) {
                    if (edges[b]->edge().label.isEmpty()) continue;
                    EXPECT_FALSE(around.intersects(edges[b]->labelRect()))
                        << entry << (concrete ? " concrete: " : ": ")
                        << edges[a]->edge().label.toStdString() << " and "
                        << edges[b]->edge().label.toStdString();
                }
                for (earshot::ui::GraphGroupItem* group : view().groupItems()) {
                    EXPECT_FALSE(edges[a]->labelRect().intersects(group->labelRect()))
                        << entry << ": " << edges[a]->edge().label.toStdString()
                        << " on the label of " << group->group().label.toStdString();
                }
                for (earshot::ui::GraphNodeItem* node : view().nodeItems()) {
                    EXPECT_FALSE(edges[a]->labelRect().intersects(node->rect()))
                        << entry << ": " << edges[a]->edge().label.toStdString() << " on "
                        << node->node().label.toStdString();
                }
            }
            EXPECT_GT(labels, 20) << entry;
        }
    }
}

TEST_F(GuiInspector, HeatSharesFromRealCpuTimings) {
    earshot::test::TempDir dir("earshot-gui-inspector-heat");
    const auto checkpoint = small_random_checkpoint(dir, 1);
    earshot::backend::CpuWhisper backend(checkpoint);
    backend.set_profiling(true);
    (void)backend.encode(earshot::backend::HostTensor::f32({1, 80, 3000}, 0.25F));
    const auto& timings = backend.last_timings();
    ASSERT_FALSE(timings.empty());

    const QHash<QString, double> shares = earshot::app::call_time_shares("encode", timings);
    // The same sums straight from the measured steps.
    double total = 0.0;
    double in_mlp = 0.0;
    double in_attention = 0.0;
    double in_layers = 0.0;
    double in_norm = 0.0;
    double permute_ms = 0.0;
    for (const auto& t : timings) {
        total += t.ms;
        in_mlp += t.scope.find("> mlp.forward") != std::string::npos ? t.ms : 0.0;
        in_attention += t.scope.find("> self_attn.forward") != std::string::npos ? t.ms : 0.0;
        in_layers += t.scope.rfind("encoder_layers.", 0) == 0 ? t.ms : 0.0;
        in_norm += t.scope == "encoder_norm.forward" ? t.ms : 0.0;
        permute_ms += t.scope.empty() && t.op == "permute" ? t.ms : 0.0;
    }
    ASSERT_GT(total, 0.0);
    ASSERT_GT(in_attention, 0.0);

    // The same large-v3 graph's call ids name the same calls as the small model's.
    const QString attention = view().nodeItem(QStringLiteral("self_attn.forward"))->node().callId;
    const QString mlp = view().nodeItem(QStringLiteral("mlp.forward"))->node().callId;
    const QString layer =
        view().groupItem(QStringLiteral("encoder_layers[layer].forward"))->group().callId;
    const QString loop =
        view().groupItem(QStringLiteral("for layer in encoder_layers"))->group().callId;
    const QString norm = view().groupItem(QStringLiteral("encoder_norm.forward"))->group().callId;
    EXPECT_NEAR(shares.value(attention), in_attention / total, 1e-12);
    EXPECT_NEAR(shares.value(mlp), in_mlp / total, 1e-12);
    EXPECT_NEAR(shares.value(layer), in_layers / total, 1e-12);
    EXPECT_NEAR(shares.value(loop), in_layers / total, 1e-12);
    EXPECT_NEAR(shares.value(norm), in_norm / total, 1e-12);
    // The convolutions run outside every call: the top-level shares leave room for them.
    EXPECT_LT(shares.value(loop) + shares.value(norm), 1.0);
    for (double share : shares) {
        EXPECT_GT(share, 0.0);
        EXPECT_LE(share, 1.0);
    }

    // A live update runs listen (the encoder, then every decoder layer's cross keys and values):
    // the same encode graph gets the encoder layers' share of that whole run.
    (void)backend.listen(earshot::backend::HostTensor::f32({1, 80, 3000}, 0.25F));
    double listen_total = 0.0;
    double listen_layers = 0.0;
    double listen_decoder = 0.0;
    for (const auto& t : backend.last_timings()) {
        listen_total += t.ms;
        listen_layers += t.scope.rfind("encoder_layers.", 0) == 0 ? t.ms : 0.0;
        listen_decoder += t.scope.rfind("decoder_layers.", 0) == 0 ? t.ms : 0.0;
    }
    ASSERT_GT(listen_layers, 0.0);
    ASSERT_GT(listen_decoder, 0.0);
    const auto listen_shares = earshot::app::call_time_shares("encode", backend.last_timings());
    EXPECT_NEAR(listen_shares.value(loop), listen_layers / listen_total, 1e-12);

    widget_.setHeat(shares);
    EXPECT_EQ(view().nodeItem(QStringLiteral("self_attn.forward"))->heat(),
              shares.value(attention));
    EXPECT_EQ(view().groupItem(QStringLiteral("for layer in encoder_layers"))->heat(),
              shares.value(loop));
    // An op outside every call (the permute after the convolutions) has its own badge: its
    // measured share of the encoder's time.
    ASSERT_TRUE(view().nodeItem(QStringLiteral("permute"))->heat().has_value());
    EXPECT_NEAR(*view().nodeItem(QStringLiteral("permute"))->heat(), permute_ms / total, 1e-12);
    keep_png(view(), QStringLiteral("inspector-encode-heat.png"));
}

}  // namespace
