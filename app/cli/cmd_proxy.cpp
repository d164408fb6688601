#include "app/cli/cmd_proxy.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/observerfeed.h"
#include "app/cli/subcommand.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"
#include "core/proxy/proxycontrol.h"
#include "core/tls/certificatefactory.h"
#include "core/util/exportfile.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSslCertificate>
#include <QTextStream>
#include <QTimer>

#include <cmath>
#include <utility>

namespace RetryLab::Cli {

namespace {

using ProxyCommand::Options;

const QString command = QStringLiteral("proxy");

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption listen;
    QCommandLineOption upstream;
    QCommandLineOption keepHost;
    QCommandLineOption cacert;
    QCommandLineOption allow;
    QCommandLineOption duration;
    QCommandLineOption report;
    QCommandLineOption quiet;
    QCommandLineOption fault;
    QCommandLineOption faults;
    QCommandLineOption seed;
    QCommandLineOption control;
    QCommandLineOption tcp;
    QCommandLineOption toxic;
    QCommandLineOption forward;
    QCommandLineOption connectPorts;
    QCommandLineOption intercept;
    QCommandLineOption interceptCa;
    QCommandLineOption record;
    QCommandLineOption api;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      listen(QStringLiteral("listen"), Tr::tr("Address and port to listen on (default 127.0.0.1:0, a free port)."),
          Tr::tr("ADDR:PORT")),
      upstream(
          QStringLiteral("upstream"), Tr::tr("The service to forward to: http:// or https:// URL."), Tr::tr("URL")),
      keepHost(QStringLiteral("keep-host"), Tr::tr("Send the client's Host header on instead of the upstream's.")),
      cacert(QStringLiteral("cacert"),
          Tr::tr("PEM file of CA certificates trusted for an https upstream, besides the system's."), Tr::tr("FILE")),
      allow(
          QStringLiteral("allow-non-loopback"), Tr::tr("Allow --listen to name an address other machines can reach.")),
      duration(QStringLiteral("duration"), Tr::tr("Stop after this many seconds."), Tr::tr("S")),
      report(QStringLiteral("report"),
          Tr::tr("Write what the observer saw (format retrylab-observation, version 1) to this JSON file."),
          Tr::tr("FILE")),
      quiet({QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print no line per exchange.")),
      fault(QStringLiteral("fault"), Tr::tr("A fault rule (repeatable), e.g. 'status=503 p=0.3 path=/api/*'."),
          Tr::tr("RULE")),
      faults(QStringLiteral("faults"),
          Tr::tr("Fault rules from a JSON file (format retrylab-faults, version 1); --fault rules come after them."),
          Tr::tr("FILE")),
      seed(QStringLiteral("seed"),
          Tr::tr("Seed of the fault probabilities and latencies (default: the file's, or a fresh one, printed)."),
          Tr::tr("N")),
      control(QStringLiteral("control"),
          Tr::tr("Port of the control endpoint on 127.0.0.1 (default: a free one, printed)."), Tr::tr("PORT")),
      tcp(QStringLiteral("tcp"),
          Tr::tr(
              "A TCP proxy for any protocol (Redis, PostgreSQL, ...): --upstream is HOST:PORT, faults are --toxic.")),
      toxic(QStringLiteral("toxic"),
          Tr::tr("With --tcp, a toxic (repeatable), e.g. 'latency latency=1000 jitter=100 stream=downstream'."),
          Tr::tr("TOXIC")),
      forward(QStringLiteral("forward"),
          Tr::tr("A forward proxy (HTTP_PROXY, HTTPS_PROXY) instead of a reverse one: no --upstream; each request "
                 "names its own, CONNECT opens tunnels.")),
      connectPorts(QStringLiteral("connect-ports"),
          Tr::tr("With --forward, the ports CONNECT may reach besides any port on loopback (default 443,8443; "
                 "\"any\" for all)."),
          Tr::tr("LIST")),
      intercept(QStringLiteral("intercept"),
          Tr::tr("With --forward, decrypt CONNECT tunnels so that --fault rules apply to the HTTPS requests inside: "
                 "clients must trust a CA made for this run (--intercept-ca).")),
      interceptCa(QStringLiteral("intercept-ca"),
          Tr::tr("With --intercept, write the CA's certificate (PEM) here for clients to trust (default: a file in "
                 "the temporary folder, printed)."),
          Tr::tr("FILE")),
      record(QStringLiteral("record"),
          Tr::tr("Record every answer the upstream gives (status, headers, body, timing; credentials masked) into "
                 "this folder, for retrylab serve --replay."),
          Tr::tr("DIR")),
      api(QStringLiteral("api"),
          Tr::tr("Serve toxiproxy's HTTP API on this loopback address (e.g. 127.0.0.1:8474): alone it starts with "
                 "no proxy, as toxiproxy-server does; with --tcp its proxy is named \"tcp\"."),
          Tr::tr("ADDR:PORT"))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(Tr::tr(
        "Runs an HTTP/1.1 reverse proxy on loopback in front of a real service: every request to the listen\n"
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
        "  curl -X POST -H 'Content-Type: application/json' \\\n"
        "    'http://127.0.0.1:PORT/_control/faults?enabled=false'   (or ?rule=NAME&enabled=true)\n"
        "\n"
        "With --tcp it passes bytes between its clients and --upstream HOST:PORT, whatever the protocol,\n"
        "through toxiproxy's toxics, one per --toxic: the type, then its attributes and where it applies:\n"
        "  latency latency=MS jitter=MS      bandwidth rate=KB/S        slow_close delay=MS\n"
        "  timeout timeout=MS (0: never)     reset_peer timeout=MS      limit_data bytes=N\n"
        "  slicer average_size=N size_variation=N delay=US\n"
        "  stream=upstream|downstream (default downstream)   toxicity=P (default 1)   name=NAME\n"
        "e.g. retrylab proxy --tcp --listen 127.0.0.1:26379 --upstream 127.0.0.1:6379 --toxic 'limit_data bytes=100'\n"
        "--api 127.0.0.1:8474 serves toxiproxy's HTTP API (/proxies, /populate, /reset, /version), so that\n"
        "toxiproxy's clients create and change proxies and toxics."));
    parser.addOptions({help, listen, upstream, keepHost, allow, duration, report, quiet, fault, faults, seed, control,
        cacert, forward, connectPorts, intercept, interceptCa, record, tcp, toxic, api});
}

// --forward and --connect-ports.
Core::Result<void> readForwardOptions(
    const QCommandLineParser &parser, const OptionTable &table, Core::ProxyOptions &proxy)
{
    using Read = Core::Result<void>;
    if (!parser.isSet(table.forward)) {
        for (const QCommandLineOption *forwardOnly : {&table.connectPorts, &table.intercept, &table.interceptCa}) {
            if (parser.isSet(*forwardOnly))
                return Read::failure(Tr::tr("--%1 needs --forward").arg(forwardOnly->names().constLast()));
        }
        return {};
    }
    if (parser.isSet(table.interceptCa) && !parser.isSet(table.intercept))
        return Read::failure(Tr::tr("--intercept-ca needs --intercept"));
    proxy.intercept = parser.isSet(table.intercept);
    if (parser.isSet(table.upstream))
        return Read::failure(Tr::tr("--forward takes no --upstream: each request names its own"));
    if (parser.isSet(table.keepHost))
        return Read::failure(
            Tr::tr("--keep-host has no meaning with --forward: the Host names the request's own server"));
    proxy.forward = true;
    if (parser.isSet(table.connectPorts)) {
        const QString list = parser.value(table.connectPorts);
        proxy.connectPorts.clear();
        if (list != QLatin1String("any")) {
            for (const QString &part : list.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool ok = false;
                const uint port = part.trimmed().toUInt(&ok);
                if (!ok || port == 0 || port > 65535) {
                    return Read::failure(
                        Tr::tr("--connect-ports takes ports 1-65535 separated by commas, or \"any\" (got \"%1\")")
                            .arg(list));
                }
                proxy.connectPorts << quint16(port);
            }
            if (proxy.connectPorts.isEmpty())
                return Read::failure(Tr::tr("--connect-ports names no port (\"any\" allows all)"));
        }
    }
    return {};
}

// --upstream (or --forward), --keep-host, --cacert, --allow-non-loopback and --listen.
Core::Result<Core::ProxyOptions> readProxyOptions(const QCommandLineParser &parser, const OptionTable &table)
{
    using Read = Core::Result<Core::ProxyOptions>;
    Core::ProxyOptions proxy;
    if (const auto forward = readForwardOptions(parser, table, proxy); !forward)
        return forward.errorDetail();
    if (!proxy.forward && !parser.isSet(table.upstream))
        return Read::failure(Tr::tr("--upstream is required (or --forward for a forward proxy)"));
    if (!proxy.forward) {
        proxy.upstream = QUrl(parser.value(table.upstream), QUrl::StrictMode);
        if (!proxy.upstream.isValid() || proxy.upstream.host().isEmpty()
            || (proxy.upstream.scheme() != QLatin1String("http")
                && proxy.upstream.scheme() != QLatin1String("https"))) {
            return Read::failure(Tr::tr("--upstream must be an http or https URL with a host (got \"%1\")")
                                     .arg(parser.value(table.upstream)));
        }
    }
    proxy.keepHost = parser.isSet(table.keepHost);
    proxy.caBundlePath = parser.value(table.cacert);
    if (!proxy.caBundlePath.isEmpty() && QSslCertificate::fromPath(proxy.caBundlePath, QSsl::Pem).isEmpty()) {
        return Read::failure(
            Tr::tr("--cacert: %1 holds no PEM certificate (or cannot be read)").arg(proxy.caBundlePath));
    }
    proxy.allowNonLoopback = parser.isSet(table.allow);
    if (parser.isSet(table.listen)) {
        const QString listen = parser.value(table.listen);
        const qsizetype colon = listen.lastIndexOf(QLatin1Char(':'));
        bool ok = false;
        const uint port = colon > 0 ? listen.mid(colon + 1).toUInt(&ok) : 0;
        const QHostAddress address(listen.left(colon).remove(QLatin1Char('[')).remove(QLatin1Char(']')));
        if (colon <= 0 || !ok || port > 65535 || address.isNull())
            return Read::failure(Tr::tr("--listen needs ADDRESS:PORT, e.g. 127.0.0.1:8080 (got \"%1\")").arg(listen));
        proxy.address = address;
        proxy.port = quint16(port);
    }
    return proxy;
}

// The rules of --faults FILE, which come first, and their seed.
Core::Result<Core::FaultRuleList> readFaultsFile(const QString &path)
{
    const auto read = Core::FaultRuleList::readFile(path);
    if (!read)
        return Core::Result<Core::FaultRuleList>::failure(Tr::tr("--faults: %1").arg(read.error()));
    return read;
}

// --duration, --faults, --fault, --seed and --control, checked in that order.
Core::Result<void> readRunOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    if (parser.isSet(table.duration)) {
        bool ok = false;
        options.durationS = parser.value(table.duration).toDouble(&ok);
        if (!ok || !std::isfinite(options.durationS) || options.durationS <= 0 || options.durationS > 7 * 24 * 3600) {
            return Core::Result<void>::failure(
                Tr::tr("--duration must be a number of seconds (got \"%1\")").arg(parser.value(table.duration)));
        }
    }
    if (parser.isSet(table.faults)) {
        auto read = readFaultsFile(parser.value(table.faults));
        if (!read)
            return read.errorDetail();
        options.faults = std::move(read).value();
    }
    if (parser.isSet(table.fault)) {
        const auto read = Core::FaultRuleList::fromSpecs(parser.values(table.fault));
        if (!read)
            return read.errorDetail();
        options.faults.rules += read->rules;
        if (const auto count = Core::FaultRuleList::checkCount(options.faults.rules.size()); !count)
            return Core::Result<void>::failure(Tr::tr("--faults and --fault: %1").arg(count.error()));
    }
    if (parser.isSet(table.seed)) {
        bool ok = false;
        options.faults.seed = parser.value(table.seed).toULongLong(&ok);
        if (!ok) {
            return Core::Result<void>::failure(
                Tr::tr("--seed must be a whole number 0 or more (got \"%1\")").arg(parser.value(table.seed)));
        }
    }
    if (parser.isSet(table.control)) {
        bool ok = false;
        const uint port = parser.value(table.control).toUInt(&ok);
        if (!ok || port > 65535) {
            return Core::Result<void>::failure(
                Tr::tr("--control needs a port number (got \"%1\")").arg(parser.value(table.control)));
        }
        options.controlPort = quint16(port);
    }
    return {};
}

// Where the proxy listens and the rules it applies.
void printBanner(const Core::ProxyServer &proxy, const Core::ProxyControl &control, quint64 seed, QTextStream &out)
{
    if (proxy.options().forward) {
        out << Tr::tr("RetryLab forward proxy on %1; Ctrl+C stops. Point clients at it: HTTP_PROXY=%1 HTTPS_PROXY=%1")
                   .arg(proxy.listenUrl().toString())
            << Qt::endl;
    } else {
        out << Tr::tr("RetryLab proxy on %1 -> %2; Ctrl+C stops.")
                   .arg(proxy.listenUrl().toString(), proxy.options().upstream.toString())
            << Qt::endl;
    }
    for (const Core::FaultRule &rule : proxy.faultRules())
        out << Tr::tr("fault %1%2: %3").arg(rule.name, rule.enabled ? QString() : Tr::tr(" (off)"), rule.describe())
            << Qt::endl;
    out << Tr::tr("seed %1; control: %2 (GET, or POST ?enabled=false)").arg(seed).arg(control.url().toString())
        << Qt::endl;
}

// Until Ctrl+C or --duration.
void runUntilStopped(const Options &options, Core::ProxyServer &proxy)
{
    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &proxy, [] { QCoreApplication::quit(); });
    if (options.durationS > 0)
        QTimer::singleShot(int(std::min(options.durationS * 1000.0, 2e9)), &proxy, [] { QCoreApplication::quit(); });
    QCoreApplication::exec();
}

// --tcp, --toxic and --api; the HTTP options have no meaning there.
Core::Result<void> readTcpOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    using Read = Core::Result<void>;
    for (const QCommandLineOption *http :
        {&table.keepHost, &table.cacert, &table.fault, &table.faults, &table.control}) {
        if (parser.isSet(*http)) {
            return Read::failure(
                Tr::tr("--%1 is an HTTP fault option; --tcp and --api take --toxic").arg(http->names().constLast()));
        }
    }
    if (parser.isSet(table.api)) {
        Core::TcpProxyOptions address;
        if (const auto set = address.setListen(parser.value(table.api)); !set || address.port == 0)
            return Read::failure(
                Tr::tr("--api needs ADDRESS:PORT, e.g. 127.0.0.1:8474 (got \"%1\")").arg(parser.value(table.api)));
        if (!address.address.isLoopback())
            return Read::failure(Tr::tr("--api listens on loopback only (got %1)").arg(parser.value(table.api)));
        options.apiAddress = address.address;
        options.apiPort = address.port;
    }
    options.mode = parser.isSet(table.tcp) ? Options::Mode::Tcp : Options::Mode::Api;
    if (options.mode == Options::Mode::Api) {
        for (const QCommandLineOption *tcpOnly : {&table.upstream, &table.listen, &table.toxic}) {
            if (parser.isSet(*tcpOnly)) {
                return Read::failure(Tr::tr("--%1 needs --tcp; with --api alone, proxies are made through the API")
                                         .arg(tcpOnly->names().constLast()));
            }
        }
    } else {
        if (!parser.isSet(table.upstream))
            return Read::failure(Tr::tr("--upstream HOST:PORT is required with --tcp"));
        if (const auto set = options.tcp.setUpstream(parser.value(table.upstream)); !set)
            return Read::failure(QStringLiteral("--upstream: ") + set.error());
        if (parser.isSet(table.listen)) {
            if (const auto set = options.tcp.setListen(parser.value(table.listen)); !set)
                return Read::failure(QStringLiteral("--listen: ") + set.error());
        }
        options.tcp.allowNonLoopback = parser.isSet(table.allow);
        const QStringList toxics = parser.values(table.toxic);
        for (qsizetype i = 0; i < toxics.size(); ++i) {
            auto toxic = Core::Toxic::parse(toxics.at(i));
            if (!toxic)
                return Read::failure(Tr::tr("--toxic %1 (\"%2\"): %3").arg(i + 1).arg(toxics.at(i), toxic.error()));
            for (const Core::Toxic &earlier : std::as_const(options.toxics)) {
                if (earlier.name == toxic->name) {
                    return Read::failure(Tr::tr("--toxic %1: the name %2 is taken; give one with name=NAME")
                                             .arg(i + 1)
                                             .arg(toxic->name));
                }
            }
            options.toxics << std::move(toxic).value();
        }
    }
    if (parser.isSet(table.duration)) {
        bool ok = false;
        options.durationS = parser.value(table.duration).toDouble(&ok);
        if (!ok || !std::isfinite(options.durationS) || options.durationS <= 0 || options.durationS > 7 * 24 * 3600) {
            return Read::failure(
                Tr::tr("--duration must be a number of seconds (got \"%1\")").arg(parser.value(table.duration)));
        }
    }
    if (parser.isSet(table.seed)) {
        bool ok = false;
        options.faults.seed = parser.value(table.seed).toULongLong(&ok);
        if (!ok)
            return Read::failure(
                Tr::tr("--seed must be a whole number 0 or more (got \"%1\")").arg(parser.value(table.seed)));
    }
    if (parser.isSet(table.report))
        options.reportPath = parser.value(table.report);
    options.quiet = parser.isSet(table.quiet);
    return {};
}

Core::Result<void> readOptions(const QCommandLineParser &parser, const OptionTable &table, Options &options)
{
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    if (parser.isSet(table.tcp) || parser.isSet(table.api))
        return readTcpOptions(parser, table, options);
    if (parser.isSet(table.toxic))
        return Core::Result<void>::failure(Tr::tr("--toxic needs --tcp (or --api); HTTP faults are --fault"));
    if (parser.isSet(table.forward) && (parser.isSet(table.tcp) || parser.isSet(table.api)))
        return Core::Result<void>::failure(
            Tr::tr("--forward is an HTTP proxy; --tcp and --api are TCP proxies: choose one"));
    auto proxy = readProxyOptions(parser, table);
    if (!proxy)
        return proxy.errorDetail();
    options.proxy = std::move(proxy).value();
    if (const auto read = readRunOptions(parser, table, options); !read)
        return read;
    if (parser.isSet(table.report))
        options.reportPath = parser.value(table.report);
    if (parser.isSet(table.interceptCa))
        options.interceptCaPath = parser.value(table.interceptCa);
    if (parser.isSet(table.record)) {
        options.recordDirectory = parser.value(table.record);
        if (options.recordDirectory->isEmpty())
            return Core::Result<void>::failure(Tr::tr("--record needs a folder"));
    }
    options.quiet = parser.isSet(table.quiet);
    return {};
}

// --intercept: a CA of this run's own, its certificate written where clients can trust it.
Core::Result<QString> makeInterceptionCa(Core::ProxyOptions &proxy, const QString &wantedPath)
{
    Core::CertificateRequest request;
    request.commonName = QStringLiteral("RetryLab proxy interception CA");
    request.organization = QStringLiteral("RetryLab proxy (TLS interception)");
    request.certificateAuthority = true;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    request.notBefore = now.addSecs(-3600);
    request.notAfter = now.addDays(30);
    const auto ca = Core::CertificateFactory::selfSigned(request);
    if (!ca)
        return Core::Result<QString>::failure(Tr::tr("--intercept: no CA: %1").arg(ca.error()));
    const QString path = wantedPath.isEmpty()
        ? QDir::temp().filePath(QStringLiteral("retrylab-intercept-ca-%1.pem").arg(QCoreApplication::applicationPid()))
        : wantedPath;
    if (const auto written = Core::ExportFile::write(path, ca->certificate.toPem()); !written)
        return Core::Result<QString>::failure(Tr::tr("--intercept-ca: %1").arg(written.error()));
    proxy.interceptCaCertificate = ca->certificate;
    proxy.interceptCaKey = ca->privateKey;
    return path;
}

} // namespace

namespace ProxyCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    return parseOptionTable<Options, OptionTable>(arguments,
        Tr::tr("Usage: retrylab proxy --upstream URL [options]\n"
               "       retrylab proxy --forward [options]\n"
               "       retrylab proxy --tcp --upstream HOST:PORT [--toxic TOXIC ...] [options]\n"
               "       retrylab proxy --api 127.0.0.1:8474"),
        &readOptions);
}

int run(const Options &options)
{
    if (options.mode != Options::Mode::Reverse)
        return runTcp(options);
    QTextStream out(stdout);
    QTextStream err(stderr);
    Core::FaultRuleList rules = options.faults;
    if (!rules.seed)
        rules.seed = QRandomGenerator::system()->generate64() >> 1;

    Core::ProxyOptions proxyOptions = options.proxy;
    if (proxyOptions.intercept) {
        const auto ca = makeInterceptionCa(proxyOptions, options.interceptCaPath.value_or(QString()));
        if (!ca) {
            err << Tr::tr("retrylab proxy: %1").arg(ca.error()) << Qt::endl;
            return ExitUsage;
        }
        err << Tr::tr("warning: --intercept decrypts HTTPS between clients and their servers: clients must trust the "
                      "CA in %1 (curl --cacert, REQUESTS_CA_BUNDLE, SSL_CERT_FILE), and what they send, credentials "
                      "included, passes through this proxy in the clear (its log masks credentials)")
                   .arg(*ca)
            << Qt::endl;
    }
    Core::ProxyServer proxy(proxyOptions);
    proxy.setFaultRules(rules);
    std::unique_ptr<Core::RecordingWriter> recorder;
    if (options.recordDirectory) {
        auto opened = Core::RecordingWriter::open(*options.recordDirectory);
        if (!opened) {
            err << Tr::tr("retrylab proxy: --record: %1").arg(opened.error()) << Qt::endl;
            return ExitUsage;
        }
        recorder = std::move(opened).value();
        proxy.setRecorder(recorder.get());
        QObject::connect(&proxy, &Core::ProxyServer::recordingFailed, &proxy,
            [&err](const QString &error) { err << Tr::tr("retrylab proxy: --record: %1").arg(error) << Qt::endl; });
    }
    Core::ProxyControl control(&proxy);
    if (!control.listen(QHostAddress(QHostAddress::LocalHost), options.controlPort)) {
        err << Tr::tr("retrylab proxy: control port: %1").arg(control.errorString()) << Qt::endl;
        return ExitFailed;
    }
    if (!proxy.listen()) {
        err << Tr::tr("retrylab proxy: %1").arg(proxy.errorString()) << Qt::endl;
        // A non-loopback address without --allow-non-loopback is the command line's fault.
        return options.proxy.address.isLoopback() || options.proxy.allowNonLoopback ? ExitFailed : ExitUsage;
    }
    if (!options.proxy.address.isLoopback()) {
        err << Tr::tr("warning: listening on %1, which other machines may reach; anyone who does can reach %2 "
                      "through it and meet its faults")
                   .arg(options.proxy.address.toString(),
                       options.proxy.forward ? Tr::tr("anything this machine reaches")
                                             : options.proxy.upstream.toString())
            << Qt::endl;
    }
    // The observer groups and judges what passes; the proxy, not a plan, decides the answers.
    Core::Observer observer;
    ObserverFeed feed(observer);
    QObject::connect(&proxy, &Core::ProxyServer::exchangeFinished, &proxy,
        [&feed, &out, quiet = options.quiet](const Core::ServerLogEntry &entry) {
            if (!quiet)
                out << entry.summary() << Qt::endl;
            if (!entry.method.isEmpty())
                feed.take(entry);
        });
    const QDateTime started = QDateTime::currentDateTimeUtc();
    printBanner(proxy, control, *rules.seed, out);
    const QString listenUrl = proxy.listenUrl().toString();
    if (recorder) {
        out << Tr::tr("recording the upstream's answers into %1 (%2 there already)")
                   .arg(QDir::toNativeSeparators(recorder->directory()))
                   .arg(recorder->count())
            << Qt::endl;
    }
    const int recordedBefore = recorder ? recorder->count() : 0;
    runUntilStopped(options, proxy);
    proxy.close();
    if (recorder) {
        out << Tr::tr("answers recorded into %1: %2")
                   .arg(QDir::toNativeSeparators(recorder->directory()))
                   .arg(recorder->count() - recordedBefore);
        if (recorder->skipped() > 0)
            out << Tr::tr(" (and %1 too large to record, over %2 MiB)")
                       .arg(recorder->skipped())
                       .arg(Core::RecordingWriter::maxBodyBytes / (1024 * 1024));
        out << Qt::endl;
    }
    feed.finish(); // the observer is finished and back on this thread

    Core::ObservationReport report = Core::ObservationReport::from(observer);
    report.started = started;
    report.finished = QDateTime::currentDateTimeUtc();
    report.serverUrl = listenUrl;
    out << Qt::endl << report.toText();
    if (options.reportPath) {
        const auto written = Core::ExportFile::write(
            *options.reportPath, QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
        if (!written) {
            err << Tr::tr("retrylab proxy: --report: %1").arg(written.error()) << Qt::endl;
            return ExitUsage;
        }
    }
    return ExitOk;
}

} // namespace ProxyCommand

int runProxy(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &ProxyCommand::parse, &ProxyCommand::run, UsageHint::SeeHelp);
}

} // namespace RetryLab::Cli
