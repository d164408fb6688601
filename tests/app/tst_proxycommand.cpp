#include "commandtesting.h"

#include "core/faultserver/faultserver.h"
#include "core/observe/observationreport.h"

#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;

/// retrylab proxy in front of a fault server the suite runs; the suite is the client.
class TestProxyCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args = [](std::initializer_list<const char *> list) {
            QStringList result{QStringLiteral("proxy")};
            for (const char *a : list)
                result.append(QString::fromLatin1(a));
            return result;
        };
        QTest::addRow("no upstream") << args({}) << "--upstream is required";
        QTest::addRow("ftp upstream") << args({"--upstream", "ftp://127.0.0.1/"}) << "http or https";
        QTest::addRow("bad listen") << args({"--upstream", "http://127.0.0.1:1", "--listen", "nowhere"}) << "--listen";
        QTest::addRow("not loopback") << args({"--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:0"})
                                      << "loopback";
        QTest::addRow("duration") << args({"--upstream", "http://127.0.0.1:1", "--duration", "-3"}) << "--duration";
    }

    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
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
        QUrl base;
        QSignalSpy output(&process, &QProcess::readyReadStandardOutput);
        for (int i = 0; i < 50 && base.isEmpty(); ++i) {
            seen += process.readAllStandardOutput();
            if (const auto match = url.match(QString::fromUtf8(seen)); match.hasMatch())
                base = QUrl(match.captured(1));
            else
                output.wait(200);
        }
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
        QSignalSpy finished(&process, &QProcess::finished);
        process.terminate();
        QVERIFY(finished.wait(15'000));
        QCOMPARE(process.exitCode(), 0);
        const QString out = QString::fromUtf8(seen + process.readAllStandardOutput());
        QVERIFY2(out.contains(QStringLiteral("GET /status/503 -> 503 forwarded")), qPrintable(out));
        const auto report
            = Core::ObservationReport::fromJson(QJsonDocument::fromJson(CommandTesting::read(reportPath)).object());
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->clients.size(), 1);
        QCOMPARE(report->clients[0].requests.constFirst().attempts.size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestProxyCommand)
#include "tst_proxycommand.moc"
