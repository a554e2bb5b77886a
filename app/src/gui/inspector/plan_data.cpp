// Engine -> plan table: the plan listing of an entry (backend::list_plan, as `earshot debug plan`
// computes it) turned into ui::PlanData with the command line's header, numbers and TOTAL line.
#include "gui/inspector/plan_data.h"

#include <QObject>
#include <QStringList>
#include <algorithm>
#include <memory>
#include <string>

namespace earshot::app {

namespace {

QString qs(const std::string& text) { return QString::fromStdString(text); }

QString human_bytes(int64_t bytes) { return qs(backend::plan_bytes_text(bytes)); }
QString human_flops(int64_t flops) { return qs(backend::plan_flops_text(flops)); }

QString operands(const std::vector<backend::PlanOperand>& list) {
    QStringList out;
    for (const backend::PlanOperand& operand : list) out << qs(operand.str());
    return out.join(QStringLiteral(", "));
}

// The first line of the listing's text without its "# ": entry, backend, rows, dtypes, views.
QString header_line(const backend::PlanListing& listing) {
    const std::string text = backend::plan_listing_text(listing);
    std::string first = text.substr(0, text.find('\n'));
    if (first.starts_with("# ")) first.erase(0, 2);
    return qs(first);
}

bool is_listed(const std::string& entry) {
    const auto& entries = backend::listed_entries();
    return std::find(entries.begin(), entries.end(), entry) != entries.end();
}

QString listed_names() {
    QStringList names;
    for (const std::string& entry : backend::listed_entries()) names << qs(entry);
    return names.join(QStringLiteral(", "));
}

}  // namespace

ui::PlanData plan_data(const backend::PlanListing& listing) {
    ui::PlanData data;
    data.entry = qs(listing.entry);
    data.backend = qs(std::string(backend::plan_backend_name(listing.backend)));
    data.rows = static_cast<int>(listing.rows);
    data.header = header_line(listing);
    data.kernels.reserve(static_cast<qsizetype>(listing.kernels.size()));
    for (const backend::PlanKernel& k : listing.kernels) {
        ui::PlanKernelRow row;
        row.kernel = qs(k.kernel);
        row.op = qs(k.op);
        row.scope = k.scope.empty() ? QStringLiteral("(entry)") : qs(k.scope);
        row.inputs = operands(k.inputs);
        row.outputs = operands(k.outputs);
        row.readBytes = k.read_bytes;
        row.writtenBytes = k.written_bytes;
        row.flops = k.flops;
        row.read = human_bytes(k.read_bytes);
        row.written = human_bytes(k.written_bytes);
        row.work = human_flops(k.flops);
        data.kernels.append(std::move(row));
    }
    data.total = qs(backend::plan_total_line(listing));
    return data;
}

ui::PlanProvider plan_provider(const model::WhisperBinding& binding) {
    auto kept = std::make_shared<const model::WhisperBinding>(binding);
    return [kept](const ui::PlanRequest& request) {
        ui::PlanData data;
        data.entry = request.entry;
        data.backend = request.backend;
        data.rows = request.rows;
        const std::string entry = request.entry.toStdString();
        if (!is_listed(entry)) {
            data.note = QObject::tr("No plan is listed for %1: `earshot debug plan` lists %2.")
                            .arg(request.entry, listed_names());
            return data;
        }
        const auto chosen = backend::parse_plan_backend(request.backend.toStdString());
        if (!chosen) {
            data.note = QObject::tr("No plan: the backend must be cpu or cuda, not \"%1\".")
                            .arg(request.backend);
            return data;
        }
        backend::PlanListingRequest listing_request;
        listing_request.entry = entry;
        listing_request.backend = *chosen;
        listing_request.rows = request.rows;
        try {
            return plan_data(backend::list_plan(*kept, listing_request));
        } catch (const backend::PlanListingError& error) {
            data.note = QObject::tr("No plan for %1: %2")
                            .arg(request.entry, QString::fromUtf8(error.what()));
            return data;
        }
    };
}

QString plan_backend(const LoadedModel& loaded) {
    // The CUDA decoder model names itself "CUDA (<device>)", the CPU's "CPU".
    const bool cuda = loaded.model != nullptr && loaded.model->backend_name().starts_with("CUDA");
    return cuda ? QStringLiteral("cuda") : QStringLiteral("cpu");
}

}  // namespace earshot::app
