#include "app/docgen/manpage.h"

#include <QTextStream>

namespace RetryLab::DocGen {

namespace {

// Stands for a break point (roff's \:) until the text is escaped: a character of
// the private use area, which no help text holds.
constexpr QChar breakPoint(0xE000);

// A break point after `|`, `/` and `,` in a word too long for a line of 80 columns,
// which groff could not otherwise break (and warns about under -ww).
QString breakableWord(const QString &word)
{
    constexpr int longWord = 30;
    if (word.size() <= longWord)
        return word;
    QString result;
    for (const QChar c : word) {
        result += c;
        if (c == QLatin1Char('|') || c == QLatin1Char('/') || c == QLatin1Char(','))
            result += breakPoint;
    }
    return result;
}

// A name typed as it is shown (a program, a command, an option, a page): every
// hyphen a minus sign, so that it copies from the page as the shell needs it.
QString literal(const QString &text)
{
    QString escaped = ManPage::escape(text);
    escaped.replace(QStringLiteral("\\-"), QStringLiteral("-"));
    escaped.replace(QLatin1Char('-'), QStringLiteral("\\-"));
    return escaped;
}

QString bold(const QString &text)
{
    return QStringLiteral("\\fB") + literal(text) + QStringLiteral("\\fR");
}

QString italic(const QString &text)
{
    return QStringLiteral("\\fI") + literal(text) + QStringLiteral("\\fR");
}

// A quoted macro argument: a double quote inside is \(dq.
QString macroArgument(const QString &text)
{
    QString escaped = ManPage::escape(text);
    escaped.replace(QLatin1Char('"'), QStringLiteral("\\(dq"));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

// Filled text of one entry (an option's description), with break points in long words.
QString filledText(const QString &text)
{
    QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (QString &word : words)
        word = breakableWord(word);
    return ManPage::escape(words.join(QLatin1Char(' ')));
}

// A paragraph of the help: its plain lines filled, its indented lines (lists,
// examples) kept as they are.
void writeParagraph(QTextStream &out, const QString &paragraph)
{
    out << ".PP\n";
    bool noFill = false;
    for (const QString &line : paragraph.split(QLatin1Char('\n'))) {
        const bool indented = line.startsWith(QLatin1Char(' '));
        if (indented != noFill) {
            out << (indented ? ".nf\n" : ".fi\n");
            noFill = indented;
        }
        if (indented) {
            out << ManPage::escape(line) << '\n';
            continue;
        }
        out << filledText(line) << '\n';
    }
    if (noFill)
        out << ".fi\n";
}

} // namespace

QString ManPage::escape(const QString &text)
{
    QString result;
    result.reserve(text.size() + text.size() / 8);
    bool lineStart = true;
    QChar previous = QLatin1Char(' ');
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (lineStart && (c == QLatin1Char('.') || c == QLatin1Char('\'')))
            result += QStringLiteral("\\&");
        lineStart = c == QLatin1Char('\n');
        if (c == breakPoint) {
            result += QStringLiteral("\\:");
        } else if (c == QLatin1Char('\\')) {
            result += QStringLiteral("\\e");
        } else if (c == QLatin1Char('-')
            && (previous.isSpace() || previous == QLatin1Char('-') || previous == QLatin1Char('(')
                || previous == QLatin1Char('[') || previous == QLatin1Char('|') || previous == QLatin1Char('"'))) {
            result += QStringLiteral("\\-");
        } else if (c.unicode() > 0x7e || (c.unicode() < 0x20 && c != QLatin1Char('\n'))) {
            char32_t code = c.unicode();
            if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
                code = QChar::surrogateToUcs4(c, text.at(i + 1));
                ++i;
            }
            if (code == 0x09)
                result += QLatin1Char(' ');
            else if (code >= 0x20)
                result += QStringLiteral("\\[u%1]").arg(
                    QString::number(quint32(code), 16).toUpper().rightJustified(4, QLatin1Char('0')));
        } else {
            result += c;
        }
        previous = c;
    }
    return result;
}

QString ManPage::write(const CommandHelp &help, const ManPageInfo &info)
{
    QString page;
    QTextStream out(&page);
    out << ".TH " << macroArgument(info.name.toUpper()) << " 1 \"\" " << macroArgument(info.version)
        << " \"RetryLab Manual\"\n";
    // Ragged right and no hyphenation: option names and long lists of names read as
    // written, and a line with a long name need not be stretched to the margin.
    out << ".ad l\n.nh\n";
    out << ".SH NAME\n" << literal(info.name) << " \\- " << escape(info.summary) << '\n';

    out << ".SH SYNOPSIS\n.nf\n";
    for (const QString &usage : help.usage) {
        // The program and command in bold, the rest as the help writes it.
        const QStringList words = usage.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        qsizetype command = 1;
        if (words.size() > 1 && !words.at(1).startsWith(QLatin1Char('-')) && !words.at(1).startsWith(QLatin1Char('['))
            && words.at(1) == words.at(1).toLower())
            command = 2;
        out << bold(words.mid(0, command).join(QLatin1Char(' ')));
        if (words.size() > command)
            out << ' ' << escape(words.mid(command).join(QLatin1Char(' ')));
        out << '\n';
    }
    out << ".fi\n";

    if (!help.description.isEmpty()) {
        out << ".SH DESCRIPTION\n";
        for (const QString &paragraph : help.description)
            writeParagraph(out, paragraph);
    }
    if (!help.commands.isEmpty()) {
        out << ".SH COMMANDS\n";
        for (qsizetype i = 0; i < help.commands.size(); ++i) {
            const ItemHelp &command = help.commands.at(i);
            out << ".TP\n" << bold(command.name) << '\n' << filledText(command.description);
            if (const QString target = info.commandPages.value(i); !target.isEmpty())
                out << "; see\n\\%" << bold(target) << "(1)";
            out << ".\n";
        }
    }
    if (!help.options.isEmpty()) {
        out << ".SH OPTIONS\n";
        QString section;
        for (const OptionHelp &option : help.options) {
            if (option.section != section) {
                section = option.section;
                out << ".SS " << macroArgument(section) << '\n';
            }
            QStringList names;
            for (const QString &name : option.names)
                names.append(bold(name));
            out << ".TP\n" << names.join(QStringLiteral(", "));
            if (!option.valueName.isEmpty())
                out << ' ' << italic(option.valueName);
            out << '\n' << filledText(option.description) << '\n';
        }
    }
    if (!help.arguments.isEmpty()) {
        out << ".SH ARGUMENTS\n";
        for (const ItemHelp &argument : help.arguments)
            out << ".TP\n" << italic(argument.name) << '\n' << filledText(argument.description) << '\n';
    }
    if (!help.epilogue.isEmpty()) {
        out << ".SH NOTES\n";
        for (const QString &paragraph : help.epilogue)
            writeParagraph(out, paragraph);
    }
    if (!info.seeAlso.isEmpty()) {
        out << ".SH SEE ALSO\n";
        QStringList pages;
        for (const QString &name : info.seeAlso)
            pages.append(bold(name) + QStringLiteral("(1)"));
        out << pages.join(QStringLiteral(",\n")) << '\n';
    }
    out.flush();
    return page;
}

} // namespace RetryLab::DocGen
