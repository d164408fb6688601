#include "core/grouping/attemptgrouper.h"
#include "core/http/serverlogentry.h"

#include <QTest>

using namespace RetryLab::Core;

namespace {

using Headers = QList<QPair<QByteArray, QByteArray>>;

ObservedAttempt attempt(const QString &client, const QByteArray &method, const QString &target, double arrivalMs,
    const QByteArray &digest = {})
{
    ObservedAttempt a;
    a.clientId = client;
    a.method = method;
    a.target = target;
    a.arrivalMs = arrivalMs;
    a.bodyDigest = digest;
    return a;
}

ObservedAttempt attempt(const char *client, const QByteArray &method, const char *target, double arrivalMs)
{
    return attempt(QString::fromLatin1(client), method, QString::fromLatin1(target), arrivalMs);
}

} // namespace

class TestAttemptGrouper : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameRequestAfterFailureIsARetry()
    {
        AttemptGrouper g;
        const auto first = g.assign(attempt("c", "GET", "/a", 0), {});
        QVERIFY(first.newLogicalRequest);
        QCOMPARE(first.attemptIndex, 1);
        QCOMPARE(first.rule, GroupingRule::NewRequest);
        QVERIFY(g.complete(first.logicalId, false, 5).isEmpty());
        const auto second = g.assign(attempt("c", "GET", "/a", 105), {});
        QVERIFY(!second.newLogicalRequest);
        QCOMPARE(second.logicalId, first.logicalId);
        QCOMPARE(second.attemptIndex, 2);
        QCOMPARE(second.rule, GroupingRule::SameRequest);
        QVERIFY2(second.detail.contains(QStringLiteral("100 ms")), qPrintable(second.detail));
    }

    void successClosesTheLogicalRequest()
    {
        AttemptGrouper g;
        const auto first = g.assign(attempt("c", "GET", "/a", 0), {});
        QCOMPARE(g.complete(first.logicalId, true, 1), QStringLiteral("success"));
        QCOMPARE(g.openCount(), 0);
        const auto next = g.assign(attempt("c", "GET", "/a", 10), {});
        QVERIFY(next.newLogicalRequest);
        QVERIFY(next.logicalId != first.logicalId);
    }

    // The target shown is masked (key=REDACTED); what arrived tells requests apart.
    void sameMaskedTarget_differentRequestDigest_startsANewOne()
    {
        AttemptGrouper g;
        ObservedAttempt a = attempt("c", "GET", "/fail/5?key=REDACTED", 0);
        a.requestDigest = ServerLogEntry::requestDigestOf("/fail/5?key=curl-a", {});
        const auto first = g.assign(a, {});
        QVERIFY(g.complete(first.logicalId, false, 5).isEmpty());
        ObservedAttempt retry = a;
        retry.arrivalMs = 1005;
        const auto second = g.assign(retry, {});
        QCOMPARE(second.logicalId, first.logicalId);
        QVERIFY(g.complete(second.logicalId, false, 1010).isEmpty());
        ObservedAttempt other = a;
        other.arrivalMs = 1100;
        other.requestDigest = ServerLogEntry::requestDigestOf("/fail/5?key=curl-b", {});
        const auto third = g.assign(other, {});
        QVERIFY(third.newLogicalRequest);
        QVERIFY(third.logicalId != first.logicalId);
    }

    void requestDigest_countsCredentialsButNotCookiesOrSignatures()
    {
        using H = QList<QPair<QByteArray, QByteArray>>;
        const QByteArray plain = ServerLogEntry::requestDigestOf("/a", {});
        QCOMPARE(plain.size(), 16);
        QVERIFY(ServerLogEntry::requestDigestOf("/a?key=1", {}) != ServerLogEntry::requestDigestOf("/a?key=2", {}));
        QVERIFY(ServerLogEntry::requestDigestOf("/a", H{{"Authorization", "Bearer one"}})
            != ServerLogEntry::requestDigestOf("/a", H{{"Authorization", "Bearer two"}}));
        QVERIFY(ServerLogEntry::requestDigestOf("/a", H{{"X-Api-Key", "one"}})
            != ServerLogEntry::requestDigestOf("/a", H{{"x-api-key", "two"}}));
        QCOMPARE(ServerLogEntry::requestDigestOf("/a", H{{"Cookie", "session=1"}}), plain);
        QCOMPARE(ServerLogEntry::requestDigestOf("/a", H{{"Accept", "text/plain"}}), plain);
        const QByteArray sigv4 = "AWS4-HMAC-SHA256 Credential=AKID/20261129/us-east-1/s3/aws4_request, "
                                 "SignedHeaders=host;x-amz-date, Signature=";
        QCOMPARE(ServerLogEntry::requestDigestOf("/a", H{{"Authorization", sigv4 + "aaaa"}}),
            ServerLogEntry::requestDigestOf("/a", H{{"Authorization", sigv4 + "bbbb"}}));
    }

    void differenceInMethodTargetBodyOrClientStartsANewOne_data()
    {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QString>("target");
        QTest::addColumn<QByteArray>("digest");
        QTest::addRow("other client") << QStringLiteral("d") << QByteArray("GET") << QStringLiteral("/a")
                                      << QByteArray();
        QTest::addRow("other method") << QStringLiteral("c") << QByteArray("POST") << QStringLiteral("/a")
                                      << QByteArray();
        QTest::addRow("other target") << QStringLiteral("c") << QByteArray("GET") << QStringLiteral("/b")
                                      << QByteArray();
        QTest::addRow("other body") << QStringLiteral("c") << QByteArray("GET") << QStringLiteral("/a")
                                    << QByteArray("0123456789abcdef");
    }

    void differenceInMethodTargetBodyOrClientStartsANewOne()
    {
        QFETCH(QString, client);
        QFETCH(QByteArray, method);
        QFETCH(QString, target);
        QFETCH(QByteArray, digest);
        AttemptGrouper g;
        const auto first = g.assign(attempt("c", "GET", "/a", 0), {});
        g.complete(first.logicalId, false, 1);
        const auto second = g.assign(attempt(client, method, target, 50.0, digest), {});
        QVERIFY(second.newLogicalRequest);
        QVERIFY(second.logicalId != first.logicalId);
    }

    void aDifferentRequestClosesTheClientsAnsweredOne()
    {
        AttemptGrouper g;
        auto a = attempt("c", "GET", "/a", 0);
        a.peer = QStringLiteral("127.0.0.1:5000");
        const auto first = g.assign(a, {});
        g.complete(first.logicalId, false, 1);
        auto b = attempt("c", "GET", "/b", 10);
        b.peer = a.peer;
        const auto other = g.assign(b, {});
        QCOMPARE(other.closed.size(), 1);
        QCOMPARE(other.closed.first().first, first.logicalId);
        QCOMPARE(other.closed.first().second, QStringLiteral("different request"));
        // The old one is closed: its request again starts afresh.
        const auto again = g.assign(attempt("c", "GET", "/a", 20), {});
        QVERIFY(again.newLogicalRequest);
    }

    void aDifferentRequestOnAnotherConnectionIsParallel()
    {
        // Two requests of one client on two connections: one answered and waiting
        // to be retried does not end when the other one arrives.
        AttemptGrouper g;
        auto a = attempt("c", "GET", "/a", 0);
        a.peer = QStringLiteral("127.0.0.1:5000");
        const auto first = g.assign(a, {});
        g.complete(first.logicalId, false, 1);
        auto b = attempt("c", "GET", "/b", 10);
        b.peer = QStringLiteral("127.0.0.1:5001");
        QVERIFY(g.assign(b, {}).closed.isEmpty());
        a.arrivalMs = 500;
        a.peer = QStringLiteral("127.0.0.1:5002");
        QCOMPARE(g.assign(a, {}).logicalId, first.logicalId);
    }

    void aDifferentRequestInFlightDoesNotCloseAnything()
    {
        // A client with two requests in flight at once: neither closes the other.
        AttemptGrouper g;
        const auto a = g.assign(attempt("c", "GET", "/a", 0), {});
        const auto b = g.assign(attempt("c", "GET", "/b", 1), {});
        QVERIFY(b.closed.isEmpty());
        g.complete(a.logicalId, false, 5);
        g.complete(b.logicalId, false, 6);
        const auto retryA = g.assign(attempt("c", "GET", "/a", 50), {});
        QCOMPARE(retryA.logicalId, a.logicalId);
    }

    void theSameRequestWhileUnansweredIsParallel()
    {
        AttemptGrouper g;
        const auto a = g.assign(attempt("c", "GET", "/a", 0), {});
        const auto b = g.assign(attempt("c", "GET", "/a", 1), {});
        QVERIFY(b.newLogicalRequest);
        QVERIFY(b.logicalId != a.logicalId);
    }

    void beyondTheGapWindowIsANewRequest()
    {
        AttemptGrouper g(AttemptGrouper::Settings{1000.0});
        const auto first = g.assign(attempt("c", "GET", "/a", 0), {});
        g.complete(first.logicalId, false, 10);
        const auto late = g.assign(attempt("c", "GET", "/a", 1011), {});
        QVERIFY(late.newLogicalRequest);
        QCOMPARE(late.closed.size(), 1);
        QCOMPARE(late.closed.first().second, QStringLiteral("gap"));
        g.complete(late.logicalId, false, 1020);
        const auto inTime = g.assign(attempt("c", "GET", "/a", 2019), {});
        QCOMPARE(inTime.logicalId, late.logicalId);
    }

    void sdkIdentifiers_data()
    {
        QTest::addColumn<Headers>("first");
        QTest::addColumn<Headers>("second");
        QTest::addColumn<Headers>("other");
        QTest::addColumn<int>("rule");
        QTest::addColumn<int>("announcedAttempt");
        QTest::addColumn<int>("announcedMax");
        QTest::addRow("aws") << Headers{{"amz-sdk-invocation-id", "inv-1"}, {"amz-sdk-request", "attempt=1; max=3"}}
                             << Headers{{"amz-sdk-invocation-id", "inv-1"}, {"amz-sdk-request", "attempt=2; max=3"}}
                             << Headers{{"amz-sdk-invocation-id", "inv-2"}, {"amz-sdk-request", "attempt=1; max=3"}}
                             << int(GroupingRule::AwsInvocationId) << 2 << 3;
        QTest::addRow("google")
            << Headers{{"x-goog-api-client", "gl-python/3.11 gccl/2.9 gccl-invocation-id/g-1 gccl-attempt-count/1"}}
            << Headers{{"x-goog-api-client", "gl-python/3.11 gccl/2.9 gccl-invocation-id/g-1 gccl-attempt-count/2"}}
            << Headers{{"x-goog-api-client", "gl-python/3.11 gccl/2.9 gccl-invocation-id/g-2 gccl-attempt-count/1"}}
            << int(GroupingRule::GoogleInvocationId) << 2 << -1;
        QTest::addRow("retrylab") << Headers{{"x-retry-request-id", "r-1"}, {"x-retry-attempt", "1"}}
                                  << Headers{{"x-retry-request-id", "r-1"}, {"x-retry-attempt", "2"}}
                                  << Headers{{"x-retry-request-id", "r-2"}, {"x-retry-attempt", "1"}}
                                  << int(GroupingRule::RetryRequestId) << 2 << -1;
        QTest::addRow("idempotency key") << Headers{{"idempotency-key", "k-1"}} << Headers{{"idempotency-key", "k-1"}}
                                         << Headers{{"idempotency-key", "k-2"}} << int(GroupingRule::IdempotencyKey)
                                         << -1 << -1;
    }

    void sdkIdentifiers()
    {
        QFETCH(Headers, first);
        QFETCH(Headers, second);
        QFETCH(Headers, other);
        QFETCH(int, rule);
        QFETCH(int, announcedAttempt);
        QFETCH(int, announcedMax);
        AttemptGrouper g;
        // Identifiers win even where the heuristic would split: another target, a success in between elsewhere.
        const auto a = g.assign(attempt("c", "POST", "/x", 0), first);
        const auto parallel = g.assign(attempt("c", "POST", "/x", 1), other);
        QVERIFY(parallel.logicalId != a.logicalId);
        g.complete(a.logicalId, false, 2);
        const auto b = g.assign(attempt("c", "POST", "/x?signed=2", 500), second);
        QCOMPARE(b.logicalId, a.logicalId);
        QCOMPARE(int(b.rule), rule);
        QCOMPARE(b.attemptIndex, 2);
        const auto identity = AttemptGrouper::identify(second);
        QCOMPARE(identity.attempt.value_or(-1), announcedAttempt);
        QCOMPARE(identity.maxAttempts.value_or(-1), announcedMax);
    }

    void theAnnouncedLimitClosesTheRequest()
    {
        AttemptGrouper g;
        const Headers h1{{"amz-sdk-invocation-id", "i"}, {"amz-sdk-request", "attempt=1; max=2"}};
        const Headers h2{{"amz-sdk-invocation-id", "i"}, {"amz-sdk-request", "attempt=2; max=2"}};
        const auto a = g.assign(attempt("c", "GET", "/k", 0), h1);
        QVERIFY(g.complete(a.logicalId, false, 1).isEmpty());
        g.assign(attempt("c", "GET", "/k", 10), h2);
        QCOMPARE(g.complete(a.logicalId, false, 11), QStringLiteral("limit"));
        QCOMPARE(g.openCount(), 0);
    }

    void grpcPreviousAttemptsJoinsTheLastRequest()
    {
        AttemptGrouper g;
        const auto a = g.assign(attempt("c", "POST", "/svc/M", 0), {{"grpc-previous-rpc-attempts", "0"}});
        g.complete(a.logicalId, false, 1);
        const auto b = g.assign(attempt("c", "POST", "/svc/M", 5), {{"grpc-previous-rpc-attempts", "1"}});
        QCOMPARE(b.logicalId, a.logicalId);
        QCOMPARE(b.rule, GroupingRule::GrpcPreviousAttempts);
    }

    void garbageHeadersAreIgnored_data()
    {
        QTest::addColumn<Headers>("headers");
        QTest::addRow("empty id") << Headers{{"amz-sdk-invocation-id", ""}};
        QTest::addRow("bad aws request") << Headers{{"amz-sdk-request", "attempt=x; max=-3; ;;="}};
        QTest::addRow("google without id") << Headers{{"x-goog-api-client", "gccl-attempt-count/zz"}};
        QTest::addRow("negative grpc") << Headers{{"grpc-previous-rpc-attempts", "-4"}};
        QTest::addRow("binary") << Headers{{"x-retry-attempt", QByteArray("\0\xff\x01", 3)}};
    }

    void garbageHeadersAreIgnored()
    {
        QFETCH(Headers, headers);
        AttemptGrouper g;
        const auto a = g.assign(attempt("c", "GET", "/a", 0), headers);
        QVERIFY(a.newLogicalRequest);
        g.complete(a.logicalId, false, 1);
        const auto b = g.assign(attempt("c", "GET", "/a", 2), headers);
        QCOMPARE(b.logicalId, a.logicalId);
    }

    void aFloodStaysBoundedAndLinear()
    {
        // 100,000 unrelated requests from 1,000 clients, each on its own connection:
        // each decision is a hash lookup, and answered ones close as the client moves
        // on. (Parallel requests on many connections stay open until the gap window
        // or the observer's bound on logical requests: tst_observer.)
        AttemptGrouper g;
        for (int i = 0; i < 100'000; ++i) {
            auto a = attempt(QStringLiteral("client-%1").arg(i % 1000), "GET", QStringLiteral("/r/%1").arg(i), i);
            a.peer = QStringLiteral("127.0.0.1:%1").arg(2000 + i % 1000);
            const auto d = g.assign(a, {});
            QVERIFY(d.newLogicalRequest);
            g.complete(d.logicalId, false, i + 0.5);
        }
        QVERIFY2(g.openCount() <= 1000, qPrintable(QString::number(g.openCount())));
    }

    void forgottenRequestsAreNotJoined()
    {
        AttemptGrouper g;
        const auto a = g.assign(attempt("c", "GET", "/a", 0), {});
        g.complete(a.logicalId, false, 1);
        g.forget(a.logicalId);
        const auto b = g.assign(attempt("c", "GET", "/a", 2), {});
        QVERIFY(b.newLogicalRequest);
    }
};

QTEST_GUILESS_MAIN(TestAttemptGrouper)
#include "tst_attemptgrouper.moc"
