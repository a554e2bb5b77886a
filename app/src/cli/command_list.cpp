// The list of extra subcommands: one line per command, each defined in its own file.
#include "cli/command_registry.h"

namespace earshot::app {

ExtraCommand add_transcribe(CLI::App& root);       // command_transcribe.cpp
ExtraCommand add_live(CLI::App& root);             // command_live.cpp
ExtraCommand add_models(CLI::App& root);           // command_models.cpp
ExtraCommand add_make_checkpoint(CLI::App& root);  // command_make_checkpoint.cpp
ExtraCommand add_debug_mel(CLI::App& root);        // command_debug_mel.cpp
ExtraCommand add_devices(CLI::App& root);          // command_devices.cpp
ExtraCommand add_gpus(CLI::App& root);             // command_gpus.cpp
ExtraCommand add_bench(CLI::App& root);            // command_bench.cpp
ExtraCommand add_debug_record(CLI::App& root);     // command_debug_record.cpp
ExtraCommand add_debug_encode(CLI::App& root);     // command_debug_model.cpp
ExtraCommand add_debug_logits(CLI::App& root);     // command_debug_model.cpp
ExtraCommand add_debug_tokens(CLI::App& root);     // command_debug_tokens.cpp
ExtraCommand add_debug_plan(CLI::App& root);       // command_debug_plan.cpp
ExtraCommand add_debug_tap(CLI::App& root);        // command_debug_tap.cpp
ExtraCommand add_debug_compare(CLI::App& root);    // command_debug_compare.cpp
ExtraCommand add_gui(CLI::App& root);              // gui_command.cpp
ExtraCommand add_serve(CLI::App& root);            // command_serve.cpp
ExtraCommand add_watch(CLI::App& root);            // command_watch.cpp

const std::vector<CommandAdder>& extra_commands() {
    // One command a line, in `earshot --help` order.
    // clang-format off
    static const std::vector<CommandAdder> adders{
        add_gui,
        add_transcribe,
        add_live,
        add_serve,
        add_watch,
        add_models,
        add_devices,
        add_gpus,
        add_bench,
        add_make_checkpoint,
        add_debug_mel,
        add_debug_record,
        add_debug_encode,
        add_debug_logits,
        add_debug_tokens,
        add_debug_plan,
        add_debug_tap,
        add_debug_compare,
    };
    // clang-format on
    return adders;
}

CLI::App& debug_group(CLI::App& root) {
    for (CLI::App* sub :
         root.get_subcommands([](CLI::App* a) { return a->get_name() == "debug"; })) {
        return *sub;
    }
    CLI::App* debug =
        root.add_subcommand("debug", "Interop and checking tools (NumPy .npy in and out)");
    debug->require_subcommand(1);
    return *debug;
}

}  // namespace earshot::app
