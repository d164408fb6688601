#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/subcommand.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/proxy/proxyserver.h"
#include "core/util/exportfile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <cmath>

namespace RetryLab::Cli {

int runProxy(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs an HTTP/1.1 reverse proxy on loopback in front of a real service: every request to the listen\n"
               "address goes to the upstream and its answer streams back. Prints one line per exchange; at the end\n"
               "(Ctrl+C or --duration) the clients seen through it, grouped into logical requests, their inferred\n"
               "retry policies and the verdicts, as retrylab observe does."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption listenOption(QStringLiteral("listen"),
        Tr::tr("Address and port to listen on (default 127.0.0.1:0, a free port)."), Tr::tr("ADDR:PORT"));
    const QCommandLineOption upstreamOption(
        QStringLiteral("upstream"), Tr::tr("The service to forward to: http:// or https:// URL."), Tr::tr("URL"));
    const QCommandLineOption keepHostOption(
        QStringLiteral("keep-host"), Tr::tr("Send the client's Host header on instead of the upstream's."));
    const QCommandLineOption allowOption(
        QStringLiteral("allow-non-loopback"), Tr::tr("Allow --listen to name an address other machines can reach."));
    const QCommandLineOption durationOption(
        QStringLiteral("duration"), Tr::tr("Stop after this many seconds."), Tr::tr("S"));
    const QCommandLineOption reportOption(QStringLiteral("report"),
        Tr::tr("Write what the observer saw (format retrylab-observation, version 1) to this JSON file."),
        Tr::tr("FILE"));
    const QCommandLineOption quietOption(
        {QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print no line per exchange."));
    parser.addOptions({helpOption, listenOption, upstreamOption, keepHostOption, allowOption, durationOption,
        reportOption, quietOption});

    const auto usage = [&err](const QString &message) {
        err << Tr::tr("retrylab proxy: %1; see retrylab proxy --help").arg(message) << Qt::endl;
        return ExitUsage;
    };
    if (!parser.parse(subcommandArguments(arguments)))
        return usage(parser.errorText());
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser, Tr::tr("Usage: retrylab proxy --upstream URL [options]")) << Qt::endl;
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty())
        return usage(Tr::tr("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(upstreamOption))
        return usage(Tr::tr("--upstream is required"));

    Core::ProxyOptions options;
    options.upstream = QUrl(parser.value(upstreamOption), QUrl::StrictMode);
    if (!options.upstream.isValid() || options.upstream.host().isEmpty()
        || (options.upstream.scheme() != QLatin1String("http") && options.upstream.scheme() != QLatin1String("https")))
        return usage(Tr::tr("--upstream must be an http or https URL with a host (got \"%1\")")
                         .arg(parser.value(upstreamOption)));
    options.keepHost = parser.isSet(keepHostOption);
    options.allowNonLoopback = parser.isSet(allowOption);
    if (parser.isSet(listenOption)) {
        const QString listen = parser.value(listenOption);
        const qsizetype colon = listen.lastIndexOf(QLatin1Char(':'));
        bool ok = false;
        const uint port = colon > 0 ? listen.mid(colon + 1).toUInt(&ok) : 0;
        const QHostAddress address(listen.left(colon).remove(QLatin1Char('[')).remove(QLatin1Char(']')));
        if (colon <= 0 || !ok || port > 65535 || address.isNull())
            return usage(Tr::tr("--listen needs ADDRESS:PORT, e.g. 127.0.0.1:8080 (got \"%1\")").arg(listen));
        options.address = address;
        options.port = quint16(port);
    }
    double duration = 0.0;
    if (parser.isSet(durationOption)) {
        bool ok = false;
        duration = parser.value(durationOption).toDouble(&ok);
        if (!ok || !std::isfinite(duration) || duration <= 0 || duration > 7 * 24 * 3600)
            return usage(
                Tr::tr("--duration must be a number of seconds (got \"%1\")").arg(parser.value(durationOption)));
    }

    Core::ProxyServer proxy(options);
    if (!proxy.listen()) {
        err << Tr::tr("retrylab proxy: %1").arg(proxy.errorString()) << Qt::endl;
        return options.address.isLoopback() ? ExitFailed : ExitUsage;
    }
    // The observer groups and judges what passes; the proxy, not a plan, decides the answers.
    Core::Observer observer;
    QObject::connect(&proxy, &Core::ProxyServer::exchangeFinished, &observer,
        [&observer, &out, quiet = parser.isSet(quietOption)](const Core::ServerLogEntry &entry) {
            if (!quiet)
                out << entry.summary() << Qt::endl;
            if (entry.method.isEmpty())
                return;
            Core::ServerLogEntry observed = entry;
            observer.observeRequest(observed, false);
            observer.observeAnswer(observed);
        });
    const QDateTime started = QDateTime::currentDateTimeUtc();
    out << Tr::tr("RetryLab proxy on %1 -> %2; Ctrl+C stops.")
               .arg(proxy.listenUrl().toString(), options.upstream.toString())
        << Qt::endl;

    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &proxy, [] { QCoreApplication::quit(); });
    if (duration > 0)
        QTimer::singleShot(int(std::min(duration * 1000.0, 2e9)), &proxy, [] { QCoreApplication::quit(); });
    QCoreApplication::exec();
    proxy.close();
    observer.finish();

    Core::ObservationReport report = Core::ObservationReport::from(observer);
    report.started = started;
    report.finished = QDateTime::currentDateTimeUtc();
    report.serverUrl = proxy.listenUrl().toString();
    out << Qt::endl << report.toText();
    if (parser.isSet(reportOption)) {
        const auto written = Core::ExportFile::write(
            parser.value(reportOption), QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
        if (!written) {
            err << Tr::tr("retrylab proxy: --report: %1").arg(written.error()) << Qt::endl;
            return ExitUsage;
        }
    }
    return ExitOk;
}

} // namespace RetryLab::Cli
