#include "core/export/curlcommand.h"

#include "tests/core/capturingserver.h"
#include "tests/core/export/exportsamples.h"
#include "tests/tools/requiredtool.h"

#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace RetryLab::Core;

namespace {

// What a command line hands to curl, found by running it in sh with a curl
// function that prints each argument (base64, one per line) and then its stdin.
struct Invocation
{
    QList<QByteArray> arguments;
    QByteArray stdinData;
    QString error;
};

Invocation runInShell(const QString &commandLine)
{
    Invocation result;
    const QString fakeCurl = QStringLiteral(
        "curl() { for a in \"$@\"; do printf '%s' \"$a\" | base64 -w0; echo; done; echo STDIN; base64 -w0; echo; }\n");
    QProcess sh;
    sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), fakeCurl + commandLine});
    sh.closeWriteChannel();
    if (!sh.waitForFinished(30'000) || sh.exitCode() != 0) {
        result.error
            = QStringLiteral("sh failed: %1 %2").arg(sh.errorString(), QString::fromUtf8(sh.readAllStandardError()));
        return result;
    }
    const QList<QByteArray> lines = sh.readAllStandardOutput().split('\n');
    bool inStdin = false;
    for (const QByteArray &line : lines) {
        if (line == "STDIN") {
            inStdin = true;
            continue;
        }
        if (inStdin)
            result.stdinData += QByteArray::fromBase64(line);
        else
            result.arguments.append(QByteArray::fromBase64(line));
    }
    return result;
}

QList<QByteArray> utf8(const QStringList &list)
{
    QList<QByteArray> out;
    for (const QString &s : list)
        out.append(s.toUtf8());
    return out;
}

RequestSpec simplePost()
{
    RequestSpec r;
    r.method = "POST";
    r.url = QUrl(QStringLiteral("http://127.0.0.1:8080/items?q=a%20b"), QUrl::StrictMode);
    r.headers = {{"Content-Type", "application/json"}, {"X-Quote", "it's \"fine\""}};
    r.body = "{\"name\":\"O'Brien\",\"note\":\"50% off; $HOME `id` \\n\"}";
    return r;
}

} // namespace

class TestCurlCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void textBody_isDataRawAndParsesBack();
    void method_onlyWhenCurlWouldNotGuessIt_data();
    void method_onlyWhenCurlWouldNotGuessIt();
    void binaryBody_isPipedWithPrintf();
    void largeTextBody_isPiped();
    void missingContentType_isTheExecutorsDefault();
    void emptyHeaderAndLineBreaks();
    void policy_addsRetryFlags_requestTimeoutWins();
    void bracketsInUrl_turnOffGlobbing();
    void redactedByDefault_unredactedOnRequest();
    void formFieldNamedLikeACredential_redactedByDefault();
    void realCurl_sendsWhatTheRequestSays();
};

void TestCurlCommand::textBody_isDataRawAndParsesBack()
{
    const RequestSpec r = simplePost();
    const CurlCommand::Command command = CurlCommand::build(r);
    QVERIFY(command.commandLine.startsWith(QLatin1String("curl ")));
    const Invocation call = runInShell(command.commandLine);
    QVERIFY2(call.error.isEmpty(), qPrintable(call.error));
    QCOMPARE(call.arguments,
        utf8({QStringLiteral("-H"), QStringLiteral("Content-Type: application/json"), QStringLiteral("-H"),
            QStringLiteral("X-Quote: it's \"fine\""), QStringLiteral("--data-raw"), QString::fromUtf8(r.body),
            QStringLiteral("http://127.0.0.1:8080/items?q=a%20b")}));
    QVERIFY(call.stdinData.isEmpty());
}

void TestCurlCommand::method_onlyWhenCurlWouldNotGuessIt_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("leading");
    QTest::addRow("GET") << QByteArray("GET") << QByteArray() << QStringList{};
    QTest::addRow("lower-case get") << QByteArray(" get ") << QByteArray() << QStringList{};
    QTest::addRow("POST with body") << QByteArray("POST") << QByteArray("x") << QStringList{};
    QTest::addRow("POST without body") << QByteArray("POST") << QByteArray()
                                       << QStringList{QStringLiteral("-X"), QStringLiteral("POST")};
    QTest::addRow("PUT") << QByteArray("PUT") << QByteArray("x")
                         << QStringList{QStringLiteral("-X"), QStringLiteral("PUT")};
    QTest::addRow("DELETE") << QByteArray("DELETE") << QByteArray()
                            << QStringList{QStringLiteral("-X"), QStringLiteral("DELETE")};
    QTest::addRow("GET with body") << QByteArray("GET") << QByteArray("x")
                                   << QStringList{QStringLiteral("-X"), QStringLiteral("GET")};
    QTest::addRow("HEAD") << QByteArray("HEAD") << QByteArray() << QStringList{QStringLiteral("--head")};
}

void TestCurlCommand::method_onlyWhenCurlWouldNotGuessIt()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, body);
    QFETCH(QStringList, leading);
    RequestSpec r;
    r.method = method;
    r.url = QUrl(QStringLiteral("http://h/"));
    r.body = body;
    const Invocation call = runInShell(CurlCommand::build(r).commandLine);
    QVERIFY2(call.error.isEmpty(), qPrintable(call.error));
    QCOMPARE(call.arguments.mid(0, leading.size()), utf8(leading));
    if (leading.isEmpty())
        QVERIFY(!call.arguments.contains("-X"));
}

void TestCurlCommand::binaryBody_isPipedWithPrintf()
{
    RequestSpec r;
    r.method = "PUT";
    r.url = QUrl(QStringLiteral("http://h/blob"));
    r.headers = {{"Content-Type", "application/octet-stream"}};
    r.body = ExportSamples::binaryBody();
    const CurlCommand::Command command = CurlCommand::build(r);
    QVERIFY(command.commandLine.startsWith(QLatin1String("printf '")));
    QVERIFY(command.commandLine.contains(QLatin1String(" | curl ")));
    const Invocation call = runInShell(command.commandLine);
    QVERIFY2(call.error.isEmpty(), qPrintable(call.error));
    QCOMPARE(call.stdinData, ExportSamples::binaryBody());
    QCOMPARE(call.arguments,
        utf8({QStringLiteral("-X"), QStringLiteral("PUT"), QStringLiteral("-H"),
            QStringLiteral("Content-Type: application/octet-stream"), QStringLiteral("--data-binary"),
            QStringLiteral("@-"), QStringLiteral("http://h/blob")}));
}

void TestCurlCommand::largeTextBody_isPiped()
{
    RequestSpec r;
    r.method = "POST";
    r.url = QUrl(QStringLiteral("http://h/"));
    r.headers = {{"Content-Type", "text/plain"}};
    r.body = QByteArray(CurlCommand::maxInlineBodyBytes + 1, 'a') + "%s' end";
    const Invocation call = runInShell(CurlCommand::build(r).commandLine);
    QVERIFY2(call.error.isEmpty(), qPrintable(call.error));
    QCOMPARE(call.stdinData, r.body);
    QVERIFY(call.arguments.contains("@-"));
}

void TestCurlCommand::missingContentType_isTheExecutorsDefault()
{
    RequestSpec json;
    json.method = "POST";
    json.url = QUrl(QStringLiteral("http://h/"));
    json.body = "  [1,2]";
    QVERIFY(runInShell(CurlCommand::build(json).commandLine).arguments.contains("Content-Type: application/json"));
    RequestSpec other = json;
    other.body = "plain";
    QVERIFY(
        runInShell(CurlCommand::build(other).commandLine).arguments.contains("Content-Type: application/octet-stream"));
    RequestSpec none = json;
    none.body.clear();
    none.method = "GET";
    QCOMPARE(runInShell(CurlCommand::build(none).commandLine).arguments, QList<QByteArray>{"http://h/"});
}

void TestCurlCommand::emptyHeaderAndLineBreaks()
{
    RequestSpec r;
    r.url = QUrl(QStringLiteral("http://h/"));
    r.headers = {{"X-Empty", ""}, {"X-Note", ExportSamples::noteHeaderValue()}};
    const CurlCommand::Command command = CurlCommand::build(r);
    const Invocation call = runInShell(command.commandLine);
    QVERIFY2(call.error.isEmpty(), qPrintable(call.error));
    QCOMPARE(call.arguments.at(1), QByteArray("X-Empty;"));
    QCOMPARE(call.arguments.at(3), QByteArray("X-Note: a, \"quoted\" value,  second line"));
    QVERIFY(!command.notes.filter(QStringLiteral("Line breaks in header X-Note")).isEmpty());
}

void TestCurlCommand::policy_addsRetryFlags_requestTimeoutWins()
{
    RequestSpec r;
    r.url = QUrl(QStringLiteral("http://h/"));
    const BackoffPolicy azure = Presets::find(QStringLiteral("azure-retry-pattern")).value();
    CurlCommand::Command command = CurlCommand::build(r, {}, azure);
    QCOMPARE(runInShell(command.commandLine).arguments,
        utf8({QStringLiteral("--retry"), QStringLiteral("3"), QStringLiteral("--retry-delay"), QStringLiteral("5"),
            QStringLiteral("--max-time"), QStringLiteral("30"), QStringLiteral("--retry-connrefused"),
            QStringLiteral("http://h/")}));
    QVERIFY(!command.notes.isEmpty());

    r.attemptTimeoutMs = 2500.0;
    command = CurlCommand::build(r, {}, azure);
    const QList<QByteArray> args = runInShell(command.commandLine).arguments;
    QCOMPARE(args.count("--max-time"), 1);
    QCOMPARE(args.at(args.indexOf("--max-time") + 1), QByteArray("2.5"));

    command = CurlCommand::build(r);
    QCOMPARE(runInShell(command.commandLine).arguments,
        utf8({QStringLiteral("--max-time"), QStringLiteral("2.5"), QStringLiteral("http://h/")}));
}

void TestCurlCommand::bracketsInUrl_turnOffGlobbing()
{
    RequestSpec r;
    r.url = QUrl(QStringLiteral("http://h/list?filter[0]=a"));
    const QList<QByteArray> args = runInShell(CurlCommand::build(r).commandLine).arguments;
    QVERIFY(args.contains("--globoff"));
    QVERIFY(args.last().contains("filter"));
}

void TestCurlCommand::redactedByDefault_unredactedOnRequest()
{
    RequestSpec r = ExportSamples::sampleRun().requests.value(1);
    r.method = "POST";
    r.headers.append({QByteArray("Content-Type"), QByteArray("application/x-www-form-urlencoded")});
    r.body = "user=bob&password=SECRET-FORM-9";

    const CurlCommand::Command redacted = CurlCommand::build(r);
    for (const QString &secret : ExportSamples::secrets())
        QVERIFY2(!redacted.commandLine.contains(secret), qPrintable(secret));
    QVERIFY(redacted.commandLine.contains(QLatin1String("Authorization: Bearer REDACTED")));
    QVERIFY(redacted.commandLine.contains(QLatin1String("password=REDACTED")));
    QVERIFY(!redacted.notes.filter(QStringLiteral("will not authenticate")).isEmpty());

    const CurlCommand::Command open = CurlCommand::build(r, ExportOptions{false});
    for (const QString &secret : {QStringLiteral("user-SECRET-U"), QStringLiteral("pw-SECRET-P"),
             QStringLiteral("tok-SECRET-1"), QStringLiteral("SECRET-BEARER-2"), QStringLiteral("SECRET-COOKIE-3"),
             QStringLiteral("SECRET-APIKEY-4"), QStringLiteral("SECRET-FORM-9")})
        QVERIFY2(open.commandLine.contains(secret), qPrintable(secret));
    QVERIFY(open.notes.contains(ExportOptions::credentialsWarning()));
}

void TestCurlCommand::realCurl_sendsWhatTheRequestSays()
{
    const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (curl.isEmpty())
        RETRYLAB_MISSING_TOOL("curl is not installed: install the Debian package curl (scripts/deps.sh does)");
    CapturingServer::Server server;
    QVERIFY(server.start());

    RequestSpec r;
    r.method = "PATCH";
    r.url = QUrl(QString::fromLatin1(server.baseUrl() + "/items/7?q=%E6%9D%B1&x=it's"), QUrl::StrictMode);
    r.headers = {{"X-Unicode", ExportSamples::unicodeHeaderValue()}, {"X-Quote", "it's \"fine\" $HOME"},
        {"Content-Type", "application/octet-stream"}};
    r.body = ExportSamples::binaryBody();
    const CurlCommand::Command command = CurlCommand::build(r, ExportOptions{false});

    QProcess sh;
    sh.start(QStringLiteral("sh"), {QStringLiteral("-c"), command.commandLine + QStringLiteral(" -s -o /dev/null")});
    QSignalSpy finished(&sh, &QProcess::finished);
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 20'000);
    QVERIFY2(sh.exitCode() == 0, sh.readAllStandardError().constData());
    QCOMPARE(server.requests.size(), 1);
    const CapturingServer::Request &got = server.requests.first();
    QCOMPARE(got.method, QByteArray("PATCH"));
    QCOMPARE(got.target, QByteArray("/items/7?q=%E6%9D%B1&x=it's"));
    QCOMPARE(got.header("X-Unicode"), ExportSamples::unicodeHeaderValue());
    QCOMPARE(got.header("X-Quote"), QByteArray("it's \"fine\" $HOME"));
    QCOMPARE(got.header("Content-Type"), QByteArray("application/octet-stream"));
    QCOMPARE(got.body, ExportSamples::binaryBody());
}

void TestCurlCommand::formFieldNamedLikeACredential_redactedByDefault()
{
    RequestSpec request;
    request.method = "POST";
    request.url = QUrl(QStringLiteral("https://api.example.test/login"));
    request.bodySource.kind = BodySource::Kind::Multipart;
    request.bodySource.parts = {FormPart{"user", "ann", {}, {}, {}}, FormPart{"password", "hunter2", {}, {}, {}}};
    const CurlCommand::Command shown = CurlCommand::build(request);
    QVERIFY2(!shown.commandLine.contains(QLatin1String("hunter2")), qPrintable(shown.commandLine));
    QVERIFY2(
        shown.commandLine.contains(QLatin1String("--form-string password=REDACTED")), qPrintable(shown.commandLine));
    QVERIFY2(shown.commandLine.contains(QLatin1String("--form-string user=ann")), qPrintable(shown.commandLine));
    QVERIFY(shown.credentialsRedacted);
    const CurlCommand::Command given = CurlCommand::build(request, ExportOptions{false});
    QVERIFY2(
        given.commandLine.contains(QLatin1String("--form-string password=hunter2")), qPrintable(given.commandLine));
}

QTEST_GUILESS_MAIN(TestCurlCommand)
#include "tst_curlcommand.moc"
