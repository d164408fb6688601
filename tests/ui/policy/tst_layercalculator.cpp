#include "core/policy/presets.h"
#include "core/policy/retrylayers.h"
#include "ui/policy/layercalculator.h"

#include <QComboBox>
#include <QLabel>
#include <QTest>

using namespace RetryLab;
using Ui::LayerCalculator;

class TestLayerCalculator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaults_twoLayersOfTheCurrentPolicyAndAPreset();
    void fourLayers_figuresMatchTheCoreAndWarn();
};

void TestLayerCalculator::defaults_twoLayersOfTheCurrentPolicyAndAPreset()
{
    LayerCalculator calculator;
    Core::BackoffPolicy mine = *Core::Presets::find(QStringLiteral("curl-retry"));
    mine.name = QStringLiteral("My app");
    calculator.setCurrentPolicy(mine);
    auto *first = calculator.findChild<QComboBox *>(QStringLiteral("policy1"));
    auto *third = calculator.findChild<QComboBox *>(QStringLiteral("policy3"));
    QVERIFY(first && third);
    QCOMPARE(first->currentText(), QStringLiteral("Current policy: My app"));
    QCOMPARE(third->currentText(), QStringLiteral("(none)"));
    const QList<Core::BackoffPolicy> stack = calculator.stack();
    QCOMPARE(stack.size(), 2);
    QCOMPARE(stack.first().name, QStringLiteral("My app"));
    QCOMPARE(stack.at(1), Core::Presets::all().first().policy);
    QVERIFY2(calculator.resultText().contains(QLatin1String("layer 1 My app")), qPrintable(calculator.resultText()));
}

void TestLayerCalculator::fourLayers_figuresMatchTheCoreAndWarn()
{
    LayerCalculator calculator;
    calculator.show();
    QVERIFY(QTest::qWaitForWindowExposed(&calculator));
    const QStringList ids = Core::Presets::ids();
    const QStringList chosen{QStringLiteral("google-cloud-storage"), QStringLiteral("aws-standard"),
        QStringLiteral("grpc-retry-policy"), QStringLiteral("polly-default")};
    for (int layer = 0; layer < 4; ++layer)
        calculator.setLayerChoice(layer, int(ids.indexOf(chosen.at(layer))) + 1); // 0 is the current policy
    calculator.setFailureProbability(0.3);
    QCOMPARE(calculator.stack().size(), 4);

    QList<Core::BackoffPolicy> stack;
    for (const QString &id : chosen)
        stack.append(*Core::Presets::find(id));
    Core::RetryLayers::Assumptions a;
    a.failureProbability = 0.3;
    const auto exact = Core::RetryLayers::compute(stack, a);
    QCOMPARE(calculator.stack(), stack);
    const QString expectedLine = QStringLiteral("at most %1; expected %2")
                                     .arg(qint64(exact.worstCaseServerAttempts))
                                     .arg(exact.expectedServerAttempts, 0, 'f', 3);
    QVERIFY2(calculator.resultText().contains(expectedLine), qPrintable(calculator.resultText()));
    QVERIFY(calculator.warningText().contains(QLatin1String("the layers multiply")));
    QVERIFY(calculator.findChild<QLabel *>(QStringLiteral("layerWarning"))->isVisible());
    QVERIFY(calculator.findChild<QLabel *>(QStringLiteral("layerCheck"))->text().contains(QLatin1String("10000")));

    // Back to two layers: 9 attempts at most, under the threshold: no warning.
    calculator.setLayerChoice(2, calculator.findChild<QComboBox *>(QStringLiteral("policy3"))->count() - 1);
    calculator.setLayerChoice(3, calculator.findChild<QComboBox *>(QStringLiteral("policy4"))->count() - 1);
    calculator.setLayerChoice(1, int(ids.indexOf(QStringLiteral("aws-standard"))) + 1);
    calculator.setLayerChoice(0, int(ids.indexOf(QStringLiteral("aws-standard"))) + 1); // 3 x 3 attempts
    QCOMPARE(calculator.stack().size(), 2);
    QVERIFY(calculator.warningText().isEmpty());
    QVERIFY(!calculator.findChild<QLabel *>(QStringLiteral("layerWarning"))->isVisible());
}

QTEST_MAIN(TestLayerCalculator)
#include "tst_layercalculator.moc"
