// A read-modify-write of another shape than RetryLab's default, against the
// fault server's /occ resource in its IAM mode (?etag=body&envelope=policy):
// the version is the document's "etag" field, the write a POST of
// {"policy": document}, a stale etag answered 409 ABORTED. Ten writers race;
// every increment lands, through restarts of the whole sequence.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTest>

using namespace RetryLab::Core;

class TestExecutorRmwShape : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_server.listen()); }
    void iamShape_tenWriters_everyIncrementLands();
    void wrongShape_givesUpSayingWhatIsMissing();
    void iamOwnVerbs_5xxRetried_409RestartsTheSequence();

private:
    QUrl url(const QString &path) const { return m_server.baseUrl().resolved(QUrl(path)); }
    FaultServer m_server;
};

void TestExecutorRmwShape::iamShape_tenWriters_everyIncrementLands()
{
    BackoffPolicy policy;
    policy.algorithm = BackoffAlgorithm::FullJitter;
    policy.baseDelayMs = 2;
    policy.maxBackoffMs = 50;
    policy.maxAttempts = 60;
    policy.attemptTimeoutMs = 5000;
    RetryExecutor executor;
    executor.setPolicy(policy);
    executor.setConcurrencyLimit(10);
    QList<AttemptRecord> attempts;
    QList<RequestResult> results;
    connect(&executor, &RetryExecutor::attemptFinished, this, [&](const AttemptRecord &a) { attempts.append(a); });
    connect(&executor, &RetryExecutor::requestFinished, this, [&](const RequestResult &r) { results.append(r); });

    const QString resource = QStringLiteral("/occ/iam-policy?etag=body&envelope=policy&delay_ms=5");
    for (int i = 0; i < 10; ++i) {
        RequestSpec spec;
        spec.kind = RequestSpec::Kind::ReadModifyWrite;
        spec.url = url(resource);
        spec.increment = 3;
        spec.readModifyWrite.writeMethod = "POST";
        spec.readModifyWrite.etagPointer = QStringLiteral("/etag");
        spec.readModifyWrite.writeEnvelope = QStringLiteral("policy");
        executor.submit(spec);
    }
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), 10, 30'000);
    for (const RequestResult &r : results)
        QVERIFY2(r.outcome == RequestOutcome::Succeeded, qPrintable(r.reason));

    bool sawConflict = false;
    for (const AttemptRecord &a : attempts) {
        if (a.step == QLatin1String("write")) {
            QCOMPARE(a.method, QByteArray("POST"));
            QVERIFY(!headerValue(a.requestHeaders, "If-Match"));
            const QJsonObject sent = QJsonDocument::fromJson(a.requestBody).object();
            QVERIFY2(sent.value(QStringLiteral("policy")).toObject().contains(QStringLiteral("etag")),
                a.requestBody.constData());
        }
        if (a.httpStatus == 409) {
            sawConflict = true;
            QCOMPARE(a.cause, QStringLiteral("http-409-aborted"));
        }
    }
    QVERIFY2(sawConflict, "ten concurrent writers should have collided at least once");

    QNetworkAccessManager manager;
    QNetworkReply *reply = manager.get(QNetworkRequest(url(QStringLiteral("/occ/iam-policy?etag=body"))));
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    QCOMPARE(QJsonDocument::fromJson(reply->readAll()).object().value(QStringLiteral("value")).toInteger(), 30);
    reply->deleteLater();
}

void TestExecutorRmwShape::wrongShape_givesUpSayingWhatIsMissing()
{
    // The default shape expects an ETag header; the IAM mode sends none: nothing to write with.
    RetryExecutor executor;
    QList<RequestResult> results;
    connect(&executor, &RetryExecutor::requestFinished, this, [&](const RequestResult &r) { results.append(r); });
    RequestSpec spec;
    spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.url = url(QStringLiteral("/occ/headerless?etag=body"));
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 10'000);
    QCOMPARE(results.constFirst().outcome, RequestOutcome::GaveUp);
    QVERIFY2(
        results.constFirst().reason.contains(QLatin1String("an ETag header")), qPrintable(results.constFirst().reason));

    // A shape that cannot be used is refused before anything is sent.
    spec.readModifyWrite.valuePointer = QStringLiteral("value");
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), 2, 10'000);
    QCOMPARE(results.constLast().outcome, RequestOutcome::InvalidRequest);
    QVERIFY2(
        results.constLast().reason.contains(QLatin1String("JSON pointer")), qPrintable(results.constLast().reason));
}

// IAM's own verbs: POST ...:getIamPolicy reads, POST ...:setIamPolicy writes the policy with
// its etag. The script answers the first write 503 (retried, not given up: the write is
// conditional), the second 409 ABORTED (the sequence restarts), then the server's own answers.
void TestExecutorRmwShape::iamOwnVerbs_5xxRetried_409RestartsTheSequence()
{
    BackoffPolicy policy;
    policy.baseDelayMs = 2;
    policy.maxBackoffMs = 10;
    policy.maxAttempts = 10;
    RetryExecutor executor;
    executor.setPolicy(policy);
    QList<AttemptRecord> attempts;
    QList<RequestResult> results;
    connect(&executor, &RetryExecutor::attemptFinished, this, [&](const AttemptRecord &a) { attempts.append(a); });
    connect(&executor, &RetryExecutor::requestFinished, this, [&](const RequestResult &r) { results.append(r); });

    const Result<QString> test = m_server.createTest({QStringLiteral("pass"), QStringLiteral("return-503"),
        QStringLiteral("pass"), QStringLiteral("aborted"), QStringLiteral("pass")});
    QVERIFY2(test, qPrintable(test.error()));
    const QString query = QStringLiteral("?etag=body&envelope=policy");
    RequestSpec spec;
    spec.kind = RequestSpec::Kind::ReadModifyWrite;
    spec.url = url(QStringLiteral("/occ/own-verbs:getIamPolicy") + query);
    spec.headers = {{"X-Retry-Test-Id", test->toLatin1()}};
    spec.increment = 4;
    spec.readModifyWrite.readMethod = "POST";
    spec.readModifyWrite.writeMethod = "POST";
    spec.readModifyWrite.writeUrl = url(QStringLiteral("/occ/own-verbs:setIamPolicy") + query);
    spec.readModifyWrite.etagPointer = QStringLiteral("/etag");
    spec.readModifyWrite.writeEnvelope = QStringLiteral("policy");
    executor.submit(spec);
    QTRY_COMPARE_WITH_TIMEOUT(results.size(), 1, 20'000);
    QVERIFY2(results.constFirst().outcome == RequestOutcome::Succeeded, qPrintable(results.constFirst().reason));

    QStringList steps;
    for (const AttemptRecord &a : std::as_const(attempts)) {
        QCOMPARE(a.method, QByteArray("POST"));
        steps.append(QStringLiteral("%1 %2").arg(a.step).arg(a.httpStatus.value_or(0)));
    }
    // Every retry of a read-modify-write starts from the read again (a new etag is never wrong).
    QCOMPARE(steps,
        QStringList({QStringLiteral("read 200"), QStringLiteral("write 503"), QStringLiteral("read 200"),
            QStringLiteral("write 409"), QStringLiteral("read 200"), QStringLiteral("write 200")}));
    QVERIFY2(attempts.at(1).reason.contains(QLatin1String("conditional")), qPrintable(attempts.at(1).reason));
    QCOMPARE(attempts.at(3).cause, QStringLiteral("http-409-aborted"));
    QVERIFY(attempts.at(1).url.path().endsWith(QLatin1String(":setIamPolicy")));

    // One increment landed, read back through IAM's read.
    QNetworkAccessManager manager;
    QNetworkRequest read(spec.url);
    read.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = manager.post(read, QByteArray());
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 5000);
    QCOMPARE(QJsonDocument::fromJson(reply->readAll()).object().value(QStringLiteral("value")).toInteger(), 4);
    reply->deleteLater();
}

QTEST_GUILESS_MAIN(TestExecutorRmwShape)
#include "tst_executorrmwshape.moc"
