#include "ui/monitor/objectivepanel.h"

#include <QLabel>
#include <QProgressBar>
#include <QTest>

using namespace RetryLab;
using Ui::ObjectivePanel;

namespace {

Core::ObjectiveStatus status(qint64 failed, double longRate, double shortRate)
{
    Core::ObjectiveStatus s;
    s.monitor = QStringLiteral("api");
    s.target = 0.999;
    s.budgetWindowMs = 30LL * 24 * 3600 * 1000;
    s.checks = 10'000;
    s.failedChecks = failed;
    s.availability = 1.0 - double(failed) / 10'000.0;
    s.allowedFailures = 10.0;
    s.budgetRemaining = 1.0 - double(failed) / 10.0;
    s.longWindow = {3600LL * 1000, 360, 4, longRate};
    s.shortWindow = {5LL * 60 * 1000, 30, 1, shortRate};
    s.burnRateThreshold = 14.4;
    s.alerting = longRate > 14.4 && shortRate > 14.4;
    return s;
}

} // namespace

class TestObjectivePanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void noObjective_saysSoAndHow();
    void status_showsTargetAvailabilityBudgetAndBurnRates();
    void overspent_emptyBar_andTheWordOverspent();
    void bothWindowsOver_alerting();
    void noChecks_saysUnknownRatherThanZero();
    void percentText_keepsTheNines_data();
    void percentText_keepsTheNines();

private:
    ObjectivePanel *m_panel = nullptr;
};

void TestObjectivePanel::init()
{
    QLocale::setDefault(QLocale::c());
    m_panel = new ObjectivePanel;
    m_panel->resize(600, 300);
    m_panel->show();
}

void TestObjectivePanel::cleanup()
{
    delete m_panel;
    m_panel = nullptr;
}

void TestObjectivePanel::noObjective_saysSoAndHow()
{
    QVERIFY(!m_panel->hasObjective());
    QVERIFY(m_panel->emptyLabel()->isVisible());
    QVERIFY(m_panel->emptyLabel()->text().contains(QLatin1String("No objective set")));
    m_panel->setStatus(status(4, 1.0, 2.0));
    QVERIFY(!m_panel->emptyLabel()->isVisible());
    m_panel->clear();
    QVERIFY(m_panel->emptyLabel()->isVisible());
}

void TestObjectivePanel::status_showsTargetAvailabilityBudgetAndBurnRates()
{
    m_panel->setStatus(status(4, 11.1, 3.3));
    QCOMPARE(m_panel->targetLabel()->text(), QStringLiteral("99.9 % of checks over 30 days"));
    QCOMPARE(m_panel->availabilityLabel()->text(), QStringLiteral("99.96 % (4 of 10000 checks failed)"));
    QCOMPARE(m_panel->budgetBar()->value(), 600);
    QCOMPARE(m_panel->budgetLabel()->text(), QStringLiteral("60 % left: 4 of 10.0 allowed failed checks spent"));
    QCOMPARE(m_panel->longWindowLabel()->text(),
        QStringLiteral("last 1 h: 11.1\u00d7 (4 of 360 checks failed): under the threshold of 14.4\u00d7"));
    QVERIFY2(m_panel->shortWindowLabel()->text().startsWith(QStringLiteral("last 5 min: 3.3\u00d7")),
        qPrintable(m_panel->shortWindowLabel()->text()));
    QCOMPARE(m_panel->alertLabel()->text(), QStringLiteral("Not alerting"));
}

void TestObjectivePanel::overspent_emptyBar_andTheWordOverspent()
{
    m_panel->setStatus(status(25, 20.0, 3.0));
    QCOMPARE(m_panel->budgetBar()->value(), 0);
    QVERIFY2(m_panel->budgetLabel()->text().startsWith(QLatin1String("Overspent by 150 %")),
        qPrintable(m_panel->budgetLabel()->text()));
    QVERIFY(m_panel->longWindowLabel()->text().contains(QLatin1String("over the threshold")));
    QVERIFY(m_panel->shortWindowLabel()->text().contains(QLatin1String("under the threshold")));
    QCOMPARE(m_panel->alertLabel()->text(), QStringLiteral("Not alerting"));
}

void TestObjectivePanel::bothWindowsOver_alerting()
{
    m_panel->setStatus(status(9, 20.0, 30.0));
    QVERIFY(m_panel->alertLabel()->text().startsWith(QLatin1String("Alerting")));
}

void TestObjectivePanel::noChecks_saysUnknownRatherThanZero()
{
    Core::ObjectiveStatus empty = status(0, 0.0, 0.0);
    empty.checks = 0;
    empty.availability.reset();
    empty.budgetRemaining.reset();
    empty.longWindow.rate.reset();
    empty.shortWindow.rate.reset();
    m_panel->setStatus(empty);
    QVERIFY(m_panel->availabilityLabel()->text().startsWith(QLatin1String("no checks counted")));
    QVERIFY(m_panel->budgetLabel()->text().startsWith(QLatin1String("unknown")));
    QCOMPARE(m_panel->longWindowLabel()->text(), QStringLiteral("last 1 h: no checks counted"));
}

void TestObjectivePanel::percentText_keepsTheNines_data()
{
    QTest::addColumn<double>("fraction");
    QTest::addColumn<QString>("expected");
    QTest::addRow("three nines") << 0.999 << QStringLiteral("99.9 %");
    QTest::addRow("four nines") << 0.9999 << QStringLiteral("99.99 %");
    QTest::addRow("99.95") << 0.9995 << QStringLiteral("99.95 %");
    QTest::addRow("two nines") << 0.99 << QStringLiteral("99 %");
    QTest::addRow("low") << 0.8766 << QStringLiteral("87.7 %");
    QTest::addRow("all") << 1.0 << QStringLiteral("100 %");
}

void TestObjectivePanel::percentText_keepsTheNines()
{
    QFETCH(double, fraction);
    QFETCH(QString, expected);
    QCOMPARE(ObjectivePanel::percentText(fraction), expected);
}

QTEST_MAIN(TestObjectivePanel)
#include "tst_objectivepanel.moc"
