#include "app/cli/cmd_serve.h"

#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "app/cli/subcommand.h"
#include "core/faultserver/faultserver.h"
#include "core/proxy/proxyserver.h"
#include "core/proxy/replayserver.h"
#include "core/runtime/descriptorlimit.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QTextStream>

namespace {
Q_LOGGING_CATEGORY(lcServe, "retrylab.cli.serve", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

const QString command = QStringLiteral("serve");

// --NAME N: a whole number in [min, max], `fallback` when the option is not given.
Core::Result<qint64> wholeNumber(
    const QCommandLineParser &parser, const QCommandLineOption &option, qint64 min, qint64 max, qint64 fallback)
{
    if (!parser.isSet(option))
        return fallback;
    bool ok = false;
    const qint64 n = parser.value(option).toLongLong(&ok);
    if (!ok || n < min || n > max) {
        return Core::Result<qint64>::failure(Tr::tr("--%1 must be a whole number from %2 to %3 (got \"%4\")")
                                                 .arg(option.names().constLast())
                                                 .arg(min)
                                                 .arg(max)
                                                 .arg(parser.value(option)));
    }
    return n;
}

struct OptionTable
{
    OptionTable();
    void addTo(QCommandLineParser &parser) const;

    QCommandLineOption help;
    QCommandLineOption port;
    QCommandLineOption bind;
    QCommandLineOption allow;
    QCommandLineOption seed;
    QCommandLineOption maxConnections;
    QCommandLineOption idle;
    QCommandLineOption quiet;
    QCommandLineOption noRedact;
    QCommandLineOption httpsPort;
    QCommandLineOption tlsCert;
    QCommandLineOption tlsKey;
    QCommandLineOption tlsKeyPassFile;
    QCommandLineOption replay;
    QCommandLineOption fault;
    QCommandLineOption faults;
    QCommandLineOption noTiming;
};

OptionTable::OptionTable()
    : help({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help.")),
      port(QStringLiteral("port"), Tr::tr("Port to listen on; 0 (the default) lets the system choose."), Tr::tr("N")),
      bind(QStringLiteral("bind"), Tr::tr("Address to listen on (default 127.0.0.1)."), Tr::tr("ADDR")),
      allow(QStringLiteral("allow-non-loopback"),
          Tr::tr("Allow --bind to name an address other machines can reach. Anyone who reaches it can make the server "
                 "misbehave on purpose.")),
      seed(QStringLiteral("seed"), Tr::tr("Seed for random failures and latency (default: a fresh one, printed)."),
          Tr::tr("S")),
      maxConnections(
          QStringLiteral("max-connections"), Tr::tr("Connections served at once (default 2048)."), Tr::tr("N")),
      idle(QStringLiteral("idle-timeout"), Tr::tr("Close idle connections after this many ms (default 30000)."),
          Tr::tr("MS")),
      quiet({QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print only the URL, not a line per request.")),
      noRedact(QStringLiteral("no-redact"),
          Tr::tr("Print request targets as they arrived, credentials included (?token=, ?api_key=, user:password@); "
                 "by default they are masked.")),
      httpsPort(QStringLiteral("https-port"),
          Tr::tr("Serve HTTPS too, on this port (0: one the system chooses), with a certificate made at start and "
                 "signed by a CA made with it (GET /_control/ca.pem), and one more port per TLS fault (listed below)."),
          Tr::tr("N")),
      tlsCert(QStringLiteral("tls-cert"),
          Tr::tr("With --https-port: present this certificate (PEM, then its chain) instead of a generated one."),
          Tr::tr("FILE")),
      tlsKey(QStringLiteral("tls-key"), Tr::tr("The private key (PEM) of --tls-cert."), Tr::tr("FILE")),
      tlsKeyPassFile(QStringLiteral("tls-key-pass-file"),
          Tr::tr("The passphrase of an encrypted --tls-key: the first line of FILE (a file, so that it shows in no "
                 "process list)."),
          Tr::tr("FILE")),
      replay(QStringLiteral("replay"),
          Tr::tr("Serve a recording made by retrylab proxy --record instead of the fault endpoints, offline: each "
                 "request gets the answer recorded for its method, path, query and body."),
          Tr::tr("DIR")),
      fault(QStringLiteral("fault"),
          Tr::tr("With --replay, a fault rule on top of the recording (repeatable), as retrylab proxy takes them."),
          Tr::tr("RULE")),
      faults(QStringLiteral("faults"), Tr::tr("With --replay, fault rules from a JSON file (format retrylab-faults)."),
          Tr::tr("FILE")),
      noTiming(QStringLiteral("no-timing"),
          Tr::tr("With --replay, answer at once instead of after the time the service took."))
{ }

void OptionTable::addTo(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(Tr::tr(
        "Runs RetryLab's fault-injection HTTP server on loopback until interrupted (Ctrl+C, SIGTERM or SIGHUP),\n"
        "printing its URL and one line per request it handles.\n"
        "With --replay DIR it serves a recording made by retrylab proxy --record instead, offline, with the\n"
        "proxy's --fault rules on top; a request nothing was recorded for gets 404 naming what was asked."));
    parser.addOptions({help, port, bind, allow, seed, maxConnections, idle, quiet, noRedact, httpsPort, tlsCert, tlsKey,
        tlsKeyPassFile, replay, fault, faults, noTiming});
}

// The numbers, the seed, the address and the certificate options, checked in that order.
Core::Result<void> readOptions(
    const QCommandLineParser &parser, const OptionTable &table, ServeCommand::Options &options)
{
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    Core::FaultServerOptions &server = options.server;
    const auto port = wholeNumber(parser, table.port, 0, 65535, server.port);
    if (!port)
        return port.errorDetail();
    const auto maxConnections = wholeNumber(parser, table.maxConnections, 1, 100'000, server.maxConnections);
    if (!maxConnections)
        return maxConnections.errorDetail();
    const auto idle = wholeNumber(parser, table.idle, 100, 3'600'000, server.idleTimeoutMs);
    if (!idle)
        return idle.errorDetail();
    server.port = static_cast<quint16>(*port);
    server.maxConnections = static_cast<int>(*maxConnections);
    server.idleTimeoutMs = static_cast<int>(*idle);
    if (const auto seed = readSeed(parser, table.seed, options.seed); !seed)
        return seed;
    if (parser.isSet(table.bind)) {
        server.address = QHostAddress(parser.value(table.bind));
        if (server.address.isNull())
            return Core::Result<void>::failure(
                Tr::tr("--bind needs an IP address (got \"%1\")").arg(parser.value(table.bind)));
    }
    server.allowNonLoopback = parser.isSet(table.allow);
    server.redactLog = !parser.isSet(table.noRedact);
    const auto httpsPort = wholeNumber(parser, table.httpsPort, 0, 65535, 0);
    if (!httpsPort)
        return httpsPort.errorDetail();
    if (parser.isSet(table.httpsPort))
        server.httpsPort = static_cast<quint16>(*httpsPort);
    if ((parser.isSet(table.tlsCert) || parser.isSet(table.tlsKey)) && !parser.isSet(table.httpsPort))
        return Core::Result<void>::failure(Tr::tr("--tls-cert and --tls-key need --https-port"));
    server.tlsCertificateFile = parser.value(table.tlsCert);
    server.tlsKeyFile = parser.value(table.tlsKey);
    if (parser.isSet(table.tlsKeyPassFile) && !parser.isSet(table.tlsKey))
        return Core::Result<void>::failure(Tr::tr("--tls-key-pass-file needs --tls-key"));
    options.tlsKeyPassFile = parser.value(table.tlsKeyPassFile);
    options.quiet = parser.isSet(table.quiet);
    if (!parser.isSet(table.replay)) {
        for (const QCommandLineOption *replayOnly : {&table.fault, &table.faults, &table.noTiming}) {
            if (parser.isSet(*replayOnly)) {
                return Core::Result<void>::failure(Tr::tr("--%1 needs --replay; the fault server's own faults are its "
                                                          "endpoints and scripted tests")
                                                       .arg(replayOnly->names().constLast()));
            }
        }
        return {};
    }
    if (parser.isSet(table.httpsPort))
        return Core::Result<void>::failure(Tr::tr("--replay serves HTTP only; --https-port is the fault server's"));
    options.replayDirectory = parser.value(table.replay);
    options.replayTiming = !parser.isSet(table.noTiming);
    if (parser.isSet(table.faults)) {
        const auto read = Core::FaultRuleList::readFile(parser.value(table.faults));
        if (!read)
            return Core::Result<void>::failure(Tr::tr("--faults: %1").arg(read.error()));
        options.replayFaults = *read;
    }
    if (parser.isSet(table.fault)) {
        const auto read = Core::FaultRuleList::fromSpecs(parser.values(table.fault));
        if (!read)
            return read.errorDetail();
        options.replayFaults.rules += read->rules;
    }
    return {};
}

// The first line of --tls-key-pass-file.
Core::Result<QByteArray> readPassphrase(const QString &path)
{
    QFile passFile(path);
    if (!passFile.open(QIODevice::ReadOnly)) {
        return Core::Result<QByteArray>::failure(
            Tr::tr("--tls-key-pass-file %1: cannot read: %2")
                .arg(QDir::toNativeSeparators(passFile.fileName()), passFile.errorString()));
    }
    QByteArray passphrase = passFile.readLine(64 * 1024);
    while (passphrase.endsWith('\n') || passphrase.endsWith('\r'))
        passphrase.chop(1);
    return passphrase;
}

// Where the server listens and what it serves, before the line per request.
void printBanner(const Core::FaultServer &server, quint64 seed, QTextStream &out)
{
    out << Tr::tr("RetryLab fault server listening on %1").arg(server.baseUrl().toString()) << Qt::endl;
    if (!server.httpsBaseUrl().isEmpty()) {
        out << Tr::tr("HTTPS on %1 (trust %2/_control/ca.pem); TLS faults:")
                   .arg(server.httpsBaseUrl().toString(), server.baseUrl().toString());
        for (const Core::TlsFault fault : Core::TlsFaults::all())
            out << QLatin1Char(' ') << Core::TlsFaults::name(fault) << QLatin1Char(' ')
                << server.tlsFaultUrl(fault).port();
        out << Qt::endl;
    }
    out << Tr::tr("Random faults and latency drawn with seed %1 (--seed %1 repeats them).").arg(seed) << Qt::endl;
    const Core::DescriptorLimit::Limits descriptors = Core::DescriptorLimit::current();
    out << Tr::tr("At most %1 connections at once (file descriptors: %2 allowed, %3 at most).")
               .arg(QString::number(server.connectionLimit()), QString::number(descriptors.soft),
                   QString::number(descriptors.hard))
        << Qt::endl;
}

} // namespace

namespace ServeCommand {

Core::Result<Options> parse(const QStringList &arguments)
{
    // Only the parser's own errors point at the help; the command's other usage errors never did.
    return parseOptionTable<Options, OptionTable>(arguments, Tr::tr("Usage: retrylab serve [options]"), &readOptions,
        QLatin1Char('\n') + Core::FaultServer::usageText(), command);
}

int run(const Options &options)
{
    if (options.replayDirectory)
        return runReplay(options);
    QTextStream out(stdout);
    QTextStream err(stderr);
    Core::FaultServerOptions serverOptions = options.server;
    serverOptions.seed = options.seed.value_or(Core::RandomSource::freshSeed());
    if (!options.tlsKeyPassFile.isEmpty()) {
        const auto passphrase = readPassphrase(options.tlsKeyPassFile);
        if (!passphrase)
            return usageError(command, passphrase.error());
        serverOptions.tlsKeyPassphrase = *passphrase;
    }

    Core::FaultServer server(serverOptions);
    if (!server.listen()) {
        // A non-loopback address without --allow-non-loopback is the command line's fault.
        if (!serverOptions.address.isLoopback() && !serverOptions.allowNonLoopback)
            return usageError(command, server.errorString());
        err << Tr::tr("retrylab serve: %1").arg(server.errorString()) << Qt::endl;
        return ExitFailed;
    }
    if (!serverOptions.address.isLoopback()) {
        err << Tr::tr("warning: listening on %1, which other machines may reach; anyone who does can trigger faults")
                   .arg(serverOptions.address.toString())
            << Qt::endl;
    }
    // Ctrl+C, SIGTERM or a closed terminal (SIGHUP) stop the server in order; a second one at once.
    InterruptWatcher interrupts;
    if (!interrupts.isActive())
        qCWarning(lcServe) << "could not install the signal handlers; stop the server with SIGKILL";
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &server, [] { QCoreApplication::quit(); });

    printBanner(server, serverOptions.seed, out);
    if (!options.quiet) {
        out << Tr::tr("GET %1/ lists the endpoints. Press Ctrl+C to stop.").arg(server.baseUrl().toString())
            << Qt::endl;
        QObject::connect(&server, &Core::FaultServer::requestHandled, &server,
            [&out](const Core::ServerLogEntry &entry) { out << entry.summary() << Qt::endl; });
    }

    QCoreApplication::exec();
    err << QCoreApplication::translate(
        "serve", "stopped after %n request(s)", nullptr, static_cast<int>(server.handledCount()))
        << Qt::endl;
    return ExitOk;
}

int runReplay(const Options &options)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    auto recording = Core::Recording::read(*options.replayDirectory);
    if (!recording)
        return usageError(command, Tr::tr("--replay: %1").arg(recording.error()));
    const qsizetype recorded = recording->exchanges().size();
    // The recording answers on a port of its own; the fault rules sit in front, on the port asked for.
    Core::ReplayServer::Options replayOptions;
    replayOptions.recordedTiming = options.replayTiming;
    Core::ReplayServer replay(std::move(recording).value(), replayOptions);
    if (!replay.listen()) {
        err << Tr::tr("retrylab serve: %1").arg(replay.errorString()) << Qt::endl;
        return ExitFailed;
    }
    Core::ProxyOptions front;
    front.address = options.server.address;
    front.port = options.server.port;
    front.allowNonLoopback = options.server.allowNonLoopback;
    front.maxConnections = options.server.maxConnections;
    front.idleTimeoutMs = options.server.idleTimeoutMs;
    front.upstream = replay.baseUrl();
    front.keepHost = true;
    Core::ProxyServer proxy(front);
    Core::FaultRuleList rules = options.replayFaults;
    rules.seed = options.seed.value_or(Core::RandomSource::freshSeed());
    proxy.setFaultRules(rules);
    if (!proxy.listen()) {
        if (!front.address.isLoopback() && !front.allowNonLoopback)
            return usageError(command, proxy.errorString());
        err << Tr::tr("retrylab serve: %1").arg(proxy.errorString()) << Qt::endl;
        return ExitFailed;
    }
    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &proxy, [] { QCoreApplication::quit(); });
    out << Tr::tr("RetryLab replay of %1 (%2 recorded answers) listening on %3")
               .arg(QDir::toNativeSeparators(replay.recording().directory()))
               .arg(recorded)
               .arg(proxy.listenUrl().toString())
        << Qt::endl;
    for (const Core::FaultRule &rule : proxy.faultRules())
        out << Tr::tr("fault %1: %2").arg(rule.name, rule.describe()) << Qt::endl;
    out << Tr::tr("Random faults drawn with seed %1 (--seed %1 repeats them).").arg(*rules.seed) << Qt::endl;
    if (!options.quiet) {
        out << Tr::tr("Press Ctrl+C to stop.") << Qt::endl;
        // What the recording answered, and what a fault did instead of it.
        QObject::connect(&replay, &Core::ReplayServer::requestHandled, &replay,
            [&out](const Core::ServerLogEntry &entry) { out << entry.summary() << Qt::endl; });
        QObject::connect(
            &proxy, &Core::ProxyServer::exchangeFinished, &proxy, [&out](const Core::ServerLogEntry &entry) {
                if (entry.action != QLatin1String("forwarded"))
                    out << entry.summary() << Qt::endl;
            });
    }
    QCoreApplication::exec();
    err << Tr::tr("stopped after %1 replayed and %2 not recorded").arg(replay.answered()).arg(replay.notRecordedCount())
        << Qt::endl;
    return ExitOk;
}

} // namespace ServeCommand

int runServe(const QStringList &arguments)
{
    return parseAndRun(command, arguments, &ServeCommand::parse, &ServeCommand::run);
}

} // namespace RetryLab::Cli
