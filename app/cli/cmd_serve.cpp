#include "app/cli/clitr.h"
#include "app/cli/commands.h"
#include "app/cli/subcommand.h"
#include "core/faultserver/faultserver.h"
#include "core/util/descriptorlimit.h"
#include "core/util/randomsource.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QSocketNotifier>
#include <QTextStream>

#include <csignal>

#if defined(Q_OS_UNIX)
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace {
Q_LOGGING_CATEGORY(lcServe, "retrylab.cli.serve", QtInfoMsg)
} // namespace

namespace RetryLab::Cli {

namespace {

#if defined(Q_OS_UNIX)
// A signal handler may only do async-signal-safe things: it writes a byte that
// a QSocketNotifier turns into an orderly quit on the event loop.
int signalFds[2] = {-1, -1};

void forwardSignal(int)
{
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(signalFds[0], &byte, 1);
}

bool installSignalHandlers(QObject *context)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, signalFds) != 0)
        return false;
    auto *notifier = new QSocketNotifier(signalFds[1], QSocketNotifier::Read, context);
    QObject::connect(notifier, &QSocketNotifier::activated, context, [notifier] {
        notifier->setEnabled(false);
        char byte = 0;
        [[maybe_unused]] const auto got = ::read(signalFds[1], &byte, 1);
        QCoreApplication::quit();
    });
    struct sigaction action = {};
    action.sa_handler = forwardSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return ::sigaction(SIGINT, &action, nullptr) == 0 && ::sigaction(SIGTERM, &action, nullptr) == 0;
}
#else
bool installSignalHandlers(QObject *)
{
    // Elsewhere the default handlers end the process, which is all Ctrl+C needs.
    return true;
}
#endif

} // namespace

int runServe(const QStringList &arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        Tr::tr("Runs RetryLab's fault-injection HTTP server on loopback until interrupted (Ctrl+C or SIGTERM),\n"
               "printing its URL and one line per request it handles."));
    const QCommandLineOption helpOption({QStringLiteral("h"), QStringLiteral("help")}, Tr::tr("Show this help."));
    const QCommandLineOption portOption(
        QStringLiteral("port"), Tr::tr("Port to listen on; 0 (the default) lets the system choose."), Tr::tr("N"));
    const QCommandLineOption bindOption(
        QStringLiteral("bind"), Tr::tr("Address to listen on (default 127.0.0.1)."), Tr::tr("ADDR"));
    const QCommandLineOption allowOption(QStringLiteral("allow-non-loopback"),
        Tr::tr("Allow --bind to name an address other machines can reach. Anyone who reaches it can make the server "
               "misbehave on purpose."));
    const QCommandLineOption seedOption(QStringLiteral("seed"),
        Tr::tr("Seed for random failures and latency (default: a fresh one, printed)."), Tr::tr("S"));
    const QCommandLineOption maxConnectionsOption(
        QStringLiteral("max-connections"), Tr::tr("Connections served at once (default 2048)."), Tr::tr("N"));
    const QCommandLineOption idleOption(QStringLiteral("idle-timeout"),
        Tr::tr("Close idle connections after this many ms (default 30000)."), Tr::tr("MS"));
    const QCommandLineOption quietOption(
        {QStringLiteral("q"), QStringLiteral("quiet")}, Tr::tr("Print only the URL, not a line per request."));
    const QCommandLineOption noRedactOption(QStringLiteral("no-redact"),
        Tr::tr("Print request targets as they arrived, credentials included (?token=, ?api_key=, user:password@); "
               "by default they are masked."));
    const QCommandLineOption httpsPortOption(QStringLiteral("https-port"),
        Tr::tr("Serve HTTPS too, on this port (0: one the system chooses), with a certificate made at start and "
               "signed by a CA made with it (GET /_control/ca.pem), and one more port per TLS fault (listed below)."),
        Tr::tr("N"));
    const QCommandLineOption tlsCertOption(QStringLiteral("tls-cert"),
        Tr::tr("With --https-port: present this certificate (PEM, then its chain) instead of a generated one."),
        Tr::tr("FILE"));
    const QCommandLineOption tlsKeyOption(
        QStringLiteral("tls-key"), Tr::tr("The private key (PEM) of --tls-cert."), Tr::tr("FILE"));
    const QCommandLineOption tlsKeyPassFileOption(QStringLiteral("tls-key-pass-file"),
        Tr::tr("The passphrase of an encrypted --tls-key: the first line of FILE (a file, so that it shows in no "
               "process list)."),
        Tr::tr("FILE"));
    parser.addOptions({helpOption, portOption, bindOption, allowOption, seedOption, maxConnectionsOption, idleOption,
        quietOption, noRedactOption, httpsPortOption, tlsCertOption, tlsKeyOption, tlsKeyPassFileOption});

    if (!parser.parse(subcommandArguments(arguments))) {
        err << Tr::tr("retrylab serve: %1; see retrylab serve --help").arg(parser.errorText()) << Qt::endl;
        return ExitUsage;
    }
    if (parser.isSet(helpOption)) {
        out << subcommandHelp(parser, Tr::tr("Usage: retrylab serve [options]")) << Qt::endl
            << Core::FaultServer::usageText();
        return ExitOk;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << Tr::tr("retrylab serve: unexpected argument \"%1\"").arg(parser.positionalArguments().first())
            << Qt::endl;
        return ExitUsage;
    }

    Core::FaultServerOptions options;
    const auto readNumber = [&](const QCommandLineOption &option, qint64 min, qint64 max, qint64 *value) {
        if (!parser.isSet(option))
            return true;
        bool ok = false;
        const qint64 n = parser.value(option).toLongLong(&ok);
        if (!ok || n < min || n > max) {
            err << Tr::tr("retrylab serve: --%1 must be a whole number from %2 to %3 (got \"%4\")")
                       .arg(option.names().constLast())
                       .arg(min)
                       .arg(max)
                       .arg(parser.value(option))
                << Qt::endl;
            return false;
        }
        *value = n;
        return true;
    };
    qint64 port = 0;
    qint64 maxConnections = options.maxConnections;
    qint64 idle = options.idleTimeoutMs;
    if (!readNumber(portOption, 0, 65535, &port) || !readNumber(maxConnectionsOption, 1, 100'000, &maxConnections)
        || !readNumber(idleOption, 100, 3'600'000, &idle))
        return ExitUsage;
    options.port = static_cast<quint16>(port);
    options.maxConnections = static_cast<int>(maxConnections);
    options.idleTimeoutMs = static_cast<int>(idle);
    options.seed = Core::RandomSource::freshSeed();
    if (parser.isSet(seedOption)) {
        bool ok = false;
        options.seed = parser.value(seedOption).toULongLong(&ok);
        if (!ok) {
            err << Tr::tr("retrylab serve: --seed must be a whole number (got \"%1\")").arg(parser.value(seedOption))
                << Qt::endl;
            return ExitUsage;
        }
    }
    if (parser.isSet(bindOption)) {
        options.address = QHostAddress(parser.value(bindOption));
        if (options.address.isNull()) {
            err << Tr::tr("retrylab serve: --bind needs an IP address (got \"%1\")").arg(parser.value(bindOption))
                << Qt::endl;
            return ExitUsage;
        }
    }
    options.allowNonLoopback = parser.isSet(allowOption);
    options.redactLog = !parser.isSet(noRedactOption);
    qint64 httpsPort = 0;
    if (!readNumber(httpsPortOption, 0, 65535, &httpsPort))
        return ExitUsage;
    if (parser.isSet(httpsPortOption))
        options.httpsPort = static_cast<quint16>(httpsPort);
    if ((parser.isSet(tlsCertOption) || parser.isSet(tlsKeyOption)) && !parser.isSet(httpsPortOption)) {
        err << Tr::tr("retrylab serve: --tls-cert and --tls-key need --https-port") << Qt::endl;
        return ExitUsage;
    }
    options.tlsCertificateFile = parser.value(tlsCertOption);
    options.tlsKeyFile = parser.value(tlsKeyOption);
    if (parser.isSet(tlsKeyPassFileOption)) {
        if (!parser.isSet(tlsKeyOption)) {
            err << Tr::tr("retrylab serve: --tls-key-pass-file needs --tls-key") << Qt::endl;
            return ExitUsage;
        }
        QFile passFile(parser.value(tlsKeyPassFileOption));
        if (!passFile.open(QIODevice::ReadOnly)) {
            err << Tr::tr("retrylab serve: --tls-key-pass-file %1: cannot read: %2")
                       .arg(QDir::toNativeSeparators(passFile.fileName()), passFile.errorString())
                << Qt::endl;
            return ExitUsage;
        }
        QByteArray passphrase = passFile.readLine(64 * 1024);
        while (passphrase.endsWith('\n') || passphrase.endsWith('\r'))
            passphrase.chop(1);
        options.tlsKeyPassphrase = passphrase;
    }

    Core::FaultServer server(options);
    if (!server.listen()) {
        err << Tr::tr("retrylab serve: %1").arg(server.errorString()) << Qt::endl;
        return options.address.isLoopback() || options.allowNonLoopback ? ExitFailed : ExitUsage;
    }
    if (!options.address.isLoopback()) {
        err << Tr::tr("warning: listening on %1, which other machines may reach; anyone who does can trigger faults")
                   .arg(options.address.toString())
            << Qt::endl;
    }
    if (!installSignalHandlers(&server))
        qCWarning(lcServe) << "could not install the SIGINT/SIGTERM handlers; stop the server with SIGKILL";

    out << Tr::tr("RetryLab fault server listening on %1").arg(server.baseUrl().toString()) << Qt::endl;
    if (!server.httpsBaseUrl().isEmpty()) {
        out << Tr::tr("HTTPS on %1 (trust %2/_control/ca.pem); TLS faults:")
                   .arg(server.httpsBaseUrl().toString(), server.baseUrl().toString());
        for (const Core::TlsFault fault : Core::TlsFaults::all())
            out << QLatin1Char(' ') << Core::TlsFaults::name(fault) << QLatin1Char(' ')
                << server.tlsFaultUrl(fault).port();
        out << Qt::endl;
    }
    out << Tr::tr("Random faults and latency drawn with seed %1 (--seed %1 repeats them).").arg(options.seed)
        << Qt::endl;
    const Core::DescriptorLimit::Limits descriptors = Core::DescriptorLimit::current();
    out << Tr::tr("At most %1 connections at once (file descriptors: %2 allowed, %3 at most).")
               .arg(QString::number(server.connectionLimit()), QString::number(descriptors.soft),
                   QString::number(descriptors.hard))
        << Qt::endl;
    if (!parser.isSet(quietOption)) {
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

} // namespace RetryLab::Cli
