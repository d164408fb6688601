#include "core/import/curlcommandline.h"

#include "core/import/curlarguments.h"
#include "core/import/curlrequestreader.h"
#include "core/policy/policyfields.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/shellwords.h"

#include <QCoreApplication>
#include <QLocale>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <algorithm>

namespace {
Q_LOGGING_CATEGORY(lcCurlCommandLine, "retrylab.core.curlcommandline")
} // namespace

namespace RetryLab::Core::CurlCommandLine {

namespace {

using ShellWords::Word;

bool isCurlWord(const QByteArray &word)
{
    return word == "curl" || word.endsWith("/curl") || word == "curl.exe" || word.endsWith("\\curl.exe");
}

bool isAssignment(const QByteArray &word)
{
    static const QRegularExpression assignment(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*="));
    return assignment.match(QString::fromUtf8(word)).hasMatch();
}

QString text(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes);
}

int octalDigit(QChar c)
{
    return (c >= QLatin1Char('0') && c <= QLatin1Char('7')) ? c.unicode() - '0' : -1;
}

// The backslash escapes printf's format and `echo -e` share; returns how many
// characters of `s` from `at` (the backslash) were read, and false in `stop`
// for "\c" (echo: print nothing more).
qsizetype escape(QStringView s, qsizetype at, QByteArray &out, bool *stop)
{
    if (at + 1 >= s.size()) {
        out += '\\';
        return 1;
    }
    const QChar e = s[at + 1];
    switch (e.unicode()) {
    case '\\':
        out += '\\';
        return 2;
    case 'a':
        out += '\a';
        return 2;
    case 'b':
        out += '\b';
        return 2;
    case 'e':
        out += '\x1b';
        return 2;
    case 'f':
        out += '\f';
        return 2;
    case 'n':
        out += '\n';
        return 2;
    case 'r':
        out += '\r';
        return 2;
    case 't':
        out += '\t';
        return 2;
    case 'v':
        out += '\v';
        return 2;
    case '"':
        out += '"';
        return 2;
    case 'c':
        if (stop)
            *stop = true;
        return 2;
    case 'x': {
        int value = 0;
        qsizetype i = at + 2;
        for (; i < s.size() && i < at + 4; ++i) {
            const int d = QStringLiteral("0123456789abcdef").indexOf(s[i].toLower());
            if (d < 0)
                break;
            value = value * 16 + d;
        }
        if (i == at + 2) {
            out += "\\x";
            return 2;
        }
        out += char(value);
        return i - at;
    }
    default:
        break;
    }
    if (octalDigit(e) >= 0) {
        // printf reads \NNN, echo -e \0NNN: a leading 0 after a first digit is part of it either way.
        qsizetype i = at + 1;
        qsizetype limit = at + 4;
        if (e == QLatin1Char('0'))
            limit = at + 5;
        int value = 0;
        for (; i < s.size() && i < limit && octalDigit(s[i]) >= 0; ++i)
            value = value * 8 + octalDigit(s[i]);
        out += char(value & 0xff);
        return i - at;
    }
    out += '\\';
    out += QString(e).toUtf8();
    return 2;
}

// Where a word of the pasted line is, for an error about it.
CurlArguments::Place placeOf(const QString &line, const Word &word)
{
    return {ShellWords::position(line, word.offset), word.offset};
}

// `printf FORMAT [ARG...]` with %% and %s (and %b), which is what a pasted
// line feeding curl uses; another conversion is refused.
Result<QByteArray> runPrintf(const QList<Word> &words, const QString &line)
{
    if (words.size() < 2)
        return placeOf(line, words.first()).error(Tr::tr("printf needs a format"));
    const QString format = text(words[1].text);
    QByteArray out;
    qsizetype next = 2;
    do {
        const qsizetype before = next;
        for (qsizetype i = 0; i < format.size();) {
            const QChar c = format[i];
            if (c == QLatin1Char('\\')) {
                i += escape(format, i, out, nullptr);
            } else if (c == QLatin1Char('%') && i + 1 < format.size()) {
                const QChar conversion = format[i + 1];
                if (conversion == QLatin1Char('%')) {
                    out += '%';
                } else if (conversion == QLatin1Char('s') || conversion == QLatin1Char('b')) {
                    if (next < words.size())
                        out += words[next++].text;
                } else {
                    return placeOf(line, words[1])
                        .error(
                            Tr::tr("printf's %%%1 is not supported here; only %%s, %%b and %%%% are").arg(conversion));
                }
                i += 2;
            } else {
                out += QString(c).toUtf8();
                ++i;
            }
        }
        if (next == before)
            break;
    } while (next < words.size());
    return out;
}

QByteArray runEcho(const QList<Word> &words)
{
    bool newline = true;
    bool escapes = false;
    qsizetype i = 1;
    static const QRegularExpression flags(QStringLiteral("^-[neE]+$"));
    for (; i < words.size() && flags.match(text(words[i].text)).hasMatch(); ++i) {
        for (char f : words[i].text.mid(1)) {
            newline = newline && f != 'n';
            escapes = f == 'e' ? true : (f == 'E' ? false : escapes);
        }
    }
    QByteArray out;
    for (qsizetype w = i; w < words.size(); ++w) {
        if (w > i)
            out += ' ';
        if (!escapes) {
            out += words[w].text;
            continue;
        }
        const QString s = text(words[w].text);
        bool stop = false;
        for (qsizetype k = 0; k < s.size() && !stop;) {
            if (s[k] == QLatin1Char('\\')) {
                k += escape(s, k, out, &stop);
            } else {
                out += QString(s[k]).toUtf8();
                ++k;
            }
        }
        if (stop)
            return out;
    }
    if (newline)
        out += '\n';
    return out;
}

QString joinedWords(const QList<Word> &words)
{
    QStringList parts;
    for (const Word &w : words)
        parts.append(w.isOperator ? text(w.text) : ShellWords::quote(text(w.text)));
    return parts.join(QLatin1Char(' '));
}

} // namespace

Result<ImportedRequest> parse(const QString &commandLine, const Options &options)
{
    const Result<ShellWords::Split> split = ShellWords::split(commandLine);
    if (!split)
        return split.errorDetail();
    const auto where = [&commandLine](const Word &w) { return placeOf(commandLine, w); };

    // One command: words between separators (; && || & and line ends).
    QList<QList<Word>> commands{{}};
    QList<const Word *> separators;
    for (const Word &w : split->words) {
        if (ShellWords::isCommandSeparator(w)) {
            if (!commands.last().isEmpty()) {
                commands.append(QList<Word>{});
                separators.append(&w);
            }
        } else {
            commands.last().append(w);
        }
    }
    if (commands.last().isEmpty())
        commands.removeLast();
    if (commands.isEmpty())
        return Error{QString(), Tr::tr("there is no curl command: the line is empty")};
    if (commands.size() > 1) {
        const Word &separator = *separators.first();
        const QString shown = separator.text == "\n" ? Tr::tr("a line break without a backslash")
                                                     : Tr::tr("\"%1\"").arg(text(separator.text));
        return where(separator).error(
            Tr::tr("the line holds more than one command (%1 starts another); paste only the curl command").arg(shown));
    }

    // A pipeline: something may feed curl's standard input, and curl's output may go on.
    QList<QList<Word>> segments{{}};
    for (const Word &w : std::as_const(commands.first())) {
        if (w.isOperator && (w.text == "|" || w.text == "|&"))
            segments.append(QList<Word>{});
        else
            segments.last().append(w);
    }
    qsizetype curlSegment = -1;
    QStringList assignments;
    for (qsizetype s = 0; s < segments.size() && curlSegment < 0; ++s) {
        qsizetype first = 0;
        while (first < segments[s].size() && isAssignment(segments[s][first].text))
            ++first;
        if (first < segments[s].size() && isCurlWord(segments[s][first].text)) {
            curlSegment = s;
            for (qsizetype a = 0; a < first; ++a)
                assignments.append(text(segments[s][a].text));
            segments[s].remove(0, first + 1);
        }
    }
    if (curlSegment < 0) {
        if (segments.size() > 1)
            return Error{QString(), Tr::tr("there is no curl command in this pipeline")};
        curlSegment = 0; // only curl's arguments were pasted
    }
    if (curlSegment > 1) {
        return where(segments[1].value(0))
            .error(Tr::tr("only one command may feed curl's standard input (printf, echo or cat)"));
    }

    std::optional<QByteArray> standardInput;
    if (curlSegment == 1) {
        const QList<Word> &producer = segments.first();
        if (producer.isEmpty())
            return Error{QString(), Tr::tr("the pipe into curl has nothing before it")};
        const QByteArray &program = producer.first().text;
        if (program == "printf") {
            auto out = runPrintf(producer, commandLine);
            if (!out)
                return out.errorDetail();
            standardInput = std::move(out).value();
        } else if (program == "echo") {
            standardInput = runEcho(producer);
        } else if (program == "cat" && producer.size() == 2) {
            auto data = CurlRequestReader::readFile(
                text(producer[1].text), options, where(producer[1]), QStringLiteral("cat"));
            if (!data)
                return data.errorDetail();
            standardInput = std::move(data).value();
        } else {
            return where(producer.first())
                .error(Tr::tr(
                    "\"%1\" cannot be imported: only printf, echo or cat (one file) can feed curl's standard input")
                           .arg(joinedWords(producer)));
        }
    }

    QStringList ignored;
    QList<CurlRequestReader::Argument> arguments;
    const QList<Word> &curlWords = segments[curlSegment];
    for (qsizetype i = 0; i < curlWords.size(); ++i) {
        const Word &w = curlWords[i];
        if (!w.isOperator) {
            arguments.append({w.text, where(w)});
            continue;
        }
        if (!ShellWords::isRedirection(w))
            return where(w).error(Tr::tr("\"%1\" cannot be imported here").arg(text(w.text)));
        const bool hasTarget = i + 1 < curlWords.size() && !curlWords[i + 1].isOperator;
        if (w.text == "<" || w.text == "0<" || w.text == "<<<") {
            if (!hasTarget)
                return where(w).error(Tr::tr("\"%1\" needs a file name").arg(text(w.text)));
            const Word &target = curlWords[++i];
            if (w.text == "<<<") {
                standardInput = target.text + '\n';
            } else {
                auto data = CurlRequestReader::readFile(text(target.text), options, where(target), QStringLiteral("<"));
                if (!data)
                    return data.errorDetail();
                standardInput = std::move(data).value();
            }
            continue;
        }
        if (w.text.endsWith("<<") || w.text.endsWith("<<-"))
            return where(w).error(
                Tr::tr("a here-document cannot be imported; put the data in a file and use -d @file"));
        // Output redirections change where curl writes, not what it sends.
        QString shown = text(w.text);
        if (hasTarget && !w.text.endsWith('&'))
            shown += QLatin1Char(' ') + ShellWords::quote(text(curlWords[++i].text));
        else if (hasTarget)
            shown += text(curlWords[++i].text);
        ignored.append(shown);
    }
    for (qsizetype s = curlSegment + 1; s < segments.size(); ++s)
        ignored.append(QStringLiteral("| ") + joinedWords(segments[s]));

    Options readOptions = options;
    readOptions.extraOptions.clear();
    if (standardInput) {
        readOptions.standardInput = [data = *standardInput]() -> Result<QByteArray> { return data; };
    }
    Result<ImportedRequest> request = CurlRequestReader::read(arguments, readOptions);
    if (!request)
        return request;
    ImportedRequest &r = request.value();
    r.ignored += ignored;
    if (!assignments.isEmpty()) {
        r.notes.append(Tr::tr("The environment settings before curl (%1) are not used.")
                           .arg(assignments.join(QStringLiteral(" "))));
    }
    if (!split->expansions.isEmpty()) {
        QStringList unique = split->expansions;
        unique.removeDuplicates();
        r.notes.append(
            Tr::tr("The line refers to the shell (%1); a shell would have replaced that, the import keeps it "
                   "as written.")
                .arg(unique.join(QStringLiteral(", "))));
    }
    qCDebug(lcCurlCommandLine) << "read" << r.spec.method << r.spec.url << "with" << r.unknown.size() << "unknown";
    return request;
}

Result<ImportedRequest> parseArguments(const QStringList &arguments, const Options &options)
{
    QList<CurlRequestReader::Argument> args;
    args.reserve(arguments.size());
    for (qsizetype i = 0; i < arguments.size(); ++i)
        args.append({arguments[i].toUtf8(), {Tr::tr("argument %1").arg(i + 1)}});
    return CurlRequestReader::read(args, options);
}

Result<Separated> separate(const QStringList &arguments, const QList<ExtraOption> &extraOptions)
{
    QList<CurlRequestReader::Argument> args;
    for (qsizetype i = 0; i < arguments.size(); ++i)
        args.append({arguments[i].toUtf8(), {Tr::tr("argument %1").arg(i + 1)}});
    const auto items = CurlArguments::walk(args, extraOptions);
    if (!items)
        return items.errorDetail();
    Separated separated;
    for (const CurlArguments::Item &item : *items) {
        if (item.kind != CurlArguments::Item::Kind::Extra) {
            separated.hasRequestArguments = true;
            continue;
        }
        QString name;
        for (const QString &n : item.extra->names) {
            if (n.size() > name.size())
                name = n;
        }
        name.prepend(name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--"));
        if (item.extra->takesValue)
            name += QLatin1Char('=') + text(item.value);
        separated.extraArguments.append(name);
    }
    return separated;
}

QList<OptionHelp> supportedOptions()
{
    return CurlRequestReader::optionHelp();
}

QList<PolicyChange> applyRetryHints(const ImportedRequest::RetryHints &hints, BackoffPolicy &policy)
{
    QList<PolicyChange> changes;
    const auto fieldPath = [](PolicyFieldId id) { return policyField(id).path(); };
    const auto seconds = [](double ms) { return QString::number(ms / 1000.0, 'f', QLocale::FloatingPointShortest); };
    if (hints.retries) {
        policy.maxAttempts = *hints.retries + 1;
        changes.append({fieldPath(PolicyFieldId::MaxAttempts), QStringLiteral("--retry %1").arg(*hints.retries),
            Tr::tr("at most %n attempt(s)", nullptr, policy.maxAttempts)});
    }
    if (hints.delayMs && *hints.delayMs > 0.0) {
        // curl waits the same time before every retry when --retry-delay is above 0.
        policy.algorithm = BackoffAlgorithm::Constant;
        policy.baseDelayMs = *hints.delayMs;
        policy.maxBackoffMs = std::max(policy.maxBackoffMs, *hints.delayMs);
        changes.append(
            {fieldPath(PolicyFieldId::BaseDelay), QStringLiteral("--retry-delay %1").arg(seconds(*hints.delayMs)),
                Tr::tr("a constant wait of %1 before every retry")
                    .arg(DurationText::format(*hints.delayMs, DurationText::Style::Exact))});
    }
    if (hints.maxTimeMs && *hints.maxTimeMs > 0.0) {
        policy.deadlineMs = *hints.maxTimeMs;
        changes.append({fieldPath(PolicyFieldId::Deadline),
            QStringLiteral("--retry-max-time %1").arg(seconds(*hints.maxTimeMs)),
            Tr::tr("a total deadline of %1").arg(DurationText::format(*hints.maxTimeMs, DurationText::Style::Exact))});
    }
    if (hints.attemptTimeoutMs) {
        policy.attemptTimeoutMs = *hints.attemptTimeoutMs;
        changes.append({fieldPath(PolicyFieldId::AttemptTimeout),
            QStringLiteral("--max-time %1").arg(seconds(*hints.attemptTimeoutMs)),
            *hints.attemptTimeoutMs > 0.0
                ? Tr::tr("a per-attempt timeout of %1")
                      .arg(DurationText::format(*hints.attemptTimeoutMs, DurationText::Style::Exact))
                : Tr::tr("no per-attempt timeout")});
    }
    if (hints.retryAllErrors) {
        for (NetworkFaultClass fault : allNetworkFaultClasses())
            policy.classification.networkActions[fault] = FaultAction::RetryAfterDelay;
        changes.append({fieldPath(PolicyFieldId::NetworkActions), QStringLiteral("--retry-all-errors"),
            Tr::tr("every network fault is retried after a delay")});
    } else if (hints.retryConnectionRefused) {
        policy.classification.networkActions[NetworkFaultClass::ConnectionRefused] = FaultAction::RetryAfterDelay;
        changes.append({fieldPath(PolicyFieldId::NetworkActions) + QLatin1Char('.')
                + networkFaultClassName(NetworkFaultClass::ConnectionRefused),
            QStringLiteral("--retry-connrefused"), Tr::tr("a refused connection is retried after a delay")});
    }
    // Changed, it is no longer the preset it came from: Compare, Conformance and Save as would
    // otherwise call it by the preset's name and keep the preset's description.
    const QString edited = Tr::tr(" (edited by curl --retry flags)");
    if (!changes.isEmpty() && !policy.name.endsWith(edited)) {
        const QString from = policy.name;
        policy.name = from + edited;
        policy.description = Tr::tr("%1, changed by an imported curl command's retry flags.").arg(from);
    }
    return changes;
}

} // namespace RetryLab::Core::CurlCommandLine
