#include "commandtesting.h"

#include "core/faultserver/faultserver.h"
#include "core/observe/observationreport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;

namespace {

/// Reads the command's output until `pattern` matches it (or about ten seconds pass).
QRegularExpressionMatch waitForOutput(QProcess &process, const QRegularExpression &pattern, QByteArray *seen)
{
    QSignalSpy output(&process, &QProcess::readyReadStandardOutput);
    for (int i = 0; i < 50; ++i) {
        *seen += process.readAllStandardOutput();
        const QRegularExpressionMatch match = pattern.match(QString::fromUtf8(*seen));
        if (match.hasMatch())
            return match;
        output.wait(200);
    }
    return {};
}

/// Stops the command as Ctrl+C would; its whole output, or nothing when it did not exit 0.
QString stop(QProcess &process, const QByteArray &seen)
{
    QSignalSpy finished(&process, &QProcess::finished);
    process.terminate();
    if (!finished.wait(15'000) || process.exitCode() != 0)
        return {};
    return QString::fromUtf8(seen + process.readAllStandardOutput());
}

} // namespace

/// retrylab proxy in front of a fault server the suite runs; the suite is the client.
class TestProxyCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("proxy", words); };
        QTest::addRow("no upstream") << args({}) << "--upstream is required";
        QTest::addRow("ftp upstream") << args({"--upstream", "ftp://127.0.0.1/"}) << "http or https";
        QTest::addRow("bad listen") << args({"--upstream", "http://127.0.0.1:1", "--listen", "nowhere"}) << "--listen";
        QTest::addRow("not loopback") << args({"--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:0"})
                                      << "loopback";
        QTest::addRow("duration") << args({"--upstream", "http://127.0.0.1:1", "--duration", "-3"}) << "--duration";
        QTest::addRow("bad fault") << args({"--upstream", "http://127.0.0.1:1", "--fault", "status=503", "--fault",
            "status=503 p=3"}) << "--fault 2 (\"status=503 p=3\").p: must be a probability";
        QTest::addRow("missing faults file")
            << args({"--upstream", "http://127.0.0.1:1", "--faults", "/nonexistent.json"}) << "--faults: cannot read";
        QTest::addRow("bad seed") << args({"--upstream", "http://127.0.0.1:1", "--seed", "-1"}) << "--seed";
        QTest::addRow("no CA bundle") << args({"--upstream", "https://127.0.0.1:1", "--cacert", "/nonexistent.pem"})
                                      << "holds no PEM certificate";
        QTest::addRow("bad control") << args({"--upstream", "http://127.0.0.1:1", "--control", "x"}) << "--control";
        QTest::addRow("tcp without upstream") << args({"--tcp"}) << "--upstream HOST:PORT is required with --tcp";
        QTest::addRow("tcp url upstream")
            << args({"--tcp", "--upstream", "http://127.0.0.1:1/"}) << "--upstream: the upstream needs HOST:PORT";
        QTest::addRow("bad toxic") << args({"--tcp", "--upstream", "127.0.0.1:1", "--toxic", "latency latency=-1"})
                                   << "--toxic 1 (\"latency latency=-1\"): attributes.latency: must be a whole number";
        QTest::addRow("toxic named twice") << args(
            {"--tcp", "--upstream", "127.0.0.1:1", "--toxic", "latency latency=1", "--toxic", "latency latency=2"})
                                           << "--toxic 2: the name latency_downstream is taken";
        QTest::addRow("http fault on tcp") << args({"--tcp", "--upstream", "127.0.0.1:1", "--fault", "status=503"})
                                           << "--fault is an HTTP fault option";
        QTest::addRow("toxic without tcp")
            << args({"--upstream", "http://127.0.0.1:1", "--toxic", "latency"}) << "--toxic needs --tcp";
        QTest::addRow("api not loopback") << args({"--api", "0.0.0.0:8474"}) << "--api listens on loopback only";
        QTest::addRow("api without port") << args({"--api", "127.0.0.1"}) << "--api needs ADDRESS:PORT";
        QTest::addRow("api with upstream")
            << args({"--api", "127.0.0.1:1", "--upstream", "127.0.0.1:2"}) << "--upstream needs --tcp";
    }

    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
    }

    // Several mistakes: the one met first in the order the options are read is named.
    void theFirstMistakeIsNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("notExpected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("proxy", words); };
        QTest::addRow("CA bundle before listen")
            << args({"--upstream", "https://127.0.0.1:1", "--listen", "nowhere", "--cacert", "/nonexistent.pem"})
            << "holds no PEM certificate"
            << "--listen";
        QTest::addRow("faults file before fault")
            << args({"--upstream", "http://127.0.0.1:1", "--fault", "status=503 p=3", "--faults", "/nonexistent.json"})
            << "--faults: cannot read"
            << "probability";
        QTest::addRow("faults file before seed")
            << args({"--upstream", "http://127.0.0.1:1", "--seed", "x", "--faults", "/nonexistent.json"})
            << "--faults: cannot read"
            << "--seed";
        QTest::addRow("duration before faults file")
            << args({"--upstream", "http://127.0.0.1:1", "--faults", "/nonexistent.json", "--duration", "0"})
            << "--duration"
            << "--faults";
    }

    void theFirstMistakeIsNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        QFETCH(QString, notExpected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
        QVERIFY2(!outcome.err.contains(notExpected), qPrintable(outcome.err));
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
    }

    // The proxy refuses to listen there: said as the proxy says it, without the help hint.
    void aNonLoopbackAddressIsRefusedAsTheProxySays()
    {
        const auto outcome = CommandTesting::run(CommandTesting::arguments(
            "proxy", {"--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:0", "--control", "0"}));
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err,
            QStringLiteral("retrylab proxy: 0.0.0.0 is not a loopback address: anyone who reaches it could use the "
                           "proxy; allow it on purpose (--allow-non-loopback)\n"));
        QVERIFY(outcome.out.isEmpty());
    }

    // The seed: --seed, else the faults file's; it is printed.
    void theSeedIsTheOptionsThenTheFiles_data()
    {
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expected");
        QTest::addRow("file") << QStringList{} << "seed 7;";
        QTest::addRow("option") << QStringList{QStringLiteral("--seed"), QStringLiteral("5")} << "seed 5;";
    }

    void theSeedIsTheOptionsThenTheFiles()
    {
        QFETCH(QStringList, extra);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("faults.json"));
        QVERIFY(CommandTesting::write(
            path, R"({"format":"retrylab-faults","version":1,"seed":7,"rules":[{"name":"slow","status":503}]})"));
        const auto outcome = CommandTesting::run(
            QStringList{QStringLiteral("proxy"), QStringLiteral("--upstream"), QStringLiteral("http://127.0.0.1:1"),
                QStringLiteral("--faults"), path, QStringLiteral("--duration"), QStringLiteral("0.2")}
            + extra);
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains(expected), qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QStringLiteral("fault slow: answer 503")), qPrintable(outcome.out));
    }

    void forwardsAndObserves()
    {
        Core::FaultServer upstream;
        QVERIFY(upstream.listen());
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("proxy.json"));
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("proxy"), QStringLiteral("--upstream"), upstream.baseUrl().toString(),
                QStringLiteral("--report"), reportPath});
        QVERIFY(process.waitForStarted(10'000));
        static const QRegularExpression url(QStringLiteral("proxy on (http://127\\.0\\.0\\.1:\\d+)"));
        QByteArray seen;
        const QUrl base(waitForOutput(process, url, &seen).captured(1));
        QVERIFY2(base.isValid(), seen.constData());

        QNetworkAccessManager manager;
        for (int i = 0; i < 2; ++i) {
            QNetworkReply *reply = manager.get(QNetworkRequest(base.resolved(QUrl(QStringLiteral("/status/503")))));
            QSignalSpy finished(reply, &QNetworkReply::finished);
            QVERIFY(finished.wait(10'000));
            QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 503);
            reply->deleteLater();
        }
        QTRY_COMPARE(upstream.log().size(), 2); // the upstream saw both
        const QString out = stop(process, seen);
        QVERIFY2(out.contains(QStringLiteral("GET /status/503 -> 503 forwarded")), qPrintable(out));
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->clients.size(), 1);
        QCOMPARE(report->clients[0].requests.constFirst().attempts.size(), 2);
    }

    // The observer groups on a thread of its own, taking the proxy's records in batches:
    // every exchange of a burst still reaches the report, those queued as the proxy stops too.
    void everyExchangeOfABurstIsObserved()
    {
        Core::FaultServer upstream;
        QVERIFY(upstream.listen());
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("burst.json"));
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("proxy"), QStringLiteral("--quiet"), QStringLiteral("--upstream"),
                upstream.baseUrl().toString(), QStringLiteral("--report"), reportPath});
        QVERIFY(process.waitForStarted(10'000));
        static const QRegularExpression url(QStringLiteral("proxy on (http://127\\.0\\.0\\.1:\\d+)"));
        QByteArray seen;
        const QUrl base(waitForOutput(process, url, &seen).captured(1));
        QVERIFY2(base.isValid(), seen.constData());

        constexpr int burst = 300;
        QNetworkAccessManager manager;
        int answered = 0;
        for (int i = 0; i < burst; ++i) {
            QNetworkReply *reply
                = manager.get(QNetworkRequest(base.resolved(QUrl(QStringLiteral("/status/200?n=%1").arg(i)))));
            connect(reply, &QNetworkReply::finished, this, [reply, &answered] {
                if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                    ++answered;
                reply->deleteLater();
            });
        }
        QTRY_COMPARE_WITH_TIMEOUT(answered, burst, 60'000);
        QVERIFY(!stop(process, seen).isEmpty());
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        qsizetype attempts = 0;
        for (const Core::ObservationReport::Client &client : report->clients) {
            for (const Core::LogicalRequest &request : client.requests)
                attempts += request.attempts.size();
        }
        QCOMPARE(attempts, qsizetype(burst));
    }

    // --tcp between a client and a server of the suite: a toxic cuts the answer, the report says so.
    void tcpProxyAppliesToxicsAndReports()
    {
        QTcpServer upstream;
        QVERIFY(upstream.listen(QHostAddress::LocalHost, 0));
        connect(&upstream, &QTcpServer::newConnection, this, [&upstream] {
            QTcpSocket *socket = upstream.nextPendingConnection();
            socket->write(QByteArray(100, 'u'));
        });
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("tcp.json"));
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("proxy"), QStringLiteral("--tcp"), QStringLiteral("--upstream"),
                QStringLiteral("127.0.0.1:%1").arg(upstream.serverPort()), QStringLiteral("--toxic"),
                QStringLiteral("limit_data bytes=10"), QStringLiteral("--seed"), QStringLiteral("4"),
                QStringLiteral("--report"), reportPath});
        QVERIFY(process.waitForStarted(10'000));
        // The seed line comes last: the toxics are printed by then.
        static const QRegularExpression listening(
            QStringLiteral("TCP proxy on 127\\.0\\.0\\.1:(\\d+) -> [^\\n]*\\n[\\s\\S]*seed \\d+"));
        QByteArray seen;
        const int port = waitForOutput(process, listening, &seen).captured(1).toInt();
        QVERIFY2(port > 0, seen.constData());
        QVERIFY2(seen.contains("toxic limit_data_downstream: closed after 10 bytes downstream"), seen.constData());
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, quint16(port));
        QTRY_COMPARE_WITH_TIMEOUT(client.state(), QAbstractSocket::UnconnectedState, 10'000);
        QCOMPARE(client.readAll(), QByteArray(10, 'u'));
        QByteArray more;
        const QRegularExpression ended(QStringLiteral("#1 127\\.0\\.0\\.1:\\d+ .* limit_data"));
        QVERIFY2(waitForOutput(process, ended, &seen).hasMatch(), seen.constData());
        const QString out = stop(process, seen);
        QVERIFY2(out.contains(QStringLiteral("1 connections, 0 bytes up, 10 bytes down; ended: limit_data 1")),
            qPrintable(out));
        const QJsonObject report = QJsonDocument::fromJson(CommandTesting::read(reportPath)).object();
        QCOMPARE(report.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-tcp-proxy"));
        const QJsonObject connection = report.value(QStringLiteral("connections")).toArray().at(0).toObject();
        QCOMPARE(connection.value(QStringLiteral("end")).toString(), QStringLiteral("limit_data"));
        QCOMPARE(connection.value(QStringLiteral("bytesDownstream")).toInt(), 10);
    }

    // --api alone serves toxiproxy's API with no proxy; one made through it forwards.
    void apiStartsEmptyAndMakesProxies()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 apiPort = probe.serverPort();
        probe.close();
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("proxy"), QStringLiteral("--api"), QStringLiteral("127.0.0.1:%1").arg(apiPort)});
        QVERIFY(process.waitForStarted(10'000));
        QByteArray seen;
        QVERIFY2(
            waitForOutput(process, QRegularExpression(QStringLiteral("toxiproxy API on http://127")), &seen).hasMatch(),
            seen.constData());
        QNetworkAccessManager manager;
        const auto call = [&](const QByteArray &method, const QString &path, const QByteArray &body = {}) {
            QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(apiPort).arg(path)));
            request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
            QNetworkReply *reply = manager.sendCustomRequest(request, method, body);
            QSignalSpy finished(reply, &QNetworkReply::finished);
            finished.wait(10'000);
            reply->deleteLater();
            return std::pair{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
        };
        QCOMPARE(call("GET", QStringLiteral("/proxies")), std::pair(200, QByteArray("{}")));
        const auto created = call("POST", QStringLiteral("/proxies"),
            QByteArrayLiteral(R"({"name": "svc", "listen": "127.0.0.1:0", "upstream": "127.0.0.1:9"})"));
        QCOMPARE(created.first, 201);
        QVERIFY2(created.second.contains(R"("upstream":"127.0.0.1:9")"), created.second.constData());
        const auto missing = call("GET", QStringLiteral("/proxies/nothing"));
        QCOMPARE(missing, std::pair(404, QByteArray(R"({"error":"proxy not found","status":404})")));
        const auto bad = call("POST", QStringLiteral("/proxies/svc/toxics"),
            QByteArrayLiteral(R"({"type": "latency", "attributes": {"latency": "x"}})"));
        QCOMPARE(bad.first, 400);
        QVERIFY2(bad.second.contains("attributes.latency: must be a number"), bad.second.constData());
        QVERIFY(waitForOutput(process,
            QRegularExpression(QStringLiteral("proxy svc on 127\\.0\\.0\\.1:\\d+ -> 127\\.0\\.0\\.1:9")), &seen)
                    .hasMatch());
        QVERIFY(!stop(process, seen).isEmpty());
    }

    void aBadFaultsFileSaysWhere()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("faults.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format":"retrylab-faults","version":1,"rules":[{"name":"outage","status":503,"p":"often"}]})");
        file.close();
        const auto outcome = CommandTesting::run({QStringLiteral("proxy"), QStringLiteral("--upstream"),
            QStringLiteral("http://127.0.0.1:1"), QStringLiteral("--faults"), path});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(QStringLiteral("rules[0] (\"outage\").p: must be a probability")),
            qPrintable(outcome.err));
    }

    void faultsAreSwitchedByTheControlPort()
    {
        Core::FaultServer upstream;
        QVERIFY(upstream.listen());
        QTemporaryDir dir;
        const QString reportPath = dir.filePath(QStringLiteral("proxy.json"));
        QProcess process;
        process.start(QStringLiteral(RETRYLAB_BINARY),
            {QStringLiteral("proxy"), QStringLiteral("--upstream"), upstream.baseUrl().toString(),
                QStringLiteral("--fault"), QStringLiteral("status=503 retry-after=0 name=outage"),
                QStringLiteral("--seed"), QStringLiteral("5"), QStringLiteral("--report"), reportPath});
        QVERIFY(process.waitForStarted(10'000));
        static const QRegularExpression urls(QStringLiteral(
            "proxy on (http://127\\.0\\.0\\.1:\\d+)[\\s\\S]*control: (http://127\\.0\\.0\\.1:\\d+/_control/faults)"));
        QByteArray seen;
        const QRegularExpressionMatch urlsSeen = waitForOutput(process, urls, &seen);
        const QUrl base(urlsSeen.captured(1));
        const QUrl control(urlsSeen.captured(2));
        QVERIFY2(control.isValid(), seen.constData());
        QVERIFY2(seen.contains("fault outage: answer 503 with Retry-After 0 s"), seen.constData());
        QVERIFY2(seen.contains("seed 5"), seen.constData());

        QNetworkAccessManager manager;
        const auto send = [&](const QUrl &url, const QByteArray &method) {
            QNetworkRequest request(url);
            if (method == "POST") // the control port takes JSON only
                request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
            QNetworkReply *reply = manager.sendCustomRequest(request, method);
            QSignalSpy finished(reply, &QNetworkReply::finished);
            if (!reply->isFinished())
                finished.wait(10'000);
            reply->deleteLater();
            return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        };
        const QUrl target = base.resolved(QUrl(QStringLiteral("/status/200")));
        QCOMPARE(send(target, "GET"), 503);
        QCOMPARE(upstream.log().size(), 0); // answered by the proxy
        QUrl off = control;
        off.setQuery(QStringLiteral("rule=outage&enabled=false"));
        QCOMPARE(send(off, "POST"), 200);
        QCOMPARE(send(target, "GET"), 200);
        QTRY_COMPARE(upstream.log().size(), 1);

        const QString out = stop(process, seen);
        QVERIFY2(out.contains(QStringLiteral("GET /status/200 -> 503 fault-status")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("GET /status/200 -> 200 forwarded")), qPrintable(out));
        // The observer saw one logical request: a 503, then the retry that went through.
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->clients.size(), 1);
        QCOMPARE(report->clients[0].requests.constFirst().attempts.size(), 2);
        QCOMPARE(report->clients[0].requests.constFirst().attempts[0].status, std::optional<int>(503));
    }
};

QTEST_GUILESS_MAIN(TestProxyCommand)
#include "tst_proxycommand.moc"
