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

struct Argument
{
    QByteArray text;
    QString where; ///< "argument 3", "column 14": for error messages
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
    QString where;
};

/// The caller's extra options are taken before curl's. Errors: a value
/// missing, an ambiguous start of a name, a value given to a switch.
Result<QList<Item>> walk(const QList<Argument> &arguments, const QList<ExtraOption> &extraOptions);

/// A value as a shell would need it written: as is when plain, else in single quotes.
QString displayed(const QByteArray &value);

} // namespace CurlArguments

} // namespace RetryLab::Core
