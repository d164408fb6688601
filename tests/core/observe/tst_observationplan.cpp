#include "core/observe/observationplan.h"
#include "core/util/randomsource.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

QStringList steps(std::initializer_list<const char *> texts)
{
    QStringList list;
    for (const char *text : texts)
        list.append(QString::fromLatin1(text));
    return list;
}

} // namespace

class TestObservationPlan : public QObject
{
    Q_OBJECT

private:
    static QString write(const QTemporaryDir &dir, const QByteArray &text)
    {
        const QString path = dir.filePath(QStringLiteral("plan.json"));
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            return {};
        return path;
    }

private Q_SLOTS:
    void presetsServeWhatTheySay_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QStringList>("firstFour");
        QTest::addRow("503x3") << "503x3" << steps({"return-503", "return-503", "return-503", "return-200"});
        QTest::addRow("always-503") << "always-503" << steps({"return-503", "return-503", "return-503", "return-503"});
        QTest::addRow("429") << "429-retry-after-2"
                             << steps({"return-429-after-2s", "return-200", "return-200", "return-200"});
        QTest::addRow("reset") << "reset-then-200" << steps({"reset", "return-200", "return-200", "return-200"});
        QTest::addRow("stall") << "stall-once" << steps({"stall", "return-200", "return-200", "return-200"});
        QTest::addRow("pass") << "pass" << steps({"return-200", "return-200", "return-200", "return-200"});
    }

    void presetsServeWhatTheySay()
    {
        QFETCH(QString, id);
        QFETCH(QStringList, firstFour);
        const auto plan = ObservationPlan::load(id);
        QVERIFY2(plan, qPrintable(plan.error()));
        RandomSource random(1);
        QStringList served;
        for (int n = 1; n <= 4; ++n)
            served.append(plan->stepFor(n, random).toString());
        QCOMPARE(served, firstFour);
        QVERIFY(!plan->name.isEmpty());
        QVERIFY(!plan->description.isEmpty());
    }

    void everyPresetRoundTrips()
    {
        QStringList ids;
        for (const ObservationPlan &plan : ObservationPlan::presets()) {
            QVERIFY2(!ids.contains(plan.id), qPrintable(plan.id));
            ids.append(plan.id);
            const auto back = ObservationPlan::fromJson(plan.toJson());
            QVERIFY2(back, qPrintable(back.error()));
            QCOMPARE(back->toJson(), plan.toJson());
        }
        QCOMPARE(ObservationPlan::defaultPlan().id, QStringLiteral("503x3"));
        QVERIFY(ids.contains(QStringLiteral("503-30pct")));
    }

    void probabilityIsSeeded()
    {
        const ObservationPlan plan = *ObservationPlan::load(QStringLiteral("503-30pct"));
        RandomSource a(5);
        RandomSource b(5);
        int faults = 0;
        for (int i = 0; i < 1000; ++i) {
            const FaultInstruction step = plan.stepFor(1, a);
            QCOMPARE(step, plan.stepFor(1, b));
            faults += step.status == 503 ? 1 : 0;
        }
        QVERIFY2(faults > 240 && faults < 360, qPrintable(QString::number(faults)));
    }

    void filesAreRead()
    {
        QTemporaryDir dir;
        const QString path = write(dir, R"({"name": "two resets", "steps": ["reset*2"], "then": "return-204"})");
        const auto plan = ObservationPlan::load(path);
        QVERIFY2(plan, qPrintable(plan.error()));
        QCOMPARE(plan->id, QStringLiteral("plan"));
        QCOMPARE(plan->name, QStringLiteral("two resets"));
        RandomSource random;
        QCOMPARE(plan->stepFor(2, random).toString(), QStringLiteral("reset"));
        QCOMPARE(plan->stepFor(3, random).toString(), QStringLiteral("return-204"));
    }

    void badPlansSayWhatIsWrong_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::addRow("not json") << QByteArray("{steps: [") << "not JSON";
        QTest::addRow("array") << QByteArray("[1]") << "one JSON object";
        QTest::addRow("bad step") << QByteArray(R"({"steps": ["return-999"]})") << "steps";
        QTest::addRow("bad then") << QByteArray(R"({"steps": [], "then": "explode"})") << "then";
        QTest::addRow("probability") << QByteArray(R"({"probability": 1.5, "randomStep": "reset"})") << "probability";
        QTest::addRow("nothing") << QByteArray(R"({"name": "x"})") << "needs";
        QTest::addRow("wrong type") << QByteArray(R"({"steps": "reset"})") << "steps";
    }

    void badPlansSayWhatIsWrong()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const auto plan = ObservationPlan::load(write(dir, text));
        QVERIFY(!plan);
        QVERIFY2(plan.error().contains(expected), qPrintable(plan.error()));
        QVERIFY2(plan.error().contains(QStringLiteral("plan.json")), qPrintable(plan.error()));
    }

    void unknownNamesListThePresets()
    {
        const auto plan = ObservationPlan::load(QStringLiteral("no-such-plan"));
        QVERIFY(!plan);
        QVERIFY2(plan.error().contains(QStringLiteral("503x3")), qPrintable(plan.error()));
    }
};

QTEST_GUILESS_MAIN(TestObservationPlan)
#include "tst_observationplan.moc"
