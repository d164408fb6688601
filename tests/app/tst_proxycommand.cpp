#include "commandtesting.h"

#include "core/faultserver/faultserver.h"
#include "core/observe/observationreport.h"

#include <QFile>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
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
