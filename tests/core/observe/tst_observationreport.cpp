#include "core/http/serverlogentry.h"
#include "core/observe/observationreport.h"
#include "core/observe/observer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>
#include <QXmlStreamReader>

using namespace RetryLab::Core;

namespace {

/// Feeds the observer a client that retries `/items/N` after each 503 with the given delays.
void feed(Observer &observer, const QByteArray &userAgent, int logicalRequests, const QList<double> &delaysMs)
{
    static quint64 sequence = 0;
    static qint64 clockNs = 0;
    for (int r = 0; r < logicalRequests; ++r) {
        for (int attempt = 0;; ++attempt) {
            ServerLogEntry entry;
            entry.sequence = ++sequence;
            entry.time = QDateTime(QDate(2026, 11, 24), QTime(12, 0), Qt::UTC).addMSecs(clockNs / 1'000'000);
            entry.receivedNs = clockNs;
            entry.peer = QStringLiteral("127.0.0.1:5%1").arg(attempt);
            entry.method = "GET";
            entry.target = QStringLiteral("/items/%1").arg(r);
            entry.identityHeaders = {{"user-agent", userAgent}};
            const FaultInstruction step = observer.observeRequest(entry);
            entry.action = QStringLiteral("respond");
            entry.status = step.status;
            entry.durationMs = 1.0;
            if (step.retryAfterSeconds)
                entry.retryAfter = QByteArray::number(*step.retryAfterSeconds);
            observer.observeAnswer(entry);
            clockNs += 1'000'000;
            if (step.status == 200 || attempt >= delaysMs.size())
                break;
            clockNs += qint64(delaysMs[attempt] * 1e6);
        }
        clockNs += 50'000'000;
    }
}

} // namespace

class TestObservationReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void holdsClientsRequestsAndAttempts()
    {
        Observer observer;
        feed(observer, "alpha/1", 3, {100, 200, 400});
        feed(observer, "beta/2", 2, {10, 10, 10});
        ObservationReport report = ObservationReport::from(observer);
        report.serverUrl = QStringLiteral("http://127.0.0.1:1234");
        const QJsonObject json = report.toJson();
        QCOMPARE(json.value(QStringLiteral("format")).toString(), QStringLiteral("retrylab-observation"));
        QCOMPARE(json.value(QStringLiteral("version")).toInt(), 1);
        QCOMPARE(json.value(QStringLiteral("plan")).toObject().value(QStringLiteral("id")).toString(),
            QStringLiteral("503x3"));
        const QJsonArray clients = json.value(QStringLiteral("clients")).toArray();
        QCOMPARE(clients.size(), 2);
        const QJsonObject alpha = clients[0].toObject();
        QCOMPARE(alpha.value(QStringLiteral("userAgent")).toString(), QStringLiteral("alpha/1"));
        const QJsonArray requests = alpha.value(QStringLiteral("logicalRequests")).toArray();
        QCOMPARE(requests.size(), 3);
        const QJsonArray attempts = requests[0].toObject().value(QStringLiteral("attempts")).toArray();
        QCOMPARE(attempts.size(), 4);
        const QJsonObject second = attempts[1].toObject();
        QCOMPARE(second.value(QStringLiteral("status")).toInt(), 503);
        QCOMPARE(second.value(QStringLiteral("rule")).toString(), QStringLiteral("same-request"));
        QCOMPARE(second.value(QStringLiteral("delayMs")).toDouble(), 100.0);
        QCOMPARE(attempts[0].toObject().value(QStringLiteral("rule")).toString(), QStringLiteral("new-request"));
        QVERIFY(!attempts[0].toObject().contains(QStringLiteral("delayMs")));
        QCOMPARE(attempts[3].toObject().value(QStringLiteral("served")).toString(), QStringLiteral("200"));
        QVERIFY(alpha.value(QStringLiteral("policy")).isObject());
        QVERIFY(alpha.value(QStringLiteral("verdicts")).isArray());
    }

    void readsBackWhatItWrote()
    {
        Observer observer;
        feed(observer, "alpha/1", 4, {100, 200, 400});
        observer.renameClient(observer.clients().constFirst().id, QStringLiteral("the app"));
        ObservationReport report = ObservationReport::from(observer);
        report.started = QDateTime(QDate(2026, 11, 24), QTime(12, 0), Qt::UTC);
        report.finished = report.started.addSecs(9);
        const QJsonObject json = report.toJson();
        const auto back = ObservationReport::fromJson(
            QJsonDocument::fromJson(QJsonDocument(json).toJson(QJsonDocument::Compact)).object());
        QVERIFY2(back, qPrintable(back.error()));
        QCOMPARE(back->clients.size(), 1);
        QCOMPARE(back->clients[0].client.name, QStringLiteral("the app"));
        QCOMPARE(back->clients[0].requests.size(), 4);
        QCOMPARE(back->clients[0].requests[2].attempts.size(), 4);
        QCOMPARE(back->toJson(), json);
    }

    void junitHasOneCasePerVerdict()
    {
        Observer observer;
        feed(observer, "alpha/1", 2, {100, 200, 400});
        const ObservationReport report = ObservationReport::from(observer);
        QXmlStreamReader xml(report.toJunitXml());
        int suites = 0;
        int cases = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                suites += xml.name() == QLatin1String("testsuite") ? 1 : 0;
                cases += xml.name() == QLatin1String("testcase") ? 1 : 0;
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QCOMPARE(suites, 1);
        QCOMPARE(cases, report.clients[0].verdicts.size());
    }

    void textNamesEveryClient()
    {
        Observer observer;
        QVERIFY(ObservationReport::from(observer).toText().contains(QStringLiteral("No client")));
        feed(observer, "alpha/1", 1, {100, 200, 400});
        feed(observer, "beta/2", 1, {100, 200, 400});
        const QString text = ObservationReport::from(observer).toText();
        QVERIFY2(text.contains(QStringLiteral("alpha/1 @ 127.0.0.1")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("beta/2 @ 127.0.0.1")), qPrintable(text));
    }

    void refusesWhatItCannotRead_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("other format") << QByteArray(R"({"format": "retrylab-report", "version": 1, "clients": []})")
                                      << "not an observation report";
        QTest::addRow("newer") << QByteArray(R"({"format": "retrylab-observation", "version": 7, "clients": []})")
                               << "newer";
        QTest::addRow("no clients") << QByteArray(R"({"format": "retrylab-observation", "version": 1})") << "clients";
        QTest::addRow("client not object")
            << QByteArray(R"({"format": "retrylab-observation", "version": 1, "clients": [3]})") << "clients[0]";
        QTest::addRow("attempt without arrival")
            << QByteArray(R"({"format": "retrylab-observation", "version": 1, "clients": [{"id": "x",
                "logicalRequests": [{"id": 1, "attempts": [{"attempt": 1}]}]}]})")
            << "arrivalMs";
        QTest::addRow("bad plan") << QByteArray(R"({"format": "retrylab-observation", "version": 1,
                "plan": {"steps": ["explode"]}, "clients": []})")
                                  << "plan";
    }

    void refusesWhatItCannotRead()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const auto report = ObservationReport::fromJson(QJsonDocument::fromJson(text).object());
        QVERIFY(!report);
        QVERIFY2(report.error().contains(expected), qPrintable(report.error()));
    }
};

QTEST_GUILESS_MAIN(TestObservationReport)
#include "tst_observationreport.moc"
