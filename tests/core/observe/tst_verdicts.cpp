#include "core/observe/verdicts.h"
#include "core/policy/presets.h"

#include "observetesting.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

using O = Verdict::Outcome;

Verdict::Outcome outcomeOf(const QList<Verdict> &verdicts, const char *rule)
{
    for (const Verdict &v : verdicts) {
        if (v.rule == QLatin1String(rule))
            return v.outcome;
    }
    return O::NotObserved;
}

QList<Verdict> judged(const QList<LogicalRequest> &requests)
{
    return Judge::judge(requests, PolicyInference::infer(requests));
}

QString table(const QList<Verdict> &verdicts)
{
    QString text;
    for (const Verdict &v : verdicts)
        text += QStringLiteral("\n%1 %2: %3").arg(Verdict::outcomeName(v.outcome), v.rule, v.evidence);
    return text;
}

LogicalRequest single(quint64 id, const QByteArray &method, QList<int> statuses, QList<double> delays,
    GroupingRule rule = GroupingRule::SameRequest)
{
    LogicalRequest r;
    r.id = id;
    r.method = method;
    r.rule = rule;
    r.closedBy = QStringLiteral("different request");
    double t = id * 100'000.0;
    for (qsizetype i = 0; i < statuses.size(); ++i) {
        ObservedAttempt a;
        a.arrivalMs = t;
        a.endMs = t + 1;
        a.complete = true;
        a.status = statuses[i];
        a.action = QStringLiteral("respond");
        if (i > 0)
            a.delayMs = delays.value(i - 1);
        r.attempts.append(a);
        t = a.endMs + delays.value(i, 0.0);
    }
    return r;
}

} // namespace

class TestVerdicts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneVerdictPerRuleInOrder()
    {
        const auto verdicts = judged(ObserveTesting::simulate(*Presets::find(QStringLiteral("aws-standard"))));
        QStringList rules;
        for (const Verdict &v : verdicts) {
            rules.append(v.rule);
            QVERIFY(!v.title.isEmpty());
            QVERIFY(!v.source.isEmpty());
            QVERIFY2(!v.evidence.isEmpty(), qPrintable(v.rule));
            const QJsonObject json = v.toJson();
            QCOMPARE(json.value(QStringLiteral("rule")).toString(), v.rule);
            QCOMPARE(json.value(QStringLiteral("pass")).toBool(), v.pass());
        }
        QCOMPARE(rules,
            (QStringList{QStringLiteral("exponential-backoff-with-cap"), QStringLiteral("random-jitter"),
                QStringLiteral("bounded-attempts"), QStringLiteral("no-unsafe-retries"),
                QStringLiteral("retry-after-honoured"), QStringLiteral("permanent-errors-not-retried"),
                QStringLiteral("retries-logged")}));
    }

    void aGoodClientPasses()
    {
        const auto verdicts = judged(ObserveTesting::simulate(*Presets::find(QStringLiteral("google-cloud-storage"))));
        QCOMPARE(outcomeOf(verdicts, "exponential-backoff-with-cap"), O::Pass);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::Pass);
        QCOMPARE(outcomeOf(verdicts, "bounded-attempts"), O::Pass);
        QCOMPARE(outcomeOf(verdicts, "retries-logged"), O::NotObserved);
        QVERIFY2(Judge::allPass(verdicts), qPrintable(table(verdicts)));
    }

    void constantDelaysWithoutJitterFail()
    {
        const auto verdicts = judged(ObserveTesting::simulate(*Presets::find(QStringLiteral("polly-default"))));
        QCOMPARE(outcomeOf(verdicts, "exponential-backoff-with-cap"), O::Fail);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::Fail);
        QVERIFY(!Judge::allPass(verdicts));
    }

    void immediateRetriesFail()
    {
        const auto verdicts = judged(ObserveTesting::simulate(
            ObserveTesting::policy(BackoffAlgorithm::Immediate, 0, 1, 1000, 4), ObserveTesting::traffic(5, 1)));
        QCOMPARE(outcomeOf(verdicts, "exponential-backoff-with-cap"), O::Fail);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::Fail);
    }

    void aClientThatNeverRetriedIsNotObserved()
    {
        const auto verdicts = judged({single(1, "GET", {200}, {}), single(2, "GET", {200}, {})});
        QCOMPARE(outcomeOf(verdicts, "exponential-backoff-with-cap"), O::NotObserved);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::NotObserved);
        QCOMPARE(outcomeOf(verdicts, "bounded-attempts"), O::NotObserved);
        QVERIFY(Judge::allPass(verdicts));
    }

    void endlessRetriesFailTheBound()
    {
        QList<int> statuses(30, 503);
        QList<double> delays(29, 10.0);
        LogicalRequest r = single(1, "GET", statuses, delays);
        r.closedBy.clear();
        const auto verdicts = judged({r});
        QCOMPARE(outcomeOf(verdicts, "bounded-attempts"), O::Fail);
    }

    void unsafeRetries()
    {
        QCOMPARE(outcomeOf(judged({single(1, "POST", {503, 200}, {100})}), "no-unsafe-retries"), O::Fail);
        QCOMPARE(outcomeOf(judged({single(1, "POST", {503}, {})}), "no-unsafe-retries"), O::Pass);
        QCOMPARE(outcomeOf(
                     judged({single(1, "POST", {503, 200}, {100}, GroupingRule::IdempotencyKey)}), "no-unsafe-retries"),
            O::NotObserved);
    }

    void retryAfterVerdict()
    {
        auto traffic = ObserveTesting::traffic(5, 1);
        traffic.retryAfterMs = 500.0;
        traffic.honourRetryAfter = 0.0;
        const BackoffPolicy policy = ObserveTesting::policy(BackoffAlgorithm::FullJitter, 10, 2, 100, 3);
        QCOMPARE(outcomeOf(judged(ObserveTesting::simulate(policy, traffic)), "retry-after-honoured"), O::Pass);
        traffic.honourRetryAfter = -1.0;
        QCOMPARE(outcomeOf(judged(ObserveTesting::simulate(policy, traffic)), "retry-after-honoured"), O::Fail);
        QCOMPARE(outcomeOf(judged(ObserveTesting::simulate(policy)), "retry-after-honoured"), O::NotObserved);
    }

    void permanentErrorsVerdict()
    {
        QCOMPARE(outcomeOf(judged({single(1, "GET", {404, 200}, {100})}), "permanent-errors-not-retried"), O::Fail);
        QCOMPARE(outcomeOf(judged({single(1, "GET", {404}, {})}), "permanent-errors-not-retried"), O::Pass);
        QCOMPARE(
            outcomeOf(judged({single(1, "GET", {503, 200}, {100})}), "permanent-errors-not-retried"), O::NotObserved);
    }

    void everyPresetIsClosestToItself_data()
    {
        QTest::addColumn<QString>("id");
        for (const Presets::Preset &preset : Presets::all())
            QTest::newRow(qPrintable(preset.id)) << preset.id;
    }

    void everyPresetIsClosestToItself()
    {
        QFETCH(QString, id);
        const BackoffPolicy preset = *Presets::find(id);
        const auto closest = Judge::closestPreset(PolicyInference::infer(ObserveTesting::simulate(preset)));
        QVERIFY(closest);
        // IAM and its 404 variant retry alike, and Azure's and Polly's constant
        // delays differ only in the numbers: the closest has the same retries.
        const BackoffPolicy &found = closest->preset;
        QVERIFY2(found.algorithm == preset.algorithm
                || (found.algorithm == BackoffAlgorithm::IamTruncatedExponential
                    && preset.algorithm == BackoffAlgorithm::GoogleTruncatedExponential)
                || (preset.algorithm == BackoffAlgorithm::IamTruncatedExponential
                    && found.algorithm == BackoffAlgorithm::GoogleTruncatedExponential),
            qPrintable(closest->presetId));
        QCOMPARE(found.baseDelayMs, preset.baseDelayMs);
        QCOMPARE(found.maxAttempts, preset.maxAttempts);
        QVERIFY2(closest->distance < 0.3, qPrintable(QString::number(closest->distance)));
        QCOMPARE(closest->rows.size(), 6);
    }

    void nothingToCompareWithoutAnAlgorithm() { QVERIFY(!Judge::closestPreset(PolicyInference::infer({}))); }
};

QTEST_GUILESS_MAIN(TestVerdicts)
#include "tst_verdicts.moc"
