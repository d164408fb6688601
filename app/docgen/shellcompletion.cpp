#include "app/docgen/shellcompletion.h"

#include <QRegularExpression>
#include <QTextStream>

#include <utility>

namespace RetryLab::DocGen {

namespace {

// A shell function or variable name from the program's: retrylab-cli -> retrylab_cli.
QString identifier(const QString &program)
{
    QString name = program;
    name.replace(QLatin1Char('-'), QLatin1Char('_'));
    return name;
}

// The first sentence of a description, for the one-line explanations zsh and fish show.
QString firstSentence(const QString &text)
{
    static const QRegularExpression end(QStringLiteral(R"(\.(\s|$))"));
    const auto match = end.match(text);
    QString sentence = match.hasMatch() ? text.left(match.capturedStart()) : text;
    return sentence.simplified();
}

// Inside single quotes of sh, bash and zsh: ' becomes '\''.
QString singleQuotedSh(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

// Inside single quotes of fish: \ and ' escaped with a backslash.
QString singleQuotedFish(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    quoted.replace(QLatin1Char('\''), QStringLiteral("\\'"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

// An explanation in zsh's _arguments: [ ] and : have meanings there.
QString zshExplanation(const QString &text)
{
    QString explanation = firstSentence(text);
    explanation.replace(QLatin1Char('['), QLatin1Char('('));
    explanation.replace(QLatin1Char(']'), QLatin1Char(')'));
    explanation.replace(QLatin1Char(':'), QLatin1Char(' '));
    return explanation;
}

bool isFileWord(const QString &word)
{
    static const QStringList words{QStringLiteral("FILE"), QStringLiteral("F"), QStringLiteral("COLLECTION"),
        QStringLiteral("SCENARIO"), QStringLiteral("REPORT"), QStringLiteral("PATH")};
    return words.contains(word);
}

bool isFolderWord(const QString &word)
{
    return word == QLatin1String("DIR") || word == QLatin1String("FOLDER");
}

bool isPresetWord(const QString &word)
{
    return word == QLatin1String("P") || word == QLatin1String("ID") || word == QLatin1String("PRESET");
}

QStringList optionNames(const CommandHelp &help)
{
    QStringList names;
    for (const OptionHelp &option : help.options)
        names.append(option.names);
    return names;
}

// bash: the case arm of one command.
void writeBashCommand(QTextStream &out, const QString &fn, const QString &name, const CommandHelp &help)
{
    out << "        " << name << ")\n";
    out << "            options=" << singleQuotedSh(optionNames(help).join(QLatin1Char(' '))) << '\n';
    out << "            case $prev in\n";
    for (const OptionHelp &option : help.options) {
        if (option.valueName.isEmpty())
            continue;
        const CompletedValues values = ShellCompletion::valuesOf(option.valueName, option.description);
        out << "                " << option.names.join(QLatin1Char('|')) << ")\n";
        if (values.presets)
            out << "                    " << fn << "_presets\n";
        if (values.kind != CompletedValues::Nothing)
            out << "                    " << fn << "_files " << singleQuotedSh(values.extensions.join(QLatin1Char(' ')))
                << (values.kind == CompletedValues::Directories ? " dirs" : "") << '\n';
        out << "                    return ;;\n";
    }
    out << "            esac\n";
    const CompletedValues positional = ShellCompletion::positionalOf(name, help);
    if (!positional.words.isEmpty()) {
        out << "            if (( cword == 2 )) && [[ $cur != -* ]]; then\n";
        out << "                COMPREPLY=($(compgen -W " << singleQuotedSh(positional.words.join(QLatin1Char(' ')))
            << " -- \"$cur\"))\n                return\n            fi\n";
    }
    if (positional.kind != CompletedValues::Nothing)
        out << "            positional=" << singleQuotedSh(positional.extensions.join(QLatin1Char(' '))) << '\n';
    out << "            ;;\n";
}

void writeZshValues(QTextStream &out, const CompletedValues &values, const QString &message, const QStringList &presets)
{
    QString clean = message;
    clean.replace(QLatin1Char(':'), QLatin1Char(' '));
    out << ':' << clean << ':';
    QStringList actions;
    if (values.presets)
        actions.append(QStringLiteral("compadd -- ") + presets.join(QLatin1Char(' ')));
    if (values.kind == CompletedValues::Directories) {
        actions.append(QStringLiteral("_files -/"));
    } else if (values.kind == CompletedValues::Files) {
        if (values.extensions.isEmpty())
            actions.append(QStringLiteral("_files"));
        for (const QString &extension : values.extensions)
            actions.append(QStringLiteral("_files -g \\*.") + extension);
    }
    if (!actions.isEmpty())
        out << '{' << actions.join(QStringLiteral("; ")) << '}';
}

} // namespace

ShellCompletion::ShellCompletion(ProgramHelp help) : m_help(std::move(help))
{ }

CompletedValues ShellCompletion::valuesOf(const QString &valueName, const QString &description)
{
    CompletedValues values;
    static const QRegularExpression extension(QStringLiteral(R"(\.([A-Za-z0-9]+)$)"));
    const bool saysJson
        = description.contains(QLatin1String("JSON")) || description.contains(QLatin1String("format retrylab-"));
    bool anyFile = false;
    for (QString word : valueName.split(QLatin1Char('|'), Qt::SkipEmptyParts)) {
        word = word.trimmed();
        word.remove(QStringLiteral("..."));
        if (const auto match = extension.match(word); match.hasMatch()) {
            values.kind = CompletedValues::Files;
            if (!values.extensions.contains(match.captured(1)))
                values.extensions.append(match.captured(1));
        } else if (isFileWord(word.toUpper())) {
            values.kind = CompletedValues::Files;
            anyFile = true;
        } else if (isFolderWord(word.toUpper())) {
            if (values.kind == CompletedValues::Nothing)
                values.kind = CompletedValues::Directories;
        } else if (isPresetWord(word)) {
            values.presets = true;
        }
    }
    // A policy file beside a preset is JSON; so is a FILE the description calls JSON.
    if (anyFile && values.extensions.isEmpty() && (values.presets || saysJson))
        values.extensions.append(QStringLiteral("json"));
    else if (anyFile)
        values.extensions.clear(); // a file of any name is among the choices
    return values;
}

CompletedValues ShellCompletion::positionalOf(const QString &command, const CommandHelp &help)
{
    CompletedValues values;
    // The words of each usage form after "retrylab COMMAND": an action in lower case,
    // or the names of the positional arguments.
    QStringList names;
    for (const QString &usage : help.usage) {
        const QStringList words = usage.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const qsizetype at = words.indexOf(command);
        if (at < 0)
            continue;
        bool inOptional = false;
        for (qsizetype i = at + 1; i < words.size(); ++i) {
            const QString &word = words.at(i);
            if (word.startsWith(QLatin1Char('['))) {
                inOptional = !word.endsWith(QLatin1Char(']'));
                continue;
            }
            if (inOptional) {
                inOptional = !word.endsWith(QLatin1Char(']'));
                continue;
            }
            if (word.startsWith(QLatin1Char('-'))) {
                ++i; // its value
                continue;
            }
            if (i == at + 1 && word == word.toLower() && word.front().isLetter()) {
                if (!values.words.contains(word))
                    values.words.append(word);
                continue;
            }
            if (word == word.toUpper() || word.contains(QLatin1Char('.')) || word.contains(QLatin1Char('|')))
                names.append(word);
        }
    }
    QString description;
    for (const ItemHelp &argument : help.arguments) {
        description += argument.description + QLatin1Char(' ');
        if (names.isEmpty())
            names.append(argument.name.toUpper());
    }
    for (const QString &name : std::as_const(names)) {
        const CompletedValues part = valuesOf(name, description);
        if (part.kind == CompletedValues::Nothing)
            continue;
        if (values.kind != CompletedValues::Files)
            values.kind = part.kind;
        // Any file beats a list of extensions.
        if (part.kind == CompletedValues::Files && part.extensions.isEmpty())
            values.extensions = {QString()};
        for (const QString &extension : part.extensions) {
            if (!values.extensions.contains(extension) && !values.extensions.contains(QString()))
                values.extensions.append(extension);
        }
    }
    if (values.extensions == QStringList{QString()})
        values.extensions.clear();
    return values;
}

QString ShellCompletion::bash() const
{
    const QString fn = QLatin1Char('_') + identifier(m_help.program);
    QStringList commandNames;
    for (const auto &command : m_help.commands)
        commandNames.append(command.name);

    QString text;
    QTextStream out(&text);
    out << "# bash completion for " << m_help.program << "                -*- shell-script -*-\n"
        << "# Made from the --help of " << m_help.program << ' ' << m_help.version
        << " by retrylab-docgen at build time.\n\n";
    out << fn << "_files()\n{\n"
        << "    # $1: extensions (none: any file); $2: \"dirs\" for folders only\n"
        << "    local IFS=$'\\n' extension\n"
        << "    compopt -o filenames 2>/dev/null\n"
        << "    if [[ $2 == dirs ]]; then\n"
        << "        COMPREPLY+=($(compgen -d -- \"$cur\"))\n"
        << "    elif [[ -z $1 ]]; then\n"
        << "        COMPREPLY+=($(compgen -f -- \"$cur\"))\n"
        << "    else\n"
        << "        COMPREPLY+=($(compgen -d -- \"$cur\"))\n"
        << "        for extension in $(IFS=' '; printf '%s\\n' $1); do\n"
        << "            COMPREPLY+=($(compgen -f -X \"!*.$extension\" -- \"$cur\"))\n"
        << "        done\n"
        << "    fi\n}\n\n";
    out << fn << "_presets()\n{\n"
        << "    COMPREPLY+=($(compgen -W " << singleQuotedSh(m_help.presets.join(QLatin1Char(' ')))
        << " -- \"$cur\"))\n}\n\n";
    out << fn << "()\n{\n"
        << "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cword=$COMP_CWORD\n"
        << "    local command=${COMP_WORDS[1]} options positional=none\n"
        << "    COMPREPLY=()\n"
        << "    if (( cword == 1 )); then\n"
        << "        COMPREPLY=($(compgen -W "
        << singleQuotedSh((commandNames + optionNames(m_help.top)).join(QLatin1Char(' '))) << " -- \"$cur\"))\n";
    // The window's own files (`retrylab FILE`) beside the commands.
    if (const CompletedValues files = positionalOf(m_help.program, m_help.top); files.kind != CompletedValues::Nothing)
        out << "        [[ $cur == -* ]] || " << fn << "_files "
            << singleQuotedSh(files.extensions.join(QLatin1Char(' '))) << '\n';
    out << "        return\n    fi\n"
        << "    case $command in\n";
    for (const auto &command : m_help.commands)
        writeBashCommand(out, fn, command.name, command.help);
    out << "        *) return ;;\n    esac\n"
        << "    if [[ $cur == -* ]]; then\n"
        << "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
        << "    elif [[ $positional != none ]]; then\n"
        << "        " << fn << "_files \"$positional\"\n"
        << "    fi\n"
        << "}\n"
        << "complete -F " << fn << ' ' << m_help.program << '\n';
    out.flush();
    return text;
}

QString ShellCompletion::zsh() const
{
    const QString fn = QLatin1Char('_') + identifier(m_help.program);
    QString text;
    QTextStream out(&text);
    out << "#compdef " << m_help.program << '\n'
        << "# Made from the --help of " << m_help.program << ' ' << m_help.version
        << " by retrylab-docgen at build time.\n\n";
    out << fn << "() {\n    local -a commands\n    commands=(\n";
    for (const auto &command : m_help.commands) {
        const QString summary = m_help.top.commands.isEmpty() ? QString() : [&] {
            for (const ItemHelp &item : m_help.top.commands) {
                if (item.name == command.name)
                    return item.description;
            }
            return QString();
        }();
        out << "        " << singleQuotedSh(command.name + QLatin1Char(':') + zshExplanation(summary)) << '\n';
    }
    out << "    )\n"
        << "    if (( CURRENT == 2 )); then\n"
        << "        _describe -t commands " << singleQuotedSh(m_help.program + QStringLiteral(" command"))
        << " commands\n";
    for (const OptionHelp &option : m_help.top.options)
        out << "        compadd -- " << option.names.join(QLatin1Char(' ')) << '\n';
    out << "        return\n    fi\n"
        << "    local command=$words[2]\n"
        << "    shift words\n    (( CURRENT-- ))\n"
        << "    case $command in\n";
    for (const auto &command : m_help.commands) {
        out << "        " << command.name << ")\n            _arguments -S";
        for (const OptionHelp &option : command.help.options) {
            for (const QString &name : option.names) {
                QString spec;
                QTextStream specOut(&spec);
                specOut << '*' << name << '[' << zshExplanation(option.description) << ']';
                if (!option.valueName.isEmpty())
                    writeZshValues(
                        specOut, valuesOf(option.valueName, option.description), option.valueName, m_help.presets);
                specOut.flush();
                out << " \\\n                " << singleQuotedSh(spec);
            }
        }
        const CompletedValues positional = positionalOf(command.name, command.help);
        if (!positional.words.isEmpty()) {
            out << " \\\n                "
                << singleQuotedSh(
                       QStringLiteral("1:action:(") + positional.words.join(QLatin1Char(' ')) + QLatin1Char(')'));
        }
        if (positional.kind != CompletedValues::Nothing) {
            QString spec;
            QTextStream specOut(&spec);
            specOut << '*';
            writeZshValues(specOut, positional, QStringLiteral("file"), m_help.presets);
            specOut.flush();
            out << " \\\n                " << singleQuotedSh(spec);
        }
        out << "\n            ;;\n";
    }
    out << "    esac\n}\n\n" << fn << " \"$@\"\n";
    out.flush();
    return text;
}

QString ShellCompletion::fish() const
{
    const QString c = QStringLiteral("complete -c ") + m_help.program;
    QString text;
    QTextStream out(&text);
    out << "# fish completion for " << m_help.program << '\n'
        << "# Made from the --help of " << m_help.program << ' ' << m_help.version
        << " by retrylab-docgen at build time.\n\n";
    QStringList commandNames;
    for (const auto &command : m_help.commands)
        commandNames.append(command.name);
    const QString noCommand = QStringLiteral("not __fish_seen_subcommand_from ") + commandNames.join(QLatin1Char(' '));
    out << c << " -f\n";
    for (const ItemHelp &item : m_help.top.commands) {
        if (!commandNames.contains(item.name))
            continue;
        out << c << " -n " << singleQuotedFish(noCommand) << " -a " << item.name << " -d "
            << singleQuotedFish(firstSentence(item.description)) << '\n';
    }
    const auto optionFlags = [](const OptionHelp &option) {
        QString flags;
        for (const QString &name : option.names) {
            if (name.startsWith(QLatin1String("--")))
                flags += QStringLiteral(" -l ") + name.mid(2);
            else
                flags += (name.size() == 2 ? QStringLiteral(" -s ") : QStringLiteral(" -o ")) + name.mid(1);
        }
        return flags;
    };
    for (const OptionHelp &option : m_help.top.options)
        out << c << " -n " << singleQuotedFish(noCommand) << optionFlags(option) << " -d "
            << singleQuotedFish(firstSentence(option.description)) << '\n';

    const auto valueArguments = [this](const CompletedValues &values) {
        QStringList arguments;
        if (values.presets)
            arguments.append(m_help.presets.join(QLatin1Char(' ')));
        for (const QString &extension : values.extensions)
            arguments.append(QStringLiteral("(__fish_complete_suffix .") + extension + QLatin1Char(')'));
        if (values.kind == CompletedValues::Directories)
            arguments.append(QStringLiteral("(__fish_complete_directories)"));
        else if (values.kind == CompletedValues::Files && values.extensions.isEmpty())
            arguments.append(QStringLiteral("(__fish_complete_path)"));
        return arguments.join(QLatin1Char(' '));
    };
    for (const auto &command : m_help.commands) {
        const QString when = singleQuotedFish(QStringLiteral("__fish_seen_subcommand_from ") + command.name);
        for (const OptionHelp &option : command.help.options) {
            out << c << " -n " << when << optionFlags(option);
            if (!option.valueName.isEmpty()) {
                // -k: fish lists files of the extension first, then the others (__fish_complete_suffix).
                const CompletedValues values = valuesOf(option.valueName, option.description);
                out << (values.extensions.isEmpty() ? " -x" : " -x -k");
                if (const QString arguments = valueArguments(values); !arguments.isEmpty())
                    out << " -a " << singleQuotedFish(arguments);
            }
            out << " -d " << singleQuotedFish(firstSentence(option.description)) << '\n';
        }
        const CompletedValues positional = positionalOf(command.name, command.help);
        if (!positional.words.isEmpty())
            out << c << " -n " << when << " -a " << singleQuotedFish(positional.words.join(QLatin1Char(' '))) << '\n';
        if (const QString arguments = valueArguments(positional); !arguments.isEmpty())
            out << c << " -n " << when << (positional.extensions.isEmpty() ? "" : " -k") << " -a "
                << singleQuotedFish(arguments) << '\n';
    }
    out.flush();
    return text;
}

} // namespace RetryLab::DocGen
