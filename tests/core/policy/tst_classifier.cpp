#include "core/policy/classifier.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace RetryLab::Core;
using Decision = Classification::Decision;

Q_DECLARE_METATYPE(RetryLab::Core::ResponseRetryCondition)

class TestClassifier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void statusByMethodByIdempotency_data();
    void statusByMethodByIdempotency();
    void networkErrors_data();
    void networkErrors();
    void qtErrorCodeOfAStatus_isAnAnswerNotANetworkFault_data();
    void qtErrorCodeOfAStatus_isAnAnswerNotANetworkFault();
    void notSent_refusedDnsTls_retryAPostWhenThePolicyRetriesTheFault();
    void cloudStoragePreconditions_makeAWriteConditional_data();
    void cloudStoragePreconditions_makeAWriteConditional();
    void cloudStoragePutDelete_onlyConditionallyIdempotent_data();
    void cloudStoragePutDelete_onlyConditionallyIdempotent();
    void iam404_onlyWhenPolicySaysSo();
    void conflictAborted_restartsSequence();
    void iamShape_readAndVersionedWrite_retriedOnServerErrors_data();
    void iamShape_readAndVersionedWrite_retriedOnServerErrors();
    void preconditionFailed_restartsSequenceOnlyWithIfMatch();
    void staleVersion_singleWrite_givesUpAndSaysWhy_data();
    void staleVersion_singleWrite_givesUpAndSaysWhy();
    void cutByExecutor_isNotANetworkError();
    void redirectsNotFollowed_andResumeIncomplete_areNoSuccess();
    void retryAfter_isReadFromResponse();
    void editedRules_changeDecision();
    void everyDecision_hasAReason();
    void retryOnResponse_eachKindMatchesOrNot_data();
    void retryOnResponse_eachKindMatchesOrNot();
    void retryOnResponse_jsonPointerReadsPastTheFirst4KiB();
    void retryOnResponse_bodyNotJson_meetsNoJsonCondition_data();
    void retryOnResponse_bodyNotJson_meetsNoJsonCondition();
    void retryOnResponse_followsTheIdempotencyRules_data();
    void retryOnResponse_followsTheIdempotencyRules();
    void retryOnResponse_errorStatusesAreNotConditions();
    void rateLimitReset_readOnlyWhenThePolicyHonoursIt_data();
    void rateLimitReset_readOnlyWhenThePolicyHonoursIt();
};

namespace {

AttemptObservation okAnswer(const QByteArray &body, const HeaderList &headers = {})
{
    AttemptObservation o;
    o.httpStatus = 200;
    o.responseHeaders = headers;
    o.body = body;
    o.bodyPrefix = body.left(4096);
    return o;
}

ClassificationRules retryingOn(const QList<ResponseRetryCondition> &conditions)
{
    ClassificationRules rules;
    rules.retryOnResponse = conditions;
    return rules;
}

} // namespace

void TestClassifier::statusByMethodByIdempotency_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("idempotency"); // "", "flag", "key", "if-match"
    QTest::addColumn<int>("decision");

    const QList<int> statuses{200, 204, 301, 400, 401, 403, 404, 408, 429, 500, 502, 503, 504, 599};
    const QList<QByteArray> methods{"GET", "HEAD", "PUT", "DELETE", "POST", "PATCH"};
    const QStringList marks{QString(), QStringLiteral("flag"), QStringLiteral("key"), QStringLiteral("if-match")};
    for (int status : statuses) {
        for (const QByteArray &method : methods) {
            for (const QString &mark : marks) {
                int decision;
                const bool retryableStatus = status == 429 || status >= 500;
                const bool idempotent = method != "POST" && method != "PATCH";
                if (status < 400)
                    decision = int(Decision::Success);
                else if (retryableStatus && (idempotent || !mark.isEmpty()))
                    decision = int(Decision::RetryAfterDelay);
                else
                    decision = int(Decision::GiveUp);
                QTest::addRow("%d %s %s", status, method.constData(), mark.isEmpty() ? "plain" : qPrintable(mark))
                    << status << method << mark << decision;
            }
        }
    }
}

void TestClassifier::statusByMethodByIdempotency()
{
    QFETCH(int, status);
    QFETCH(QByteArray, method);
    QFETCH(QString, idempotency);
    QFETCH(int, decision);

    AttemptObservation o;
    o.method = method;
    o.httpStatus = status;
    o.networkError = status >= 500 ? QNetworkReply::InternalServerError
        : status >= 400            ? QNetworkReply::ContentAccessDenied
                                   : QNetworkReply::NoError;
    if (idempotency == QLatin1String("flag"))
        o.markedIdempotent = true;
    else if (idempotency == QLatin1String("key"))
        o.requestHeaders.emplaceBack("Idempotency-Key", "abc-123");
    else if (idempotency == QLatin1String("if-match"))
        o.requestHeaders.emplaceBack("If-Match", "\"etag-1\"");

    const Classification c = classify(o, ClassificationRules{});
    QCOMPARE(int(c.decision), decision);
    QVERIFY(!c.reason.isEmpty());
    QVERIFY(c.cause.startsWith(QStringLiteral("http-%1").arg(status)));
    if ((method == "POST" || method == "PATCH") && idempotency.isEmpty() && (status == 429 || status >= 500))
        QVERIFY2(c.reason.contains(QLatin1String("not idempotent")), qPrintable(c.reason));
}

void TestClassifier::networkErrors_data()
{
    QTest::addColumn<int>("error");
    QTest::addColumn<int>("faultClass");
    QTest::addColumn<int>("decision");

    QTest::addRow("refused") << int(QNetworkReply::ConnectionRefusedError) << int(NetworkFaultClass::ConnectionRefused)
                             << int(Decision::RetryAfterDelay);
    QTest::addRow("remote closed") << int(QNetworkReply::RemoteHostClosedError)
                                   << int(NetworkFaultClass::ConnectionReset) << int(Decision::RetryAfterDelay);
    QTest::addRow("timeout") << int(QNetworkReply::TimeoutError) << int(NetworkFaultClass::Timeout)
                             << int(Decision::RetryAfterDelay);
    QTest::addRow("dns") << int(QNetworkReply::HostNotFoundError) << int(NetworkFaultClass::HostNotFound)
                         << int(Decision::GiveUp);
    QTest::addRow("tls") << int(QNetworkReply::SslHandshakeFailedError) << int(NetworkFaultClass::TlsFailure)
                         << int(Decision::GiveUp);
    QTest::addRow("garbage") << int(QNetworkReply::ProtocolFailure) << int(NetworkFaultClass::ProtocolFailure)
                             << int(Decision::RetryImmediately);
    QTest::addRow("unknown") << int(QNetworkReply::UnknownNetworkError) << int(NetworkFaultClass::Other)
                             << int(Decision::GiveUp);
    QTest::addRow("proxy refused") << int(QNetworkReply::ProxyConnectionRefusedError)
                                   << int(NetworkFaultClass::ConnectionRefused) << int(Decision::RetryAfterDelay);
    QTest::addRow("proxy closed") << int(QNetworkReply::ProxyConnectionClosedError)
                                  << int(NetworkFaultClass::ConnectionReset) << int(Decision::RetryAfterDelay);
    QTest::addRow("proxy timeout") << int(QNetworkReply::ProxyTimeoutError) << int(NetworkFaultClass::Timeout)
                                   << int(Decision::RetryAfterDelay);
    QTest::addRow("proxy not found") << int(QNetworkReply::ProxyNotFoundError) << int(NetworkFaultClass::HostNotFound)
                                     << int(Decision::GiveUp);
    QTest::addRow("proxy credentials") << int(QNetworkReply::ProxyAuthenticationRequiredError)
                                       << int(NetworkFaultClass::Other) << int(Decision::GiveUp);
    QTest::addRow("proxy, other") << int(QNetworkReply::UnknownProxyError) << int(NetworkFaultClass::Other)
                                  << int(Decision::GiveUp);
}

void TestClassifier::networkErrors()
{
    QFETCH(int, error);
    QFETCH(int, faultClass);
    QFETCH(int, decision);

    AttemptObservation o;
    o.networkError = QNetworkReply::NetworkError(error);
    const Classification c = classify(o, ClassificationRules{});
    QVERIFY(c.networkFault.has_value());
    QCOMPARE(int(*c.networkFault), faultClass);
    QCOMPARE(int(c.decision), decision);
    QCOMPARE(c.cause, networkFaultClassName(NetworkFaultClass(faultClass)));
    // A proxy's fault says it was the proxy.
    const bool proxyError
        = error >= QNetworkReply::ProxyConnectionRefusedError && error <= QNetworkReply::UnknownProxyError;
    QCOMPARE(c.reason.startsWith(QLatin1String("the proxy")), proxyError);

    // The same fault on a POST: a request that never left the client is retried
    // as a GET would be; one that was sent is not without an idempotency mark.
    const bool notSent = isNotSentFault(NetworkFaultClass(faultClass));
    QCOMPARE(c.notSent, notSent);
    QCOMPARE(c.reason.contains(QLatin1String("the request was not sent")), notSent);
    o.method = "POST";
    const Classification post = classify(o, ClassificationRules{});
    if (notSent) {
        QCOMPARE(int(post.decision), decision);
        if (post.isRetry())
            QVERIFY2(post.reason.contains(QLatin1String("POST never reached the server")), qPrintable(post.reason));
    } else {
        QCOMPARE(post.decision, Decision::GiveUp);
        if (c.isRetry()) {
            QVERIFY2(post.reason.contains(QLatin1String("sent and its outcome is unknown")), qPrintable(post.reason));
            QVERIFY(post.cause.endsWith(QLatin1String("/not-idempotent")));
        }
    }
}

void TestClassifier::notSent_refusedDnsTls_retryAPostWhenThePolicyRetriesTheFault()
{
    ClassificationRules rules;
    rules.networkActions[NetworkFaultClass::HostNotFound] = FaultAction::RetryAfterDelay;
    rules.networkActions[NetworkFaultClass::TlsFailure] = FaultAction::RetryAfterDelay;
    for (const auto error : {QNetworkReply::ConnectionRefusedError, QNetworkReply::HostNotFoundError,
             QNetworkReply::SslHandshakeFailedError}) {
        AttemptObservation o;
        o.method = "POST";
        o.networkError = error;
        const Classification c = classify(o, rules);
        QCOMPARE(c.decision, Decision::RetryAfterDelay);
        QVERIFY(c.notSent);
        QVERIFY(!c.cause.contains(QLatin1String("not-idempotent")));
    }
    // Sent, outcome unknown: a reset or a timeout after the bytes left.
    for (const auto error : {QNetworkReply::RemoteHostClosedError, QNetworkReply::TimeoutError}) {
        AttemptObservation o;
        o.method = "PATCH";
        o.networkError = error;
        const Classification c = classify(o, rules);
        QCOMPARE(c.decision, Decision::GiveUp);
        QVERIFY(!c.notSent);
    }
}

void TestClassifier::cloudStoragePreconditions_makeAWriteConditional_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QString>("precondition");
    QTest::addRow("ifGenerationMatch") << "http://127.0.0.1/upload/storage/v1/b/b/o?ifGenerationMatch=0&name=x"
                                       << QByteArray() << "ifGenerationMatch";
    QTest::addRow("ifMetagenerationMatch")
        << "http://127.0.0.1/storage/v1/b/b/o/x?ifMetagenerationMatch=3" << QByteArray() << "ifMetagenerationMatch";
    QTest::addRow("x-goog-if-generation-match")
        << "http://127.0.0.1/b/x" << QByteArray("x-goog-if-generation-match") << "x-goog-if-generation-match";
    QTest::addRow("x-goog-if-metageneration-match")
        << "http://127.0.0.1/b/x" << QByteArray("X-Goog-If-Metageneration-Match") << "x-goog-if-metageneration-match";
    QTest::addRow("If-Match") << "http://127.0.0.1/b/x" << QByteArray("If-Match") << "If-Match";
    QTest::addRow("none") << "http://127.0.0.1/b/x?generation=4" << QByteArray() << "";
}

void TestClassifier::cloudStoragePreconditions_makeAWriteConditional()
{
    QFETCH(QString, url);
    QFETCH(QByteArray, header);
    QFETCH(QString, precondition);
    AttemptObservation o;
    o.method = "POST";
    o.url = QUrl(url);
    if (!header.isEmpty())
        o.requestHeaders.emplaceBack(header, "12");
    QCOMPARE(preconditionOf(o.requestHeaders, o.url), precondition);

    o.httpStatus = 503;
    o.networkError = QNetworkReply::ServiceUnavailableError;
    const Classification c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, precondition.isEmpty() ? Decision::GiveUp : Decision::RetryAfterDelay);
    if (!precondition.isEmpty())
        QVERIFY2(c.reason.contains(precondition), qPrintable(c.reason));

    // 412 on a single conditional write: stale, give up and say why.
    o.httpStatus = 412;
    o.networkError = QNetworkReply::UnknownContentError;
    const Classification stale = classify(o, ClassificationRules{});
    QCOMPARE(stale.decision, Decision::GiveUp);
    QCOMPARE(stale.reason.contains(QLatin1String("stale version")), !precondition.isEmpty());
}

void TestClassifier::cloudStoragePutDelete_onlyConditionallyIdempotent_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("marked");
    QTest::addColumn<bool>("rule"); // ClassificationRules::putDeleteNeedPrecondition
    QTest::addColumn<bool>("retried");
    const QString plain = QStringLiteral("https://storage.test/upload/storage/v1/b/b/o?name=x");
    const QString guarded = plain + QStringLiteral("&ifGenerationMatch=0");
    QTest::addRow("PUT, no rule") << QByteArray("PUT") << plain << false << false << true;
    QTest::addRow("PUT, rule") << QByteArray("PUT") << plain << false << true << false;
    QTest::addRow("DELETE, rule") << QByteArray("DELETE") << plain << false << true << false;
    QTest::addRow("PUT, rule, precondition") << QByteArray("PUT") << guarded << false << true << true;
    QTest::addRow("DELETE, rule, marked safe") << QByteArray("DELETE") << plain << true << true << true;
    QTest::addRow("GET, rule") << QByteArray("GET") << plain << false << true << true;
}

void TestClassifier::cloudStoragePutDelete_onlyConditionallyIdempotent()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, url);
    QFETCH(bool, marked);
    QFETCH(bool, rule);
    QFETCH(bool, retried);
    AttemptObservation o;
    o.method = method;
    o.url = QUrl(url);
    o.markedIdempotent = marked;
    o.httpStatus = 503;
    ClassificationRules rules;
    rules.putDeleteNeedPrecondition = rule;
    const auto c = classify(o, rules);
    QCOMPARE(c.isRetry(), retried);
    if (!retried)
        QVERIFY2(c.reason.contains(QLatin1String("only conditionally idempotent")), qPrintable(c.reason));
}

void TestClassifier::qtErrorCodeOfAStatus_isAnAnswerNotANetworkFault_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("error");
    QTest::addColumn<int>("decision");
    // The error codes Qt 6.4 gives a reply with these statuses (QNetworkReplyHttpImpl).
    const auto give = int(Decision::GiveUp);
    const auto retry = int(Decision::RetryAfterDelay);
    QTest::addRow("400") << 400 << int(QNetworkReply::ProtocolInvalidOperationError) << give;
    QTest::addRow("401") << 401 << int(QNetworkReply::AuthenticationRequiredError) << give;
    QTest::addRow("403") << 403 << int(QNetworkReply::ContentAccessDenied) << give;
    QTest::addRow("404") << 404 << int(QNetworkReply::ContentNotFoundError) << give;
    QTest::addRow("405") << 405 << int(QNetworkReply::ContentOperationNotPermittedError) << give;
    QTest::addRow("407") << 407 << int(QNetworkReply::ProxyAuthenticationRequiredError) << give;
    QTest::addRow("409") << 409 << int(QNetworkReply::ContentConflictError) << give;
    QTest::addRow("410") << 410 << int(QNetworkReply::ContentGoneError) << give;
    QTest::addRow("418") << 418 << int(QNetworkReply::ProtocolInvalidOperationError) << give;
    QTest::addRow("422") << 422 << int(QNetworkReply::UnknownContentError) << give;
    QTest::addRow("429") << 429 << int(QNetworkReply::UnknownContentError) << retry;
    QTest::addRow("500") << 500 << int(QNetworkReply::InternalServerError) << retry;
    QTest::addRow("501") << 501 << int(QNetworkReply::OperationNotImplementedError) << retry;
    QTest::addRow("503") << 503 << int(QNetworkReply::ServiceUnavailableError) << retry;
    QTest::addRow("504") << 504 << int(QNetworkReply::UnknownServerError) << retry;
}

void TestClassifier::qtErrorCodeOfAStatus_isAnAnswerNotANetworkFault()
{
    QFETCH(int, status);
    QFETCH(int, error);
    QFETCH(int, decision);

    AttemptObservation o;
    o.method = "GET";
    o.httpStatus = status;
    o.networkError = QNetworkReply::NetworkError(error);
    const Classification c = classify(o, ClassificationRules{});
    QCOMPARE(int(c.decision), decision);
    QCOMPARE(c.cause, QStringLiteral("http-%1").arg(status));
    QVERIFY(!c.networkFault);
}

void TestClassifier::iam404_onlyWhenPolicySaysSo()
{
    AttemptObservation o;
    o.httpStatus = 404;
    o.networkError = QNetworkReply::ContentNotFoundError;
    ClassificationRules rules;
    rules.retryableStatuses = {500, 502, 503, 504};
    QCOMPARE(classify(o, rules).decision, Decision::GiveUp);
    rules.retryableStatuses.insert(404);
    const auto c = classify(o, rules);
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QVERIFY(c.reason.contains(QLatin1String("eventual consistency")));
}

void TestClassifier::conflictAborted_restartsSequence()
{
    AttemptObservation o;
    o.method = "PUT";
    o.readModifyWrite = true;
    o.httpStatus = 409;
    o.networkError = QNetworkReply::ContentConflictError;
    o.bodyPrefix = R"({"status":"ABORTED"})";
    const auto c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QVERIFY(c.restartSequence);
    QCOMPARE(c.cause, QStringLiteral("http-409-aborted"));
    QVERIFY(c.reason.contains(QLatin1String("read-modify-write")));

    o.bodyPrefix = R"({"status":"OTHER"})";
    QCOMPARE(classify(o, ClassificationRules{}).decision, Decision::GiveUp);

    o.bodyPrefix = R"({"status":"ABORTED"})";
    ClassificationRules noConflicts;
    noConflicts.retryConflictAborted = false;
    QCOMPARE(classify(o, noConflicts).decision, Decision::GiveUp);
}

// IAM's read-modify-write: POST ...:getIamPolicy reads, POST ...:setIamPolicy writes the
// policy with the etag it read. Neither is a POST whose repeat could apply twice.
void TestClassifier::iamShape_readAndVersionedWrite_retriedOnServerErrors_data()
{
    QTest::addColumn<int>("step"); // AttemptObservation::Step
    QTest::addColumn<bool>("versionInBody");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("decision");
    QTest::addColumn<QString>("reason");
    const int read = int(AttemptObservation::Step::Read);
    const int write = int(AttemptObservation::Step::Write);
    const int retry = int(Decision::RetryAfterDelay);
    const int giveUp = int(Decision::GiveUp);
    for (int status : {500, 502, 503, 504}) {
        QTest::addRow("getIamPolicy %d", status)
            << read << true << status << retry << QStringLiteral("the read of a read-modify-write");
        QTest::addRow("setIamPolicy with its etag %d", status)
            << write << true << status << retry << QStringLiteral("the etag it read, in its body");
    }
    // A POST write without a version anywhere stays what it is: not idempotent.
    QTest::addRow("write without a version") << write << false << 503 << giveUp << QStringLiteral("is not idempotent");
    // A status the policy does not retry is not retried because the write is conditional.
    QTest::addRow("setIamPolicy 400") << write << true << 400 << giveUp << QString();
}

void TestClassifier::iamShape_readAndVersionedWrite_retriedOnServerErrors()
{
    QFETCH(int, step);
    QFETCH(bool, versionInBody);
    QFETCH(int, status);
    QFETCH(int, decision);
    QFETCH(QString, reason);
    AttemptObservation o;
    o.method = "POST";
    o.readModifyWrite = true;
    o.step = AttemptObservation::Step(step);
    o.versionInBody = versionInBody;
    o.httpStatus = status;
    const ClassificationRules rules; // IAM's statuses are the default transient ones
    const auto c = classify(o, rules);
    QCOMPARE(int(c.decision), decision);
    QVERIFY2(c.reason.contains(reason), qPrintable(c.reason));
    QVERIFY(!c.restartSequence);
}

void TestClassifier::preconditionFailed_restartsSequenceOnlyWithIfMatch()
{
    AttemptObservation o;
    o.method = "PUT";
    o.httpStatus = 412;
    o.networkError = QNetworkReply::UnknownContentError;
    QCOMPARE(classify(o, ClassificationRules{}).decision, Decision::GiveUp);
    o.requestHeaders.emplaceBack("if-match", "\"3\"");
    o.readModifyWrite = true;
    const auto c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QVERIFY(c.restartSequence);
}

void TestClassifier::staleVersion_singleWrite_givesUpAndSaysWhy_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("cause");
    QTest::addRow("409 ABORTED") << 409 << QByteArray(R"({"status":"ABORTED"})") << QStringLiteral("http-409-aborted");
    QTest::addRow("412 with If-Match") << 412 << QByteArray() << QStringLiteral("http-412");
}

void TestClassifier::staleVersion_singleWrite_givesUpAndSaysWhy()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(QString, cause);
    AttemptObservation o;
    o.method = "PUT"; // idempotent, so only the stale version can stop the retry
    o.httpStatus = status;
    o.networkError = status == 409 ? QNetworkReply::ContentConflictError : QNetworkReply::UnknownContentError;
    o.bodyPrefix = body;
    o.requestHeaders.emplaceBack("If-Match", "\"7\"");
    const auto c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::GiveUp);
    QVERIFY(!c.restartSequence);
    QCOMPARE(c.cause, cause);
    QVERIFY2(c.reason.contains(QLatin1String("stale version; retrying the same write cannot succeed, re-read first")),
        qPrintable(c.reason));
}

void TestClassifier::redirectsNotFollowed_andResumeIncomplete_areNoSuccess()
{
    AttemptObservation o;
    o.httpStatus = 302;
    o.responseHeaders = {{"Location", "ftp://a.test/x"}};
    QCOMPARE(classify(o, ClassificationRules{}).decision, Decision::Success); // as far as the classifier knows
    o.redirectRefused = true;
    auto c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::GiveUp);
    QCOMPARE(c.cause, QStringLiteral("redirect-not-followed"));
    QVERIFY(!c.fallbackAllowed);

    // 308 without a Location: Cloud Storage's Resume Incomplete, not Permanent Redirect.
    AttemptObservation resume;
    resume.method = "PUT";
    resume.httpStatus = 308;
    resume.responseHeaders = {{"Range", "bytes=0-262143"}};
    c = classify(resume, ClassificationRules{});
    QCOMPARE(c.decision, Decision::GiveUp);
    QCOMPARE(c.cause, QStringLiteral("http-308-resume-incomplete"));
    QVERIFY2(c.reason.contains(QLatin1String("Resume Incomplete")), qPrintable(c.reason));
    // Any other 3xx without a Location is an answer like any other.
    resume.httpStatus = 304;
    QCOMPARE(classify(resume, ClassificationRules{}).decision, Decision::Success);
}

void TestClassifier::cutByExecutor_isNotANetworkError()
{
    AttemptObservation o;
    o.networkError = QNetworkReply::OperationCanceledError;

    o.cutBy = AttemptObservation::CutBy::AttemptTimeout;
    auto c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QCOMPARE(c.cause, QStringLiteral("attempt-timeout"));

    o.cutBy = AttemptObservation::CutBy::Deadline;
    c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::GiveUp);
    QCOMPARE(c.cause, QStringLiteral("deadline"));

    o.cutBy = AttemptObservation::CutBy::User;
    c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::GiveUp);
    QCOMPARE(c.cause, QStringLiteral("cancelled"));
}

void TestClassifier::retryAfter_isReadFromResponse()
{
    AttemptObservation o;
    o.httpStatus = 429;
    o.networkError = QNetworkReply::UnknownContentError;
    o.responseHeaders.emplaceBack("retry-after", "7");
    const auto c = classify(o, ClassificationRules{});
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QVERIFY(c.retryAfter.has_value());
    QCOMPARE(*c.retryAfter->delayMs, 7000.0);
}

void TestClassifier::editedRules_changeDecision()
{
    AttemptObservation o;
    o.networkError = QNetworkReply::ConnectionRefusedError;
    ClassificationRules rules;
    rules.networkActions[NetworkFaultClass::ConnectionRefused] = FaultAction::GiveUp;
    QCOMPARE(classify(o, rules).decision, Decision::GiveUp);
    rules.networkActions[NetworkFaultClass::ConnectionRefused] = FaultAction::RetryImmediately;
    QCOMPARE(classify(o, rules).decision, Decision::RetryImmediately);

    AttemptObservation post;
    post.method = "POST";
    post.httpStatus = 503;
    post.networkError = QNetworkReply::ServiceUnavailableError;
    rules.retryNonIdempotent = true;
    const auto c = classify(post, rules);
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
}

void TestClassifier::everyDecision_hasAReason()
{
    for (int e = 0; e <= 500; ++e) {
        AttemptObservation o;
        o.networkError = QNetworkReply::NetworkError(e);
        const auto c = classify(o, ClassificationRules{});
        QVERIFY(!c.reason.isEmpty());
        QVERIFY(!c.cause.isEmpty());
    }
}

void TestClassifier::retryOnResponse_eachKindMatchesOrNot_data()
{
    using C = ResponseRetryCondition;
    QTest::addColumn<C>("condition");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QString>("cause"); // empty: a success
    QTest::addColumn<QString>("found");

    const QByteArray pending = R"({"status":"PENDING","error":{"retryable":true},"n":3})";
    const QByteArray done = R"({"status":"DONE","error":{"retryable":false},"n":"3"})";
    QTest::addRow("json string equal") << C::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")) << pending
                                       << HeaderList{} << "response-json"
                                       << "HTTP 200, but /status is \"PENDING\"";
    QTest::addRow("json string other") << C::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")) << done
                                       << HeaderList{} << ""
                                       << "";
    QTest::addRow("json bool equal") << C::jsonEquals(QStringLiteral("/error/retryable"), true) << pending
                                     << HeaderList{} << "response-json"
                                     << "/error/retryable is true";
    QTest::addRow("json bool other") << C::jsonEquals(QStringLiteral("/error/retryable"), true) << done << HeaderList{}
                                     << ""
                                     << "";
    // A number is not the string of its digits.
    QTest::addRow("json number") << C::jsonEquals(QStringLiteral("/n"), 3) << pending << HeaderList{} << "response-json"
                                 << "/n is 3";
    QTest::addRow("json number vs string") << C::jsonEquals(QStringLiteral("/n"), 3) << done << HeaderList{} << ""
                                           << "";
    QTest::addRow("json pointer absent") << C::jsonEquals(QStringLiteral("/nothing"), QJsonValue::Null) << pending
                                         << HeaderList{} << ""
                                         << "";
    QTest::addRow("header with value") << C::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes"))
                                       << QByteArray() << HeaderList{{"x-retry", " yes "}} << "response-header"
                                       << "X-Retry is \"yes\"";
    QTest::addRow("header other value") << C::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes"))
                                        << QByteArray() << HeaderList{{"X-Retry", "no"}} << ""
                                        << "";
    QTest::addRow("header present") << C::headerPresent(QStringLiteral("X-Pending")) << QByteArray()
                                    << HeaderList{{"X-Pending", "1"}} << "response-header"
                                    << "it carries X-Pending";
    QTest::addRow("header absent") << C::headerPresent(QStringLiteral("X-Pending")) << QByteArray()
                                   << HeaderList{{"X-Other", "1"}} << ""
                                   << "";
    QTest::addRow("body contains") << C::bodyContains(QStringLiteral("try again"))
                                   << QByteArray("please try again later") << HeaderList{} << "response-body"
                                   << "the body contains \"try again\"";
    QTest::addRow("body lacks") << C::bodyContains(QStringLiteral("try again")) << QByteArray("all done")
                                << HeaderList{} << ""
                                << "";
    QTest::addRow("body case differs") << C::bodyContains(QStringLiteral("try again")) << QByteArray("Try Again")
                                       << HeaderList{} << ""
                                       << "";
}

void TestClassifier::retryOnResponse_eachKindMatchesOrNot()
{
    QFETCH(ResponseRetryCondition, condition);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(QString, cause);
    QFETCH(QString, found);
    const auto c = classify(okAnswer(body, headers), retryingOn({condition}));
    if (cause.isEmpty()) {
        QCOMPARE(c.decision, Decision::Success);
        QCOMPARE(c.cause, QStringLiteral("http-200"));
        QVERIFY(!c.responseCondition);
        return;
    }
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QCOMPARE(c.cause, cause);
    QCOMPARE(c.responseCondition, std::optional<int>(0));
    QVERIFY2(c.reason.contains(found), qPrintable(c.reason));
    QVERIFY2(c.reason.contains(QStringLiteral("the policy retries on it")), qPrintable(c.reason));
    QCOMPARE(c.httpStatus, std::optional<int>(200));
    QVERIFY(c.repeatable);
    QVERIFY(c.fallbackAllowed);
}

void TestClassifier::retryOnResponse_jsonPointerReadsPastTheFirst4KiB()
{
    // {"padding": "xxxx...", "status": "PENDING"}: the member the pointer names starts after 8 KiB.
    const QJsonObject object{{QStringLiteral("padding"), QString(8192, QLatin1Char('x'))},
        {QStringLiteral("status"), QStringLiteral("PENDING")}};
    const QByteArray body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    QVERIFY(body.indexOf("PENDING") > 8192);
    const ClassificationRules rules
        = retryingOn({ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING"))});
    const auto c = classify(okAnswer(body), rules);
    QCOMPARE(c.decision, Decision::RetryAfterDelay);
    QCOMPARE(c.cause, QStringLiteral("response-json"));

    // The second condition matches when the first does not, and is the one named.
    ClassificationRules two = retryingOn({ResponseRetryCondition::bodyContains(QStringLiteral("absent")),
        ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING"))});
    QCOMPARE(classify(okAnswer(body), two).responseCondition, std::optional<int>(1));
}

void TestClassifier::retryOnResponse_bodyNotJson_meetsNoJsonCondition_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addRow("empty") << QByteArray();
    QTest::addRow("text") << QByteArray("status: PENDING");
    QTest::addRow("cut off") << QByteArray(R"({"status":"PEND)");
    QTest::addRow("a bare string") << QByteArray(R"("PENDING")");
    QTest::addRow("binary") << QByteArray("\0\xff", 2) + QByteArray(R"({"status":"PENDING"})");
    QTest::addRow("deep") << QByteArray(2000, '[') + QByteArray(2000, ']');
}

void TestClassifier::retryOnResponse_bodyNotJson_meetsNoJsonCondition()
{
    QFETCH(QByteArray, body);
    const ClassificationRules rules = retryingOn({
        ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
        ResponseRetryCondition::jsonEquals(QStringLiteral("/0/0"), QJsonValue::Null),
    });
    const auto c = classify(okAnswer(body), rules);
    QCOMPARE(c.decision, Decision::Success);
    QVERIFY(!c.responseCondition);
}

void TestClassifier::retryOnResponse_followsTheIdempotencyRules_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("mark"); // "", "flag", "key"
    QTest::addColumn<bool>("retryNonIdempotent");
    QTest::addColumn<bool>("retried");

    QTest::addRow("GET") << QByteArray("GET") << QString() << false << true;
    QTest::addRow("DELETE") << QByteArray("DELETE") << QString() << false << true;
    QTest::addRow("POST") << QByteArray("POST") << QString() << false << false;
    QTest::addRow("PATCH") << QByteArray("PATCH") << QString() << false << false;
    QTest::addRow("POST marked") << QByteArray("POST") << QStringLiteral("flag") << false << true;
    QTest::addRow("POST with a key") << QByteArray("POST") << QStringLiteral("key") << false << true;
    QTest::addRow("POST, policy retries it") << QByteArray("POST") << QString() << true << true;
}

void TestClassifier::retryOnResponse_followsTheIdempotencyRules()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, mark);
    QFETCH(bool, retryNonIdempotent);
    QFETCH(bool, retried);
    AttemptObservation o = okAnswer(R"({"done": false})");
    o.method = method;
    o.markedIdempotent = mark == QLatin1String("flag");
    if (mark == QLatin1String("key"))
        o.requestHeaders.emplaceBack("Idempotency-Key", "k-1");
    ClassificationRules rules = retryingOn({ResponseRetryCondition::jsonEquals(QStringLiteral("/done"), false)});
    rules.retryNonIdempotent = retryNonIdempotent;
    const auto c = classify(o, rules);
    if (retried) {
        QCOMPARE(c.decision, Decision::RetryAfterDelay);
        QCOMPARE(c.cause, QStringLiteral("response-json"));
    } else {
        QCOMPARE(c.decision, Decision::GiveUp);
        QCOMPARE(c.cause, QStringLiteral("response-json/not-idempotent"));
        QVERIFY2(c.reason.contains(QStringLiteral("/done is false")), qPrintable(c.reason));
        QVERIFY2(c.reason.contains(QStringLiteral("not idempotent")), qPrintable(c.reason));
        QVERIFY(!c.fallbackAllowed);
    }
}

void TestClassifier::retryOnResponse_errorStatusesAreNotConditions()
{
    // A 404 with {"status": "PENDING"} is what the statuses say it is: a client error.
    AttemptObservation o = okAnswer(R"({"status":"PENDING"})");
    o.httpStatus = 404;
    o.networkError = QNetworkReply::ContentNotFoundError;
    const ClassificationRules rules
        = retryingOn({ResponseRetryCondition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING"))});
    const auto c = classify(o, rules);
    QCOMPARE(c.decision, Decision::GiveUp);
    QCOMPARE(c.cause, QStringLiteral("http-404"));
    QVERIFY(!c.responseCondition);
}

void TestClassifier::rateLimitReset_readOnlyWhenThePolicyHonoursIt_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<double>("resetMs"); // < 0: none read
    QTest::addColumn<bool>("exhausted");
    QTest::addColumn<QString>("reasonContains");

    QTest::addRow("x-ratelimit spent") << 429
                                       << HeaderList{{"X-RateLimit-Limit", "10"}, {"X-RateLimit-Remaining", "0"},
                                              {"X-RateLimit-Reset", "3"}}
                                       << 3000.0 << true << "X-RateLimit-Reset: the quota resets in 3 s";
    QTest::addRow("ietf spent") << 429
                                << HeaderList{{"RateLimit", "\"default\";r=0;t=2"},
                                       {"RateLimit-Policy", "\"default\";q=5;w=10"}}
                                << 2000.0 << true << "RateLimit: the quota resets in 2 s";
    QTest::addRow("success, spent") << 200 << HeaderList{{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "1"}}
                                    << 1000.0 << true << "X-RateLimit-Reset";
    QTest::addRow("reset alone on a 503")
        << 503 << HeaderList{{"RateLimit-Reset", "4"}} << 4000.0 << false << "RateLimit-Reset";
    QTest::addRow("quota left") << 429 << HeaderList{{"X-RateLimit-Remaining", "5"}, {"X-RateLimit-Reset", "3"}} << -1.0
                                << false << "";
    QTest::addRow("no reset") << 429 << HeaderList{{"X-RateLimit-Remaining", "0"}} << -1.0 << false << "";
    QTest::addRow("unreadable reset") << 429
                                      << HeaderList{{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "soon"}}
                                      << -1.0 << false << "";
}

void TestClassifier::rateLimitReset_readOnlyWhenThePolicyHonoursIt()
{
    QFETCH(int, status);
    QFETCH(HeaderList, headers);
    QFETCH(double, resetMs);
    QFETCH(bool, exhausted);
    QFETCH(QString, reasonContains);
    AttemptObservation o;
    o.httpStatus = status;
    o.networkError = status >= 400 ? QNetworkReply::UnknownContentError : QNetworkReply::NoError;
    o.responseHeaders = headers;
    o.receivedAt = QDateTime::currentDateTimeUtc();

    QVERIFY(!classify(o, ClassificationRules{}).rateLimitReset); // off by default
    ClassificationRules rules;
    rules.honourRateLimitReset = true;
    const auto c = classify(o, rules);
    QCOMPARE(c.decision, status == 200 ? Decision::Success : Decision::RetryAfterDelay);
    if (resetMs < 0) {
        QVERIFY(!c.rateLimitReset);
        QVERIFY(!c.rateLimitExhausted);
        return;
    }
    QVERIFY(c.rateLimitReset);
    QCOMPARE(*c.rateLimitReset->delayMs, resetMs);
    QCOMPARE(c.rateLimitExhausted, exhausted);
    QVERIFY2(c.rateLimitReset->reason.contains(reasonContains), qPrintable(c.rateLimitReset->reason));
    QVERIFY(!c.retryAfter); // a rate limit's reset is not a Retry-After
}

QTEST_GUILESS_MAIN(TestClassifier)
#include "tst_classifier.moc"
