// The file names "Export all" writes into one folder: each result is named after its input file
// and no two results get the same name.
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include "earshot/ui/files/file_job.h"

namespace earshot::ui {

// For each input (job id, the transcribed file's path), in order, and each of `formats`: a target
// in `folder`. An input is named after its base name (talk.mp3 -> talk.srt); inputs that share a
// base name keep their whole file name (talk.mp3.srt, talk.ogg.srt), and the same file name from
// two folders gets " (2)", " (3)"... on the later ones (talk.mp3 (2).srt). Names are compared
// without case, so that none overwrites another on a case-insensitive file system.
QList<ExportTarget> exportTargets(const QList<QPair<int, QString>>& inputs,
                                  const QStringList& formats, const QString& folder);

}  // namespace earshot::ui
