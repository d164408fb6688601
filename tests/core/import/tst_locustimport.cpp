#include "core/import/locustimport.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

QByteArray header(const char *worker, double startUnixMs, const char *run = "run-1")
{
    return QStringLiteral(R"({"format":"retrylab-locust-attempts","version":1,"run":"%1","worker":"%2",)"
                          R"("startUnixMs":%3,"startMonoNs":5000,"retrylab":"0","policy":"p","seed":"1"})")
               .arg(QLatin1String(run), QLatin1String(worker))
               .arg(startUnixMs, 0, 'f', 3)
               .toUtf8()
        + '\n';
}

QByteArray attempt(const char *request, int index, qint64 startMs, qint64 endMs, const char *status,
    const char *decision, const char *outcome, double planned = 0, const char *run = "run-1")
{
    return QStringLiteral(R"({"run":"%1","request":"%2","entry":"e","attempt":%3,"method":"GET","url":"/x",)"
                          R"("startNs":%4,"endNs":%5,"plannedDelayMs":%6,"actualDelayMs":%6,"status":%7,)"
                          R"("fault":null,"decision":"%8","cause":"c","reason":"r","nextDelayMs":-1,"outcome":%9})")
               .arg(QLatin1String(run), QLatin1String(request))
               .arg(index)
               .arg(startMs * 1'000'000)
               .arg(endMs * 1'000'000)
               .arg(planned)
               .arg(QLatin1String(status), QLatin1String(decision),
                   outcome ? QStringLiteral("\"%1\"").arg(QLatin1String(outcome)) : QStringLiteral("null"))
               .toUtf8()
        + '\n';
}

} // namespace

class TestLocustImport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void twoWorkers_oneRunOnOneTimeAxis();
    void malformed_namesFileAndLine_data();
    void malformed_namesFileAndLine();

private:
    QString write(const QString &name, const QByteArray &text)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (file.open(QIODevice::WriteOnly))
            file.write(text);
        return path;
    }
    QTemporaryDir m_dir;
};

void TestLocustImport::twoWorkers_oneRunOnOneTimeAxis()
{
    const QString folder = m_dir.filePath(QStringLiteral("logs"));
    QVERIFY(QDir().mkpath(folder));
    // Worker b's clock starts 2 s after worker a's.
    QFile a(folder + QStringLiteral("/attempts-a.jsonl"));
    QVERIFY(a.open(QIODevice::WriteOnly));
    a.write(header("a", 1'700'000'000'000.0) + attempt("r1", 0, 10, 20, "503", "retry", nullptr)
        + attempt("r1", 1, 120, 130, "200", "success", "succeeded", 100));
    a.close();
    QFile b(folder + QStringLiteral("/attempts-b.jsonl"));
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write(header("b", 1'700'000'002'000.0) + attempt("r2", 0, 0, 5, "503", "give-up", "gave-up")
        + attempt("r3", 0, 50, 60, "503", "retry", nullptr));
    b.close();

    const auto imported = LocustImport::read({folder});
    QVERIFY2(imported, qPrintable(imported.error()));
    QCOMPARE(imported->runId, QStringLiteral("run-1"));
    QCOMPARE(imported->workers.size(), 2);
    QCOMPARE(imported->unfinished, 1); // r3 had no outcome yet
    const RunRecord &run = imported->run;
    QCOMPARE(run.requests.size(), 3);
    QCOMPARE(run.attempts.size(), 4);
    QCOMPARE(run.results.size(), 2);
    QCOMPARE(run.startedAt.toMSecsSinceEpoch(), qint64(1'700'000'000'000));
    // r1 started first (10 ms), then r2 and r3 on b's clock, 2 s later.
    QCOMPARE(run.requests.value(1).label, QStringLiteral("r1"));
    QCOMPARE(run.attempts.at(0).startNs, qint64(10'000'000));
    QCOMPARE(run.attempts.at(1).plannedDelayMs, 100.0);
    QCOMPARE(run.attempts.at(2).requestId, quint64(2));
    QCOMPARE(run.attempts.at(2).startNs, qint64(2'000'000'000));
    QCOMPARE(run.attempts.at(2).decision, Classification::Decision::GiveUp);
    const RequestResult &first = run.results.at(0);
    QCOMPARE(first.requestId, quint64(1));
    QCOMPARE(first.outcome, RequestOutcome::Succeeded);
    QCOMPARE(first.attempts, 2);
    QCOMPARE(first.finalStatus, 200);
    QCOMPARE(first.totalMs(), 120.0);
    QVERIFY(imported->notes.join(QLatin1Char(' ')).contains(QLatin1String("b: its clock started 2 s after")));
}

void TestLocustImport::malformed_namesFileAndLine_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    const QByteArray good = header("w", 1e12) + attempt("r", 0, 1, 2, "200", "success", "succeeded");
    QTest::addRow("cut short") << QByteArray(good + attempt("r", 1, 1, 2, "200", "success", "succeeded").chopped(9))
                               << QStringLiteral("log.jsonl:3: the line is cut short");
    QTest::addRow("not JSON") << QByteArray(good + "{oops\n") << QStringLiteral("log.jsonl:3: not a JSON object");
    QTest::addRow("another format") << QByteArray(R"({"format":"retrylab-report","version":1})"
                                                  "\n")
                                    << QStringLiteral("log.jsonl:1: not an attempt log");
    QTest::addRow("another run") << QByteArray(good + attempt("r", 1, 1, 2, "200", "success", "succeeded", 0, "run-2"))
                                 << QStringLiteral("log.jsonl:3: an attempt of run run-2 in a log of run run-1");
    QTest::addRow("wrong type") << QByteArray(good + attempt("r", 1, 1, 2, "\"200\"", "success", "succeeded"))
                                << QStringLiteral("log.jsonl:3: status:");
    QTest::addRow("unknown outcome") << QByteArray(good + attempt("r", 1, 1, 2, "200", "success", "won"))
                                     << QStringLiteral("log.jsonl:3: outcome: unknown outcome \"won\"");
    QTest::addRow("backwards") << QByteArray(good + attempt("r", 1, 5, 2, "200", "success", "succeeded"))
                               << QStringLiteral("log.jsonl:3: the attempt ends before it starts");
    QTest::addRow("empty") << QByteArray() << QStringLiteral("log.jsonl: empty");
}

void TestLocustImport::malformed_namesFileAndLine()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    const QString path = write(QStringLiteral("log.jsonl"), text);
    const auto imported = LocustImport::read({path});
    QVERIFY(!imported);
    const QString shown = imported.error().mid(QDir::toNativeSeparators(m_dir.path()).size() + 1);
    QVERIFY2(shown.startsWith(error), qPrintable(imported.error()));

    // A second file of another run is refused too, naming that file.
    const QString other = write(QStringLiteral("other.jsonl"), header("v", 1e12, "run-9"));
    const auto mixed = LocustImport::read({write(QStringLiteral("good.jsonl"), header("w", 1e12)), other});
    QVERIFY(!mixed);
    QVERIFY2(mixed.error().contains(QLatin1String("other.jsonl:1: the log of run run-9, not of run run-1")),
        qPrintable(mixed.error()));
}

QTEST_GUILESS_MAIN(TestLocustImport)
#include "tst_locustimport.moc"
