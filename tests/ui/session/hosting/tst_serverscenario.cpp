#include "core/faultserver/faultinstruction.h"
#include "ui/session/hosting/serverscenario.h"

#include <QJsonArray>
#include <QTest>

using namespace RetryLab;
using Ui::ServerScenario;

class TestServerScenario final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void presets_areValidAndFirstIsNone();
    void flakyPreset_failsAboutThirtyPercentOfAHundredSteps();
    void json_roundTrips();
    void json_invalidStep_isRefusedWithItsNumber();
    void json_badSharing_isRefused();
};

void TestServerScenario::presets_areValidAndFirstIsNone()
{
    const auto presets = ServerScenario::presets();
    QVERIFY(presets.size() >= 4);
    QVERIFY(presets.constFirst().instructions.isEmpty());
    QStringList ids;
    for (const auto &preset : presets) {
        QVERIFY2(!ids.contains(preset.id), qPrintable(preset.id));
        ids.append(preset.id);
        const ServerScenario scenario = ServerScenario::fromPreset(preset.id);
        QCOMPARE(scenario.instructions, preset.instructions);
        QVERIFY2(scenario.problem().isEmpty(), qPrintable(preset.id + QStringLiteral(": ") + scenario.problem()));
    }
    QCOMPARE(ServerScenario::fromPreset(QStringLiteral("three-503")).instructions,
        (QStringList{QStringLiteral("return-503*3"), QStringLiteral("return-200")}));
    QVERIFY(!ServerScenario::fromPreset(QStringLiteral("no such preset")).isActive());
}

void TestServerScenario::flakyPreset_failsAboutThirtyPercentOfAHundredSteps()
{
    const ServerScenario flaky = ServerScenario::fromPreset(QStringLiteral("flaky-30"));
    QCOMPARE(flaky.sharing, ServerScenario::Sharing::Shared);
    const auto steps = Core::FaultInstruction::parseList(flaky.instructions);
    QVERIFY(steps);
    QCOMPARE(steps->size(), 100);
    const auto failures = std::count_if(
        steps->cbegin(), steps->cend(), [](const Core::FaultInstruction &s) { return s.status == 503; });
    QVERIFY2(failures >= 15 && failures <= 45, qPrintable(QString::number(failures)));
    // The same every time: the seed is fixed.
    QCOMPARE(ServerScenario::fromPreset(QStringLiteral("flaky-30")), flaky);
}

void TestServerScenario::json_roundTrips()
{
    ServerScenario scenario;
    scenario.instructions = {QStringLiteral("reset"), QStringLiteral("return-429-after-2s"), QStringLiteral("pass")};
    scenario.sharing = ServerScenario::Sharing::Shared;
    const auto back = ServerScenario::fromJson(scenario.toJson());
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(*back, scenario);
}

void TestServerScenario::json_invalidStep_isRefusedWithItsNumber()
{
    const QJsonObject object{
        {QStringLiteral("instructions"), QJsonArray{QStringLiteral("return-503"), QStringLiteral("explode")}}};
    const auto result = ServerScenario::fromJson(object);
    QVERIFY(!result);
    QVERIFY2(result.error().contains(QLatin1String("instruction 2")), qPrintable(result.error()));
}

void TestServerScenario::json_badSharing_isRefused()
{
    const auto result = ServerScenario::fromJson({{QStringLiteral("sharing"), QStringLiteral("sometimes")}});
    QVERIFY(!result);
    QVERIFY2(result.error().startsWith(QLatin1String("sharing")), qPrintable(result.error()));
}

QTEST_GUILESS_MAIN(TestServerScenario)
#include "tst_serverscenario.moc"
