// HTTP Digest (RFC 7616) checked three ways: RFC 7616's worked example as
// data; Debian's Apache with mod_auth_digest, started here on 127.0.0.1 with
// its own configuration in a temporary folder, answered by RetryLab through
// QNetworkAccessManager and by `curl --digest`; and, for what Apache 2.4's
// mod_auth_digest does not offer (it takes MD5 only: AuthDigestAlgorithm
// refuses anything else), a verifier written from the RFC in Python
// (digest_verifier.py), which curl answers too.

#include "core/auth/digestsession.h"

#include "../../tools/requiredtool.h"
#include "../executor/realservers.h"
#include "authservers.h"

#include <QCryptographicHash>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <unistd.h>

using namespace RetryLab::Core;

namespace {

using AuthServers::ApacheDigest;
using AuthServers::DigestVerifier;
using AuthServers::sourceFile;

// RFC 7616 section 3.9.1.
constexpr char rfcNonce[] = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v";
constexpr char rfcOpaque[] = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS";
constexpr char rfcCnonce[] = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ";

QByteArray rfcChallenge(const char *algorithm)
{
    return QByteArray("Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=") + algorithm
        + ", nonce=\"" + rfcNonce + "\", opaque=\"" + rfcOpaque + "\"";
}

// A reply's header fields as sent, a name possibly repeated.
QList<QByteArray> fieldsOf(QNetworkReply *reply, QByteArrayView name)
{
    QList<QByteArray> values;
    for (const auto &[key, value] : reply->rawHeaderPairs()) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            values.append(value);
    }
    return values;
}

// The parameter names of an Authorization field, sorted: its shape.
QList<QByteArray> shapeOf(const QByteArray &field)
{
    const Result<QList<AuthChallenge>> parsed = AuthChallenge::parse(field);
    if (!parsed || parsed->size() != 1)
        return {"unparsable: " + field};
    QList<QByteArray> names;
    for (const auto &[name, value] : parsed->first().params)
        names.append(name);
    std::sort(names.begin(), names.end());
    return names;
}

// One exchange with a server.
struct Exchange
{
    int status = 0;
    QList<QByteArray> challenges;
};

Exchange send(const QUrl &url, const QByteArray &authorization = {}, const QByteArray &body = {})
{
    QNetworkAccessManager manager;
    QNetworkRequest request(url);
    if (!authorization.isEmpty())
        request.setRawHeader("Authorization", authorization);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = body.isEmpty() ? manager.get(request) : manager.post(request, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    Exchange exchange;
    if (!finished.wait(15'000))
        return exchange;
    exchange.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    exchange.challenges = fieldsOf(reply, "WWW-Authenticate");
    reply->deleteLater();
    return exchange;
}

int runCurl(const QStringList &arguments, QByteArray *output)
{
    QProcess curl;
    curl.start(RealServers::findProgram(QStringLiteral("curl")), arguments);
    if (!curl.waitForFinished(30'000))
        return -1;
    *output = curl.readAllStandardOutput();
    return curl.exitCode();
}

} // namespace

class TestDigestAuth : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rfc7616Example_data();
    void rfc7616Example();
    void rfc7616Example_picksTheFirstSupportedOfTwoFields();

    void parse_severalChallengesInOneField();
    void parse_quotedStringsWithEscapes();
    void parse_token68AndSchemesWithoutParameters();
    void parse_malformed_saysWhereAndWhy_data();
    void parse_malformed_saysWhereAndWhy();

    void challenge_unsupported_isNamed_data();
    void challenge_unsupported_isNamed();
    void challenge_unsupportedAlgorithmBesideASupportedOne_picksTheSupported();
    void challenge_withoutQop_answersInRfc2069Form();

    void userhash_andUtf8UserNames();
    void session_countsNoncesAndRenewsOnStale();

    void apache_md5_acceptsRetryLabAndCurlAlike();
    void verifier_sha256AndSessionVariants_data();
    void verifier_sha256AndSessionVariants();
    void verifier_curlAnswersSha256();

private:
    static bool haveCurl();
    static bool havePython();
};

bool TestDigestAuth::haveCurl()
{
    return !RealServers::findProgram(QStringLiteral("curl")).isEmpty();
}

bool TestDigestAuth::havePython()
{
    return QFileInfo::exists(QStringLiteral("/usr/bin/python3"));
}

void TestDigestAuth::rfc7616Example_data()
{
    QTest::addColumn<QByteArray>("algorithm");
    QTest::addColumn<QByteArray>("response");
    QTest::addRow("MD5") << QByteArray("MD5") << QByteArray("8ca523f5e9506fed4657c9700eebdbec");
    QTest::addRow("SHA-256") << QByteArray("SHA-256")
                             << QByteArray("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1");
}

void TestDigestAuth::rfc7616Example()
{
    QFETCH(QByteArray, algorithm);
    QFETCH(QByteArray, response);
    const Result<DigestChallenge> challenge = DigestAuth::challenge({rfcChallenge(algorithm.constData())});
    QVERIFY2(challenge.ok(), qPrintable(challenge.error()));
    QCOMPARE(challenge->qop, DigestChallenge::Qop::Auth);
    const Result<QByteArray> field = DigestAuth::authorization(
        *challenge, QStringLiteral("Mufasa"), QStringLiteral("Circle of Life"), "GET", "/dir/index.html", rfcCnonce, 1);
    QVERIFY2(field.ok(), qPrintable(field.error()));
    // The Authorization field of RFC 7616 section 3.9.1, parameter for parameter.
    QCOMPARE(*field,
        "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", uri=\"/dir/index.html\", algorithm=" + algorithm
            + ", nonce=\"" + rfcNonce + "\", nc=00000001, cnonce=\"" + rfcCnonce + "\", qop=auth, response=\""
            + response + "\", opaque=\"" + rfcOpaque + "\"");
}

void TestDigestAuth::rfc7616Example_picksTheFirstSupportedOfTwoFields()
{
    // The RFC's 401 carries two fields, SHA-256 first.
    const Result<DigestChallenge> challenge = DigestAuth::challenge({rfcChallenge("SHA-256"), rfcChallenge("MD5")});
    QVERIFY(challenge.ok());
    QCOMPARE(challenge->algorithm, DigestChallenge::Algorithm::Sha256);
    QCOMPARE(challenge->opaque, std::optional<QByteArray>(rfcOpaque));
}

void TestDigestAuth::parse_severalChallengesInOneField()
{
    const Result<QList<AuthChallenge>> parsed = AuthChallenge::parse(
        QList<QByteArray>{"Basic realm=\"simple\", Digest realm=\"x\", NONCE=abc, qop=\"auth,auth-int\", ,Bearer",
            "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\""});
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(parsed->size(), 4);
    QCOMPARE(parsed->at(0).scheme, QByteArray("Basic"));
    QCOMPARE(parsed->at(0).param("realm"), std::optional<QByteArray>("simple"));
    QVERIFY(parsed->at(1).isScheme("digest"));
    QCOMPARE(parsed->at(1).param("nonce"), std::optional<QByteArray>("abc"));
    QCOMPARE(parsed->at(1).param("qop"), std::optional<QByteArray>("auth,auth-int"));
    QCOMPARE(parsed->at(2).scheme, QByteArray("Bearer"));
    QVERIFY(parsed->at(2).params.isEmpty());
    QCOMPARE(parsed->at(3).param("title"), std::optional<QByteArray>("Login to \"apps\""));
    QCOMPARE(parsed->at(3).param("type"), std::optional<QByteArray>("1"));
    // The same fields joined by a line feed, as Qt may give repeated fields.
    const Result<QList<AuthChallenge>> joined
        = AuthChallenge::parse(QList<QByteArray>{"Basic realm=\"simple\"\nDigest realm=\"x\", nonce=abc"});
    QVERIFY2(joined.ok(), qPrintable(joined.error()));
    QCOMPARE(joined->size(), 2);

    const Result<DigestChallenge> digest
        = DigestAuth::challenge({"Basic realm=\"simple\", Digest realm=\"x\", NONCE=abc"});
    QVERIFY2(digest.ok(), qPrintable(digest.error()));
    QCOMPARE(digest->nonce, QByteArray("abc"));
}

void TestDigestAuth::parse_quotedStringsWithEscapes()
{
    const Result<QList<AuthChallenge>> parsed
        = AuthChallenge::parse(QByteArrayView(R"(Digest realm="a \"quoted\" realm, with a comma", nonce = "n\\1")"));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(parsed->size(), 1);
    QCOMPARE(parsed->first().param("realm"), std::optional<QByteArray>(R"(a "quoted" realm, with a comma)"));
    QCOMPARE(parsed->first().param("nonce"), std::optional<QByteArray>(R"(n\1)"));
    QCOMPARE(AuthChallenge::quoted(R"(a "b" \c)"), QByteArray(R"("a \"b\" \\c")"));
}

void TestDigestAuth::parse_token68AndSchemesWithoutParameters()
{
    const Result<QList<AuthChallenge>> parsed
        = AuthChallenge::parse(QByteArrayView("Negotiate YIIBhwYGKwYBBQUCoIIBezCCAXeg==, NTLM, Digest nonce=\"n\""));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(parsed->size(), 3);
    QCOMPARE(parsed->at(0).token68, QByteArray("YIIBhwYGKwYBBQUCoIIBezCCAXeg=="));
    QCOMPARE(parsed->at(1).scheme, QByteArray("NTLM"));
    QCOMPARE(parsed->at(2).param("nonce"), std::optional<QByteArray>("n"));
}

void TestDigestAuth::parse_malformed_saysWhereAndWhy_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<QString>("error");
    QTest::addRow("unclosed quote") << QByteArray("Digest realm=\"open, nonce=1")
                                    << "the quoted string that starts at byte 14 is not closed";
    QTest::addRow("no value") << QByteArray("Digest realm=, nonce=1")
                              << "the parameter realm of the Digest challenge has no value";
    QTest::addRow("junk after a value") << QByteArray("Digest realm=\"r\" nonce=1")
                                        << "byte 18 ('n') follows the parameter realm where a comma belongs";
    QTest::addRow("no scheme") << QByteArray("=abc") << "byte 1 ('=') cannot start an authentication scheme";
}

void TestDigestAuth::parse_malformed_saysWhereAndWhy()
{
    QFETCH(QByteArray, field);
    QFETCH(QString, error);
    const Result<DigestChallenge> challenge = DigestAuth::challenge({field});
    QVERIFY(!challenge.ok());
    QVERIFY2(challenge.error().contains(error), qPrintable(challenge.error()));
    QVERIFY2(challenge.error().startsWith(QStringLiteral("the authentication challenge is malformed")),
        qPrintable(challenge.error()));
}

void TestDigestAuth::challenge_unsupported_isNamed_data()
{
    QTest::addColumn<QList<QByteArray>>("fields");
    QTest::addColumn<QString>("error");
    QTest::addRow("SHA-512-256") << QList<QByteArray>{"Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256"}
                                 << "the server asks for the Digest algorithm SHA-512-256, which RetryLab does not "
                                    "support (it supports MD5, MD5-sess, SHA-256, SHA-256-sess)";
    QTest::addRow("FOO") << QList<QByteArray>{"Digest realm=\"r\", nonce=\"n\", algorithm=FOO"}
                         << "the server asks for the Digest algorithm FOO, which RetryLab does not support";
    QTest::addRow("no Digest") << QList<QByteArray>{"Basic realm=\"r\"", "Bearer realm=\"r\", Basic realm=\"s\""}
                               << "the server offers no Digest challenge, only Basic, Bearer";
    QTest::addRow("no nonce") << QList<QByteArray>{"Digest realm=\"r\""} << "the Digest challenge has no nonce";
    QTest::addRow("unknown qop") << QList<QByteArray>{"Digest realm=\"r\", nonce=\"n\", qop=\"auth-conf\""}
                                 << "offers only qop \"auth-conf\"";
    QTest::addRow("no field") << QList<QByteArray>{} << "no WWW-Authenticate field";
}

void TestDigestAuth::challenge_unsupported_isNamed()
{
    QFETCH(QList<QByteArray>, fields);
    QFETCH(QString, error);
    const Result<DigestSession> session
        = DigestSession::fromChallenge(fields, QStringLiteral("ada"), QStringLiteral("lovelace"));
    QVERIFY(!session.ok());
    QVERIFY2(session.error().contains(error), qPrintable(session.error()));
}

void TestDigestAuth::challenge_unsupportedAlgorithmBesideASupportedOne_picksTheSupported()
{
    const Result<DigestChallenge> challenge
        = DigestAuth::challenge({"Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256, qop=\"auth\"",
            "Digest realm=\"r\", nonce=\"n\", algorithm=sha-256-SESS, qop=\"auth\""});
    QVERIFY2(challenge.ok(), qPrintable(challenge.error()));
    QCOMPARE(challenge->algorithm, DigestChallenge::Algorithm::Sha256Sess);
}

void TestDigestAuth::challenge_withoutQop_answersInRfc2069Form()
{
    const Result<DigestChallenge> challenge = DigestAuth::challenge({"Digest realm=\"testrealm@host.com\", "
                                                                     "nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\""});
    QVERIFY(challenge.ok());
    QCOMPARE(challenge->qop, DigestChallenge::Qop::None);
    QVERIFY(!challenge->algorithmGiven);
    const Result<QByteArray> field = DigestAuth::authorization(
        *challenge, QStringLiteral("Mufasa"), QStringLiteral("CircleOfLife"), "GET", "/dir/index.html", {}, 1);
    QVERIFY2(field.ok(), qPrintable(field.error()));
    // The inputs of RFC 2069's example (section 2.4): H(H(A1):nonce:H(A2)), no
    // nc, cnonce or algorithm. The response is what Python's hashlib computes
    // from them; the RFC's printed one (e966c932...) does not follow from them.
    QCOMPARE(shapeOf(*field), (QList<QByteArray>{"nonce", "realm", "response", "uri", "username"}));
    QVERIFY2(field->contains("response=\"1949323746fe6a43ef61f9606e7febea\""), field->constData());
}

void TestDigestAuth::userhash_andUtf8UserNames()
{
    Result<DigestChallenge> challenge = DigestAuth::challenge(
        {"Digest realm=\"http-auth@example.org\", nonce=\"n\", algorithm=SHA-256, qop=\"auth\", userhash=true"});
    QVERIFY(challenge.ok());
    QVERIFY(challenge->userhash);
    Result<QByteArray> field = DigestAuth::authorization(
        *challenge, QStringLiteral("Mufasa"), QStringLiteral("Circle of Life"), "GET", "/", "c", 1);
    QVERIFY(field.ok());
    // SHA-256("Mufasa:http-auth@example.org"), as Python's hashlib computes it.
    QVERIFY2(field->contains("username=\"a947aad205e80e429958a387394944c6b496301e79f89d35a4cc23b6ee12b5b6\""),
        field->constData());
    QVERIFY(field->endsWith(", userhash=true"));

    const QString jason = QStringLiteral("J\u00e4s\u00f8n Doe");
    challenge = DigestAuth::challenge({"Digest realm=\"api@example.org\", nonce=\"n\", qop=auth, charset=UTF-8"});
    QVERIFY(challenge.ok());
    field = DigestAuth::authorization(*challenge, jason, QStringLiteral("Secret, or not?"), "GET", "/", "c", 1);
    QVERIFY(field.ok());
    // The user name of RFC 7616 section 3.9.2, as its username* shows it.
    QVERIFY2(field->startsWith("Digest username*=UTF-8''J%C3%A4s%C3%B8n%20Doe, "), field->constData());

    challenge = DigestAuth::challenge({"Digest realm=\"api@example.org\", nonce=\"n\", qop=auth"});
    field = DigestAuth::authorization(*challenge, jason, QStringLiteral("x"), "GET", "/", "c", 1);
    QVERIFY(!field.ok());
    QVERIFY2(field.error().contains(QStringLiteral("beyond ASCII")), qPrintable(field.error()));
}

void TestDigestAuth::session_countsNoncesAndRenewsOnStale()
{
    Result<DigestSession> made = DigestSession::fromChallenge(
        {rfcChallenge("SHA-256")}, QStringLiteral("Mufasa"), QStringLiteral("Circle of Life"));
    QVERIFY(made.ok());
    DigestSession session = *made;
    QCOMPARE(session.nonceCount(), 0u);
    const Result<QByteArray> first = session.authorize("GET", "/dir/index.html", {}, rfcCnonce);
    QVERIFY(first.ok());
    QVERIFY(first->contains("nc=00000001"));
    QVERIFY(first->contains("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"));
    const Result<QByteArray> second = session.authorize("GET", "/dir/other.html");
    QVERIFY(second.ok());
    QVERIFY(second->contains("nc=00000002"));
    // A random client nonce of 32 hex digits, another each time.
    const QList<QByteArray> shape = shapeOf(*second);
    QVERIFY(shape.contains("cnonce"));
    QVERIFY(!second->contains(rfcCnonce));
    QVERIFY(DigestAuth::randomCnonce() != DigestAuth::randomCnonce());
    QCOMPARE(DigestAuth::randomCnonce().size(), 32);
    QCOMPARE(session.nonceCount(), 2u);

    const Result<bool> stale = session.renew(
        {"Digest realm=\"http-auth@example.org\", nonce=\"fresh\", algorithm=SHA-256, qop=\"auth\", stale=TRUE"});
    QVERIFY(stale.ok());
    QVERIFY(*stale);
    QCOMPARE(session.nonceCount(), 0u);
    const Result<QByteArray> third = session.authorize("GET", "/dir/index.html");
    QVERIFY(third.ok());
    QVERIFY(third->contains("nonce=\"fresh\", nc=00000001"));
    const Result<bool> notStale = session.renew({rfcChallenge("SHA-256")});
    QVERIFY(notStale.ok());
    QVERIFY(!*notStale);

    QCOMPARE(
        DigestAuth::requestTarget(QUrl(QStringLiteral("http://h/a b/c?x=1 2&y"))), QByteArray("/a%20b/c?x=1%202&y"));
    QCOMPARE(DigestAuth::requestTarget(QUrl(QStringLiteral("http://h"))), QByteArray("/"));
}

void TestDigestAuth::apache_md5_acceptsRetryLabAndCurlAlike()
{
    const QString apache = RealServers::findProgram(QStringLiteral("apache2"));
    if (apache.isEmpty())
        RETRYLAB_MISSING_TOOL(
            RealServers::missingProgram(QStringLiteral("apache2"), QStringLiteral("apache2")).constData());
    if (!QFileInfo::exists(QStringLiteral("/usr/lib/apache2/modules/mod_auth_digest.so")))
        RETRYLAB_MISSING_TOOL(
            RealServers::missingProgram(QStringLiteral("mod_auth_digest"), QStringLiteral("apache2")).constData());
    if (!haveCurl())
        RETRYLAB_MISSING_TOOL(RealServers::missingProgram(QStringLiteral("curl"), QStringLiteral("curl")).constData());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ApacheDigest server;
    QString error;
    QVERIFY2(server.start(dir.path(), &error), qPrintable(error));
    const QUrl url = server.url("/private/index.html?lang=en");

    // GET, 401 with the challenge, the same GET answered: 200.
    const Exchange challenged = send(url);
    QCOMPARE(challenged.status, 401);
    Result<DigestSession> session
        = DigestSession::fromChallenge(challenged.challenges, QStringLiteral("ada"), QStringLiteral("lovelace"));
    QVERIFY2(session.ok(), qPrintable(session.error()));
    QCOMPARE(session->challenge().algorithm, DigestChallenge::Algorithm::Md5);
    QCOMPARE(session->challenge().qop, DigestChallenge::Qop::Auth);
    Result<QByteArray> field = session.value().authorize("GET", DigestAuth::requestTarget(url));
    QVERIFY2(field.ok(), qPrintable(field.error()));
    QCOMPARE(send(url, *field).status, 200);
    // The next request answers the same nonce, counted on.
    field = session.value().authorize("GET", DigestAuth::requestTarget(url));
    QVERIFY(field->contains("nc=00000002"));
    QCOMPARE(send(url, *field).status, 200);

    // A wrong password: 401 again, with a challenge that is not stale.
    Result<DigestSession> wrong
        = DigestSession::fromChallenge(challenged.challenges, QStringLiteral("ada"), QStringLiteral("babbage"));
    QVERIFY(wrong.ok());
    const Exchange refused = send(url, *wrong.value().authorize("GET", DigestAuth::requestTarget(url)));
    QCOMPARE(refused.status, 401);
    const Result<bool> stale = wrong.value().renew(refused.challenges);
    QVERIFY(stale.ok());
    QVERIFY(!*stale);

    // curl --digest against the same server: the same result, the same shape.
    QByteArray output;
    QCOMPARE(runCurl({QStringLiteral("-s"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-w"),
                         QStringLiteral("%{http_code}"), QStringLiteral("--digest"), QStringLiteral("-u"),
                         QStringLiteral("ada:lovelace"), url.toString()},
                 &output),
        0);
    QCOMPARE(output, QByteArray("200"));
    QCOMPARE(runCurl({QStringLiteral("-s"), QStringLiteral("-o"), QStringLiteral("/dev/null"), QStringLiteral("-w"),
                         QStringLiteral("%{http_code}"), QStringLiteral("--digest"), QStringLiteral("-u"),
                         QStringLiteral("ada:babbage"), url.toString()},
                 &output),
        0);
    QCOMPARE(output, QByteArray("401"));
    const QList<QByteArray> accepted = server.authorizations(200);
    QCOMPARE(accepted.size(), 3);
    QVERIFY2(accepted[2].contains("cnonce=") && !accepted[2].contains(session->challenge().nonce),
        accepted[2].constData()); // curl's, with a nonce of its own 401
    QCOMPARE(shapeOf(accepted[0]), shapeOf(accepted[2]));
    QCOMPARE(shapeOf(accepted[0]),
        (QList<QByteArray>{"algorithm", "cnonce", "nc", "nonce", "qop", "realm", "response", "uri", "username"}));
}

void TestDigestAuth::verifier_sha256AndSessionVariants_data()
{
    QTest::addColumn<QString>("algorithms");
    QTest::addColumn<QString>("qop");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("used");
    QTest::addRow("SHA-256 before MD5") << "SHA-256,MD5"
                                        << "auth" << QByteArray() << QByteArray("SHA-256");
    QTest::addRow("SHA-256-sess") << "SHA-256-sess"
                                  << "auth" << QByteArray() << QByteArray("SHA-256-sess");
    QTest::addRow("MD5-sess") << "MD5-sess"
                              << "auth" << QByteArray() << QByteArray("MD5-sess");
    QTest::addRow("SHA-256, auth-int over a body") << "SHA-256"
                                                   << "auth-int" << QByteArray("{\"a\": 1}") << QByteArray("SHA-256");
    QTest::addRow("MD5 without qop") << "MD5"
                                     << "none" << QByteArray() << QByteArray("MD5");
}

void TestDigestAuth::verifier_sha256AndSessionVariants()
{
    if (!havePython())
        RETRYLAB_MISSING_TOOL("python3 is not installed: install the Debian package python3 (scripts/deps.sh does)");
    QFETCH(QString, algorithms);
    QFETCH(QString, qop);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, used);
    DigestVerifier verifier;
    QVERIFY2(verifier.start(algorithms, qop), qPrintable(verifier.errors()));
    const QUrl url = verifier.url("/api/items?page=2");
    const QByteArray method = body.isEmpty() ? "GET" : "POST";

    const Exchange challenged = send(url, {}, body);
    QCOMPARE(challenged.status, 401);
    Result<DigestSession> session
        = DigestSession::fromChallenge(challenged.challenges, QStringLiteral("ada"), QStringLiteral("lovelace"));
    QVERIFY2(session.ok(), qPrintable(session.error()));
    const QByteArray first = *session.value().authorize(method, DigestAuth::requestTarget(url), body);
    QCOMPARE(send(url, first, body).status, 200);
    const QByteArray second = *session.value().authorize(method, DigestAuth::requestTarget(url), body);
    QCOMPARE(send(url, second, body).status, 200);
    const bool counted = qop != QLatin1String("none");
    QCOMPARE(verifier.verdicts(),
        (QList<QByteArray>{
            "OK " + used + " nc=" + (counted ? "00000001" : ""), "OK " + used + " nc=" + (counted ? "00000002" : "")}));

    if (counted) {
        // The same field again is a replay.
        QCOMPARE(send(url, second, body).status, 401);
        QCOMPARE(verifier.verdicts(), (QList<QByteArray>{"REFUSED nonce count replayed"}));
    }
    Result<DigestSession> wrong
        = DigestSession::fromChallenge(challenged.challenges, QStringLiteral("ada"), QStringLiteral("babbage"));
    QCOMPARE(send(url, *wrong.value().authorize(method, DigestAuth::requestTarget(url), body), body).status, 401);
    QCOMPARE(verifier.verdicts(), (QList<QByteArray>{"REFUSED wrong response"}));
}

void TestDigestAuth::verifier_curlAnswersSha256()
{
    if (!havePython())
        RETRYLAB_MISSING_TOOL("python3 is not installed: install the Debian package python3 (scripts/deps.sh does)");
    if (!haveCurl())
        RETRYLAB_MISSING_TOOL(RealServers::missingProgram(QStringLiteral("curl"), QStringLiteral("curl")).constData());
    // The verifier is right about SHA-256 by a third party's judgment too: curl
    // picks SHA-256 from the same challenges and is let in.
    DigestVerifier verifier;
    QVERIFY2(verifier.start(QStringLiteral("SHA-256,MD5"), QStringLiteral("auth")), qPrintable(verifier.errors()));
    QByteArray output;
    QCOMPARE(runCurl({QStringLiteral("-s"), QStringLiteral("--digest"), QStringLiteral("-u"),
                         QStringLiteral("ada:lovelace"), verifier.url("/api/items?page=2").toString()},
                 &output),
        0);
    QCOMPARE(output, QByteArray("ok"));
    QCOMPARE(verifier.verdicts(), (QList<QByteArray>{"OK SHA-256 nc=00000001"}));
}

QTEST_GUILESS_MAIN(TestDigestAuth)
#include "tst_digestauth.moc"
