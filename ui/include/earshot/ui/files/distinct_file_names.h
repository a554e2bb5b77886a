// Names for a list of files that tell them apart: the file name alone where it is unique, with as
// many parent folders as it takes where two queued files share a name ("a/speech.wav" and
// "b/speech.wav").
#pragma once

#include <QStringList>

namespace earshot::ui {

// One name per path, in order. A path equal to another (the same file queued twice) keeps the
// shortest name that tells it from every different path.
QStringList distinctFileNames(const QStringList& paths);

}  // namespace earshot::ui
