#include "core/faultserver/faultinstruction.h"

#include <QTest>

using namespace RetryLab::Core;
using Kind = FaultInstruction::Kind;

class TestFaultInstruction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_validSteps_data();
    void parse_validSteps();
    void parse_invalidSteps_areRefusedWithReason_data();
    void parse_invalidSteps_areRefusedWithReason();
    void parseList_expandsRepeats();
    void parseList_namesTheBadStep();
    void parseList_boundsTheScript();
    void grammar_everyExampleParses();
};

void TestFaultInstruction::parse_validSteps_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("retryAfter"); // -1: none
    QTest::addColumn<int>("milliseconds");
    QTest::addColumn<QString>("canonical");

    QTest::addRow("return-503") << "return-503" << int(Kind::Respond) << 503 << -1 << 0 << "return-503";
    QTest::addRow("return-200") << "return-200" << int(Kind::Respond) << 200 << -1 << 0 << "return-200";
    QTest::addRow("return-599") << "return-599" << int(Kind::Respond) << 599 << -1 << 0 << "return-599";
    QTest::addRow("retry-after") << "return-429-after-1s" << int(Kind::Respond) << 429 << 1 << 0
                                 << "return-429-after-1s";
    QTest::addRow("retry-after zero") << "return-503-after-0s" << int(Kind::Respond) << 503 << 0 << 0
                                      << "return-503-after-0s";
    QTest::addRow("upper case, spaces") << "  RETURN-503  " << int(Kind::Respond) << 503 << -1 << 0 << "return-503";
    QTest::addRow("aborted") << "aborted" << int(Kind::Respond) << 409 << -1 << 0 << "aborted";
    QTest::addRow("delay") << "delay-1500ms" << int(Kind::Delay) << 200 << -1 << 1500 << "delay-1500ms";
    QTest::addRow("pass") << "pass" << int(Kind::Pass) << 200 << -1 << 0 << "pass";
    QTest::addRow("reset") << "reset" << int(Kind::Reset) << 200 << -1 << 0 << "reset";
    QTest::addRow("reset-after-headers") << "reset-after-headers" << int(Kind::ResetAfterHeaders) << 200 << -1 << 0
                                         << "reset-after-headers";
    QTest::addRow("empty") << "empty" << int(Kind::Empty) << 200 << -1 << 0 << "empty";
    QTest::addRow("stall") << "stall" << int(Kind::Stall) << 200 << -1 << 0 << "stall";
    QTest::addRow("broken-stream") << "broken-stream" << int(Kind::BrokenStream) << 200 << -1 << 0 << "broken-stream";
    QTest::addRow("garbage") << "garbage" << int(Kind::Garbage) << 200 << -1 << 0 << "garbage";
    QTest::addRow("drip") << "drip" << int(Kind::Drip) << 200 << -1 << 100 << "drip";
    QTest::addRow("drip interval") << "drip-250ms" << int(Kind::Drip) << 200 << -1 << 250 << "drip-250ms";
}

void TestFaultInstruction::parse_validSteps()
{
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(int, status);
    QFETCH(int, retryAfter);
    QFETCH(int, milliseconds);
    QFETCH(QString, canonical);

    const Result<FaultInstruction> parsed = FaultInstruction::parse(text);
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(int(parsed->kind), kind);
    QCOMPARE(parsed->status, status);
    QCOMPARE(parsed->retryAfterSeconds, retryAfter < 0 ? std::nullopt : std::optional<int>(retryAfter));
    QCOMPARE(parsed->milliseconds, milliseconds);
    QCOMPARE(parsed->toString(), canonical);
    // The canonical text reads back to the same step.
    const Result<FaultInstruction> again = FaultInstruction::parse(parsed->toString());
    QVERIFY(again.ok());
    QVERIFY(*again == *parsed);
}

void TestFaultInstruction::parse_invalidSteps_areRefusedWithReason_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("mentions");

    QTest::addRow("unknown") << "retrun-503"
                             << "unknown instruction";
    QTest::addRow("empty") << ""
                           << "empty";
    QTest::addRow("status too low") << "return-199"
                                    << "200 to 599";
    QTest::addRow("status too high") << "return-600"
                                     << "200 to 599";
    QTest::addRow("status huge") << "return-99999999999999999999"
                                 << "200 to 599";
    QTest::addRow("negative status") << "return--503"
                                     << "unknown instruction";
    QTest::addRow("retry-after too long") << "return-503-after-86401s"
                                          << "Retry-After";
    QTest::addRow("retry-after fractional") << "return-503-after-1.5s"
                                            << "unknown instruction";
    QTest::addRow("delay too long") << "delay-300001ms"
                                    << "delay";
    QTest::addRow("delay exponent") << "delay-1e12ms"
                                    << "unknown instruction";
    QTest::addRow("delay negative") << "delay--5ms"
                                    << "unknown instruction";
    QTest::addRow("drip too slow") << "drip-10001ms"
                                   << "drip interval";
    QTest::addRow("missing unit") << "delay-100"
                                  << "unknown instruction";
}

void TestFaultInstruction::parse_invalidSteps_areRefusedWithReason()
{
    QFETCH(QString, text);
    QFETCH(QString, mentions);
    const Result<FaultInstruction> parsed = FaultInstruction::parse(text);
    QVERIFY(!parsed.ok());
    QVERIFY2(parsed.error().contains(mentions), qPrintable(parsed.error()));
}

void TestFaultInstruction::parseList_expandsRepeats()
{
    const auto list = FaultInstruction::parseList(
        {QStringLiteral("reset*3"), QStringLiteral("return-429-after-2s"), QStringLiteral("return-200 * 2")});
    QVERIFY2(list.ok(), qPrintable(list.error()));
    QCOMPARE(list->size(), 6);
    QCOMPARE(list->at(0).kind, Kind::Reset);
    QCOMPARE(list->at(2).kind, Kind::Reset);
    QCOMPARE(list->at(3).retryAfterSeconds, std::optional<int>(2));
    QCOMPARE(list->at(5).status, 200);
}

void TestFaultInstruction::parseList_namesTheBadStep()
{
    const auto list = FaultInstruction::parseList(
        {QStringLiteral("return-503"), QStringLiteral("reset"), QStringLiteral("explode")});
    QVERIFY(!list.ok());
    QVERIFY2(list.error().startsWith(QLatin1String("instruction 3:")), qPrintable(list.error()));
    QVERIFY(list.error().contains(QLatin1String("explode")));
}

void TestFaultInstruction::parseList_boundsTheScript()
{
    QVERIFY(!FaultInstruction::parseList({QStringLiteral("reset*0")}).ok());
    QVERIFY(!FaultInstruction::parseList({QStringLiteral("reset*1001")}).ok());
    QVERIFY(!FaultInstruction::parseList({QStringLiteral("reset*99999999999")}).ok());
    QStringList many;
    for (int i = 0; i < 11; ++i)
        many.append(QStringLiteral("return-503*1000"));
    const auto tooMany = FaultInstruction::parseList(many);
    QVERIFY(!tooMany.ok());
    QVERIFY(tooMany.error().contains(QLatin1String("at most")));
    QCOMPARE(FaultInstruction::parseList(many.mid(0, 10))->size(), 10'000);
}

void TestFaultInstruction::grammar_everyExampleParses()
{
    const auto grammar = FaultInstruction::grammar();
    QVERIFY(grammar.size() >= 11);
    for (const auto &syntax : grammar) {
        QVERIFY(!syntax.form.isEmpty());
        QVERIFY(!syntax.description.isEmpty());
        const auto parsed = FaultInstruction::parseList({syntax.example});
        QVERIFY2(parsed.ok(), qPrintable(syntax.example + QLatin1String(": ") + parsed.error()));
    }
}

QTEST_GUILESS_MAIN(TestFaultInstruction)
#include "tst_faultinstruction.moc"
