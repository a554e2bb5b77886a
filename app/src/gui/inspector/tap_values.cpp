// tap_values: a TapSet on the model for one listen, prefill and step; the values converted to
// ui::TapValue with the symbolic types of the entries' tappable edges.
#include "gui/inspector/tap_values.h"

#include <QObject>
#include <algorithm>

#include "earshot/engine/model/whisper_binding.h"

namespace earshot::app {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The edge named `name` in any tappable entry of `binding` (encode first), or null.
const backend::TappableEdge* edgeNamed(const std::vector<std::vector<backend::TappableEdge>>& lists,
                                       const std::string& name) {
    for (const auto& list : lists) {
        if (const backend::TappableEdge* edge = backend::find_edge(list, name)) return edge;
    }
    return nullptr;
}

}  // namespace

ui::TapValue to_tap_value(const backend::TappedValue& tapped, const backend::TappableEdge* edge,
                          const QString& source) {
    ui::TapValue value;
    value.name = qs(tapped.name);
    value.title = value.name;
    if (edge != nullptr) value.symbolicType = qs(edge->symbolic_type);
    if (!tapped.filled) {
        value.error = QObject::tr("%1 was not computed on this input.").arg(value.name);
        return value;
    }
    value.dtype = qs(tapped.dtype);
    for (int64_t d : tapped.tensor.shape()) value.shape.append(d);
    const std::span<const float> values = tapped.tensor.f32_values();
    value.values.assign(values.begin(), values.end());
    value.source = tapped.position >= 0 ? QObject::tr("%1 · %2 at position %3")
                                              .arg(source, qs(tapped.entry))
                                              .arg(tapped.position)
                                        : QObject::tr("%1 · %2").arg(source, qs(tapped.entry));
    return value;
}

QList<ui::TapValue> run_taps(LoadedModel& loaded, const std::vector<std::string>& names,
                             const backend::HostTensor& window_mel, std::span<const int32_t> prompt,
                             const QString& source) {
    decoding::DecoderModel& model = *loaded.model;
    QList<ui::TapValue> out;
    if (!model.taps_supported()) {
        for (const std::string& name : names) {
            ui::TapValue value;
            value.name = value.title = qs(name);
            value.error =
                QObject::tr("The %1 backend cannot tap values.").arg(qs(model.backend_name()));
            out.append(value);
        }
        return out;
    }
    std::vector<std::vector<backend::TappableEdge>> lists;
    for (const std::string& entry : backend::tappable_entries()) {
        lists.push_back(backend::list_tappable_edges(loaded.checkpoint.binding, entry));
    }
    // A decoder value is taken from the prefill; one step runs only for a value the prefill
    // does not have (a step's own name), so that a step never overwrites a prefill's value.
    bool decoder = false;
    bool step_only = false;
    const auto has = [&](const std::string& entry, const std::string& name) {
        const auto& entries = backend::tappable_entries();
        const auto at = std::find(entries.begin(), entries.end(), entry);
        return at != entries.end() &&
               backend::find_edge(lists[static_cast<size_t>(at - entries.begin())], name) !=
                   nullptr;
    };
    for (const std::string& name : names) {
        const bool prefill = has("prefill", name);
        const bool step = has("step", name);
        decoder = decoder || prefill || step;
        step_only = step_only || (step && !prefill);
    }

    backend::TapSet taps(names);
    struct Detach {
        decoding::DecoderModel& model;
        ~Detach() { model.set_taps(nullptr); }
    } detach{model};
    // Attaching the taps makes the model forget the window it heard last (the cross-attention
    // map may have just listened to this one), so that this listen runs and fills them.
    model.set_taps(&taps);
    model.listen(window_mel);
    if (decoder && !prompt.empty()) {
        const auto length = static_cast<int64_t>(prompt.size());
        model.prefill(backend::HostTensor::i32({1, length},
                                               std::vector<int32_t>(prompt.begin(), prompt.end())));
        if (step_only && length < model.max_tokens()) {
            model.step(backend::HostTensor::i32({1, 1}, {loaded.tokenizer.specials().eot}),
                       static_cast<int32_t>(length));
        }
    }
    for (const backend::TappedValue& tapped : taps.values()) {
        out.append(to_tap_value(tapped, edgeNamed(lists, tapped.name), source));
    }
    return out;
}

}  // namespace earshot::app
