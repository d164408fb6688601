#pragma once

#include "core/import/curlarguments.h"
#include "core/import/curlcommandline.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// The half of CurlCommandLine that reads curl's arguments once the shell's
/// work is done (words split, standard input known): options to a request.
/// CurlCommandLine::parse() and parseArguments() are its users; the table of
/// options it carries out lives here, and only here.
namespace CurlRequestReader {

using Argument = CurlArguments::Argument;

/// The request the arguments describe.
Result<ImportedRequest> read(const QList<Argument> &arguments, const CurlCommandLine::Options &options);

/// A file named in the command line, relative to Options::baseDirectory, with
/// an error naming `option` and `where` when it cannot be read.
Result<QByteArray> readFile(const QString &path, const CurlCommandLine::Options &options,
    const CurlArguments::Place &where, const QString &option);

QList<CurlCommandLine::OptionHelp> optionHelp();

} // namespace CurlRequestReader

} // namespace RetryLab::Core
