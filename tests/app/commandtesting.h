#pragma once

// Shared by the suites that run the built retrylab binary.

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <initializer_list>

namespace CommandTesting {

struct Outcome
{
    int exitCode = -1; ///< -1: crashed or did not finish
    QString out;
    QString err;
};

/// Runs the binary and waits for it with this thread's event loop running, so
/// that servers the suite runs in this thread answer it meanwhile.
inline Outcome run(const QStringList &arguments, int timeoutMs = 60'000)
{
    QProcess process;
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(QStringLiteral(RETRYLAB_BINARY), arguments);
    Outcome outcome;
    if (!process.waitForStarted(timeoutMs) || !finished.wait(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        outcome.err = QStringLiteral("did not finish: ") + process.errorString();
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = QString::fromUtf8(process.readAllStandardOutput());
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

/// Starts `retrylab observe` with `arguments` and returns its base URL once it
/// prints it; an empty URL when it does not within about ten seconds.
inline QUrl startObserver(QProcess &process, const QStringList &arguments)
{
    process.start(QStringLiteral(RETRYLAB_BINARY), QStringList{QStringLiteral("observe")} + arguments);
    if (!process.waitForStarted(10'000))
        return {};
    static const QRegularExpression url(QStringLiteral("observing on (http://127\\.0\\.0\\.1:\\d+)"));
    QByteArray seen;
    QSignalSpy output(&process, &QProcess::readyReadStandardOutput);
    for (int i = 0; i < 100; ++i) {
        seen += process.readAllStandardOutput();
        const auto match = url.match(QString::fromUtf8(seen));
        if (match.hasMatch())
            return QUrl(match.captured(1));
        if (process.state() != QProcess::Running || (!output.wait(200) && i > 50))
            break;
    }
    return {};
}

/// A command line: the subcommand, then the words as written ({"--upstream", "http://..."}).
inline QStringList arguments(const char *command, std::initializer_list<const char *> words)
{
    QStringList list{QString::fromLatin1(command)};
    for (const char *word : words)
        list.append(QString::fromLatin1(word));
    return list;
}

inline bool write(const QString &path, const QByteArray &data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
}

inline QByteArray read(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// RFC 4180: fields split at commas, quoted fields may hold commas, CR, LF and "" for a quote.
/// Returns no rows when the text is not well-formed CSV.
inline QList<QStringList> parseCsv(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    bool fieldWasQuoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                    field += c;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"')) {
            if (!field.isEmpty() || fieldWasQuoted)
                return {}; // a quote inside an unquoted field
            quoted = true;
            fieldWasQuoted = true;
        } else if (c == QLatin1Char(',')) {
            row.append(field);
            field.clear();
            fieldWasQuoted = false;
        } else if (c == QLatin1Char('\r') && i + 1 < text.size() && text[i + 1] == QLatin1Char('\n')) {
            row.append(field);
            rows.append(row);
            row.clear();
            field.clear();
            fieldWasQuoted = false;
            ++i;
        } else if (c == QLatin1Char('\r') || c == QLatin1Char('\n')) {
            return {}; // a bare line break outside quotes: not RFC 4180
        } else {
            field += c;
        }
    }
    if (quoted)
        return {};
    if (!field.isEmpty() || !row.isEmpty()) {
        row.append(field);
        rows.append(row);
    }
    return rows;
}

} // namespace CommandTesting
