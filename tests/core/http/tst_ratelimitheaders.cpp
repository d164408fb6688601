#include "core/http/ratelimitheaders.h"

#include <QTest>

#include <optional>

using namespace RetryLab::Core;

using OptionalCount = std::optional<qint64>;
using OptionalMs = std::optional<double>;

class TestRateLimitHeaders : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_eachStyle_data()
    {
        QTest::addColumn<HeaderList>("headers");
        QTest::addColumn<RateLimitHeaders::Style>("style");
        QTest::addColumn<OptionalCount>("limit");
        QTest::addColumn<OptionalCount>("remaining");
        QTest::addColumn<OptionalMs>("resetMs");
        QTest::addColumn<OptionalCount>("window");
        QTest::addColumn<QString>("policy");

        using S = RateLimitHeaders::Style;
        QTest::newRow("none") << HeaderList{{"Content-Type", "text/plain"}} << S::None << OptionalCount()
                              << OptionalCount() << OptionalMs() << OptionalCount() << QString();
        QTest::newRow("IETF structured") << HeaderList{{"RateLimit", R"("default";r=50;t=30)"},
            {"RateLimit-Policy", R"("default";q=100;w=60)"}}
                                         << S::Ietf << OptionalCount(100) << OptionalCount(50) << OptionalMs(30'000)
                                         << OptionalCount(60) << QStringLiteral("default");
        QTest::newRow("IETF, second policy ignored")
            << HeaderList{{"ratelimit", R"("burst";r=0;t=2, "day";r=900;t=3600)"}} << S::Ietf << OptionalCount()
            << OptionalCount(0) << OptionalMs(2000) << OptionalCount() << QStringLiteral("burst");
        QTest::newRow("IETF dictionary (earlier draft)")
            << HeaderList{{"RateLimit", "limit=100, remaining=7, reset=12"}, {"RateLimit-Policy", "100;w=60"}}
            << S::Ietf << OptionalCount(100) << OptionalCount(7) << OptionalMs(12'000) << OptionalCount(60)
            << QString();
        QTest::newRow("IETF separate fields")
            << HeaderList{{"RateLimit-Limit", "10"}, {"RateLimit-Remaining", "0"}, {"RateLimit-Reset", "5"}}
            << S::IetfSeparate << OptionalCount(10) << OptionalCount(0) << OptionalMs(5000) << OptionalCount()
            << QString();
        QTest::newRow("X-RateLimit, seconds")
            << HeaderList{{"X-RateLimit-Limit", "60"}, {"X-RateLimit-Remaining", "59"}, {"X-RateLimit-Reset", "42"}}
            << S::XRateLimit << OptionalCount(60) << OptionalCount(59) << OptionalMs(42'000) << OptionalCount()
            << QString();
        // 2026-11-30T12:00:00Z is 1796040000; the reset 90 s later, as GitHub writes it.
        QTest::newRow("X-RateLimit, Unix seconds")
            << HeaderList{{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "1796040090"}} << S::XRateLimit
            << OptionalCount() << OptionalCount(0) << OptionalMs(90'000) << OptionalCount() << QString();
        QTest::newRow("X-RateLimit, Unix milliseconds")
            << HeaderList{{"X-RateLimit-Reset", "1796040001500"}} << S::XRateLimit << OptionalCount() << OptionalCount()
            << OptionalMs(1500) << OptionalCount() << QString();
        QTest::newRow("X-RateLimit, a reset already past")
            << HeaderList{{"X-RateLimit-Reset", "1796039900"}} << S::XRateLimit << OptionalCount() << OptionalCount()
            << OptionalMs(0) << OptionalCount() << QString();
        QTest::newRow("IETF wins over X-")
            << HeaderList{{"X-RateLimit-Remaining", "3"}, {"RateLimit", R"("a";r=1;t=1)"}} << S::Ietf << OptionalCount()
            << OptionalCount(1) << OptionalMs(1000) << OptionalCount() << QStringLiteral("a");
        QTest::newRow("fractional seconds")
            << HeaderList{{"X-RateLimit-Reset", "1.5"}} << S::XRateLimit << OptionalCount() << OptionalCount()
            << OptionalMs(1500) << OptionalCount() << QString();
    }

    void parse_eachStyle()
    {
        QFETCH(HeaderList, headers);
        QFETCH(RateLimitHeaders::Style, style);
        QFETCH(OptionalCount, limit);
        QFETCH(OptionalCount, remaining);
        QFETCH(OptionalMs, resetMs);
        QFETCH(OptionalCount, window);
        QFETCH(QString, policy);
        const RateLimitHeaders parsed = RateLimitHeaders::parse(headers, now());
        QVERIFY2(parsed.problems.isEmpty(), qPrintable(parsed.problems.join(QLatin1Char('\n'))));
        QCOMPARE(parsed.style, style);
        QCOMPARE(parsed.limit, limit);
        QCOMPARE(parsed.remaining, remaining);
        QCOMPARE(parsed.resetMs, resetMs);
        QCOMPARE(parsed.windowSeconds, window);
        QCOMPARE(parsed.policyName, policy);
        QCOMPARE(parsed.exhausted(), remaining.has_value() && *remaining == 0);
    }

    void parse_garbage_isNamedNotGuessed_data()
    {
        QTest::addColumn<HeaderList>("headers");
        QTest::addColumn<QString>("problem");
        QTest::newRow("negative") << HeaderList{{"X-RateLimit-Remaining", "-1"}}
                                  << QStringLiteral("X-RateLimit-Remaining: \"-1\" is not a whole number of 0 or more");
        QTest::newRow("words") << HeaderList{{"X-RateLimit-Reset",
            "soon"}} << QStringLiteral("X-RateLimit-Reset: \"soon\" is not a number of seconds or a Unix time");
        QTest::newRow("a year away") << HeaderList{{"RateLimit-Reset", "31536000"}}
                                     << QStringLiteral("RateLimit-Reset: a reset");
        QTest::newRow("NaN") << HeaderList{{"RateLimit", R"("d";r=1;t=nan)"}}
                             << QStringLiteral("RateLimit: \"nan\" is not a number");
    }

    void parse_garbage_isNamedNotGuessed()
    {
        QFETCH(HeaderList, headers);
        QFETCH(QString, problem);
        const RateLimitHeaders parsed = RateLimitHeaders::parse(headers, now());
        QVERIFY(parsed.isPresent());
        QCOMPARE(parsed.problems.size(), 1);
        QVERIFY2(parsed.problems.constFirst().startsWith(problem), qPrintable(parsed.problems.constFirst()));
        QVERIFY(!parsed.remaining || *parsed.remaining >= 0);
    }

    void describe_saysWhatAClientWouldWaitFor()
    {
        const RateLimitHeaders parsed = RateLimitHeaders::parse(
            {{"RateLimit", R"("default";r=0;t=30)"}, {"RateLimit-Policy", R"("default";q=100;w=60)"}}, now());
        QCOMPARE(parsed.describe(), QStringLiteral("0 of 100 left, resets in 30 s, window 1 min (RateLimit)"));
        QCOMPARE(RateLimitHeaders().describe(), QStringLiteral("no rate-limit fields"));
    }

private:
    static QDateTime now() { return QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC); }
};

QTEST_GUILESS_MAIN(TestRateLimitHeaders)
#include "tst_ratelimitheaders.moc"
