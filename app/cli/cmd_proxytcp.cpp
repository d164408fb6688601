// `retrylab proxy --tcp` and `retrylab proxy --api`: the TCP proxy with
// toxiproxy's toxics, and toxiproxy's HTTP API over such proxies.

#include "app/cli/clitr.h"
#include "app/cli/cmd_proxy.h"
#include "app/cli/commands.h"
#include "app/cli/interruptwatcher.h"
#include "core/proxy/toxiproxyapi.h"
#include "core/util/exportfile.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QRandomGenerator>
#include <QTextStream>
#include <QTimer>

#include <memory>

namespace RetryLab::Cli::ProxyCommand {

namespace {

// What every connection did, for the closing lines and --report.
struct Tally
{
    QJsonArray connections;
    QMap<QString, int> ends;
    qint64 bytesUp = 0;
    qint64 bytesDown = 0;

    void add(const Core::TcpLinkSummary &summary)
    {
        // The report keeps the first 100,000 connections; the counts keep all.
        if (connections.size() < 100'000)
            connections.append(summary.toJson());
        ++ends[summary.end];
        bytesUp += summary.bytesUpstream;
        bytesDown += summary.bytesDownstream;
    }

    QString text() const
    {
        int total = 0;
        QStringList parts;
        for (auto it = ends.begin(); it != ends.end(); ++it) {
            total += it.value();
            parts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value());
        }
        return Tr::tr("%1 connections, %2 bytes up, %3 bytes down; ended: %4")
            .arg(total)
            .arg(bytesUp)
            .arg(bytesDown)
            .arg(parts.isEmpty() ? Tr::tr("none") : parts.join(QStringLiteral(", ")));
    }
};

void printToxics(const Core::TcpProxy &proxy, QTextStream &out)
{
    for (const Core::Toxic &toxic : proxy.toxics())
        out << Tr::tr("toxic %1: %2").arg(toxic.name, toxic.describe()) << Qt::endl;
}

} // namespace

int runTcp(const Options &options)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    const quint64 seed = options.faults.seed.value_or(QRandomGenerator::system()->generate64() >> 1);
    Tally tally;
    const auto log = [&out, &tally, quiet = options.quiet](const Core::TcpLinkSummary &summary) {
        tally.add(summary);
        if (!quiet)
            out << summary.summary() << Qt::endl;
    };

    std::unique_ptr<Core::ToxiproxyApi> api;
    if (options.apiAddress) {
        api = std::make_unique<Core::ToxiproxyApi>();
        api->setSeed(seed);
        if (!api->listen(*options.apiAddress, options.apiPort)) {
            err << Tr::tr("retrylab proxy: --api: %1").arg(api->errorString()) << Qt::endl;
            return ExitFailed;
        }
        QObject::connect(api.get(), &Core::ToxiproxyApi::linkClosed, api.get(), log);
        QObject::connect(api.get(), &Core::ToxiproxyApi::proxyCreated, api.get(), [&out](Core::TcpProxy *proxy) {
            out << Tr::tr("proxy %1 on %2 -> %3 made through the API")
                       .arg(proxy->name(), proxy->listenAddress(), proxy->options().upstream())
                << Qt::endl;
            QObject::connect(proxy, &Core::TcpProxy::toxicsChanged, proxy, [&out, proxy] {
                out << Tr::tr("proxy %1 toxics now: %2")
                           .arg(proxy->name(),
                               proxy->toxics().isEmpty() ? Tr::tr("none") : [proxy] {
                                   QStringList names;
                                   for (const Core::Toxic &toxic : proxy->toxics())
                                       names << toxic.name;
                                   return names.join(QStringLiteral(", "));
                               }())
                    << Qt::endl;
            });
        });
        QObject::connect(api.get(), &Core::ToxiproxyApi::httpExchangeFinished, api.get(),
            [&out, quiet = options.quiet](const QString &proxy, const Core::ServerLogEntry &entry) {
                if (!quiet)
                    out << QStringLiteral("[%1] ").arg(proxy) << entry.summary() << Qt::endl;
            });
        QObject::connect(api.get(), &Core::ToxiproxyApi::proxyRemoved, api.get(),
            [&out](const QString &name) { out << Tr::tr("proxy %1 deleted through the API").arg(name) << Qt::endl; });
    }

    Core::TcpProxy *proxy = nullptr;
    std::unique_ptr<Core::TcpProxy> own;
    if (options.mode == Options::Mode::Tcp) {
        if (api) {
            QJsonObject made{{QStringLiteral("name"), QStringLiteral("tcp")},
                {QStringLiteral("listen"),
                    QStringLiteral("%1:%2").arg(options.tcp.address.toString()).arg(options.tcp.port)},
                {QStringLiteral("upstream"), options.tcp.upstream()}};
            const auto created = api->createProxy(made);
            if (!created) {
                err << Tr::tr("retrylab proxy: %1").arg(created.error()) << Qt::endl;
                return ExitFailed;
            }
            proxy = *created;
        } else {
            own = std::make_unique<Core::TcpProxy>(options.tcp);
            own->setSeed(seed);
            if (!own->listen()) {
                err << Tr::tr("retrylab proxy: %1").arg(own->errorString()) << Qt::endl;
                return options.tcp.address.isLoopback() || options.tcp.allowNonLoopback ? ExitFailed : ExitUsage;
            }
            QObject::connect(own.get(), &Core::TcpProxy::linkClosed, own.get(), log);
            proxy = own.get();
        }
        for (const Core::Toxic &toxic : options.toxics)
            proxy->addToxic(toxic);
        out << Tr::tr("RetryLab TCP proxy on %1 -> %2; Ctrl+C stops.")
                   .arg(proxy->listenAddress(), proxy->options().upstream())
            << Qt::endl;
        printToxics(*proxy, out);
        if (!options.tcp.address.isLoopback()) {
            err << Tr::tr("warning: listening on %1, which other machines may reach; anyone who does can reach %2 "
                          "through it")
                       .arg(options.tcp.address.toString(), options.tcp.upstream())
                << Qt::endl;
        }
    }
    if (api) {
        out << Tr::tr("toxiproxy API on %1 (version %2 of its API); Ctrl+C stops.")
                   .arg(api->url().toString(), QString::fromLatin1(Core::ToxiproxyApi::apiVersion))
            << Qt::endl;
    }
    out << Tr::tr("seed %1").arg(seed) << Qt::endl;

    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &interrupts, [] { QCoreApplication::quit(); });
    if (options.durationS > 0)
        QTimer::singleShot(
            int(std::min(options.durationS * 1000.0, 2e9)), &interrupts, [] { QCoreApplication::quit(); });
    QCoreApplication::exec();
    if (own)
        own->close();
    if (api) {
        for (Core::TcpProxy *made : api->proxies())
            made->close();
    }
    out << Qt::endl << tally.text() << Qt::endl;
    if (options.reportPath) {
        const QJsonObject report{{QStringLiteral("format"), QStringLiteral("retrylab-tcp-proxy")},
            {QStringLiteral("version"), 1}, {QStringLiteral("seed"), QString::number(seed)},
            {QStringLiteral("connections"), tally.connections}};
        const auto written
            = Core::ExportFile::write(*options.reportPath, QJsonDocument(report).toJson(QJsonDocument::Indented));
        if (!written) {
            err << Tr::tr("retrylab proxy: --report: %1").arg(written.error()) << Qt::endl;
            return ExitUsage;
        }
    }
    return ExitOk;
}

} // namespace RetryLab::Cli::ProxyCommand
