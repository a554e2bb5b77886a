// The man page earshot(1), written from the command line's own CLI11 definitions, so the two
// cannot disagree.
#include "cli/man_page.h"

#include <sstream>

namespace earshot::app {

namespace {

// "--model PATH" / "-j, --jobs N" as the option is spelled on the command line.
std::string option_synopsis(const CLI::Option& option) {
    std::string names;
    for (const std::string& s : option.get_snames()) {
        names += (names.empty() ? "" : ", ") + std::string("\\fB\\-") + troff_escape(s) + "\\fR";
    }
    for (const std::string& l : option.get_lnames()) {
        names += (names.empty() ? "" : ", ") + std::string("\\fB\\-\\-") + troff_escape(l) + "\\fR";
    }
    if (option.get_positional()) {
        names = "\\fI" + troff_escape(option.get_name()) + "\\fR";
        if (option.get_items_expected_max() > 1) names += " ...";
        return names;
    }
    if (option.get_type_size() != 0 && option.get_items_expected_max() != 0) {
        std::string type = option.get_type_name();
        if (type.empty()) type = "VALUE";
        names += " \\fI" + troff_escape(type) + "\\fR";
    }
    return names;
}

void write_options(std::ostringstream& page, const CLI::App& app) {
    for (const CLI::Option* option : app.get_options()) {
        if (option->get_group().empty()) continue;  // hidden
        if (option->get_name() == "--help" || option->get_name() == "-h,--help") continue;
        page << ".TP\n" << option_synopsis(*option) << "\n";
        std::string description = option->get_description();
        if (!option->get_default_str().empty()) {
            description += " (default: " + option->get_default_str() + ")";
        }
        if (option->get_required()) description += " (required)";
        page << troff_escape(description) << "\n";
    }
}

void write_command(std::ostringstream& page, const CLI::App& app, const std::string& path) {
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) {
             return !a->get_group().empty();  // an empty group hides a subcommand
         })) {
        const std::string name = path + " " + sub->get_name();
        page << ".SS \"" << troff_escape(name) << "\"\n";
        page << troff_escape(sub->get_description()) << "\n";
        write_options(page, *sub);
        write_command(page, *sub, name);
    }
}

}  // namespace

std::string troff_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            out += "\\-";
        } else if (c == '\n') {
            out += "\n.br\n";
        } else {
            out += c;
        }
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
    return out;
}

std::string render_man_page(const CLI::App& root, std::string_view version) {
    std::ostringstream page;
    page << ".TH EARSHOT 1 \"\" \"earshot " << troff_escape(version) << "\" \"User Commands\"\n";
    page << ".SH NAME\nearshot \\- Whisper dictation and transcription, and a look inside the "
            "model\n";
    page << ".SH SYNOPSIS\n.B earshot\n[\\fB\\-\\-model\\fR \\fIPATH\\fR]\n.br\n"
            ".B earshot\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n.br\n"
            ".B earshot\n\\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR\n";
    page << ".SH DESCRIPTION\n"
         << troff_escape(root.get_description()) << "\n.PP\n"
         << troff_escape(root.get_footer()) << "\n";
    page << ".SH OPTIONS\n";
    write_options(page, root);
    page << ".TP\n\\fB\\-\\-help\\fR\nPrint the help of earshot or of one command.\n";
    page << ".SH COMMANDS\n";
    write_command(page, root, "earshot");
    page << ".SH FILES\n.TP\n\\fI/usr/share/earshot/models/micro\\fR\n"
            "The embedded micro model, opened when no other model is chosen (a demo model that "
            "knows about 200 English words spoken by espeak\\-ng voices).\n";
    page << ".SH EXIT STATUS\n0 on success, 2 for a usage error or unreadable input, another "
            "non\\-zero status when a command fails.\n";
    return page.str();
}

}  // namespace earshot::app
