// GuiController's part of the Inspector's "Compare runs": what the dialog offers (the loaded
// model, CUDA, the Files page's window), the chosen comparison handed to CompareWorker, and its
// progress and result shown in the inspector.
#include <QFileInfo>
#include <algorithm>

#include "earshot/ui/files/file_job.h"
#include "earshot/ui/files/file_result_view.h"
#include "earshot/ui/files/files_panel.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/inspector/inspector_widget.h"
#include "earshot/ui/main_window.h"
#include "gui/cuda_availability.h"
#include "gui/files/files_worker.h"
#include "gui/gui_controller.h"
#include "gui/inspector/compare_worker.h"

namespace earshot::app {

void GuiController::connectCompare() {
    m_compare = new CompareWorker(this);
    m_inspector->setCompareOfferProvider([this] {
        ui::CompareOffer offer;
        if (m_model) offer.modelA = m_modelPath.isEmpty() ? tr("the loaded model") : m_modelPath;
        const ui::CudaAvailability cuda = cuda_availability();
        offer.cudaAvailable = cuda.available;
        offer.cudaWhyNot = cuda.detail;
        const ui::CrossAttentionRequest chosen =
            m_window.filesPanel()->resultView()->crossAttentionRequest();
        if (chosen.job >= 0 && !m_filesQueue->jobPath(chosen.job).isEmpty()) {
            const decoding::Segment* segment = fileSegment(chosen.job, std::max(0, chosen.segment));
            const QString name = QFileInfo(m_filesQueue->jobPath(chosen.job)).fileName();
            offer.filesPageInput = segment == nullptr
                                       ? tr("%1, its first window").arg(name)
                                       : tr("%1, the window from %2")
                                             .arg(name, ui::formatSegmentTime(segment->start_s));
        }
        return offer;
    });
    connect(m_inspector, &ui::InspectorWidget::compareRequested, this,
            &GuiController::startCompare);
    connect(m_inspector, &ui::InspectorWidget::compareCancelled, m_compare, &CompareWorker::cancel);
    connect(m_compare, &CompareWorker::progress, m_inspector,
            &ui::InspectorWidget::showCompareRunning);
    connect(m_compare, &CompareWorker::finished, m_inspector, &ui::InspectorWidget::showComparison);
    connect(m_inspector, &ui::InspectorWidget::compareBlockRequested, m_compare,
            &CompareWorker::computeBlock);
    connect(m_compare, &CompareWorker::blockComputed, m_inspector,
            &ui::InspectorWidget::showComparedBlock);
}

void GuiController::startCompare(const ui::CompareChoice& choice) {
    CompareJob job;
    job.model_path = m_model ? m_modelPath.toStdString() : std::string();
    job.backend_a = choice.backendA.toStdString();
    job.backend_b = choice.backendB.toStdString();
    job.model_b = choice.modelB.toStdString();
    job.decoder = choice.decoder;
    job.threads_a = choice.threadsA;
    job.threads_b = choice.threadsB;
    job.budget_bytes = int64_t{std::max(1, choice.budgetMib)} << 20;
    switch (choice.input) {
        case ui::CompareChoice::Input::filesPage: {
            const ui::CrossAttentionRequest chosen =
                m_window.filesPanel()->resultView()->crossAttentionRequest();
            const QString path = chosen.job >= 0 ? m_filesQueue->jobPath(chosen.job) : QString();
            const decoding::Segment* segment =
                path.isEmpty() ? nullptr : fileSegment(chosen.job, std::max(0, chosen.segment));
            job.audio_path = path.toStdString();
            job.start_s = segment == nullptr ? 0.0 : segment->start_s;
            job.input_label = path.isEmpty() ? QString()
                                             : tr("%1 from %2")
                                                   .arg(QFileInfo(path).fileName(),
                                                        ui::formatSegmentTime(job.start_s));
            if (path.isEmpty()) {
                ui::RunComparison none;
                none.error = tr("the Files page shows no file: choose an audio file instead");
                m_inspector->showComparison(none);
                return;
            }
            break;
        }
        case ui::CompareChoice::Input::audioFile:
            job.audio_path = choice.inputPath.toStdString();
            job.input_label = tr("%1, first window").arg(QFileInfo(choice.inputPath).fileName());
            break;
        case ui::CompareChoice::Input::melFile:
            job.mel_path = choice.inputPath.toStdString();
            job.input_label = QFileInfo(choice.inputPath).fileName();
            break;
    }
    m_inspector->showCompareRunning(tr("Starting the comparison\u2026"), 0, 3);
    m_compare->start(std::move(job));
}

}  // namespace earshot::app
