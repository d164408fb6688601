#include "core/herd/herdparameters.h"
#include "core/herd/herdreport.h"
#include "ui/herd/herdjob.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace RetryLab;
using namespace RetryLab::Core;

class TestHerdJob final : public QObject
{
    Q_OBJECT

private:
    static HerdParameters smallGrid()
    {
        HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
        p.clientCounts = {10, 20, 30};
        p.runs = 5;
        p.strategies
            = {HerdStrategy{}, HerdStrategy{BackoffAlgorithm::Exponential}, HerdStrategy{BackoffAlgorithm::FullJitter}};
        return p;
    }

    // A grid that takes minutes, so that there is time to watch it and to cancel it.
    static HerdParameters hugeGrid()
    {
        HerdParameters p = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
        p.clientCounts = {150, 160, 170, 180, 190};
        p.runs = 20'000;
        return p;
    }

private Q_SLOTS:
    void smallGrid_finishesWithTheReport();
    void progress_reportedWhileRunning();
    void cancel_stopsTheRun();
    void cancel_whenIdle_doesNothing();
    void invalidParameters_emitFailedNamingTheField_data();
    void invalidParameters_emitFailedNamingTheField();
    void start_whileRunning_refused();
    void destroyWhileRunning_returnsPromptly();
};

void TestHerdJob::smallGrid_finishesWithTheReport()
{
    Ui::HerdJob job;
    QSignalSpy started(&job, &Ui::HerdJob::started);
    QSignalSpy progress(&job, &Ui::HerdJob::progress);
    QSignalSpy finished(&job, &Ui::HerdJob::finished);
    QSignalSpy failed(&job, &Ui::HerdJob::failed);
    QSignalSpy cancelled(&job, &Ui::HerdJob::cancelled);

    QVERIFY(!job.isRunning());
    const auto begun = job.start(smallGrid());
    QVERIFY2(begun, qPrintable(begun.error()));
    QVERIFY(job.isRunning());
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.first().first().toLongLong(), 3 * 3 * 5);

    QVERIFY(finished.wait(30'000));
    QVERIFY(!job.isRunning());
    QCOMPARE(failed.count(), 0);
    QCOMPARE(cancelled.count(), 0);
    const auto report = finished.first().at(0).value<HerdReport>();
    QCOMPARE(report.cells.size(), 9);
    QCOMPARE(report.parameters.clientCounts, smallGrid().clientCounts);
    QVERIFY(finished.first().at(1).toDouble() >= 0.0);
    // The last progress comes before the outcome and counts every run.
    QVERIFY(!progress.isEmpty());
    QCOMPARE(progress.last().at(0).toLongLong(), 45);
    QCOMPARE(progress.last().at(1).toLongLong(), 45);
}

void TestHerdJob::progress_reportedWhileRunning()
{
    Ui::HerdJob job;
    QSignalSpy progress(&job, &Ui::HerdJob::progress);
    QSignalSpy cancelled(&job, &Ui::HerdJob::cancelled);
    const HerdParameters p = hugeGrid();
    const qint64 total = 5LL * p.strategies.size() * p.runs;
    QVERIFY(job.start(p));

    QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(0).toLongLong() > 0, 20'000);
    QVERIFY(job.isRunning());
    qint64 previous = 0;
    for (const QList<QVariant> &arguments : std::as_const(progress)) {
        const qint64 done = arguments.at(0).toLongLong();
        QVERIFY(done >= previous);
        QVERIFY(done < total);
        QCOMPARE(arguments.at(1).toLongLong(), total);
        previous = done;
    }
    job.cancel();
    QVERIFY(cancelled.wait(10'000));
}

void TestHerdJob::cancel_stopsTheRun()
{
    Ui::HerdJob job;
    QSignalSpy finished(&job, &Ui::HerdJob::finished);
    QSignalSpy failed(&job, &Ui::HerdJob::failed);
    QSignalSpy cancelled(&job, &Ui::HerdJob::cancelled);
    const HerdParameters p = hugeGrid();
    QVERIFY(job.start(p));
    job.cancel();
    QVERIFY(cancelled.wait(10'000));
    QVERIFY(!job.isRunning());
    QCOMPARE(finished.count(), 0);
    QCOMPARE(failed.count(), 0);
    const qint64 total = 5LL * p.strategies.size() * p.runs;
    QVERIFY(cancelled.first().at(0).toLongLong() < total);
    QCOMPARE(cancelled.first().at(1).toLongLong(), total);

    // The job takes the next run.
    QSignalSpy finishedAgain(&job, &Ui::HerdJob::finished);
    QVERIFY(job.start(smallGrid()));
    QVERIFY(finishedAgain.wait(30'000));
}

void TestHerdJob::cancel_whenIdle_doesNothing()
{
    Ui::HerdJob job;
    QSignalSpy cancelled(&job, &Ui::HerdJob::cancelled);
    job.cancel();
    QVERIFY(!job.isRunning());
    QCOMPARE(cancelled.count(), 0);
}

void TestHerdJob::invalidParameters_emitFailedNamingTheField_data()
{
    QTest::addColumn<HerdParameters>("parameters");
    QTest::addColumn<QString>("field");

    HerdParameters noClients = smallGrid();
    noClients.clientCounts.clear();
    QTest::addRow("no client count") << noClients << QStringLiteral("clients:");

    HerdParameters noStrategy = smallGrid();
    noStrategy.strategies.clear();
    QTest::addRow("no strategy") << noStrategy << QStringLiteral("strategies:");

    HerdParameters backwards = smallGrid();
    backwards.model = HerdModel::Outage;
    backwards.outageStartMs = 4000.0;
    backwards.outageEndMs = 2000.0;
    QTest::addRow("outage ends before it starts") << backwards << QStringLiteral("outageEndMs:");

    HerdParameters noRuns = smallGrid();
    noRuns.runs = 0;
    QTest::addRow("no runs") << noRuns << QStringLiteral("runs:");
}

void TestHerdJob::invalidParameters_emitFailedNamingTheField()
{
    QFETCH(HerdParameters, parameters);
    QFETCH(QString, field);
    Ui::HerdJob job;
    QSignalSpy finished(&job, &Ui::HerdJob::finished);
    QSignalSpy failed(&job, &Ui::HerdJob::failed);
    QSignalSpy cancelled(&job, &Ui::HerdJob::cancelled);
    // The simulator is the judge of its parameters: the job starts, and fails.
    QVERIFY(job.start(parameters));
    QVERIFY(failed.wait(10'000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(field), qPrintable(message));
    QVERIFY(!job.isRunning());
    QCOMPARE(finished.count(), 0);
    QCOMPARE(cancelled.count(), 0);
}

void TestHerdJob::start_whileRunning_refused()
{
    Ui::HerdJob job;
    QSignalSpy started(&job, &Ui::HerdJob::started);
    QSignalSpy cancelled(&job, &Ui::HerdJob::cancelled);
    QVERIFY(job.start(hugeGrid()));
    const auto again = job.start(smallGrid());
    QVERIFY(!again);
    QVERIFY2(again.error().contains(QLatin1String("already running")), qPrintable(again.error()));
    QCOMPARE(started.count(), 1);
    QVERIFY(job.isRunning());
    job.cancel();
    QVERIFY(cancelled.wait(10'000));
}

void TestHerdJob::destroyWhileRunning_returnsPromptly()
{
    auto job = std::make_unique<Ui::HerdJob>();
    QVERIFY(job->start(hugeGrid()));
    QElapsedTimer timer;
    timer.start();
    job.reset();
    QVERIFY(timer.elapsed() < 10'000);
}

QTEST_GUILESS_MAIN(TestHerdJob)
#include "tst_herdjob.moc"
