#pragma once

#include "app/docgen/commandhelp.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::DocGen {

/// A program's help: its top level and each of its commands'.
struct ProgramHelp
{
    QString program; ///< "retrylab" or "retrylab-cli"
    QString version; ///< "0.1.0"
    CommandHelp top;
    struct Command
    {
        QString name;
        CommandHelp help;
    };
    QList<Command> commands; ///< in the order the top level lists them
    QStringList presets; ///< what a policy option takes besides a file
};

/// What a value or a positional argument completes to, judged from the name the
/// help gives it ("F.json", "PRESET|FILE", "DIR") and its description.
struct CompletedValues
{
    enum Kind { Nothing, Files, Directories };
    Kind kind = Nothing;
    QStringList extensions; ///< "json": only files of these (and folders, to descend)
    bool presets = false; ///< the policy presets too
    QStringList words; ///< literal words (a command's actions: "export", "check")

    bool operator==(const CompletedValues &) const = default;
};

/// Completion scripts for bash, zsh and fish made from a program's help: its
/// commands, each command's options, the preset names where a policy is asked
/// for, and files by their extension where the help names one.
class ShellCompletion final
{
public:
    explicit ShellCompletion(ProgramHelp help);

    QString bash() const;
    QString zsh() const;
    QString fish() const;

    static CompletedValues valuesOf(const QString &valueName, const QString &description);
    /// What a command's positional arguments complete to: the lower-case words of
    /// its usage forms after the command (actions), and its arguments' files.
    static CompletedValues positionalOf(const QString &command, const CommandHelp &help);

private:
    ProgramHelp m_help;
};

} // namespace RetryLab::DocGen
