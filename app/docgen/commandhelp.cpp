#include "app/docgen/commandhelp.h"

#include <QHash>
#include <QRegularExpression>

namespace RetryLab::DocGen {

namespace {

// QCommandLineParser's layout (qcommandlineparser.cpp, helpText and wrapText): an
// entry's names from column 2, its description from a column shared by the whole
// list and wrapped at 79 characters; a word too long for a line is cut where the
// line ends, with no space dropped.
constexpr int helpLineWidth = 79;
constexpr int nameIndent = 2;

struct RawEntry
{
    QString names;
    QStringList lines;
};

// The column where the descriptions of a list start: the one most of its entries use
// (an entry whose names overflow the names column starts its text later).
int descriptionColumn(const QStringList &lines)
{
    static const QRegularExpression entry(QStringLiteral(R"(^  \S.*?\S?( {2,})\S)"));
    QHash<int, int> counts;
    for (const QString &line : lines) {
        const auto match = entry.match(line);
        if (match.hasMatch())
            ++counts[int(match.capturedEnd(1))];
    }
    int best = -1;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (best < 0 || it.value() > counts.value(best) || (it.value() == counts.value(best) && it.key() < best))
            best = it.key();
    }
    return best;
}

// The entries of one "Options:" or "Arguments:" list (or a command's own list in the
// same layout), each with its description lines joined. An entry's line has its names
// from column 2, then two spaces or more, then its text; names too long for their
// column stand alone on their line, the text below. `startsEntry` tells a new entry's
// names from the rest of a long name Qt wrapped onto the next line.
QList<RawEntry> readEntries(const QStringList &lines, bool (*startsEntry)(const QString &names))
{
    static const QRegularExpression gap(QStringLiteral(" {2,}"));
    QList<RawEntry> entries;
    for (const QString &line : lines) {
        QString names;
        QString text = line;
        if (line.size() > nameIndent && line.at(nameIndent) != QLatin1Char(' ')) {
            const auto match = gap.match(line, nameIndent);
            names = match.hasMatch() ? line.mid(nameIndent, match.capturedStart() - nameIndent) : line.mid(nameIndent);
            text = match.hasMatch() ? line.mid(match.capturedEnd()) : QString();
        }
        if (!names.isEmpty() && startsEntry(names)) {
            entries.append({names.trimmed(), {}});
        } else if (entries.isEmpty()) {
            continue;
        } else if (!names.isEmpty()) {
            entries.last().names += names.trimmed();
        }
        if (!text.trimmed().isEmpty())
            entries.last().lines.append(text);
    }
    // The width a description line may take: a line that long without a space was
    // cut inside a word (Qt breaks at the last space when the line has one).
    const int textWidth = helpLineWidth - descriptionColumn(lines);
    for (RawEntry &entry : entries) {
        QString joined;
        bool cutInsideWord = false;
        for (const QString &part : std::as_const(entry.lines)) {
            if (!joined.isEmpty() && !cutInsideWord)
                joined += QLatin1Char(' ');
            const QString text = part.trimmed();
            joined += text;
            cutInsideWord = text.size() >= textWidth && !text.contains(QLatin1Char(' '));
        }
        entry.lines = QStringList{joined};
    }
    return entries;
}

// "-o, --output <FILE>" as Qt writes it, or "-H, --header VALUE" as a command's own
// list does: the names with their dashes, and the value's name.
OptionHelp optionOf(const RawEntry &entry, const QString &section)
{
    OptionHelp option;
    option.section = section;
    option.description = entry.lines.value(0);
    QString names = entry.names;
    if (const qsizetype open = names.indexOf(QLatin1String(" <")); open >= 0 && names.endsWith(QLatin1Char('>'))) {
        option.valueName = names.mid(open + 2, names.size() - open - 3);
        names.truncate(open);
    }
    const QStringList parts = names.split(QStringLiteral(", "), Qt::SkipEmptyParts);
    for (qsizetype i = 0; i < parts.size(); ++i) {
        QString name = parts.at(i).trimmed();
        if (i == parts.size() - 1 && option.valueName.isEmpty()) {
            if (const qsizetype space = name.indexOf(QLatin1Char(' ')); space > 0) {
                option.valueName = name.mid(space + 1).trimmed();
                name.truncate(space);
            }
        }
        option.names.append(name);
    }
    return option;
}

bool isOptionNames(const QString &names)
{
    return names.startsWith(QLatin1Char('-'));
}

bool isArgumentName(const QString &)
{
    return true;
}

// Consecutive non-empty lines, each group one paragraph with its line breaks.
QStringList paragraphs(const QStringList &lines)
{
    QStringList result;
    QStringList current;
    for (const QString &line : lines) {
        if (line.trimmed().isEmpty()) {
            if (!current.isEmpty())
                result.append(current.join(QLatin1Char('\n')));
            current.clear();
        } else {
            current.append(line);
        }
    }
    if (!current.isEmpty())
        result.append(current.join(QLatin1Char('\n')));
    return result;
}

} // namespace

CommandHelp CommandHelp::parse(const QString &text, const QString &program)
{
    CommandHelp help;
    QStringList lines = text.split(QLatin1Char('\n'));
    int i = 0;
    // The usage: "Usage: ..." and any further forms indented below it.
    const QString usagePrefix = QStringLiteral("Usage: ");
    if (!lines.isEmpty() && lines.first().startsWith(usagePrefix)) {
        QString first = lines.first().mid(usagePrefix.size()).trimmed();
        // The top level: Qt names the binary by the path it was started as.
        const QString binary = first.section(QLatin1Char(' '), 0, 0);
        if (binary.contains(QLatin1Char('/')))
            first = program + first.mid(binary.size());
        help.usage.append(first);
        for (i = 1; i < lines.size() && lines.at(i).startsWith(QLatin1Char(' ')) && !lines.at(i).trimmed().isEmpty();
             ++i)
            help.usage.append(lines.at(i).trimmed());
    }

    const auto isSectionStart
        = [](const QString &line) { return line == QLatin1String("Options:") || line == QLatin1String("Arguments:"); };
    QStringList description;
    for (; i < lines.size() && !isSectionStart(lines.at(i)); ++i)
        description.append(lines.at(i));

    // The top level lists its commands in its description, after "Commands:".
    static const QRegularExpression commandLine(QStringLiteral(R"(^  ([a-z][a-z0-9-]*)\s+(\S.*)$)"));
    for (int d = 0; d < description.size(); ++d) {
        if (!description.at(d).endsWith(QLatin1String("Commands:")))
            continue;
        int end = d + 1;
        for (; end < description.size(); ++end) {
            const auto match = commandLine.match(description.at(end));
            if (!match.hasMatch())
                break;
            help.commands.append({match.captured(1), match.captured(2).trimmed()});
        }
        if (end > d + 1) {
            description.remove(d + 1, end - d - 1);
            description[d].chop(int(qstrlen("Commands:")));
        }
        break;
    }
    help.description = paragraphs(description);

    while (i < lines.size() && isSectionStart(lines.at(i))) {
        const bool options = lines.at(i) == QLatin1String("Options:");
        QStringList section;
        for (++i; i < lines.size() && !lines.at(i).isEmpty() && !isSectionStart(lines.at(i)); ++i)
            section.append(lines.at(i));
        if (i < lines.size() && lines.at(i).isEmpty())
            ++i;
        const QList<RawEntry> entries = readEntries(section, options ? &isOptionNames : &isArgumentName);
        for (const RawEntry &entry : entries) {
            if (!options) {
                help.arguments.append({entry.names, entry.lines.value(0)});
                continue;
            }
            help.options.append(optionOf(entry, QString()));
        }
    }
    // A command may list more options after its arguments, in the same layout under a
    // title of their own ("Request options, ...:"); the text around such a list stays.
    for (const QString &paragraph : paragraphs(lines.mid(i))) {
        const QStringList block = paragraph.split(QLatin1Char('\n'));
        if (block.size() < 2 || !block.first().endsWith(QLatin1Char(':')) || block.first().startsWith(QLatin1Char(' '))
            || !block.at(1).startsWith(QLatin1String("  -"))) {
            help.epilogue.append(paragraph);
            continue;
        }
        qsizetype end = 1;
        while (end < block.size() && block.at(end).startsWith(QLatin1Char(' ')))
            ++end;
        QString title = block.first();
        title.chop(1);
        for (const RawEntry &entry : readEntries(block.mid(1, end - 1), &isOptionNames))
            help.options.append(optionOf(entry, title));
        if (end < block.size())
            help.epilogue.append(block.mid(end).join(QLatin1Char('\n')));
    }
    return help;
}

const OptionHelp *CommandHelp::option(const QString &name) const
{
    for (const OptionHelp &candidate : options) {
        if (candidate.names.contains(name))
            return &candidate;
    }
    return nullptr;
}

} // namespace RetryLab::DocGen
