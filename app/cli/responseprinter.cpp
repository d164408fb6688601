#include "app/cli/responseprinter.h"

#include "app/cli/clitr.h"
#include "core/http/redactor.h"
#include "core/util/exportfile.h"

#include <QCoreApplication>
#include <QDir>

#include <cstdio>
#include <unistd.h>

namespace RetryLab::Cli {

namespace {

void writeStandardOutput(const QByteArray &bytes)
{
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

} // namespace

ResponsePrinter::ResponsePrinter(Console *console, Settings settings)
    : m_console(console), m_settings(std::move(settings))
{ }

bool ResponsePrinter::looksBinary(const QByteArray &body)
{
    for (char c : body) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || u == 0x7f)
            return true;
    }
    return QString::fromUtf8(body).toUtf8() != body;
}

QString ResponsePrinter::sizeText(qint64 bytes)
{
    if (bytes < 1024)
        return Tr::tr("%n byte(s)", nullptr, int(bytes));
    if (bytes < 1024 * 1024)
        return Tr::tr("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
    return Tr::tr("%1 MiB").arg(double(bytes) / (1024.0 * 1024.0), 0, 'f', 1);
}

ResponsePrinter::Body ResponsePrinter::print(const Core::RunRecord &run, const QByteArray &method) const
{
    const Core::RequestResult result = run.results.value(0);
    Core::AttemptRecord last;
    for (const Core::AttemptRecord &a : run.attempts) {
        if (a.requestId == result.requestId)
            last = a;
    }
    if (!last.httpStatus)
        return Body::Delivered;
    printHead(last, method);
    if (!m_settings.outputPath.isEmpty())
        return writeBody(result.body, last);
    if (!result.body.isEmpty())
        showBody(result.body, last);
    return Body::Delivered;
}

void ResponsePrinter::printHead(const Core::AttemptRecord &last, const QByteArray &method) const
{
    const Core::Redactor redactor(m_settings.redact);
    const QString protocol = last.protocol.isEmpty() ? QStringLiteral("HTTP/1.1") : last.protocol;
    const QString statusLine = QStringLiteral("%1 %2 %3")
                                   .arg(protocol)
                                   .arg(*last.httpStatus)
                                   .arg(QString::fromUtf8(last.reasonPhrase))
                                   .trimmed();
    if (m_settings.include || method == "HEAD") {
        QByteArray head = redactor.text(statusLine).toUtf8() + '\n';
        for (const auto &[name, value] : redactor.headers(last.responseHeaders))
            head += name + ": " + value + '\n';
        writeStandardOutput(head + '\n');
    } else if (m_settings.live) {
        m_console->print(statusLine);
    }
}

ResponsePrinter::Body ResponsePrinter::writeBody(const QByteArray &body, const Core::AttemptRecord &last) const
{
    const QString path = QDir::toNativeSeparators(m_settings.outputPath);
    // A body cut at the limit is not what the server sent: no file rather than a wrong one.
    if (last.transferEnded) {
        m_console->error(Tr::tr("retrylab request: -o %1: the body is longer than %2, the most RetryLab keeps of one "
                                "(--max-body); the transfer was ended there and nothing was written")
                             .arg(path, sizeText(last.bytesReceived)));
        return Body::Cut;
    }
    if (const qint64 received = last.bytesReceived; received > body.size()) {
        // The limit, not what is left of the body: the run's memory budget may have let go of that.
        m_console->error(
            Tr::tr("retrylab request: -o %1: the body has %2, more than RetryLab keeps of one (%3, "
                   "--max-body); nothing was written")
                .arg(path, sizeText(received), sizeText(std::max(m_settings.bodyLimit, qint64(body.size())))));
        return Body::Cut;
    }
    const auto written = Core::ExportFile::write(m_settings.outputPath, body);
    if (!written) {
        m_console->error(Tr::tr("retrylab request: -o: %1").arg(written.error()));
        return Body::WriteFailed;
    }
    if (m_settings.live)
        m_console->print(Tr::tr("Wrote the body to %1 (%2)").arg(path, sizeText(*written)));
    return Body::Delivered;
}

void ResponsePrinter::showBody(const QByteArray &body, const Core::AttemptRecord &last) const
{
    if (looksBinary(body) && ::isatty(STDOUT_FILENO)) {
        m_console->error(Tr::tr("retrylab request: the body is binary (%1) and is not shown on a terminal; "
                                "save it with -o FILE")
                             .arg(sizeText(last.bytesReceived)));
        return;
    }
    const QByteArray shown = Core::Redactor(m_settings.redact).body(body, last.responseHeaders);
    // On a terminal the next line (a message, the prompt) starts on a line of its own.
    writeStandardOutput(::isatty(STDOUT_FILENO) && !shown.endsWith('\n') ? QByteArray(shown + '\n') : shown);
    if (shown != body)
        m_console->error(Tr::tr("note: credentials in the body are masked; --no-redact or -o FILE give it as it came"));
    if (last.transferEnded) {
        m_console->error(Tr::tr("warning: the body is longer than %1; the transfer was ended there and only the "
                                "first %2 are shown")
                             .arg(sizeText(last.bytesReceived), sizeText(body.size())));
    } else if (last.bytesReceived > body.size()) {
        m_console->error(Tr::tr("warning: the body has %1; only the first %2 are shown")
                             .arg(sizeText(last.bytesReceived), sizeText(body.size())));
    }
}

} // namespace RetryLab::Cli
