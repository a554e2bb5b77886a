// `earshot gui [--model PATH] [--vocab PATH] [--backend auto|cpu|cuda] [--transcribe FILE...]
// [--screenshot FILE.png [--view live|files|model|inspector|graph:ENTRY]]`: the GUI from the
// command line, or a PNG of one of its pages (offscreen works) for docs, tests and bug reports.
#include <memory>
#include <ostream>

#include "cli/command_registry.h"
#include "gui/run_gui.h"

namespace earshot::app {

ExtraCommand add_gui(CLI::App& root) {
    auto request = std::make_shared<GuiRequest>();
    GuiRequest& r = *request;
    CLI::App* command = root.add_subcommand(
        "gui", "Start the graphical interface (the same as `earshot` alone), or render it to PNG");
    command->add_option("--model", r.model,
                        "Checkpoint to open (HF directory, .safetensors or ggml .bin); default: "
                        "the last one chosen, else the built-in micro model");
    command->add_option("--vocab", r.vocabulary,
                        "Vocabulary (.tiktoken, HF directory or ggml .bin); default: the model's");
    command->add_option("--transcribe", r.transcribe, "Audio files to queue on the Files page");
    command->add_flag("--hidden", r.hidden,
                      "Start in the tray, without the window (as the autostart entry does); "
                      "the window shows when the desktop has no tray");
    command->add_option("--screenshot", r.screenshot,
                        "Render the window to this PNG and exit (after the queued files are done)");
    command
        ->add_option("--view", r.view,
                     "The page to show: live, files, model, inspector or graph:ENTRY")
        ->capture_default_str();
    command
        ->add_option("--backend", r.backend,
                     "auto, cpu or cuda for this run (see `earshot gpus`); default: the Settings "
                     "choice. CUDA that cannot run falls back to the CPU with a message")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    return {command, [request](std::ostream& /*out*/, std::ostream& err) {
                return run_gui_request(*request, err);
            }};
}

}  // namespace earshot::app
