#include "core/policy/presets.h"
#include "core/scenario/storageconformancerunner.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab::Core;

/// Google's conformance cases for Cloud Storage's retry behaviour
/// (googleapis/conformance-tests, storage/v1/retry_tests.json, kept in
/// resources/conformance/ with its source) played by RetryLab's executor under the
/// Cloud Storage preset against the fault server's retry test API on loopback:
/// every case, every instruction list, every method the server serves; success or
/// failure must be what the case expects, and a success must have used every
/// instruction, one per attempt.
class TestStorageConformance final : public QObject
{
    Q_OBJECT

private:
    // Plays the suite; the failures, one per line.
    QStringList play(bool realTiming)
    {
        const auto suite = StorageConformanceSuite::bundled();
        if (!suite)
            return {suite.error()};
        StorageConformanceRunner runner;
        runner.setSuite(*suite);
        runner.setPolicy(*Presets::find(QStringLiteral("google-cloud-storage")), realTiming);
        QSignalSpy finished(&runner, &StorageConformanceRunner::finished);
        QSignalSpy failed(&runner, &StorageConformanceRunner::failed);
        runner.start();
        // All at once: the preset's real waits (1 s, 2 s, plus up to 1 s of jitter) overlap.
        if (!QTest::qWaitFor([&] { return !finished.isEmpty() || !failed.isEmpty(); }, 120'000))
            return {QStringLiteral("the runs did not finish within 2 minutes")};
        if (!failed.isEmpty())
            return {failed.at(0).at(0).toString()};
        QStringList failures;
        for (const StorageConformanceRun &run : runner.suite().runs) {
            if (run.state != StorageConformanceRun::State::Passed)
                failures << run.name() + QStringLiteral(": ") + run.detail;
        }
        if (finished.at(0).at(0).toInt() != runner.suite().runs.size() - failures.size())
            failures << QStringLiteral("finished() counted %1 passed").arg(finished.at(0).at(0).toInt());
        return failures;
    }

private Q_SLOTS:
    void theFileReadsIntoRunsAndNamesWhatIsNotPlayed()
    {
        QFile file(QStringLiteral(RETRYLAB_RETRY_TESTS_JSON));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        const auto suite = StorageConformanceSuite::fromJson(file.readAll());
        QVERIFY2(suite, qPrintable(suite.error()));
        QCOMPARE(suite->caseCount, 8);
        // Runs per case: 9, 6, 4, 0, 10, 10, 4, 2 (instruction lists x methods served).
        QCOMPARE(suite->runs.size(), 45);
        QHash<int, int> perCase;
        for (const StorageConformanceRun &run : suite->runs)
            ++perCase[run.caseId];
        QCOMPARE(perCase.value(1), 9);
        QCOMPARE(perCase.value(4), 0);
        QCOMPARE(perCase.value(8), 2);
        QCOMPARE(suite->notPlayed.size(), 42);
        for (auto it = suite->notPlayed.cbegin(); it != suite->notPlayed.cend(); ++it)
            QVERIFY2(!it.value().isEmpty(), qPrintable(it.key()));
        // The bundled copy is the same file.
        QCOMPARE(StorageConformanceSuite::bundled()->runs.size(), 45);

        // A method the program knows nothing of is an error, never skipped.
        const QByteArray newer = R"({"retryTests": [{"id": 9, "description": "new", "cases": [{"instructions":
            ["return-503"]}], "methods": [{"name": "storage.objects.teleport"}], "expectSuccess": true}]})";
        QVERIFY(StorageConformanceSuite::fromJson(newer).error().contains(QStringLiteral("storage.objects.teleport")));
        QVERIFY(!StorageConformanceSuite::fromJson("{}"));
    }

    void everyRunMatchesExpectSuccess_withThePresetsRealWaits()
    {
        const QStringList failures = play(true);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    }

    // The window's matrix runs with the waits compressed: the verdicts are the same.
    void everyRunMatchesExpectSuccess_compressed()
    {
        const QStringList failures = play(false);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestStorageConformance)
#include "tst_storageconformance.moc"
