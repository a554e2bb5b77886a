// GuiController's cross-attention feature on the Files page: the selected segment's map and the
// shown file's waveform, computed by CrossAttentionWorker while the model is free (no dictation,
// no file being transcribed); the files queue is held meanwhile and a dictation start waits.
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <memory>

#include "earshot/ui/files/file_result_view.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/inspector/live_cross_attention_panel.h"
#include "earshot/ui/inspector/tap_tabs.h"
#include "earshot/ui/main_window.h"
#include "gui/files/cross_attention_worker.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/inspector/tap_values.h"
#include "gui/live/live_bridge.h"
#include "gui/live/word_audio_output.h"

namespace earshot::app {

namespace {

ui::CrossAttentionMap because(const QString& message) {
    ui::CrossAttentionMap map;
    map.message = message;
    return map;
}

}  // namespace

void GuiController::connectCrossAttention() {
    ui::FileResultView* result = m_window.filesPanel()->resultView();
    connect(result, &ui::FileResultView::crossAttentionRequested, this,
            &GuiController::requestCrossAttention);
    connect(m_crossAttention, &CrossAttentionWorker::mapReady, result,
            &ui::FileResultView::showCrossAttention);
    connect(result, &ui::FileResultView::waveformWanted, m_crossAttention,
            &CrossAttentionWorker::requestWaveform);
    connect(m_crossAttention, &CrossAttentionWorker::waveformReady, result,
            &ui::FileResultView::setWaveform);
    connect(m_crossAttention, &CrossAttentionWorker::mapFinished, this, [this] {
        m_files->setHeld(m_live->isRunning());  // queued files go on
        if (m_startPending && !m_files->isBusy()) {
            m_startPending = false;  // a start asked for while the map was computed
            startLiveOrSay(m_pendingStartDevice);
        }
    });
    const auto askLive = [this] {
        std::vector<std::string> names;
        for (const QString& name : m_inspector->openTaps()) names.push_back(name.toStdString());
        m_liveTaps->set_names(std::move(names));
    };
    connect(m_inspector, &ui::InspectorWidget::tapOpened, this, [this, askLive] {
        askLive();
        requestTaps();
    });
    connect(m_inspector, &ui::InspectorWidget::tapClosed, this, askLive);
    // While dictating, each update's snapshot refreshes the open tabs.
    connect(m_live, &LiveBridge::updated, this, [this] {
        const std::shared_ptr<const backend::TapSnapshot> snapshot = m_liveTaps->latest();
        if (!snapshot || snapshot->update == m_shownTapUpdate) return;
        m_shownTapUpdate = snapshot->update;
        const QString source = tr("dictation, update %1").arg(snapshot->update);
        for (const backend::TappedValue& value : snapshot->values) {
            if (value.filled) m_inspector->showTap(to_tap_value(value, nullptr, source));
        }
    });
    connect(m_crossAttention, &CrossAttentionWorker::tapsReady, m_inspector,
            [this](const QList<ui::TapValue>& values) {
                for (const ui::TapValue& value : values) m_inspector->showTap(value);
            });
    connect(this, &GuiController::modelLoaded, result, [this, result] {
        const auto& dims = m_model->checkpoint.binding.values.dims;
        result->setHeadChoices(static_cast<int>(dims.at("DecoderLayers")),
                               static_cast<int>(dims.at("Heads")));
        m_inspector->liveCrossAttention()->setHeadChoices(
            static_cast<int>(dims.at("DecoderLayers")), static_cast<int>(dims.at("Heads")));
    });
    // The live map: the inspector's choice is read by the decoding thread at each update, and
    // each update's map replaces the one shown.
    connect(m_inspector, &ui::InspectorWidget::liveCrossAttentionChanged, this,
            [this](bool open, int layer, int head) {
                m_liveMapChoice->layer = layer;
                m_liveMapChoice->head = head;
                m_liveMapChoice->keep = open;
            });
    connect(m_live, &LiveBridge::crossAttentionMap, m_inspector->liveCrossAttention(),
            &ui::LiveCrossAttentionPanel::showMap);
    // A clicked word plays out of its map's window, through the default output device.
    m_inspector->liveCrossAttention()->setWordPlayer(std::make_unique<WordAudioOutput>());
}

const decoding::Segment* GuiController::fileSegment(int job, int row) const {
    const decoding::Transcript* transcript = m_files->transcript(job);
    const QList<ui::SegmentRow> rows = m_filesQueue->jobSegments(job);
    if (transcript == nullptr || row < 0 || row >= rows.size()) return nullptr;
    for (const decoding::Segment& candidate : transcript->segments) {
        if (std::fabs(candidate.start_s - rows[row].startS) < 1e-6 &&
            QString::fromStdString(candidate.text).trimmed() == rows[row].text) {
            return &candidate;
        }
    }
    return nullptr;
}

void GuiController::requestTaps() {
    const QStringList open = m_inspector->openTaps();
    if (open.isEmpty()) return;
    const auto sayAll = [this, &open](const QString& message) {
        for (const QString& name : open) m_inspector->tapTabs()->showMessage(name, message);
    };
    if (m_live->isRunning()) return;  // the next dictation update fills them
    ui::FileResultView* result = m_window.filesPanel()->resultView();
    const ui::CrossAttentionRequest chosen = result->crossAttentionRequest();
    const int row = std::max(0, chosen.segment);
    const decoding::Segment* segment = chosen.job < 0 ? nullptr : fileSegment(chosen.job, row);
    if (segment == nullptr) {
        sayAll(
            tr("Waiting for an input: show a transcribed file on the Files page and select a "
               "segment (its window is tapped)."));
        return;
    }
    if (!m_model || m_files->isBusy()) {
        sayAll(tr("The model is busy (a file being transcribed)."));
        return;
    }
    std::vector<std::string> names;
    for (const QString& name : open) names.push_back(name.toStdString());
    const QString path = m_filesQueue->jobPath(chosen.job);
    const QString source =
        tr("%1, the window from %2 (segment %3)")
            .arg(QFileInfo(path).fileName(), ui::formatSegmentTime(segment->start_s))
            .arg(row + 1);
    m_files->setHeld(true);  // the model is the taps' until mapFinished
    m_crossAttention->requestTaps(m_model, names, path, *segment,
                                  m_files->transcript(chosen.job)->language, source);
}

void GuiController::requestCrossAttention(const ui::CrossAttentionRequest& request) {
    requestTaps();  // the open taps follow the selected window
    ui::FileResultView* result = m_window.filesPanel()->resultView();
    const decoding::Transcript* transcript = m_files->transcript(request.job);
    const QList<ui::SegmentRow> rows = m_filesQueue->jobSegments(request.job);
    if (transcript == nullptr || request.segment < 0 || request.segment >= rows.size()) {
        result->showCrossAttention(request, because(tr("The map needs the file's finished "
                                                       "transcript.")));
        return;
    }
    if (!m_model) {
        result->showCrossAttention(request, because(tr("No model is loaded.")));
        return;
    }
    if (m_live->isRunning() || m_files->isBusy()) {
        result->showCrossAttention(
            request, because(tr("The model is busy (dictation, or a file being transcribed): "
                                "select the segment again once it is free.")));
        return;
    }
    const decoding::Segment* segment = fileSegment(request.job, request.segment);
    if (segment == nullptr) {
        result->showCrossAttention(request, because(tr("This segment's tokens were not kept.")));
        return;
    }
    m_files->setHeld(true);  // the model is the map's until mapFinished
    m_crossAttention->requestMap(m_model, request, m_filesQueue->jobPath(request.job), *segment,
                                 transcript->language);
}

}  // namespace earshot::app
