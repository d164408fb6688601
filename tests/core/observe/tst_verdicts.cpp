#include "core/observe/verdicts.h"
#include "core/policy/presets.h"

#include "observetesting.h"

#include <QFile>
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
            (QStringList{QStringLiteral("growing-backoff"), QStringLiteral("random-jitter"),
                QStringLiteral("bounded-attempts"), QStringLiteral("no-unsafe-retries"),
                QStringLiteral("retry-after-honoured"), QStringLiteral("permanent-errors-not-retried"),
                QStringLiteral("retries-logged")}));
    }

    void aGoodClientPasses()
    {
        const auto verdicts = judged(ObserveTesting::simulate(*Presets::find(QStringLiteral("google-cloud-storage"))));
        QCOMPARE(outcomeOf(verdicts, "growing-backoff"), O::Pass);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::Pass);
        QCOMPARE(outcomeOf(verdicts, "bounded-attempts"), O::Pass);
        QCOMPARE(outcomeOf(verdicts, "retries-logged"), O::NotObserved);
        QVERIFY2(Judge::allPass(verdicts), qPrintable(table(verdicts)));
    }

    void constantDelaysWithoutJitterFail()
    {
        const auto verdicts = judged(ObserveTesting::simulate(*Presets::find(QStringLiteral("polly-default"))));
        QCOMPARE(outcomeOf(verdicts, "growing-backoff"), O::Fail);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::Fail);
        QVERIFY(!Judge::allPass(verdicts));
    }

    void immediateRetriesFail()
    {
        const auto verdicts = judged(ObserveTesting::simulate(
            ObserveTesting::policy(BackoffAlgorithm::Immediate, 0, 1, 1000, 4), ObserveTesting::traffic(5, 1)));
        QCOMPARE(outcomeOf(verdicts, "growing-backoff"), O::Fail);
        QCOMPARE(outcomeOf(verdicts, "random-jitter"), O::Fail);
    }

    void aClientThatNeverRetriedIsNotObserved()
    {
        const auto verdicts = judged({single(1, "GET", {200}, {}), single(2, "GET", {200}, {})});
        QCOMPARE(outcomeOf(verdicts, "growing-backoff"), O::NotObserved);
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

    // The Retry pattern allows incremental delays: a linear client passes the growth rule.
    void linearDelaysPassTheGrowthRule()
    {
        const auto verdicts
            = judged(ObserveTesting::simulate(ObserveTesting::policy(BackoffAlgorithm::Linear, 100, 1, 10'000, 5)));
        QCOMPARE(outcomeOf(verdicts, "growing-backoff"), O::Pass);
        const auto growth = std::find_if(
            verdicts.cbegin(), verdicts.cend(), [](const Verdict &v) { return v.rule == u"growing-backoff"; });
        QVERIFY2(growth->evidence.contains(QStringLiteral("incremental")), qPrintable(growth->evidence));
    }

    void permanentErrorsVerdict()
    {
        QCOMPARE(outcomeOf(judged({single(1, "GET", {403, 200}, {100})}), "permanent-errors-not-retried"), O::Fail);
        QCOMPARE(outcomeOf(judged({single(1, "GET", {400}, {})}), "permanent-errors-not-retried"), O::Pass);
        QCOMPARE(
            outcomeOf(judged({single(1, "GET", {503, 200}, {100})}), "permanent-errors-not-retried"), O::NotObserved);
    }

    // IAM retries 404 on purpose (eventual consistency): a client that follows it
    // does not fail the permanent-errors rule, and the evidence says why.
    void retrying404_asIamAllows_passes()
    {
        const auto verdicts = judged({single(1, "GET", {404, 404, 200}, {1000, 2000}), single(2, "GET", {403}, {})});
        QCOMPARE(outcomeOf(verdicts, "permanent-errors-not-retried"), O::Pass);
        const auto rule = std::find_if(verdicts.cbegin(), verdicts.cend(),
            [](const Verdict &v) { return v.rule == u"permanent-errors-not-retried"; });
        QVERIFY2(rule->evidence.contains(QStringLiteral("IAM")), qPrintable(rule->evidence));
        // Followed by the IAM preset itself, judged through the simulation.
        const BackoffPolicy iam404 = *Presets::find(QStringLiteral("iam-retry-404"));
        QVERIFY(iam404.classification.retryableStatuses.contains(404));
    }

    // Every rule names its source, and every word it quotes stands in that source
    // (docs/sources/, the documents the rules were written from). A rule without a
    // quote cites a document outside them (Retry-After: RFC 9110), never one of them.
    void everyRuleQuotesItsSource_data()
    {
        QTest::addColumn<int>("index");
        for (qsizetype i = 0; i < Judge::rules().size(); ++i)
            QTest::newRow(qPrintable(Judge::rules().at(i).rule)) << int(i);
    }

    void everyRuleQuotesItsSource()
    {
        QFETCH(int, index);
        const VerdictRule &rule = Judge::rules().at(index);
        QVERIFY(!rule.source.isEmpty());
        if (rule.quotes.isEmpty()) {
            for (const char *seed : {"Memorystore", "Cloud Storage:", "IAM", "Azure"})
                QVERIFY2(!rule.source.startsWith(QLatin1String(seed)), qPrintable(rule.source));
            QVERIFY2(rule.source.contains(QStringLiteral("RFC")), qPrintable(rule.source));
        }
        for (const VerdictRule::Quote &quote : rule.quotes) {
            QFile file(QStringLiteral(RETRYLAB_SOURCES_DIR "/") + quote.document);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
            const QString text = QString::fromUtf8(file.readAll());
            QVERIFY2(text.contains(quote.text), qPrintable(quote.document + QStringLiteral(": ") + quote.text));
        }
        QCOMPARE(judged({}).at(index).source, rule.source);
    }

    // The Retry-After rule cites RFC 9110, not the Retry pattern (which never names the header).
    void retryAfterRule_citesRfc9110()
    {
        const auto rule = std::find_if(Judge::rules().cbegin(), Judge::rules().cend(),
            [](const VerdictRule &r) { return r.rule == u"retry-after-honoured"; });
        QVERIFY(rule->source.contains(QStringLiteral("RFC 9110, section 10.2.3")));
        QVERIFY(!rule->source.contains(QStringLiteral("Azure")));
        QFile azure(QStringLiteral(RETRYLAB_SOURCES_DIR "/azure-retry-pattern.de.md"));
        QVERIFY(azure.open(QIODevice::ReadOnly));
        QVERIFY(!azure.readAll().contains("Retry-After"));
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
