#include "core/faultserver/scriptedtests.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

/// Takes the next step of `id` for a request without attempt headers; the
/// index of the step, -1 once the steps are used up, -2 for an unknown test.
int takeIndex(ScriptedTests &tests, const QString &id, QByteArrayView requestId = {}, const QString &attempt = {})
{
    const auto taken = tests.take(id, requestId, attempt);
    if (!taken)
        return -2;
    return taken->has_value() ? (*taken)->index : -1;
}

} // namespace

class TestScriptedTests : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void create_expandsRepeatsAndNumbersTests();
    void create_badInstructions_reportError_data();
    void create_badInstructions_reportError();
    void take_stepsInOrderThenUsedUp();
    void take_unknownTest_isAnError();
    void take_resentAttemptGetsTheSameStep();
    void take_replayKeyNeedsBothHeadersAndABoundedLength_data();
    void take_replayKeyNeedsBothHeadersAndABoundedLength();
    void take_describesTheStep();
    void status_reportsConsumedAndReplays();
    void remove_freesItsPlaceUnderTheLimit();
    void create_totalStepsAreBounded();
    void clear_forgetsTestsButNotTheNumbering();
};

void TestScriptedTests::create_expandsRepeatsAndNumbersTests()
{
    ScriptedTests tests;
    const Result<QString> first = tests.create({QStringLiteral("return-503*2"), QStringLiteral("reset")});
    QVERIFY2(first, qPrintable(first.error()));
    QCOMPARE(*first, QStringLiteral("t1"));
    const Result<QString> second = tests.create({QStringLiteral("stall")});
    QCOMPARE(second.value(), QStringLiteral("t2"));
    QCOMPARE(tests.count(), 2);
    QCOMPARE(tests.status(QStringLiteral("t1"))->instructions,
        (QStringList{QStringLiteral("return-503"), QStringLiteral("return-503"), QStringLiteral("reset")}));
    QCOMPARE(tests.consumed(QStringLiteral("t1")), 0);
    QCOMPARE(tests.statuses().size(), 2);
}

void TestScriptedTests::create_badInstructions_reportError_data()
{
    QTest::addColumn<QStringList>("instructions");
    QTest::addColumn<QString>("mentions");

    QTest::addRow("nonsense second") << QStringList{QStringLiteral("return-503"), QStringLiteral("nonsense")}
                                     << QStringLiteral("instruction 2: unknown instruction \"nonsense\"");
    QTest::addRow("none") << QStringList{} << QStringLiteral("a test needs at least one instruction");
    QTest::addRow("delay too long") << QStringList{QStringLiteral("delay-1e9ms")} << QStringLiteral("delay-1e9ms");
}

void TestScriptedTests::create_badInstructions_reportError()
{
    QFETCH(QStringList, instructions);
    QFETCH(QString, mentions);
    ScriptedTests tests;
    const Result<QString> refused = tests.create(instructions);
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(mentions), qPrintable(refused.error()));
    QCOMPARE(tests.count(), 0);
}

void TestScriptedTests::take_stepsInOrderThenUsedUp()
{
    ScriptedTests tests;
    const QString id = tests.create({QStringLiteral("return-503"), QStringLiteral("delay-60ms")}).value();
    const auto first = tests.take(id, {}, {});
    QVERIFY(first && first->has_value());
    QCOMPARE((*first)->index, 0);
    QCOMPARE((*first)->instruction, FaultInstruction::parse(QStringLiteral("return-503")).value());
    QCOMPARE((*first)->stepCount, 2);
    QCOMPARE((*first)->testId, id);
    QCOMPARE((*first)->replayed, false);
    QCOMPARE(tests.consumed(id), 1);
    QCOMPARE(takeIndex(tests, id), 1);
    QCOMPARE(tests.consumed(id), 2);
    // Used up: the request is answered by its path, and nothing more is counted.
    QCOMPARE(takeIndex(tests, id), -1);
    QCOMPARE(takeIndex(tests, id), -1);
    QCOMPARE(tests.consumed(id), 2);
}

void TestScriptedTests::take_unknownTest_isAnError()
{
    ScriptedTests tests;
    const auto taken = tests.take(QStringLiteral("nope"), {}, {});
    QVERIFY(!taken);
    QCOMPARE(
        taken.error(), QStringLiteral("unknown X-Retry-Test-Id \"nope\" (never created, or forgotten by a reset)"));
    const auto longId = tests.take(QString(100, QLatin1Char('x')), {}, {});
    QVERIFY2(
        longId.error().contains(QString(60, QLatin1Char('x')) + QStringLiteral("...\"")), qPrintable(longId.error()));
    QCOMPARE(tests.consumed(QStringLiteral("nope")), -1);
    QVERIFY(!tests.status(QStringLiteral("nope")));
}

void TestScriptedTests::take_resentAttemptGetsTheSameStep()
{
    ScriptedTests tests;
    const QString id = tests.create({QStringLiteral("empty"), QStringLiteral("return-200")}).value();
    QCOMPARE(takeIndex(tests, id, "r-1", QStringLiteral("1")), 0);
    // The HTTP library resends attempt 1: the same step, nothing used.
    for (int resend = 0; resend < 3; ++resend) {
        const auto again = tests.take(id, "r-1", QStringLiteral("1"));
        QVERIFY(again && again->has_value());
        QCOMPARE((*again)->index, 0);
        QCOMPARE((*again)->replayed, true);
    }
    QCOMPARE(tests.consumed(id), 1);
    QCOMPARE(tests.status(id)->replays, 3);
    // The client's retry is attempt 2: the next step.
    QCOMPARE(takeIndex(tests, id, "r-1", QStringLiteral("2")), 1);
    // Another logical request with attempt 1 is no replay; the steps are used up.
    QCOMPARE(takeIndex(tests, id, "r-2", QStringLiteral("1")), -1);
    // A replay is served even after the steps are used up.
    QCOMPARE(takeIndex(tests, id, "r-1", QStringLiteral("2")), 1);
    QCOMPARE(tests.status(id)->replays, 4);
}

void TestScriptedTests::take_replayKeyNeedsBothHeadersAndABoundedLength_data()
{
    QTest::addColumn<QByteArray>("requestId");
    QTest::addColumn<QString>("attempt");
    QTest::addColumn<bool>("remembered");

    QTest::addRow("both") << QByteArray("r-1") << QStringLiteral("1") << true;
    QTest::addRow("no request id") << QByteArray() << QStringLiteral("1") << false;
    QTest::addRow("no attempt") << QByteArray("r-1") << QString() << false;
    QTest::addRow("just below the bound") << QByteArray(254, 'r') << QStringLiteral("1") << true;
    QTest::addRow("at the bound") << QByteArray(255, 'r') << QStringLiteral("1") << false;
}

void TestScriptedTests::take_replayKeyNeedsBothHeadersAndABoundedLength()
{
    QFETCH(QByteArray, requestId);
    QFETCH(QString, attempt);
    QFETCH(bool, remembered);
    ScriptedTests tests;
    const QString id = tests.create({QStringLiteral("return-503"), QStringLiteral("return-502")}).value();
    QCOMPARE(takeIndex(tests, id, requestId, attempt), 0);
    // Sent again: a replay only where the pair was remembered.
    QCOMPARE(takeIndex(tests, id, requestId, attempt), remembered ? 0 : 1);
    QCOMPARE(tests.status(id)->replays, remembered ? 1 : 0);
}

void TestScriptedTests::take_describesTheStep()
{
    ScriptedTests tests;
    const QString id = tests.create({QStringLiteral("return-429-after-2s"), QStringLiteral("pass")}).value();
    const auto first = tests.take(id, "r", QStringLiteral("1"));
    QCOMPARE((*first)->describe(), QStringLiteral("step 1 of 2 (return-429-after-2s) of test %1").arg(id));
    const auto again = tests.take(id, "r", QStringLiteral("1"));
    QCOMPARE((*again)->describe(),
        QStringLiteral("step 1 of 2 (return-429-after-2s) of test %1, again for a resent attempt").arg(id));
}

void TestScriptedTests::status_reportsConsumedAndReplays()
{
    ScriptedTests tests;
    const QString id = tests.create({QStringLiteral("reset-after-headers"), QStringLiteral("drip-5ms")}).value();
    takeIndex(tests, id, "a", QStringLiteral("1"));
    takeIndex(tests, id, "a", QStringLiteral("1"));
    const auto status = tests.status(id);
    QVERIFY(status);
    QCOMPARE(status->id, id);
    QCOMPARE(status->instructions, (QStringList{QStringLiteral("reset-after-headers"), QStringLiteral("drip-5ms")}));
    QCOMPARE(status->consumed, 1);
    QCOMPARE(status->replays, 1);
    const QList<ScriptedTestStatus> all = tests.statuses();
    QCOMPARE(all.size(), 1);
    QCOMPARE(all.first().consumed, 1);
}

void TestScriptedTests::remove_freesItsPlaceUnderTheLimit()
{
    ScriptedTests tests(3);
    QStringList ids;
    for (int i = 0; i < 3; ++i)
        ids.append(tests.create({QStringLiteral("return-503")}).value());
    const Result<QString> full = tests.create({QStringLiteral("return-503")});
    QVERIFY(!full);
    QCOMPARE(full.error(),
        QStringLiteral(
            "the server already holds 3 tests with 3 steps (at most 3 tests, 1000000 steps); reset it first"));
    QCOMPARE(tests.count(), 3);

    QVERIFY(tests.remove(ids.at(1)));
    QVERIFY(!tests.remove(ids.at(1)));
    QVERIFY(!tests.status(ids.at(1)));
    QCOMPARE(takeIndex(tests, ids.at(1)), -2);
    QCOMPARE(tests.count(), 2);
    const QString again = tests.create({QStringLiteral("return-200")}).value();
    QVERIFY(!ids.contains(again)); // ids are never reused: a late request cannot hit another script
    QVERIFY(tests.status(ids.at(0)));

    // A lower limit refuses new tests until enough are gone; at least one is always allowed.
    tests.setMaxTests(0);
    QCOMPARE(tests.maxTests(), 0);
    QVERIFY(!tests.create({QStringLiteral("pass")}));
    tests.clear();
    QVERIFY(tests.create({QStringLiteral("pass")}));
}

void TestScriptedTests::create_totalStepsAreBounded()
{
    ScriptedTests tests;
    const QStringList tenThousand(10, QStringLiteral("return-503*1000"));
    for (int i = 0; i < 100; ++i)
        QVERIFY(tests.create(tenThousand));
    const Result<QString> refused = tests.create({QStringLiteral("pass")});
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(QLatin1String("1000000 steps")), qPrintable(refused.error()));
    // Removing a test gives its steps back.
    QVERIFY(tests.remove(QStringLiteral("t1")));
    QVERIFY(tests.create({QStringLiteral("pass")}));
}

void TestScriptedTests::clear_forgetsTestsButNotTheNumbering()
{
    ScriptedTests tests;
    const QString before = tests.create({QStringLiteral("pass")}).value();
    tests.clear();
    QCOMPARE(tests.count(), 0);
    QCOMPARE(tests.consumed(before), -1);
    QCOMPARE(tests.create({QStringLiteral("pass")}).value(), QStringLiteral("t2"));
}

QTEST_GUILESS_MAIN(TestScriptedTests)
#include "tst_scriptedtests.moc"
