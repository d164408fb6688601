#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/subcommand.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/proxy/proxycontrol.h"
#include "core/proxy/proxyserver.h"
#include "core/util/exportfile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSslCertificate>
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
               "retry policies and the verdicts, as retrylab observe does.\n"
               "\n"
               "Faults, one rule per --fault (or a retrylab-faults file): a fault, optional matches and a schedule:\n"
               "  status=CODE [retry-after=S]   answer without calling the upstream\n"
               "  latency=MS | MIN-MAX | lognormal:MEDIAN:SIGMA [at=request|response]\n"
               "  bandwidth=BYTES[k|m]          bytes per second of the answer\n"
               "  reset[=before|after|unsent]   reset instead of the answer, after its headers, or unforwarded\n"
               "  empty | stall | cut=N | corrupt[=N]\n"
               "  method=M path=GLOB header=NAME[:GLOB]   p=P every=N first=N from=S to=S   name=NAME off\n"
               "e.g. --fault 'status=503 p=0.3 path=/api/*'. While it runs, the control port switches rules:\n"
               "  curl -X POST 'http://127.0.0.1:PORT/_control/faults?enabled=false'   (or ?rule=NAME&enabled=true)"));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption listenOption(QStringLiteral("listen"),
        Tr::tr("Address and port to listen on (default 127.0.0.1:0, a free port)."), Tr::tr("ADDR:PORT"));
    const QCommandLineOption upstreamOption(
        QStringLiteral("upstream"), Tr::tr("The service to forward to: http:// or https:// URL."), Tr::tr("URL"));
    const QCommandLineOption keepHostOption(
        QStringLiteral("keep-host"), Tr::tr("Send the client's Host header on instead of the upstream's."));
    const QCommandLineOption cacertOption(QStringLiteral("cacert"),
        Tr::tr("PEM file of CA certificates trusted for an https upstream, besides the system's."), Tr::tr("FILE"));
    const QCommandLineOption allowOption(
        QStringLiteral("allow-non-loopback"), Tr::tr("Allow --listen to name an address other machines can reach."));
    const QCommandLineOption durationOption(
        QStringLiteral("duration"), Tr::tr("Stop after this many seconds."), Tr::tr("S"));
    const QCommandLineOption reportOption(QStringLiteral("report"),
        Tr::tr("Write what the observer saw (format retrylab-observation, version 1) to this JSON file."),
        Tr::tr("FILE"));
    const QCommandLineOption quietOption(
        {QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print no line per exchange."));
    const QCommandLineOption faultOption(QStringLiteral("fault"),
        Tr::tr("A fault rule (repeatable), e.g. 'status=503 p=0.3 path=/api/*'."), Tr::tr("RULE"));
    const QCommandLineOption faultsOption(QStringLiteral("faults"),
        Tr::tr("Fault rules from a JSON file (format retrylab-faults, version 1); --fault rules come after them."),
        Tr::tr("FILE"));
    const QCommandLineOption seedOption(QStringLiteral("seed"),
        Tr::tr("Seed of the fault probabilities and latencies (default: the file's, or a fresh one, printed)."),
        Tr::tr("N"));
    const QCommandLineOption controlOption(QStringLiteral("control"),
        Tr::tr("Port of the control endpoint on 127.0.0.1 (default: a free one, printed)."), Tr::tr("PORT"));
    parser.addOptions({helpOption, listenOption, upstreamOption, keepHostOption, allowOption, durationOption,
        reportOption, quietOption, faultOption, faultsOption, seedOption, controlOption, cacertOption});

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
    options.caBundlePath = parser.value(cacertOption);
    if (!options.caBundlePath.isEmpty() && QSslCertificate::fromPath(options.caBundlePath, QSsl::Pem).isEmpty())
        return usage(Tr::tr("--cacert: %1 holds no PEM certificate (or cannot be read)").arg(options.caBundlePath));
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

    Core::FaultRuleList rules;
    if (parser.isSet(faultsOption)) {
        QFile file(parser.value(faultsOption));
        if (!file.open(QIODevice::ReadOnly))
            return usage(Tr::tr("--faults: cannot read %1: %2").arg(file.fileName(), file.errorString()));
        const auto read = Core::FaultRuleList::fromJson(file.read(16 * 1024 * 1024));
        if (!read)
            return usage(Tr::tr("--faults %1: %2").arg(file.fileName(), read.error()));
        rules = *read;
    }
    if (parser.isSet(faultOption)) {
        const auto read = Core::FaultRuleList::fromSpecs(parser.values(faultOption));
        if (!read)
            return usage(read.error());
        rules.rules += read->rules;
    }
    quint64 seed = rules.seed.value_or(QRandomGenerator::system()->generate64() >> 1);
    if (parser.isSet(seedOption)) {
        bool ok = false;
        seed = parser.value(seedOption).toULongLong(&ok);
        if (!ok)
            return usage(Tr::tr("--seed must be a whole number 0 or more (got \"%1\")").arg(parser.value(seedOption)));
    }
    rules.seed = seed;
    quint16 controlPort = 0;
    if (parser.isSet(controlOption)) {
        bool ok = false;
        const uint port = parser.value(controlOption).toUInt(&ok);
        if (!ok || port > 65535)
            return usage(Tr::tr("--control needs a port number (got \"%1\")").arg(parser.value(controlOption)));
        controlPort = quint16(port);
    }

    Core::ProxyServer proxy(options);
    proxy.setFaultRules(rules);
    Core::ProxyControl control(&proxy);
    if (!control.listen(QHostAddress(QHostAddress::LocalHost), controlPort)) {
        err << Tr::tr("retrylab proxy: control port: %1").arg(control.errorString()) << Qt::endl;
        return ExitFailed;
    }
    if (!proxy.listen()) {
        err << Tr::tr("retrylab proxy: %1").arg(proxy.errorString()) << Qt::endl;
        return options.address.isLoopback() || options.allowNonLoopback ? ExitFailed : ExitUsage;
    }
    if (!options.address.isLoopback()) {
        err << Tr::tr("warning: listening on %1, which other machines may reach; anyone who does can reach %2 "
                      "through it and meet its faults")
                   .arg(options.address.toString(), options.upstream.toString())
            << Qt::endl;
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
    for (const Core::FaultRule &rule : proxy.faultRules())
        out << Tr::tr("fault %1%2: %3").arg(rule.name, rule.enabled ? QString() : Tr::tr(" (off)"), rule.describe())
            << Qt::endl;
    out << Tr::tr("seed %1; control: %2 (GET, or POST ?enabled=false)").arg(seed).arg(control.url().toString())
        << Qt::endl;
    const QString listenUrl = proxy.listenUrl().toString();

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
    report.serverUrl = listenUrl;
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
