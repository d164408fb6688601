#pragma once

#include "core/import/curlcommandline.h"
#include "core/import/curloptiontable.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// curl's arguments as options and positional words, the way curl 7.88 reads
/// them: clusters of one-letter switches (`-sSL`), values attached or in the
/// next argument (`-XPUT`, `-X PUT`; a value is taken even when it starts with
/// a dash), unique starts of long names (`--retry-conn`), `--no-` before a
/// switch, `--` ending the options. `--name=value` is read too, which curl does
/// not do, because GNU-style programs (retrylab among them) do.
namespace CurlArguments {

using ExtraOption = CurlCommandLine::ExtraOption;

/// Where an argument is, for an error about it.
struct Place
{
    QString text; ///< "argument 3", "column 14": as people read it, the error's path
    qsizetype offset = -1; ///< where it starts in a pasted line; -1 for arguments given one by one

    Error error(const QString &message) const { return {text, message, offset}; }
};

struct Argument
{
    QByteArray text;
    Place where;
};

/// One option (with its value) or positional word, in order.
struct Item
{
    enum class Kind { Extra, Curl, Positional };
    Kind kind = Kind::Positional;
    const ExtraOption *extra = nullptr; ///< Kind::Extra
    const CurlOptionTable::Entry *entry = nullptr; ///< Kind::Curl; null for a word curl does not know
    bool negated = false; ///< --no-NAME
    QString written; ///< the option as written ("-X", "--retry-conn"), or the word
    QByteArray value;
    Place where;
};

/// The caller's extra options are taken before curl's. Errors: a value
/// missing, an ambiguous start of a name, a value given to a switch.
Result<QList<Item>> walk(const QList<Argument> &arguments, const QList<ExtraOption> &extraOptions);

} // namespace CurlArguments

} // namespace RetryLab::Core
