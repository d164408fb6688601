#include "core/herd/herdparameters.h"
#include "ui/herd/herdparametersform.h"

#include <QColor>
#include <QComboBox>
#include <QGroupBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using namespace RetryLab::Core;

class TestHerdParametersForm final : public QObject
{
    Q_OBJECT

private:
    template<typename T>
    static T *child(const Ui::HerdParametersForm &form, const char *name)
    {
        T *widget = form.findChild<T *>(QLatin1String(name));
        if (!widget)
            qFatal("no child %s", name);
        return widget;
    }

    static QGroupBox *group(const Ui::HerdParametersForm &form, const QString &title)
    {
        for (QGroupBox *box : form.findChildren<QGroupBox *>()) {
            if (box->title() == title)
                return box;
        }
        qFatal("no group %s", qPrintable(title));
        return nullptr;
    }

    // Every field the form shows away from its default.
    static HerdParameters unusual(HerdModel model)
    {
        HerdParameters p = HerdParameters::defaultsFor(model);
        p.clientCounts = {5, 15, 25, 35};
        p.runs = 17;
        p.seed = 123456789012345ULL;
        p.strategies = {HerdStrategy{BackoffAlgorithm::DecorrelatedJitter}, HerdStrategy{BackoffAlgorithm::Constant}};
        p.baseDelayMs = 12.5;
        p.maxBackoffMs = 4321.0;
        p.multiplier = 1.75;
        p.jitterMs = 3.5;
        p.maxAttempts = 7;
        p.deadlineMs = 9000.0;
        p.networkMeanMs = 12.25;
        p.networkSdMs = 3.5;
        p.arrivals = ArrivalMode::Poisson;
        p.arrivalRatePerSec = 75.0;
        p.serviceRatePerSec = 150.0;
        p.queueCapacity = 20;
        p.overloadStatus = 429;
        p.retryAfterS = 3;
        p.honourRetryAfter = false;
        p.outageStartMs = 1500.0;
        p.outageEndMs = 4500.0;
        p.binMs = 250.0;
        p.latencyMedianMs = 80.5;
        p.latencySigma = 1.25;
        p.failureRate = 0.05;
        p.hedgedAttempts = 4;
        p.hedgingDelayMs = 175.0;
        p.rateLimiter = RateLimiterKind::AwsAdaptive;
        if (model == HerdModel::Latency)
            p.strategies.append(HerdStrategy::hedge());
        return p;
    }

private Q_SLOTS:
    void defaults_areValid();
    void setParameters_roundTrips_data();
    void setParameters_roundTrips();
    void typedField_invalid_errorNamesIt_data();
    void typedField_invalid_errorNamesIt();
    void setParameters_invalid_errorNamesIt_data();
    void setParameters_invalid_errorNamesIt();
    void noStrategyTicked_errorNamesStrategies();
    void edited_oncePerChange();
    void modelChange_loadsDefaultsAndEnablesItsFields();
};

void TestHerdParametersForm::defaults_areValid()
{
    Ui::HerdParametersForm form;
    const auto p = form.parameters();
    QVERIFY2(p, qPrintable(p.error()));
    QCOMPARE(p->model, HerdModel::OptimisticConcurrency);
    QCOMPARE(p->clientCounts, HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency).clientCounts);
    QCOMPARE(child<QListWidget>(form, "strategyList")->count(), HerdStrategy::allFor(HerdModel::Latency).size());
}

void TestHerdParametersForm::setParameters_roundTrips_data()
{
    QTest::addColumn<HerdModel>("model");
    for (HerdModel model : allHerdModels())
        QTest::addRow("%s", qPrintable(herdModelName(model))) << model;
}

void TestHerdParametersForm::setParameters_roundTrips()
{
    QFETCH(HerdModel, model);
    const HerdParameters p = unusual(model);
    Ui::HerdParametersForm form;
    form.setParameters(p);
    const auto back = form.parameters();
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(back->model, p.model);
    QCOMPARE(back->clientCounts, p.clientCounts);
    QCOMPARE(back->runs, p.runs);
    QCOMPARE(back->seed, p.seed);
    QCOMPARE(back->strategies, p.strategies);
    QCOMPARE(back->baseDelayMs, p.baseDelayMs);
    QCOMPARE(back->maxBackoffMs, p.maxBackoffMs);
    QCOMPARE(back->multiplier, p.multiplier);
    QCOMPARE(back->jitterMs, p.jitterMs);
    QCOMPARE(back->maxAttempts, p.maxAttempts);
    QCOMPARE(back->deadlineMs, p.deadlineMs);
    QCOMPARE(back->networkMeanMs, p.networkMeanMs);
    QCOMPARE(back->networkSdMs, p.networkSdMs);
    QCOMPARE(back->arrivals, p.arrivals);
    QCOMPARE(back->arrivalRatePerSec, p.arrivalRatePerSec);
    QCOMPARE(back->serviceRatePerSec, p.serviceRatePerSec);
    QCOMPARE(back->queueCapacity, p.queueCapacity);
    QCOMPARE(back->overloadStatus, p.overloadStatus);
    QCOMPARE(back->retryAfterS, p.retryAfterS);
    QCOMPARE(back->honourRetryAfter, p.honourRetryAfter);
    QCOMPARE(back->outageStartMs, p.outageStartMs);
    QCOMPARE(back->outageEndMs, p.outageEndMs);
    QCOMPARE(back->binMs, p.binMs);
    QCOMPARE(back->latencyMedianMs, p.latencyMedianMs);
    QCOMPARE(back->latencySigma, p.latencySigma);
    QCOMPARE(back->failureRate, p.failureRate);
    QCOMPARE(back->hedgedAttempts, p.hedgedAttempts);
    QCOMPARE(back->hedgingDelayMs, p.hedgingDelayMs);
    QCOMPARE(back->rateLimiter, p.rateLimiter);

    // "Not sent" is a value of its own.
    HerdParameters silent = p;
    silent.retryAfterS.reset();
    form.setParameters(silent);
    QCOMPARE(form.parameters()->retryAfterS, std::optional<int>());
}

void TestHerdParametersForm::typedField_invalid_errorNamesIt_data()
{
    QTest::addColumn<QString>("objectName");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::addRow("client count 0") << QStringLiteral("clientsEdit") << QStringLiteral("0:50:10")
                                    << QStringLiteral("clients:");
    QTest::addRow("clients not a number")
        << QStringLiteral("clientsEdit") << QStringLiteral("ten") << QStringLiteral("clients:");
    QTest::addRow("no clients") << QStringLiteral("clientsEdit") << QString() << QStringLiteral("clients:");
    QTest::addRow("clients backwards") << QStringLiteral("clientsEdit") << QStringLiteral("50:10:10")
                                       << QStringLiteral("clients:");
    QTest::addRow("no seed") << QStringLiteral("seedEdit") << QString() << QStringLiteral("seed:");
    QTest::addRow("seed beyond 2^64") << QStringLiteral("seedEdit") << QStringLiteral("99999999999999999999")
                                      << QStringLiteral("seed:");
}

void TestHerdParametersForm::typedField_invalid_errorNamesIt()
{
    QFETCH(QString, objectName);
    QFETCH(QString, text);
    QFETCH(QString, field);
    Ui::HerdParametersForm form;
    child<QLineEdit>(form, qPrintable(objectName))->setText(text);
    const auto p = form.parameters();
    QVERIFY(!p);
    QVERIFY2(p.error().startsWith(field), qPrintable(p.error()));
    // One line per problem: the field is not reported twice.
    QCOMPARE(p.error().count(field), 1);
}

void TestHerdParametersForm::setParameters_invalid_errorNamesIt_data()
{
    QTest::addColumn<HerdParameters>("parameters");
    QTest::addColumn<QString>("field");

    HerdParameters backwards = HerdParameters::defaultsFor(HerdModel::Outage);
    backwards.outageStartMs = 4000.0;
    backwards.outageEndMs = 2000.0;
    QTest::addRow("outage ends before it starts") << backwards << QStringLiteral("outageEndMs:");

    HerdParameters spinning = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    spinning.networkMeanMs = 0.0;
    spinning.networkSdMs = 0.0;
    spinning.strategies = {HerdStrategy{}};
    QTest::addRow("retrying for ever at one instant") << spinning << QStringLiteral("networkMeanMs:");

    HerdParameters tooMuch = HerdParameters::defaultsFor(HerdModel::OptimisticConcurrency);
    tooMuch.clientCounts = {10'000};
    tooMuch.runs = 100'000;
    QTest::addRow("grid too big") << tooMuch << QStringLiteral("grid:");
}

void TestHerdParametersForm::setParameters_invalid_errorNamesIt()
{
    QFETCH(HerdParameters, parameters);
    QFETCH(QString, field);
    Ui::HerdParametersForm form;
    form.setParameters(parameters);
    const auto p = form.parameters();
    QVERIFY(!p);
    QVERIFY2(p.error().contains(field), qPrintable(p.error()));
}

void TestHerdParametersForm::noStrategyTicked_errorNamesStrategies()
{
    Ui::HerdParametersForm form;
    auto *list = child<QListWidget>(form, "strategyList");
    for (int row = 0; row < list->count(); ++row)
        list->item(row)->setCheckState(Qt::Unchecked);
    const auto p = form.parameters();
    QVERIFY(!p);
    QVERIFY2(p.error().startsWith(QLatin1String("strategies:")), qPrintable(p.error()));
}

void TestHerdParametersForm::edited_oncePerChange()
{
    Ui::HerdParametersForm form;
    QSignalSpy edited(&form, &Ui::HerdParametersForm::edited);
    form.setParameters(unusual(HerdModel::Outage));
    QCOMPARE(edited.count(), 1);

    child<QLineEdit>(form, "clientsEdit")->setText(QStringLiteral("10,20"));
    QCOMPARE(edited.count(), 2);
    child<QListWidget>(form, "strategyList")->item(0)->setCheckState(Qt::Checked);
    QCOMPARE(edited.count(), 3);

    // A colour is no edit.
    form.setStrategyColor(HerdStrategy{}, QColor(Qt::red));
    QCOMPARE(edited.count(), 3);
    QCOMPARE(
        child<QListWidget>(form, "strategyList")->item(0)->data(Qt::DecorationRole).value<QColor>(), QColor(Qt::red));
}

void TestHerdParametersForm::modelChange_loadsDefaultsAndEnablesItsFields()
{
    Ui::HerdParametersForm form;
    QSignalSpy edited(&form, &Ui::HerdParametersForm::edited);
    child<QLineEdit>(form, "clientsEdit")->setText(QStringLiteral("5,15"));
    QCOMPARE(edited.count(), 1);
    QVERIFY(!group(form, QStringLiteral("Server"))->isEnabled());
    QVERIFY(!group(form, QStringLiteral("Outage"))->isEnabled());

    auto *model = child<QComboBox>(form, "modelCombo");
    model->setCurrentIndex(model->findData(herdModelName(HerdModel::Outage)));
    QCOMPARE(edited.count(), 2);
    const auto p = form.parameters();
    QVERIFY2(p, qPrintable(p.error()));
    QCOMPARE(p->model, HerdModel::Outage);
    QCOMPARE(p->clientCounts, (QList<int>{5, 15}));
    QCOMPARE(p->outageEndMs, HerdParameters::defaultsFor(HerdModel::Outage).outageEndMs);
    QVERIFY(group(form, QStringLiteral("Server"))->isEnabled());
    QVERIFY(group(form, QStringLiteral("Outage"))->isEnabled());
    QVERIFY(!group(form, QStringLiteral("Slow answers and hedging"))->isEnabled());

    // The latency model brings hedging, ticked, and its own fields; no server queue.
    model->setCurrentIndex(model->findData(herdModelName(HerdModel::Latency)));
    const auto latency = form.parameters();
    QVERIFY2(latency, qPrintable(latency.error()));
    QVERIFY(latency->strategies.contains(HerdStrategy::hedge()));
    QVERIFY(group(form, QStringLiteral("Slow answers and hedging"))->isEnabled());
    QVERIFY(!group(form, QStringLiteral("Server"))->isEnabled());
    // Back to a model that cannot play it: hedging is unticked, and the form stays valid.
    model->setCurrentIndex(model->findData(herdModelName(HerdModel::CapacityLimited)));
    const auto capacity = form.parameters();
    QVERIFY2(capacity, qPrintable(capacity.error()));
    QVERIFY(!capacity->strategies.contains(HerdStrategy::hedge()));
}

QTEST_MAIN(TestHerdParametersForm)
#include "tst_herdparametersform.moc"
