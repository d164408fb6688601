#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::DocGen {

/// One option as `--help` lists it: "-o, --output <FILE>  The JSON report to write."
struct OptionHelp
{
    QStringList names; ///< with their dashes: "-o", "--output"
    QString valueName; ///< "FILE", empty for a switch
    QString description;
    /// The title of the list it is in, when the command lists some of its options
    /// after its arguments ("Request options, read as curl reads them"); empty for
    /// the list under "Options:".
    QString section;
};

/// A positional argument, or a command of the top level's list.
struct ItemHelp
{
    QString name;
    QString description;
};

/// What a command's `--help` says, read back from the text QCommandLineParser
/// writes: the one source the manual pages and the shell completions are made
/// from, so that an option added to a command's table appears in both.
class CommandHelp final
{
public:
    /// Reads `text`, the output of `PROGRAM [COMMAND] --help`. `program` replaces
    /// the path Qt puts in the top level's usage line.
    static CommandHelp parse(const QString &text, const QString &program);

    QStringList usage; ///< "retrylab run [options] FILE", one per form
    QStringList description; ///< paragraphs; lines of a paragraph that were indented keep their line breaks
    QList<OptionHelp> options;
    QList<ItemHelp> arguments;
    QList<ItemHelp> commands; ///< the top level's "Commands:" list
    QStringList epilogue; ///< paragraphs after the arguments (examples, notes), less their option lists

    /// The option named `name` ("--policy"), or nullptr.
    const OptionHelp *option(const QString &name) const;
};

} // namespace RetryLab::DocGen
