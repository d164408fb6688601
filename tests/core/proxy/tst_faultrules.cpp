// The fault proxy's rules without a socket: reading them (`--fault` lines and
// retrylab-faults files, with errors that name the rule and the field), and
// deciding per request with an injected clock and a seeded generator.

#include "core/http/httpheaders.h"
#include "core/proxy/faultrule.h"
#include "core/proxy/faultruleset.h"

#include <QJsonDocument>
#include <QTest>

#include <cmath>

using namespace RetryLab::Core;

namespace {

HttpRequest request(const QByteArray &method, const QByteArray &path, const HeaderList &headers = {})
{
    HttpRequest r;
    r.method = method;
    r.target = path;
    r.path = path;
    r.headers = headers;
    return r;
}

FaultRuleSet withRules(const QStringList &specs, quint64 seed = 1)
{
    const Result<FaultRuleList> list = FaultRuleList::fromSpecs(specs);
    if (!list)
        qFatal("%s", qPrintable(list.error()));
    FaultRuleSet set(seed);
    set.setRules(*list, 0.0);
    return set;
}

} // namespace

class TestFaultRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_theIssuesExample()
    {
        const Result<FaultRule> r = FaultRule::parse(QStringLiteral("status=503 p=0.3 path=/api/*"));
        QVERIFY2(r.ok(), qPrintable(r.error()));
        QCOMPARE(r->kind, FaultRule::Kind::Status);
        QCOMPARE(r->status, 503);
        QCOMPARE(r->probability, 0.3);
        QCOMPARE(r->path, QStringLiteral("/api/*"));
        QVERIFY(r->answersLocally());
    }

    void parse_everyKindRoundTrips_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("status") << "status=429 retry-after=2.5 method=POST header=X-Test:yes* name=throttle";
        QTest::newRow("fixed latency") << "latency=150 every=3";
        QTest::newRow("uniform latency") << "latency=50-250 at=response first=2";
        QTest::newRow("lognormal latency") << "latency=lognormal:200:0.5 p=0.5";
        QTest::newRow("bandwidth") << "bandwidth=2048 path=/files/*";
        QTest::newRow("reset before") << "reset=before from=10 to=40";
        QTest::newRow("reset after") << "reset=after off";
        QTest::newRow("reset unsent") << "reset=unsent header=Idempotency-Key";
        QTest::newRow("empty") << "empty p=0.1";
        QTest::newRow("stall") << "stall method=GET";
        QTest::newRow("cut") << "cut=512";
        QTest::newRow("corrupt") << "corrupt=7";
        QTest::newRow("host") << "reset=unsent host=*.example.com method=CONNECT";
    }

    void parse_everyKindRoundTrips()
    {
        QFETCH(QString, spec);
        const Result<FaultRule> r = FaultRule::parse(spec);
        QVERIFY2(r.ok(), qPrintable(r.error()));
        const Result<FaultRule> again = FaultRule::parse(r->spec());
        QVERIFY2(again.ok(), qPrintable(again.error() + QStringLiteral(" in ") + r->spec()));
        QCOMPARE(again->spec(), r->spec());
        QVERIFY(*again == *r);
        const Result<FaultRule> json = FaultRule::fromJson(r->toJson());
        QVERIFY2(json.ok(), qPrintable(json.error()));
        QVERIFY(*json == *r);
        QVERIFY(!r->describe().isEmpty());
    }

    void parse_errorsNameTheKey_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("error");
        QTest::newRow("probability") << "status=503 p=1.5"
                                     << "p: must be a probability between 0 and 1";
        QTest::newRow("NaN") << "status=503 p=nan"
                             << "p: must be a probability";
        QTest::newRow("status") << "status=700"
                                << "status: must be a status from 100 to 599";
        QTest::newRow("no fault") << "p=0.5 path=/x"
                                  << "no fault";
        QTest::newRow("two faults") << "status=503 reset"
                                    << "reset: a rule has one fault";
        QTest::newRow("typo") << "stauts=503"
                              << "stauts: unknown key; did you mean \"status\"?";
        QTest::newRow("twice") << "status=503 p=0.1 p=0.2"
                               << "p: given twice";
        QTest::newRow("negative latency") << "latency=-5"
                                          << "latency: write MS";
        QTest::newRow("inverted range") << "latency=300-100"
                                        << "latency: write MS";
        QTest::newRow("huge latency") << "latency=1e12"
                                      << "latency: write MS";
        QTest::newRow("retry-after alone") << "reset retry-after=2"
                                           << "retry-after: goes with status=";
        QTest::newRow("at alone") << "empty at=response"
                                  << "at: goes with latency=";
        QTest::newRow("window") << "stall from=20 to=10"
                                << "to: must be after from";
        QTest::newRow("reset point") << "reset=sideways"
                                     << "reset: must be \"before\", \"after\" or \"unsent\"";
        QTest::newRow("path") << "empty path=api"
                              << "path: must start with / or *";
        QTest::newRow("bandwidth") << "bandwidth=0"
                                   << "bandwidth: must be bytes per second";
        QTest::newRow("every") << "empty every=0"
                               << "every: must be a whole number";
        QTest::newRow("empty") << "   "
                               << "empty rule";
    }

    void parse_errorsNameTheKey()
    {
        QFETCH(QString, spec);
        QFETCH(QString, error);
        const Result<FaultRule> r = FaultRule::parse(spec);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().startsWith(error), qPrintable(r.error()));
    }

    void specs_errorsNameTheLine()
    {
        const Result<FaultRuleList> list
            = FaultRuleList::fromSpecs({QStringLiteral("status=503"), QStringLiteral("status=503 p=2")});
        QVERIFY(!list.ok());
        QVERIFY2(
            list.error().startsWith(QStringLiteral("--fault 2 (\"status=503 p=2\").p: ")), qPrintable(list.error()));
    }

    void file_roundTripsAndNamesRules()
    {
        const Result<FaultRuleList> list = FaultRuleList::fromSpecs({QStringLiteral("status=503 name=outage"),
            QStringLiteral("latency=100"), QStringLiteral("latency=200 name=outage")});
        QVERIFY2(list.ok(), qPrintable(list.error()));
        QCOMPARE(list->rules[0].name, QStringLiteral("outage"));
        QCOMPARE(list->rules[1].name, QStringLiteral("rule-2"));
        QCOMPARE(list->rules[2].name, QStringLiteral("outage-2"));
        FaultRuleList withSeed = *list;
        withSeed.seed = 42;
        const QByteArray json = QJsonDocument(withSeed.toJson()).toJson();
        const Result<FaultRuleList> back = FaultRuleList::fromJson(json);
        QVERIFY2(back.ok(), qPrintable(back.error()));
        QCOMPARE(back->rules, withSeed.rules);
        QCOMPARE(back->seed, std::optional<quint64>(42));
    }

    void file_errorsNameTheRuleAndField_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("not JSON") << QByteArray("{") << "not JSON";
        QTest::newRow("format") << QByteArray(R"({"format":"retrylab-policy","version":1,"rules":[]})")
                                << "format: expected \"retrylab-faults\"";
        QTest::newRow("version") << QByteArray(R"({"format":"retrylab-faults","version":2,"rules":[]})")
                                 << "version: version 2 is newer";
        QTest::newRow("rules missing") << QByteArray(R"({"format":"retrylab-faults","version":1})") << "rules";
        QTest::newRow("named rule") << QByteArray(R"({"format":"retrylab-faults","version":1,"rules":[{"status":503},
                 {"name":"outage","status":700}]})")
                                    << "rules[1] (\"outage\").status: must be a status from 100 to 599";
        QTest::newRow("unnamed rule") << QByteArray(R"({"format":"retrylab-faults","version":1,"rules":[{"p":0.5}]})")
                                      << "rules[0]: no fault";
        QTest::newRow("not an object") << QByteArray(R"({"format":"retrylab-faults","version":1,"rules":[3]})")
                                       << "rules[0]: must be an object";
        QTest::newRow("enabled") << QByteArray(
            R"({"format":"retrylab-faults","version":1,"rules":[{"name":"x","empty":true,"enabled":"yes"}]})")
                                 << "rules[0] (\"x\").enabled: must be true or false";
        QTest::newRow("space in a name") << QByteArray(
            R"({"format":"retrylab-faults","version":1,"rules":[{"name":"my rule","empty":true}]})")
                                         << "rules[0] (\"my rule\").name: has a space";
        QTest::newRow("space in a header glob") << QByteArray(
            R"({"format":"retrylab-faults","version":1,"rules":[{"empty":true,"header":"Authorization:Bearer *"}]})")
                                                << "rules[0].header: the value has a space in it";
        QTest::newRow("space in a path") << QByteArray(
            R"({"format":"retrylab-faults","version":1,"rules":[{"empty":true,"path":"/a b"}]})")
                                         << "rules[0].path: has a space in it";
        QTest::newRow("unknown top field")
            << QByteArray(R"({"format":"retrylab-faults","version":1,"rules":[],"rulez":1})") << "rulez: unknown field";
    }

    void file_errorsNameTheRuleAndField()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        const Result<FaultRuleList> list = FaultRuleList::fromJson(json);
        QVERIFY(!list.ok());
        QVERIFY2(list.error().startsWith(error), qPrintable(list.error()));
    }

    void file_andSpecs_refuseMoreRulesThanTheLimit()
    {
        // 100,000 rules took the proxy seconds to name and then slowed every request.
        QByteArray json = R"({"format":"retrylab-faults","version":1,"rules":[)";
        for (int i = 0; i <= FaultRuleList::maxRules; ++i)
            json += QByteArray(i ? "," : "") + R"({"status":503,"name":"same"})";
        json += "]}";
        const Result<FaultRuleList> tooMany = FaultRuleList::fromJson(json);
        QVERIFY(!tooMany.ok());
        QCOMPARE(tooMany.error(),
            QStringLiteral("rules: 1001 rules are too many: a proxy takes at most 1000, as it checks every "
                           "request against each"));
        json.replace(json.lastIndexOf(R"(,{"status":503,"name":"same"})"), 29, "");
        const Result<FaultRuleList> most = FaultRuleList::fromJson(json);
        QVERIFY2(most.ok(), qPrintable(most.error()));
        QCOMPARE(most->rules.size(), FaultRuleList::maxRules);
        QCOMPARE(most->rules.last().name, QStringLiteral("same-1000"));

        const QStringList specs(FaultRuleList::maxRules + 1, QStringLiteral("status=503"));
        const Result<FaultRuleList> lines = FaultRuleList::fromSpecs(specs);
        QVERIFY(!lines.ok());
        QVERIFY2(
            lines.error().startsWith(QLatin1String("--fault: 1001 rules are too many")), qPrintable(lines.error()));
    }

    // Header values are plain text: `*` runs over anything.
    void headerGlob()
    {
        QVERIFY(FaultRule::globMatch("on*", "on-please"));
        QVERIFY(FaultRule::globMatch("*/json*", "application/json; charset=utf-8"));
        QVERIFY(FaultRule::globMatch("v?", "v2"));
        QVERIFY(!FaultRule::globMatch("v?", "v22"));
        QVERIFY(FaultRule::globMatch("*", ""));
        QVERIFY(FaultRule::globMatch("/a*b*c", "/aXbYbZc"));
        QVERIFY(!FaultRule::globMatch("/a*b*c", "/aXbYbZ"));
    }

    // Paths take the program's one path pattern language (PathPattern): `*`
    // within a segment, `**` across them, the query not part of the path.
    void decide_pathPatterns_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<bool>("fires");
        QTest::addRow("star, one segment") << "/api/*" << QByteArray("/api/x") << true;
        QTest::addRow("star does not cross /") << "/api/*" << QByteArray("/api/users/7") << false;
        QTest::addRow("globstar crosses /") << "/api/**" << QByteArray("/api/users/7") << true;
        QTest::addRow("globstar, the folder itself") << "/api/**" << QByteArray("/api") << true;
        QTest::addRow("not a prefix of a name") << "/api/**" << QByteArray("/apix") << false;
        QTest::addRow("upload path") << "/upload/**" << QByteArray("/upload/storage/v1/b/B/o?uploadType=media") << true;
        QTest::addRow("name anywhere") << "*.json" << QByteArray("/a/b.json") << true;
        QTest::addRow("question mark") << "/v?/x" << QByteArray("/v2/x") << true;
        QTest::addRow("question mark, one only") << "/v?/x" << QByteArray("/v22/x") << false;
        QTest::addRow("trailing slash") << "/status/503" << QByteArray("/status/503/") << true;
        QTest::addRow("encoded slash stays in its segment") << "/o/*" << QByteArray("/o/photos%2Fcat.jpg") << true;
    }

    void decide_pathPatterns()
    {
        QFETCH(QString, path);
        QFETCH(QByteArray, target);
        QFETCH(bool, fires);
        FaultRuleSet set = withRules({QStringLiteral("status=503 path=") + path});
        const qsizetype query = target.indexOf('?');
        HttpRequest r = request("GET", query < 0 ? target : target.left(query));
        r.target = target;
        QCOMPARE(set.decide(r, QStringLiteral("127.0.0.1:1"), 0).outcome,
            fires ? ProxyFault::Outcome::Status : ProxyFault::Outcome::Forward);
    }

    void decide_matchesMethodPathAndHeader()
    {
        FaultRuleSet set = withRules({QStringLiteral("status=503 method=POST path=/api/* header=X-Fault:on*")});
        const HeaderList on{{"x-fault", "on-please"}};
        QCOMPARE(set.decide(request("POST", "/api/x", on), QStringLiteral("127.0.0.1:1"), 0).outcome,
            ProxyFault::Outcome::Status);
        QCOMPARE(set.decide(request("GET", "/api/x", on), QStringLiteral("127.0.0.1:1"), 0).outcome,
            ProxyFault::Outcome::Forward);
        QCOMPARE(set.decide(request("POST", "/other", on), QStringLiteral("127.0.0.1:1"), 0).outcome,
            ProxyFault::Outcome::Forward);
        QCOMPARE(set.decide(request("POST", "/api/x", {{"X-Fault", "off"}}), QStringLiteral("127.0.0.1:1"), 0).outcome,
            ProxyFault::Outcome::Forward);
        QCOMPARE(set.counts(0).matched, quint64(1));
        QCOMPARE(set.counts(0).fired, quint64(1));
    }

    // host= matches the host a forward proxy's request is for: absolute-form, CONNECT, else Host.
    void decide_matchesTheHost()
    {
        FaultRuleSet set = withRules({QStringLiteral("status=503 host=*.example.com")});
        const auto outcome = [&](const QByteArray &method, const QByteArray &target, const HeaderList &headers) {
            HttpRequest r = request(method, "/", headers);
            r.target = target;
            return set.decide(r, QStringLiteral("127.0.0.1:1"), 0).outcome;
        };
        QCOMPARE(outcome("GET", "http://api.example.com:8080/x?y", {}), ProxyFault::Outcome::Status);
        QCOMPARE(outcome("GET", "http://user@API.Example.com/", {}), ProxyFault::Outcome::Status);
        QCOMPARE(outcome("CONNECT", "www.example.com:443", {}), ProxyFault::Outcome::Status);
        QCOMPARE(outcome("GET", "/x", {{"Host", "a.example.com:80"}}), ProxyFault::Outcome::Status);
        QCOMPARE(outcome("GET", "http://example.org/", {{"Host", "a.example.com"}}), ProxyFault::Outcome::Forward);
        QCOMPARE(outcome("CONNECT", "example.com:443", {}), ProxyFault::Outcome::Forward);
        QCOMPARE(FaultRuleSet::requestHost(request("GET", "/", {{"Host", "[::1]:8080"}})), QByteArray("::1"));
        QVERIFY(!FaultRule::parse(QStringLiteral("status=503 host=example.com:443")));
        QVERIFY(!FaultRule::parse(QStringLiteral("status=503 host=")));
    }

    void decide_everyNth()
    {
        FaultRuleSet set = withRules({QStringLiteral("empty every=3")});
        QList<int> fired;
        for (int i = 1; i <= 9; ++i) {
            if (set.decide(request("GET", "/x"), QStringLiteral("127.0.0.1:1"), i).outcome
                == ProxyFault::Outcome::Empty)
                fired.append(i);
        }
        QCOMPARE(fired, (QList<int>{3, 6, 9}));
    }

    void decide_firstNOfEachLogicalRequest()
    {
        // A client retrying the same GET: the first two attempts fail, the third
        // goes through; its next request (another path) starts a new logical request.
        FaultRuleSet set = withRules({QStringLiteral("status=503 first=2")});
        const QString peer = QStringLiteral("127.0.0.1:5000");
        const HeaderList ua{{"User-Agent", "client/1"}};
        double t = 0;
        const auto attempt = [&](const QByteArray &path) {
            const ProxyFault f = set.decide(request("GET", path, ua), peer, t += 10);
            const bool failed = f.outcome == ProxyFault::Outcome::Status;
            set.complete(f.logicalId, !failed, t += 1);
            return std::pair(f.attemptIndex, failed);
        };
        QCOMPARE(attempt("/a"), std::pair(1, true));
        QCOMPARE(attempt("/a"), std::pair(2, true));
        QCOMPARE(attempt("/a"), std::pair(3, false));
        QCOMPARE(attempt("/b"), std::pair(1, true));
        QCOMPARE(attempt("/b"), std::pair(2, true));
        QCOMPARE(attempt("/b"), std::pair(3, false));
    }

    void decide_timeWindow()
    {
        FaultRuleSet set = withRules({QStringLiteral("stall from=10 to=20")});
        const auto at = [&](double s) {
            return set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), s * 1000.0).outcome;
        };
        QCOMPARE(at(9.9), ProxyFault::Outcome::Forward);
        QCOMPARE(at(10.0), ProxyFault::Outcome::Stall);
        QCOMPARE(at(19.9), ProxyFault::Outcome::Stall);
        QCOMPARE(at(20.0), ProxyFault::Outcome::Forward);
    }

    void decide_probabilityWithinStatisticalBounds_data()
    {
        QTest::addColumn<double>("p");
        QTest::addColumn<quint64>("seed");
        QTest::newRow("0.3 seed 1") << 0.3 << quint64(1);
        QTest::newRow("0.3 seed 99") << 0.3 << quint64(99);
        QTest::newRow("0.05") << 0.05 << quint64(7);
        QTest::newRow("0.9") << 0.9 << quint64(8);
    }

    void decide_probabilityWithinStatisticalBounds()
    {
        QFETCH(double, p);
        QFETCH(quint64, seed);
        FaultRuleSet set = withRules({QStringLiteral("status=503 p=%1").arg(p)}, seed);
        constexpr int n = 20'000;
        int fired = 0;
        for (int i = 0; i < n; ++i)
            fired += set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), i).any() ? 1 : 0;
        // Binomial: within five standard deviations (a chance of 6e-7 to fail by bad luck; the seed fixes it anyway).
        const double sd = std::sqrt(n * p * (1 - p));
        QVERIFY2(std::abs(fired - n * p) <= 5 * sd, qPrintable(QStringLiteral("%1 of %2").arg(fired).arg(n)));
        // The same seed draws the same faults again.
        FaultRuleSet again = withRules({QStringLiteral("status=503 p=%1").arg(p)}, seed);
        int firedAgain = 0;
        for (int i = 0; i < n; ++i)
            firedAgain += again.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), i).any() ? 1 : 0;
        QCOMPARE(firedAgain, fired);
    }

    void decide_latencyShapes()
    {
        FaultRuleSet fixed = withRules({QStringLiteral("latency=120 at=response")});
        const ProxyFault f = fixed.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), 0);
        QCOMPARE(f.delayBeforeResponseMs, 120.0);
        QCOMPARE(f.delayBeforeForwardMs, 0.0);
        QCOMPARE(f.outcome, ProxyFault::Outcome::Forward);
        QVERIFY(f.callsUpstream());

        FaultRuleSet uniform = withRules({QStringLiteral("latency=100-200")}, 3);
        FaultRuleSet lognormal = withRules({QStringLiteral("latency=lognormal:100:0.5")}, 3);
        QList<double> u;
        QList<double> l;
        for (int i = 0; i < 4001; ++i) {
            u.append(uniform.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), i).delayBeforeForwardMs);
            l.append(lognormal.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), i).delayBeforeForwardMs);
        }
        std::sort(u.begin(), u.end());
        std::sort(l.begin(), l.end());
        QVERIFY(u.first() >= 100.0 && u.last() <= 200.0);
        QVERIFY2(std::abs(u[2000] - 150.0) < 5.0, qPrintable(QString::number(u[2000])));
        QVERIFY2(std::abs(l[2000] - 100.0) < 5.0, qPrintable(QString::number(l[2000]))); // the median
        // The 84th percentile of a lognormal is median * e^sigma.
        QVERIFY2(std::abs(l[3365] / 100.0 - std::exp(0.5)) < 0.08, qPrintable(QString::number(l[3365])));
    }

    void decide_combinesDelaysAndTheFirstOutcome()
    {
        FaultRuleSet set = withRules({QStringLiteral("latency=30 name=a"), QStringLiteral("reset=after name=b"),
            QStringLiteral("latency=20 name=c"), QStringLiteral("status=500 name=d"),
            QStringLiteral("bandwidth=4096 name=e"), QStringLiteral("bandwidth=1024 name=f")});
        const ProxyFault f = set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), 0);
        QCOMPARE(f.outcome, ProxyFault::Outcome::Reset);
        QCOMPARE(f.resetPoint, FaultRule::ResetPoint::AfterHeaders);
        QCOMPARE(f.delayBeforeForwardMs, 50.0);
        QCOMPARE(f.bandwidthBytesPerS, qint64(1024));
        QCOMPARE(f.rules,
            (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("e"),
                QStringLiteral("f")}));
        QCOMPARE(f.action(), QStringLiteral("reset-after-headers"));
        QVERIFY(f.describe().contains(QStringLiteral("reset after the headers")));
    }

    void edits_keepTheCountsOfUnchangedRules()
    {
        FaultRuleSet set = withRules({QStringLiteral("empty every=2 name=a"), QStringLiteral("stall every=3 name=b")});
        for (int i = 0; i < 4; ++i)
            set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), i);
        QCOMPARE(set.counts(0).matched, quint64(4));
        // b is edited, a is only switched off and on: a keeps its counts (and with them every=2), b starts again.
        FaultRuleList edited = *FaultRuleList::fromSpecs(
            {QStringLiteral("empty every=2 name=a off"), QStringLiteral("stall every=4 name=b")});
        set.setRules(edited, 10, false);
        QCOMPARE(set.counts(0).matched, quint64(4));
        QCOMPARE(set.counts(0).fired, quint64(2));
        QCOMPARE(set.counts(1).matched, quint64(0));
        set.setRules(edited, 10, true);
        QCOMPARE(set.counts(0).matched, quint64(0));
    }

    void toggles_takeEffectOnTheNextDecision()
    {
        FaultRuleSet set = withRules({QStringLiteral("status=503 name=outage"), QStringLiteral("latency=5 name=slow")});
        QVERIFY(set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), 0).any());
        QVERIFY(set.setEnabled(QStringLiteral("outage"), false));
        QVERIFY(!set.setEnabled(QStringLiteral("nothing"), false));
        ProxyFault f = set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), 1);
        QCOMPARE(f.outcome, ProxyFault::Outcome::Forward);
        QCOMPARE(f.rules, QStringList{QStringLiteral("slow")});
        set.setAllEnabled(false);
        QVERIFY(!set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), 2).any());
        set.setAllEnabled(true);
        QCOMPARE(
            set.decide(request("GET", "/"), QStringLiteral("127.0.0.1:1"), 3).outcome, ProxyFault::Outcome::Status);
        // The state as the control port gives it reads back as a retrylab-faults file.
        const QByteArray state = QJsonDocument(set.stateJson()).toJson();
        const Result<FaultRuleList> back = FaultRuleList::fromJson(state);
        QVERIFY2(back.ok(), qPrintable(back.error()));
        QCOMPARE(back->rules, set.rules());
        QVERIFY(state.contains("\"fired\""));
    }
};

QTEST_GUILESS_MAIN(TestFaultRules)
#include "tst_faultrules.moc"
