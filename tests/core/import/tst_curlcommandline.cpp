#include "core/export/curlcommand.h"
#include "core/import/curlcommandline.h"
#include "core/policy/presets.h"
#include "core/util/englishplurals.h"
#include "tests/tools/placetext.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

using RetryLab::Testing::indexOfPlace;

namespace {

// What bash hands to curl for a command line: a curl function prints each
// argument (base64, one per line), then its standard input.
struct Invocation
{
    QList<QByteArray> arguments;
    QByteArray standardInput;
    QString error;
};

Invocation runInBash(const QString &commandLine, const QString &folder = {})
{
    Invocation result;
    const QString fakeCurl = QStringLiteral(
        "curl() { for a in \"$@\"; do printf '%s' \"$a\" | base64 -w0; echo; done; echo STDIN; base64 -w0; echo; }\n");
    QProcess bash;
    if (!folder.isEmpty())
        bash.setWorkingDirectory(folder);
    bash.start(QStringLiteral("bash"), {QStringLiteral("--norc"), QStringLiteral("-c"), fakeCurl + commandLine});
    bash.closeWriteChannel();
    if (!bash.waitForFinished(30'000) || bash.exitCode() != 0) {
        result.error = QStringLiteral("bash failed: %1 %2")
                           .arg(bash.errorString(), QString::fromUtf8(bash.readAllStandardError()));
        return result;
    }
    bool inStdin = false;
    for (const QByteArray &line : bash.readAllStandardOutput().split('\n')) {
        if (line == "STDIN")
            inStdin = true;
        else if (inStdin)
            result.standardInput += QByteArray::fromBase64(line);
        else
            result.arguments.append(QByteArray::fromBase64(line));
    }
    if (!result.arguments.isEmpty() && result.arguments.last().isEmpty() && !inStdin)
        result.arguments.removeLast();
    return result;
}

QStringList headerLines(const HeaderList &headers)
{
    QStringList lines;
    for (const auto &[name, value] : headers)
        lines.append(QString::fromUtf8(name + ": " + value));
    return lines;
}

QString requestText(const RequestSpec &r)
{
    return QStringLiteral("%1 %2\n%3\n\n%4")
        .arg(QString::fromLatin1(r.method), r.url.toString(QUrl::FullyEncoded),
            headerLines(r.headers).join(QLatin1Char('\n')), QString::fromLatin1(r.body.toBase64()));
}

QString joined(const QStringList &list)
{
    return list.join(QStringLiteral(" | "));
}

} // namespace

class TestCurlCommandLine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void unclosedQuote_namesItsPlace_data();
    void unclosedQuote_namesItsPlace();

    void request_data();
    void request();
    void request_agreesWithBash_data();
    void request_agreesWithBash();
    void transport_data();
    void transport();
    void bodies_streamedFileOrFormParts_data();
    void bodies_streamedFileOrFormParts();
    void roundTrip_connectionAndBodySources_data();
    void roundTrip_connectionAndBodySources();
    void retryHints_data();
    void retryHints();
    void ignoredUnknownAndNotes_data();
    void ignoredUnknownAndNotes();
    void files_relativeToTheBaseFolder_data();
    void files_relativeToTheBaseFolder();
    void standardInput_fromThePipeOrTheCaller();
    void malformed_isAnErrorNamingFlagAndPlace_data();
    void malformed_isAnErrorNamingFlagAndPlace();
    void parseArguments_placesErrorsByArgument();
    void separate_takesTheCallersOptionsFirst();

    void roundTrip_copyAsCurlParsesBack_data();
    void roundTrip_copyAsCurlParsesBack();
    void roundTrip_policyFlagsBecomeTheSameLimits_data();
    void roundTrip_policyFlagsBecomeTheSameLimits();
    void applyRetryHints_data();
    void applyRetryHints();
    void supportedOptions_eachOnceWithHelp();
    void garbage_neverCrashesAndAlwaysSaysWhy();
    void auth_digestAndSigV4TakeTheUser();
    void auth_badSigV4IsRefusedSayingWhy();
    void auth_copyAsCurlReadsBackTheSameAuth();

private:
    QTemporaryDir m_dir;
};

void TestCurlCommandLine::initTestCase()
{
    QVERIFY(m_dir.isValid());
    EnglishPlurals::install();
    const auto write = [this](const QString &name, const QByteArray &data) {
        QFile file(m_dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
    };
    QVERIFY(write(QStringLiteral("filename"), "name=curl\r\nand=more\n"));
    QVERIFY(write(QStringLiteral("prepared"), "{\n  \"drink\": \"coffee\"\n}\n"));
    QVERIFY(write(QStringLiteral("file"), "a b&c\n"));
    QVERIFY(write(QStringLiteral("fileonly"), "x=1 y"));
    QVERIFY(write(QStringLiteral("json.txt"), "{\"from\": \"stdin\"}"));
    QVERIFY(write(QStringLiteral("blob.bin"), QByteArray("\x00\x01\xff\r\n", 5)));
    QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("folder")));
}

// ---------------------------------------------------------------- unclosed quotes

void TestCurlCommandLine::unclosedQuote_namesItsPlace_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("where");
    QTest::addRow("single") << QStringLiteral("curl -H 'X: y http://h") << QStringLiteral("column 9");
    QTest::addRow("double") << QStringLiteral("curl -d \"a\\\" http://h") << QStringLiteral("column 9");
    QTest::addRow("ansi-c") << QStringLiteral("curl $'abc\\'") << QStringLiteral("column 6");
    QTest::addRow("second line") << QStringLiteral("curl \\\n  -d 'abc") << QStringLiteral("line 2, column 6");
    QTest::addRow("command substitution") << QStringLiteral("curl $(date") << QStringLiteral("column 6");
    QTest::addRow("backquote") << QStringLiteral("curl `id") << QStringLiteral("column 6");
}

// The importer names the place of an unclosed quote as ShellWords::split does (tst_shellwords).
void TestCurlCommandLine::unclosedQuote_namesItsPlace()
{
    QFETCH(QString, line);
    QFETCH(QString, where);
    const auto request = CurlCommandLine::parse(line);
    QVERIFY(!request);
    QCOMPARE(request.errorDetail().path, where);
    QCOMPARE(request.errorDetail().offset, indexOfPlace(line, where));
}

// ---------------------------------------------------------------- requests

void TestCurlCommandLine::request_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QStringList>("headers");
    QTest::addColumn<QByteArray>("body");

    const QString form = QStringLiteral("Content-Type: application/x-www-form-urlencoded");
    const QStringList json{
        QStringLiteral("Content-Type: application/json"), QStringLiteral("Accept: application/json")};
    const QString ex = QStringLiteral("https://example.com");

    // The curl manual's own examples (curl 7.88.1, man curl).
    QTest::addRow("man -d") << QStringLiteral("curl -d \"name=curl\" https://example.com") << QByteArray("POST") << ex
                            << QStringList{form} << QByteArray("name=curl");
    QTest::addRow("man -d twice") << QStringLiteral("curl -d \"name=curl\" -d \"tool=cmdline\" https://example.com")
                                  << QByteArray("POST") << ex << QStringList{form}
                                  << QByteArray("name=curl&tool=cmdline");
    QTest::addRow("man -d @filename") << QStringLiteral("curl -d @filename https://example.com") << QByteArray("POST")
                                      << ex << QStringList{form} << QByteArray("name=curland=more");
    QTest::addRow("man --data-binary @filename")
        << QStringLiteral("curl --data-binary @filename https://example.com") << QByteArray("POST") << ex
        << QStringList{form} << QByteArray("name=curl\r\nand=more\n");
    QTest::addRow("man --data-raw") << QStringLiteral("curl --data-raw \"@at@at@\" https://example.com")
                                    << QByteArray("POST") << ex << QStringList{form} << QByteArray("@at@at@");
    QTest::addRow("man --data-urlencode name=val")
        << QStringLiteral("curl --data-urlencode name=val https://example.com") << QByteArray("POST") << ex
        << QStringList{form} << QByteArray("name=val");
    QTest::addRow("man --data-urlencode =encodethis")
        << QStringLiteral("curl --data-urlencode =encodethis https://example.com") << QByteArray("POST") << ex
        << QStringList{form} << QByteArray("encodethis");
    QTest::addRow("man --data-urlencode name@file")
        << QStringLiteral("curl --data-urlencode name@file https://example.com") << QByteArray("POST") << ex
        << QStringList{form} << QByteArray("name=a%20b%26c%0A");
    QTest::addRow("man --data-urlencode @fileonly")
        << QStringLiteral("curl --data-urlencode @fileonly https://example.com") << QByteArray("POST") << ex
        << QStringList{form} << QByteArray("x%3D1%20y");
    QTest::addRow("man --json") << QStringLiteral("curl --json '{ \"drink\": \"coffe\" }' https://example.com")
                                << QByteArray("POST") << ex << json << QByteArray("{ \"drink\": \"coffe\" }");
    QTest::addRow("man --json twice") << QStringLiteral(
        "curl --json '{ \"drink\":' --json ' \"coffe\" }' https://example.com")
                                      << QByteArray("POST") << ex << json << QByteArray("{ \"drink\": \"coffe\" }");
    QTest::addRow("man --json @prepared")
        << QStringLiteral("curl --json @prepared https://example.com") << QByteArray("POST") << ex << json
        << QByteArray("{\n  \"drink\": \"coffee\"\n}\n");
    QTest::addRow("man --json @- < json.txt")
        << QStringLiteral("curl --json @- https://example.com < json.txt") << QByteArray("POST") << ex << json
        << QByteArray("{\"from\": \"stdin\"}");
    QTest::addRow("man -u") << QStringLiteral("curl -u user:secret https://example.com") << QByteArray("GET") << ex
                            << QStringList{QStringLiteral("Authorization: Basic dXNlcjpzZWNyZXQ=")} << QByteArray();
    QTest::addRow("man -H") << QStringLiteral("curl -H \"X-First-Name: Joe\" https://example.com") << QByteArray("GET")
                            << ex << QStringList{QStringLiteral("X-First-Name: Joe")} << QByteArray();
    QTest::addRow("man -H user-agent") << QStringLiteral("curl -H \"User-Agent: yes-please/2000\" https://example.com")
                                       << QByteArray("GET") << ex
                                       << QStringList{QStringLiteral("User-Agent: yes-please/2000")} << QByteArray();
    QTest::addRow("man -H Host: removes") << QStringLiteral("curl -H \"Host:\" https://example.com")
                                          << QByteArray("GET") << ex << QStringList{} << QByteArray();
    QTest::addRow("man -X DELETE") << QStringLiteral("curl -X \"DELETE\" https://example.com") << QByteArray("DELETE")
                                   << ex << QStringList{} << QByteArray();
    QTest::addRow("man --get") << QStringLiteral("curl --get https://example.com") << QByteArray("GET") << ex
                               << QStringList{} << QByteArray();
    QTest::addRow("man --get -d -d") << QStringLiteral("curl --get -d \"tool=curl\" -d \"age=old\" https://example.com")
                                     << QByteArray("GET") << QStringLiteral("https://example.com?tool=curl&age=old")
                                     << QStringList{} << QByteArray();
    QTest::addRow("man --get -I -d") << QStringLiteral("curl --get -I -d \"tool=curl\" https://example.com")
                                     << QByteArray("HEAD") << QStringLiteral("https://example.com?tool=curl")
                                     << QStringList{} << QByteArray();
    QTest::addRow("man -I") << QStringLiteral("curl -I https://example.com") << QByteArray("HEAD") << ex
                            << QStringList{} << QByteArray();
    QTest::addRow("man --url") << QStringLiteral("curl --url https://example.com") << QByteArray("GET") << ex
                               << QStringList{} << QByteArray();
    QTest::addRow("man -L") << QStringLiteral("curl -L https://example.com") << QByteArray("GET") << ex << QStringList{}
                            << QByteArray();

    // Beyond the manual.
    QTest::addRow("no scheme: http") << QStringLiteral("curl example.com/x") << QByteArray("GET")
                                     << QStringLiteral("http://example.com/x") << QStringList{} << QByteArray();
    QTest::addRow("no curl word") << QStringLiteral("-XPUT -d x http://h/") << QByteArray("PUT")
                                  << QStringLiteral("http://h/") << QStringList{form} << QByteArray("x");
    QTest::addRow("cluster and attached value")
        << QStringLiteral("curl -sSLXPATCH -dx http://h/") << QByteArray("PATCH") << QStringLiteral("http://h/")
        << QStringList{form} << QByteArray("x");
    QTest::addRow("-d@file attached") << QStringLiteral("curl -d@filename http://h/") << QByteArray("POST")
                                      << QStringLiteral("http://h/") << QStringList{form}
                                      << QByteArray("name=curland=more");
    QTest::addRow("long name start") << QStringLiteral("curl -X PUT --data-bin x http://h/") << QByteArray("PUT")
                                     << QStringLiteral("http://h/") << QStringList{form} << QByteArray("x");
    QTest::addRow("gnu --name=value") << QStringLiteral("curl --request=DELETE --url=http://h/") << QByteArray("DELETE")
                                      << QStringLiteral("http://h/") << QStringList{} << QByteArray();
    QTest::addRow("-- ends options") << QStringLiteral("curl -X PUT -- http://h/") << QByteArray("PUT")
                                     << QStringLiteral("http://h/") << QStringList{} << QByteArray();
    QTest::addRow("value starting with a dash") << QStringLiteral("curl -d -x http://h/") << QByteArray("POST")
                                                << QStringLiteral("http://h/") << QStringList{form} << QByteArray("-x");
    QTest::addRow("header order, empty, removed")
        << QStringLiteral("curl -H 'B: 2' -H 'A;' -H 'C: 3' -H 'b:' -H 'Content-Type:' -d x http://h/")
        << QByteArray("POST") << QStringLiteral("http://h/")
        << QStringList{QStringLiteral("A: "), QStringLiteral("C: 3")} << QByteArray("x");
    QTest::addRow("header overrides curl's")
        << QStringLiteral("curl --json '[]' -H 'Accept: text/plain' http://h/") << QByteArray("POST")
        << QStringLiteral("http://h/")
        << QStringList{QStringLiteral("Accept: text/plain"), QStringLiteral("Content-Type: application/json")}
        << QByteArray("[]");
    QTest::addRow("-d then --json") << QStringLiteral("curl -d a=1 --json '{}' -d b=2 http://h/") << QByteArray("POST")
                                    << QStringLiteral("http://h/") << json << QByteArray("a=1{}&b=2");
    QTest::addRow("-G appends to a query") << QStringLiteral("curl -G -d 'q=a b' 'http://h/s?x=1'") << QByteArray("GET")
                                           << QStringLiteral("http://h/s?x=1&q=a%20b") << QStringList{} << QByteArray();
    QTest::addRow("-X GET keeps the body") << QStringLiteral("curl -X GET -d x http://h/") << QByteArray("GET")
                                           << QStringLiteral("http://h/") << QStringList{form} << QByteArray("x");
    QTest::addRow("-u without password") << QStringLiteral("curl -u ann http://h/") << QByteArray("GET")
                                         << QStringLiteral("http://h/")
                                         << QStringList{QStringLiteral("Authorization: Basic YW5uOg==")}
                                         << QByteArray();
    QTest::addRow("-H Authorization wins over -u")
        << QStringLiteral("curl -u a:b -H 'authorization: Bearer t' http://h/") << QByteArray("GET")
        << QStringLiteral("http://h/") << QStringList{QStringLiteral("authorization: Bearer t")} << QByteArray();
    QTest::addRow("bearer, agent, referer, cookies")
        << QStringLiteral("curl --oauth2-bearer tok -A 'agent/1' -e 'http://r/;auto' -b a=1 -b 'b=2' http://h/")
        << QByteArray("GET") << QStringLiteral("http://h/")
        << QStringList{QStringLiteral("Authorization: Bearer tok"), QStringLiteral("User-Agent: agent/1"),
               QStringLiteral("Referer: http://r/"), QStringLiteral("Cookie: a=1; b=2")}
        << QByteArray();
    QTest::addRow("-T file to a folder URL")
        << QStringLiteral("curl -T blob.bin http://h/up/") << QByteArray("PUT")
        << QStringLiteral("http://h/up/blob.bin") << QStringList{} << QByteArray("\x00\x01\xff\r\n", 5);
    QTest::addRow("printf pipe") << QStringLiteral("printf '\\001a%%\\n' | curl --data-binary @- http://h/")
                                 << QByteArray("POST") << QStringLiteral("http://h/") << QStringList{form}
                                 << QByteArray("\001a%\n");
    QTest::addRow("printf with an argument")
        << QStringLiteral("printf '%s' '{\"a\":1}' | curl --json @- http://h/") << QByteArray("POST")
        << QStringLiteral("http://h/") << json << QByteArray("{\"a\":1}");
    QTest::addRow("echo pipe") << QStringLiteral("echo -n hello | curl --data-binary @- http://h/")
                               << QByteArray("POST") << QStringLiteral("http://h/") << QStringList{form}
                               << QByteArray("hello");
    QTest::addRow("cat pipe") << QStringLiteral("cat json.txt | curl --json @- http://h/") << QByteArray("POST")
                              << QStringLiteral("http://h/") << json << QByteArray("{\"from\": \"stdin\"}");
    QTest::addRow("here-string") << QStringLiteral("curl --data-binary @- http://h/ <<< 'x y'") << QByteArray("POST")
                                 << QStringLiteral("http://h/") << QStringList{form} << QByteArray("x y\n");
    QTest::addRow("assignment before curl") << QStringLiteral("LANG=C curl -I http://h/") << QByteArray("HEAD")
                                            << QStringLiteral("http://h/") << QStringList{} << QByteArray();
    QTest::addRow("browser copy as cURL")
        << QStringLiteral("curl 'https://api.example.test/v1/items?page=2' \\\n"
                          "  -H 'accept: application/json' \\\n"
                          "  -H 'content-type: application/json' \\\n"
                          "  -H 'cookie: sid=abc; theme=dark' \\\n"
                          "  --data-raw '{\"name\":\"O\\u2019Brien\"}' \\\n"
                          "  --compressed")
        << QByteArray("POST") << QStringLiteral("https://api.example.test/v1/items?page=2")
        << QStringList{QStringLiteral("accept: application/json"), QStringLiteral("content-type: application/json"),
               QStringLiteral("cookie: sid=abc; theme=dark")}
        << QByteArray("{\"name\":\"O\\u2019Brien\"}");
}

void TestCurlCommandLine::request()
{
    QFETCH(QString, line);
    QFETCH(QByteArray, method);
    QFETCH(QString, url);
    QFETCH(QStringList, headers);
    QFETCH(QByteArray, body);
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.path();
    const auto result = CurlCommandLine::parse(line, options);
    QVERIFY2(result, qPrintable(result.error()));
    const RequestSpec &r = result->spec;
    QCOMPARE(r.method, method);
    QCOMPARE(r.url.toString(QUrl::FullyEncoded), url);
    QCOMPARE(headerLines(r.headers), headers);
    if (r.bodySource.kind == BodySource::Kind::File) {
        // Streamed from the file when it is sent: the bytes it will send are the file's.
        QVERIFY(r.body.isEmpty());
        QFile file(r.bodySource.filePath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), body);
    } else {
        QCOMPARE(r.body, body);
    }
    QVERIFY2(result->unknown.isEmpty(), qPrintable(joined(result->unknown)));
}

void TestCurlCommandLine::request_agreesWithBash_data()
{
    request_data();
}

void TestCurlCommandLine::request_agreesWithBash()
{
    // The line split by bash and handed over as arguments reads to the same
    // request as the line read by parse().
    QFETCH(QString, line);
    // Only curl's arguments: bash needs the command word.
    const Invocation bash
        = runInBash(line.startsWith(QLatin1Char('-')) ? QStringLiteral("curl ") + line : line, m_dir.path());
    QVERIFY2(bash.error.isEmpty(), qPrintable(bash.error));
    QStringList arguments;
    for (const QByteArray &a : bash.arguments)
        arguments.append(QString::fromUtf8(a));
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.path();
    const QByteArray input = bash.standardInput;
    options.standardInput = [input]() -> Result<QByteArray> { return input; };
    const auto fromArguments = CurlCommandLine::parseArguments(arguments, options);
    QVERIFY2(fromArguments, qPrintable(fromArguments.error()));
    options.standardInput = nullptr;
    const auto fromLine = CurlCommandLine::parse(line, options);
    QVERIFY2(fromLine, qPrintable(fromLine.error()));
    QCOMPARE(requestText(fromArguments->spec), requestText(fromLine->spec));
}

// ---------------------------------------------------------------- transport

namespace {

// A TransportOptions as one line; paths under `base` are shown relative to it.
QString describe(const TransportOptions &t, const QString &base)
{
    const auto path
        = [&base](const QString &p) { return p.startsWith(base + QLatin1Char('/')) ? p.mid(base.size() + 1) : p; };
    QStringList parts;
    if (!t.caBundlePath.isEmpty())
        parts.append(QStringLiteral("ca=") + path(t.caBundlePath));
    if (!t.clientCertificatePath.isEmpty())
        parts.append(QStringLiteral("cert=") + path(t.clientCertificatePath));
    if (!t.clientKeyPath.isEmpty())
        parts.append(QStringLiteral("key=") + path(t.clientKeyPath));
    if (!t.clientKeyPassphrase.isEmpty())
        parts.append(QStringLiteral("pass=") + t.clientKeyPassphrase);
    if (t.tlsFloor != TransportOptions::TlsFloor::Any)
        parts.append(
            t.tlsFloor == TransportOptions::TlsFloor::Tls12 ? QStringLiteral("tls=1.2") : QStringLiteral("tls=1.3"));
    if (!t.insecureHosts.isEmpty())
        parts.append(QStringLiteral("insecure=") + t.insecureHosts.join(QLatin1Char(',')));
    if (t.proxyMode != TransportOptions::ProxyMode::None) {
        const QString user
            = t.proxyUser.isEmpty() ? QString() : t.proxyUser + QLatin1Char(':') + t.proxyPassword + QLatin1Char('@');
        parts.append(QStringLiteral("proxy=%1://%2%3:%4")
                         .arg(t.proxyMode == TransportOptions::ProxyMode::Http ? QStringLiteral("http")
                                                                               : QStringLiteral("socks5"),
                             user, t.proxyHost)
                         .arg(t.proxyPort));
    }
    if (t.httpVersion == TransportOptions::HttpVersion::Http2)
        parts.append(QStringLiteral("http=2"));
    else if (t.httpVersion == TransportOptions::HttpVersion::Http2PriorKnowledge)
        parts.append(QStringLiteral("http=2-prior-knowledge"));
    if (t.connectTimeoutMs)
        parts.append(QStringLiteral("connect=%1ms").arg(*t.connectTimeoutMs));
    for (const HostPin &pin : t.resolve)
        parts.append(QStringLiteral("resolve=") + pin.text());
    if (t.ipFamily != TransportOptions::IpFamily::Any)
        parts.append(t.ipFamily == TransportOptions::IpFamily::V4 ? QStringLiteral("ip=4") : QStringLiteral("ip=6"));
    if (!t.keepAlive)
        parts.append(QStringLiteral("keepalive=off"));
    return parts.join(QLatin1Char(' '));
}

} // namespace

void TestCurlCommandLine::transport_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("expected");
    // The curl manual's examples.
    QTest::addRow("man --proxy") << QStringLiteral("curl --proxy http://proxy.example https://example.com")
                                 << QStringLiteral("proxy=http://proxy.example:1080");
    QTest::addRow("man --proxy-user -x") << QStringLiteral("curl --proxy-user name:pwd -x proxy https://example.com")
                                         << QStringLiteral("proxy=http://name:pwd@proxy:1080");
    QTest::addRow("man --socks5") << QStringLiteral("curl --socks5 proxy.example:7000 https://example.com")
                                  << QStringLiteral("proxy=socks5://proxy.example:7000");
    QTest::addRow("man --socks5-hostname")
        << QStringLiteral("curl --socks5-hostname proxy.example:7000 https://example.com")
        << QStringLiteral("proxy=socks5://proxy.example:7000");
    QTest::addRow("man --cacert") << QStringLiteral("curl --cacert CA-file.txt https://example.com")
                                  << QStringLiteral("ca=CA-file.txt");
    QTest::addRow("man --cert --key") << QStringLiteral("curl --cert certfile --key keyfile https://example.com")
                                      << QStringLiteral("cert=certfile key=keyfile");
    QTest::addRow("man --cert-type") << QStringLiteral("curl --cert-type PEM --cert file https://example.com")
                                     << QStringLiteral("cert=file");
    QTest::addRow("man --pass") << QStringLiteral("curl --pass secret --key file https://example.com")
                                << QStringLiteral("key=file pass=secret");
    QTest::addRow("man --insecure") << QStringLiteral("curl --insecure https://example.com")
                                    << QStringLiteral("insecure=example.com");
    QTest::addRow("man --http2") << QStringLiteral("curl --http2 https://example.com") << QStringLiteral("http=2");
    QTest::addRow("man --http2-prior-knowledge") << QStringLiteral("curl --http2-prior-knowledge https://example.com")
                                                 << QStringLiteral("http=2-prior-knowledge");
    QTest::addRow("man --http1.1") << QStringLiteral("curl --http1.1 https://example.com") << QString();
    // Beyond the manual.
    QTest::addRow("-sk cluster") << QStringLiteral("curl -sk https://10.0.0.7:8443/x")
                                 << QStringLiteral("insecure=10.0.0.7");
    QTest::addRow("--no-insecure") << QStringLiteral("curl -k --no-insecure https://h/") << QString();
    QTest::addRow("socks5h with credentials") << QStringLiteral("curl -x socks5h://u:p%40ss@127.0.0.1:1081 http://h/")
                                              << QStringLiteral("proxy=socks5://u:p@ss@127.0.0.1:1081");
    QTest::addRow("ipv6 proxy") << QStringLiteral("curl -x 'http://[::1]:3128' http://h/")
                                << QStringLiteral("proxy=http://::1:3128");
    QTest::addRow("--proxy-user wins") << QStringLiteral("curl -U a:b -x http://c:d@p:8 http://h/")
                                       << QStringLiteral("proxy=http://a:b@p:8");
    QTest::addRow("empty proxy switches it off") << QStringLiteral("curl -x p:1 -x '' http://h/") << QString();
    QTest::addRow("p12 with passphrase") << QStringLiteral("curl -E client.p12:pass:word https://h/")
                                         << QStringLiteral("cert=client.p12 pass=pass:word");
    QTest::addRow("escaped colon in a cert name")
        << QStringLiteral("curl --cert 'c\\:d.pem:pw' https://h/") << QStringLiteral("cert=c:d.pem pass=pw");
    QTest::addRow("absolute path stays") << QStringLiteral("curl --cacert /etc/ssl/ca.pem https://h/")
                                         << QStringLiteral("ca=/etc/ssl/ca.pem");
    QTest::addRow("tls floors") << QStringLiteral("curl --tlsv1.3 https://h/") << QStringLiteral("tls=1.3");
    QTest::addRow("last floor wins") << QStringLiteral("curl --tlsv1.3 --tlsv1.2 https://h/")
                                     << QStringLiteral("tls=1.2");
    QTest::addRow("http2 then http1.1") << QStringLiteral("curl --http2 --http1.1 https://h/") << QString();
    // The connection.
    QTest::addRow("man --connect-timeout")
        << QStringLiteral("curl --connect-timeout 2.37 https://example.com") << QStringLiteral("connect=2370ms");
    QTest::addRow("connect timeout 0 is none") << QStringLiteral("curl --connect-timeout 0 https://h/") << QString();
    QTest::addRow("man --resolve") << QStringLiteral("curl --resolve example.com:443:127.0.0.1 https://example.com")
                                   << QStringLiteral("resolve=example.com:443:127.0.0.1");
    QTest::addRow("several --resolve, the later for a host wins")
        << QStringLiteral("curl --resolve a:443:10.0.0.1 --resolve b:80:[::1] --resolve a:443:10.0.0.2 https://a/")
        << QStringLiteral("resolve=b:80:[::1] resolve=a:443:10.0.0.2");
    QTest::addRow("-4") << QStringLiteral("curl -4 https://h/") << QStringLiteral("ip=4");
    QTest::addRow("--ipv6") << QStringLiteral("curl --ipv6 https://h/") << QStringLiteral("ip=6");
    QTest::addRow("--no-keepalive") << QStringLiteral("curl --no-keepalive https://h/")
                                    << QStringLiteral("keepalive=off");
}

void TestCurlCommandLine::transport()
{
    QFETCH(QString, line);
    QFETCH(QString, expected);
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.path();
    const auto result = CurlCommandLine::parse(line, options);
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(describe(result->spec.transport, QDir(m_dir.path()).absolutePath()), expected);
    QVERIFY2(result->unknown.isEmpty(), qPrintable(joined(result->unknown)));
}

void TestCurlCommandLine::retryHints_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("retries"); // -1: not given
    QTest::addColumn<double>("delayMs");
    QTest::addColumn<double>("maxTimeMs");
    QTest::addColumn<double>("attemptTimeoutMs");
    QTest::addColumn<bool>("allErrors");
    QTest::addColumn<bool>("connRefused");
    // The curl manual's examples.
    QTest::addRow("man --retry") << QStringLiteral("curl --retry 7 https://example.com") << 7 << -1.0 << -1.0 << -1.0
                                 << false << false;
    QTest::addRow("man --retry-delay") << QStringLiteral("curl --retry-delay 5 --retry 7 https://example.com") << 7
                                       << 5000.0 << -1.0 << -1.0 << false << false;
    QTest::addRow("man --retry-max-time") << QStringLiteral("curl --retry-max-time 30 --retry 10 https://example.com")
                                          << 10 << -1.0 << 30000.0 << -1.0 << false << false;
    QTest::addRow("man --retry-all-errors") << QStringLiteral("curl --retry 5 --retry-all-errors https://example.com")
                                            << 5 << -1.0 << -1.0 << -1.0 << true << false;
    QTest::addRow("man --retry-connrefused") << QStringLiteral("curl --retry-connrefused --retry 7 https://example.com")
                                             << 7 << -1.0 << -1.0 << -1.0 << false << true;
    QTest::addRow("man --max-time") << QStringLiteral("curl --max-time 10 https://example.com") << -1 << -1.0 << -1.0
                                    << 10000.0 << false << false;
    QTest::addRow("man --max-time decimals")
        << QStringLiteral("curl --max-time 2.92 https://example.com") << -1 << -1.0 << -1.0 << 2920.0 << false << false;
    // Beyond the manual.
    QTest::addRow("-m short, --retry 0") << QStringLiteral("curl -m .5 --retry 0 http://h/") << 0 << -1.0 << -1.0
                                         << 500.0 << false << false;
    QTest::addRow("the last one wins") << QStringLiteral(
        "curl --retry 2 --retry 4 --retry-all-errors --no-retry-all-errors http://h/")
                                       << 4 << -1.0 << -1.0 << -1.0 << false << false;
    QTest::addRow("unique start of a name")
        << QStringLiteral("curl --retry-conn --retry-max 9 http://h/") << -1 << -1.0 << 9000.0 << -1.0 << false << true;
}

void TestCurlCommandLine::retryHints()
{
    QFETCH(QString, line);
    QFETCH(int, retries);
    QFETCH(double, delayMs);
    QFETCH(double, maxTimeMs);
    QFETCH(double, attemptTimeoutMs);
    QFETCH(bool, allErrors);
    QFETCH(bool, connRefused);
    const auto result = CurlCommandLine::parse(line);
    QVERIFY2(result, qPrintable(result.error()));
    const ImportedRequest::RetryHints &h = result->retry;
    QCOMPARE(h.retries.value_or(-1), retries);
    QCOMPARE(h.delayMs.value_or(-1.0), delayMs);
    QCOMPARE(h.maxTimeMs.value_or(-1.0), maxTimeMs);
    QCOMPARE(h.attemptTimeoutMs.value_or(-1.0), attemptTimeoutMs);
    QCOMPARE(h.retryAllErrors, allErrors);
    QCOMPARE(h.retryConnectionRefused, connRefused);
    // --max-time bounds each attempt of this request too.
    QCOMPARE(result->spec.attemptTimeoutMs.value_or(-1.0), attemptTimeoutMs);
}

void TestCurlCommandLine::bodies_streamedFileOrFormParts_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("expected"); // the BodySource, as describe() below writes it
    QTest::addColumn<QByteArray>("inlineBody");
    QTest::addRow("-T streams the file") << QStringLiteral("curl -T filename http://h/up") << QByteArray("PUT")
                                         << QStringLiteral("file=filename") << QByteArray();
    QTest::addRow("--data-binary @file streams it")
        << QStringLiteral("curl --data-binary @filename http://h/") << QByteArray("POST")
        << QStringLiteral("file=filename") << QByteArray();
    QTest::addRow("--data-binary @file joined with more data is held")
        << QStringLiteral("curl --data-binary @filename --data-binary x http://h/") << QByteArray("POST") << QString()
        << QByteArray("name=curl\r\nand=more\n&x");
    QTest::addRow("-G puts it in the query") << QStringLiteral("curl -G --data-binary @json.txt http://h/")
                                             << QByteArray("GET") << QString() << QByteArray();
    QTest::addRow("man -F field and file")
        << QStringLiteral("curl -F name=John -F shoesize=11 -F profile=@filename https://example.com/")
        << QByteArray("POST") << QStringLiteral("part=name:John part=shoesize:11 part=profile@filename")
        << QByteArray();
    QTest::addRow("-F type and filename")
        << QStringLiteral("curl -F 'web=@filename;type=text/html;filename=page.html' http://h/") << QByteArray("POST")
        << QStringLiteral("part=web@filename;type=text/html;filename=page.html") << QByteArray();
    QTest::addRow("-F <file is its text") << QStringLiteral("curl -F 'story=<json.txt' http://h/") << QByteArray("POST")
                                          << QStringLiteral("part=story:{\"from\": \"stdin\"}") << QByteArray();
    QTest::addRow("--form-string takes @ as it is")
        << QStringLiteral("curl --form-string 'at=@home' http://h/") << QByteArray("POST")
        << QStringLiteral("part=at:@home") << QByteArray();
    QTest::addRow("-F with -X PUT") << QStringLiteral("curl -X PUT -F a=1 http://h/") << QByteArray("PUT")
                                    << QStringLiteral("part=a:1") << QByteArray();
}

void TestCurlCommandLine::bodies_streamedFileOrFormParts()
{
    QFETCH(QString, line);
    QFETCH(QByteArray, method);
    QFETCH(QString, expected);
    QFETCH(QByteArray, inlineBody);
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.path();
    const auto result = CurlCommandLine::parse(line, options);
    QVERIFY2(result, qPrintable(result.error()));
    const RequestSpec &r = result->spec;
    QCOMPARE(r.method, method);
    const QString base = QDir(m_dir.path()).absolutePath() + QLatin1Char('/');
    const auto path = [&base](const QString &p) { return p.startsWith(base) ? p.mid(base.size()) : p; };
    QStringList parts;
    if (r.bodySource.kind == BodySource::Kind::File)
        parts.append(QStringLiteral("file=") + path(r.bodySource.filePath));
    for (const FormPart &part : r.bodySource.parts) {
        QString text = QStringLiteral("part=") + QString::fromUtf8(part.name)
            + (part.isFile() ? QLatin1Char('@') + path(part.filePath)
                             : QLatin1Char(':') + QString::fromUtf8(part.value));
        if (!part.contentType.isEmpty())
            text += QStringLiteral(";type=") + QString::fromUtf8(part.contentType);
        if (!part.fileName.isEmpty())
            text += QStringLiteral(";filename=") + QString::fromUtf8(part.fileName);
        parts.append(text);
    }
    QCOMPARE(parts.join(QLatin1Char(' ')), expected);
    QCOMPARE(r.body, inlineBody);
    QVERIFY2(result->unknown.isEmpty(), qPrintable(joined(result->unknown)));
    // The executor accepts what the import made.
    QVERIFY(r.bodySource.checkFiles());
}

void TestCurlCommandLine::roundTrip_connectionAndBodySources_data()
{
    QTest::addColumn<QString>("line");
    QTest::addRow("connection") << QStringLiteral(
        "curl --connect-timeout 1.5 --resolve a.test:443:127.0.0.1 --resolve b.test:80:[::1] -4 --no-keepalive "
        "https://a.test/");
    QTest::addRow("ipv6") << QStringLiteral("curl -6 http://h/");
    QTest::addRow("upload") << QStringLiteral("curl -T filename http://h/up");
    QTest::addRow("posted file") << QStringLiteral(
        "curl --data-binary @filename -H 'Content-Type: text/plain' http://h/");
    QTest::addRow("patched file") << QStringLiteral("curl -X PATCH --data-binary @filename http://h/");
    QTest::addRow("form") << QStringLiteral("curl -F name=John -F 'web=@filename;type=text/html;filename=\"my "
                                            "page.html\"' --form-string 'at=@x' http://h/");
    QTest::addRow("form, PUT") << QStringLiteral("curl -X PUT -F 'a=1;type=text/plain' http://h/");
}

void TestCurlCommandLine::roundTrip_connectionAndBodySources()
{
    QFETCH(QString, line);
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.path();
    const auto first = CurlCommandLine::parse(line, options);
    QVERIFY2(first, qPrintable(first.error()));
    const CurlCommand::Command command = CurlCommand::build(first->spec, ExportOptions{false});
    const auto again = CurlCommandLine::parse(command.commandLine, options);
    QVERIFY2(again, qPrintable(again.error() + QStringLiteral("\n") + command.commandLine));
    QCOMPARE(again->spec.method, first->spec.method);
    QCOMPARE(again->spec.transport, first->spec.transport);
    QCOMPARE(again->spec.bodySource, first->spec.bodySource);
    QCOMPARE(again->spec.body, first->spec.body);
    QVERIFY2(again->unknown.isEmpty(), qPrintable(joined(again->unknown)));
}

void TestCurlCommandLine::ignoredUnknownAndNotes_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QStringList>("ignored");
    QTest::addColumn<QStringList>("unknown");
    QTest::addColumn<QString>("note"); // a part of one note; empty: no notes
    QTest::addRow("output flags") << QStringLiteral("curl -s -S -v -i -o out.json --compressed http://h/")
                                  << QStringList{QStringLiteral("-s"), QStringLiteral("-S"), QStringLiteral("-v"),
                                         QStringLiteral("-i"), QStringLiteral("-o out.json"),
                                         QStringLiteral("--compressed")}
                                  << QStringList{} << QString();
    QTest::addRow("a cluster with a value")
        << QStringLiteral("curl -sSo 'my file' http://h/")
        << QStringList{QStringLiteral("-s"), QStringLiteral("-S"), QStringLiteral("-o 'my file'")} << QStringList{}
        << QString();
    QTest::addRow("not carried out") << QStringLiteral("curl --ntlm -u x:y --frobnicate -Z http://h/")
                                     << QStringList{QStringLiteral("-Z")}
                                     << QStringList{QStringLiteral("--ntlm"), QStringLiteral("--frobnicate")}
                                     << QStringLiteral("does not do --ntlm");
    QTest::addRow("several addresses to resolve")
        << QStringLiteral("curl --resolve h:80:10.0.0.1,10.0.0.2 http://h/") << QStringList{} << QStringList{}
        << QStringLiteral("connects to the first address");
    QTest::addRow("cookie file") << QStringLiteral("curl -b cookies.txt http://h/") << QStringList{}
                                 << QStringList{QStringLiteral("-b cookies.txt")}
                                 << QStringLiteral("reads cookies from a file");
    QTest::addRow("redirections and pipes")
        << QStringLiteral("curl http://h/ > out.txt 2>&1 | jq '.items[0]'")
        << QStringList{QStringLiteral("> out.txt"), QStringLiteral("2>&1"), QStringLiteral("| jq '.items[0]'")}
        << QStringList{} << QString();
    QTest::addRow("shell variable") << QStringLiteral("curl -H \"Authorization: Bearer $TOKEN\" http://h/")
                                    << QStringList{} << QStringList{} << QStringLiteral("$TOKEN");
    QTest::addRow("glob pattern") << QStringLiteral("curl 'http://h/a[1-3]'") << QStringList{} << QStringList{}
                                  << QStringLiteral("Without -g");
    QTest::addRow("globoff") << QStringLiteral("curl -g 'http://h/a[1-3]'") << QStringList{} << QStringList{}
                             << QString();
    QTest::addRow("socks5 resolves remotely") << QStringLiteral("curl -x socks5://p:1 http://h/") << QStringList{}
                                              << QStringList{} << QStringLiteral("socks5h://");
    QTest::addRow("http1.0") << QStringLiteral("curl --http1.0 http://h/") << QStringList{QStringLiteral("--http1.0")}
                             << QStringList{} << QStringLiteral("HTTP/1.1");
    QTest::addRow("noproxy") << QStringLiteral("curl --noproxy '*' -x p:1 http://h/")
                             << QStringList{QStringLiteral("--noproxy '*'")} << QStringList{}
                             << QStringLiteral("--noproxy is not used");
    QTest::addRow("header without colon") << QStringLiteral("curl -H nocolon http://h/") << QStringList{}
                                          << QStringList{} << QStringLiteral("it has no colon");
    QTest::addRow("location-trusted") << QStringLiteral("curl --location-trusted http://h/") << QStringList{}
                                      << QStringList{} << QStringLiteral("never sends Authorization");
    QTest::addRow("environment before curl") << QStringLiteral("A=1 B=2 curl http://h/") << QStringList{}
                                             << QStringList{} << QStringLiteral("(A=1 B=2) are not used");
    QTest::addRow("path to curl") << QStringLiteral("/usr/local/bin/curl --url http://h/") << QStringList{}
                                  << QStringList{} << QString();
    QTest::addRow("user without password") << QStringLiteral("curl -u ann http://h/") << QStringList{} << QStringList{}
                                           << QStringLiteral("gives no password");
}

void TestCurlCommandLine::ignoredUnknownAndNotes()
{
    QFETCH(QString, line);
    QFETCH(QStringList, ignored);
    QFETCH(QStringList, unknown);
    QFETCH(QString, note);
    const auto result = CurlCommandLine::parse(line);
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(result->ignored, ignored);
    QCOMPARE(result->unknown, unknown);
    if (note.isEmpty()) {
        QVERIFY2(result->notes.isEmpty(), qPrintable(joined(result->notes)));
    } else {
        QVERIFY2(std::any_of(result->notes.cbegin(), result->notes.cend(),
                     [&note](const QString &n) { return n.contains(note); }),
            qPrintable(joined(result->notes)));
    }
    QCOMPARE(result->spec.url.host(), QStringLiteral("h"));
}

void TestCurlCommandLine::files_relativeToTheBaseFolder_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("caBundle");
    QTest::addRow("-d @../file") << QStringLiteral("curl -d @../filename http://h/") << QByteArray("name=curland=more")
                                 << QString();
    QTest::addRow("< ../file") << QStringLiteral("curl --data-binary @- http://h/ < ../json.txt")
                               << QByteArray("{\"from\": \"stdin\"}") << QString();
    QTest::addRow("certificate paths") << QStringLiteral("curl --cacert ../ca.pem https://h/") << QByteArray()
                                       << QStringLiteral("ca.pem");
}

void TestCurlCommandLine::files_relativeToTheBaseFolder()
{
    QFETCH(QString, line);
    QFETCH(QByteArray, body);
    QFETCH(QString, caBundle);
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.filePath(QStringLiteral("folder"));
    const auto result = CurlCommandLine::parse(line, options);
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(result->spec.body, body);
    QCOMPARE(result->spec.transport.caBundlePath,
        caBundle.isEmpty() ? QString() : QDir::cleanPath(m_dir.filePath(caBundle)));
}

void TestCurlCommandLine::standardInput_fromThePipeOrTheCaller()
{
    CurlCommandLine::Options options;
    int calls = 0;
    options.standardInput = [&calls]() -> Result<QByteArray> {
        ++calls;
        return QByteArray("from the caller");
    };
    auto result = CurlCommandLine::parse(QStringLiteral("curl -d @- -d @- http://h/"), options);
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(result->spec.body, QByteArray("from the caller&from the caller"));
    QCOMPARE(calls, 1); // read once, as a process reads its standard input once

    // A line that feeds curl itself does not ask the caller.
    result = CurlCommandLine::parse(QStringLiteral("printf 'a\\tb' | curl --data-binary @- http://h/"), options);
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(result->spec.body, QByteArray("a\tb"));
    QCOMPARE(calls, 1);

    // The caller's reader may fail; the error says which option read.
    options.standardInput
        = []() -> Result<QByteArray> { return Result<QByteArray>::failure(QStringLiteral("closed")); };
    result = CurlCommandLine::parse(QStringLiteral("curl -T - http://h/"), options);
    QVERIFY(!result);
    QCOMPARE(result.error(), QStringLiteral("column 6: -T -: closed"));
}

void TestCurlCommandLine::malformed_isAnErrorNamingFlagAndPlace_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("message"); // a part of it

    QTest::addRow("value missing") << QStringLiteral("curl http://h/ -H") << QStringLiteral("column 16")
                                   << QStringLiteral("-H needs a value, <header/@file>");
    QTest::addRow("long value missing") << QStringLiteral("curl http://h/ --retry") << QStringLiteral("column 16")
                                        << QStringLiteral("--retry needs a value");
    QTest::addRow("two URLs") << QStringLiteral("curl http://a/ http://b/") << QStringLiteral("column 16")
                              << QStringLiteral("a second URL, \"http://b/\"");
    QTest::addRow("two URLs, --url") << QStringLiteral("curl http://a/ --url http://b/") << QStringLiteral("column 16")
                                     << QStringLiteral("a second URL");
    QTest::addRow("no URL") << QStringLiteral("curl -X POST -d x") << QString() << QStringLiteral("no URL");
    QTest::addRow("empty line") << QStringLiteral("  \n ") << QString() << QStringLiteral("the line is empty");
    QTest::addRow("retry not a number") << QStringLiteral("curl --retry abc http://h/") << QStringLiteral("column 6")
                                        << QStringLiteral("--retry takes a whole number of retries from 0 to 999, "
                                                          "not \"abc\"");
    QTest::addRow("retry negative") << QStringLiteral("curl --retry -1 http://h/") << QStringLiteral("column 6")
                                    << QStringLiteral("not \"-1\"");
    QTest::addRow("retry fraction") << QStringLiteral("curl --retry 1.5 http://h/") << QStringLiteral("column 6")
                                    << QStringLiteral("not \"1.5\"");
    QTest::addRow("retry too many") << QStringLiteral("curl --retry 1000 http://h/") << QStringLiteral("column 6")
                                    << QStringLiteral("not \"1000\"");
    QTest::addRow("retry-delay") << QStringLiteral("curl --retry-delay 1s http://h/") << QStringLiteral("column 6")
                                 << QStringLiteral("--retry-delay takes seconds");
    QTest::addRow("max-time negative") << QStringLiteral("curl -m -2 http://h/") << QStringLiteral("column 6")
                                       << QStringLiteral("-m takes seconds");
    QTest::addRow("connect-timeout") << QStringLiteral("curl --connect-timeout soon http://h/")
                                     << QStringLiteral("column 6") << QStringLiteral("--connect-timeout takes seconds");
    QTest::addRow("connect-timeout negative")
        << QStringLiteral("curl --connect-timeout -1 http://h/") << QStringLiteral("column 6")
        << QStringLiteral("--connect-timeout takes seconds, a number from 0");
    QTest::addRow("resolve without an address")
        << QStringLiteral("curl --resolve example.com:443 https://example.com") << QStringLiteral("column 6")
        << QStringLiteral("is not HOST:PORT:ADDRESS");
    QTest::addRow("resolve to a name") << QStringLiteral("curl --resolve a:443:b.example https://a/")
                                       << QStringLiteral("column 6")
                                       << QStringLiteral("is not an IPv4 or IPv6 address");
    QTest::addRow("missing form file") << QStringLiteral("curl -F upload=@gone.bin http://h/")
                                       << QStringLiteral("column 6")
                                       << QStringLiteral("-F upload=@gone.bin: there is no file");
    QTest::addRow("form part without a name")
        << QStringLiteral("curl -F justtext http://h/") << QStringLiteral("column 6")
        << QStringLiteral("a form part is NAME=VALUE");
    QTest::addRow("form and data") << QStringLiteral("curl -F a=b -d c http://h/") << QStringLiteral("column 6")
                                   << QStringLiteral("cannot be used together");
    QTest::addRow("missing streamed data file") << QStringLiteral("curl --data-binary @gone.bin http://h/")
                                                << QStringLiteral("column 6") << QStringLiteral("there is no file");
    QTest::addRow("man -H @file") << QStringLiteral("curl -H @headers.txt https://example.com")
                                  << QStringLiteral("column 6")
                                  << QStringLiteral("-H @headers.txt: reading headers from a file is not supported");
    QTest::addRow("missing data file") << QStringLiteral("curl -d @missing.txt http://h/") << QStringLiteral("column 6")
                                       << QStringLiteral("-d @missing.txt: there is no file ");
    QTest::addRow("folder as data") << QStringLiteral("curl --data-binary @folder http://h/")
                                    << QStringLiteral("column 6") << QStringLiteral("is a folder, not a file");
    QTest::addRow("missing upload") << QStringLiteral("curl -T nothere.bin http://h/") << QStringLiteral("column 6")
                                    << QStringLiteral("-T nothere.bin: there is no file");
    QTest::addRow("missing < file") << QStringLiteral("curl -d @- http://h/ < gone.json") << QStringLiteral("column 24")
                                    << QStringLiteral("<: there is no file");
    QTest::addRow("missing cat file") << QStringLiteral("cat gone.json | curl -d @- http://h/")
                                      << QStringLiteral("column 5") << QStringLiteral("cat: there is no file");
    QTest::addRow("standard input not fed") << QStringLiteral("curl -d @- http://h/") << QStringLiteral("column 6")
                                            << QStringLiteral("-d @- reads standard input");
    QTest::addRow("socks4") << QStringLiteral("curl -x socks4://p:1 http://h/") << QStringLiteral("column 6")
                            << QStringLiteral("not socks4://");
    QTest::addRow("proxy without host, password hidden")
        << QStringLiteral("curl -x 'http://u:hunter2@' http://h/") << QStringLiteral("column 6")
        << QStringLiteral("http://REDACTED@: not a proxy address");
    QTest::addRow("ftp") << QStringLiteral("curl ftp://example.com/") << QStringLiteral("column 6")
                         << QStringLiteral("http and https requests only");
    QTest::addRow("no host") << QStringLiteral("curl http://") << QStringLiteral("column 6")
                             << QStringLiteral("names no host");
    QTest::addRow("bad port") << QStringLiteral("curl 'http://h:99999/'") << QStringLiteral("column 6")
                              << QStringLiteral("is not a URL");
    QTest::addRow("-I with -d") << QStringLiteral("curl -I -d x http://h/") << QStringLiteral("column 9")
                                << QStringLiteral("-d and -I/--head cannot be used together");
    QTest::addRow("-T with --json") << QStringLiteral("curl -T blob.bin --json 1 http://h/")
                                    << QStringLiteral("column 18") << QStringLiteral("--json and -T/--upload-file");
    QTest::addRow("ambiguous") << QStringLiteral("curl --proxy-c x http://h/") << QStringLiteral("column 6")
                               << QStringLiteral(
                                      "--proxy-c is ambiguous: it could be --proxy-ca-native, --proxy-cacert");
    QTest::addRow("switch with a value") << QStringLiteral("curl --retry-all-errors=yes http://h/")
                                         << QStringLiteral("column 6") << QStringLiteral("takes no value");
    QTest::addRow("method with a space") << QStringLiteral("curl -X 'GE T' http://h/") << QStringLiteral("column 6")
                                         << QStringLiteral("-X \"GE T\" is not a method name");
    QTest::addRow("header name") << QStringLiteral("curl -H 'Bad Name: x' http://h/") << QStringLiteral("column 6")
                                 << QStringLiteral("\"Bad Name\" is not a header name");
    QTest::addRow("header line break") << QStringLiteral("curl -H $'X: a\\r\\nInjected: 1' http://h/")
                                       << QStringLiteral("column 6") << QStringLiteral("cannot hold a line break");
    QTest::addRow("user agent line break")
        << QStringLiteral("curl -A $'x\\r\\nGET /SMUGGLED HTTP/1.1' http://h/") << QStringLiteral("column 6")
        << QStringLiteral("-A is refused: a carriage return (CR) at byte 2 cannot stand in a header value");
    QTest::addRow("referer with a NUL")
        << QStringLiteral("curl -e $'http://a/\\x01' http://h/") << QStringLiteral("column 6")
        << QStringLiteral("-e is refused: the byte 0x01 at byte 10 cannot stand in a header value");
    QTest::addRow("two commands") << QStringLiteral("export T=1; curl http://h/") << QStringLiteral("column 11")
                                  << QStringLiteral("more than one command (\";\" starts another)");
    QTest::addRow("line break without backslash")
        << QStringLiteral("curl -X POST\n  http://h/") << QStringLiteral("line 1, column 13")
        << QStringLiteral("a line break without a backslash");
    QTest::addRow("another program feeding curl")
        << QStringLiteral("wc -c x | curl -d @- http://h/") << QStringLiteral("column 1")
        << QStringLiteral("only printf, echo or cat");
    QTest::addRow("printf conversion") << QStringLiteral("printf '%d' 5 | curl -d @- http://h/")
                                       << QStringLiteral("column 8") << QStringLiteral("%d is not supported");
    QTest::addRow("here-document") << QStringLiteral("curl -d @- http://h/ <<EOF") << QStringLiteral("column 22")
                                   << QStringLiteral("here-document");
    QTest::addRow("unclosed quote") << QStringLiteral("curl -d '{\"a\": 1} http://h/") << QStringLiteral("column 9")
                                    << QStringLiteral("never closed");
}

void TestCurlCommandLine::malformed_isAnErrorNamingFlagAndPlace()
{
    QFETCH(QString, line);
    QFETCH(QString, where);
    QFETCH(QString, message);
    CurlCommandLine::Options options;
    options.baseDirectory = m_dir.path();
    const auto result = CurlCommandLine::parse(line, options);
    QVERIFY2(!result, qPrintable(requestText(result ? result->spec : RequestSpec{})));
    QCOMPARE(result.errorDetail().path, where);
    // The place as an index into the line too, for an editor's cursor.
    QCOMPARE(result.errorDetail().offset, indexOfPlace(line, where));
    QVERIFY2(result.errorDetail().message.contains(message), qPrintable(result.error()));
    QVERIFY(!result.error().contains(QLatin1String("hunter2")));
}

void TestCurlCommandLine::parseArguments_placesErrorsByArgument()
{
    auto result = CurlCommandLine::parseArguments({QStringLiteral("http://h/"), QStringLiteral("-X")});
    QVERIFY(!result);
    QCOMPARE(result.error(), QStringLiteral("argument 2: -X needs a value, <method>"));
    QCOMPARE(result.errorDetail().offset, qsizetype(-1)); // arguments one by one are not one text
    result = CurlCommandLine::parseArguments(
        {QStringLiteral("-d"), QStringLiteral("it's \"raw\" $HOME"), QStringLiteral("http://h/")});
    QVERIFY2(result, qPrintable(result.error()));
    QCOMPARE(result->spec.body, QByteArray("it's \"raw\" $HOME"));
    QVERIFY(result->notes.isEmpty()); // no shell was involved
    result = CurlCommandLine::parseArguments({QStringLiteral("--retry"), QStringLiteral("x"), QStringLiteral("h")});
    QVERIFY(!result);
    QCOMPARE(result.errorDetail().path, QStringLiteral("argument 1"));
}

void TestCurlCommandLine::separate_takesTheCallersOptionsFirst()
{
    const QList<CurlCommandLine::ExtraOption> extras{{{QStringLiteral("i"), QStringLiteral("include")}, false},
        {{QStringLiteral("o"), QStringLiteral("output")}, true}, {{QStringLiteral("policy")}, true},
        {{QStringLiteral("q"), QStringLiteral("quiet")}, false}};
    const QStringList arguments{QStringLiteral("-iL"), QStringLiteral("--policy"), QStringLiteral("iam"),
        QStringLiteral("-o"), QStringLiteral("-out.bin"), QStringLiteral("-H"), QStringLiteral("A: b"),
        QStringLiteral("http://h/"), QStringLiteral("-sq"), QStringLiteral("--policy=x.json"),
        QStringLiteral("-ofile")};
    const auto separated = CurlCommandLine::separate(arguments, extras);
    QVERIFY2(separated, qPrintable(separated.error()));
    QCOMPARE(separated->extraArguments,
        (QStringList{QStringLiteral("--include"), QStringLiteral("--policy=iam"), QStringLiteral("--output=-out.bin"),
            QStringLiteral("--quiet"), QStringLiteral("--policy=x.json"), QStringLiteral("--output=file")}));
    QVERIFY(separated->hasRequestArguments);

    CurlCommandLine::Options options;
    options.extraOptions = extras;
    const auto request = CurlCommandLine::parseArguments(arguments, options);
    QVERIFY2(request, qPrintable(request.error()));
    QCOMPARE(headerLines(request->spec.headers), QStringList{QStringLiteral("A: b")});
    QVERIFY(request->followRedirects);
    QCOMPARE(request->ignored, QStringList{QStringLiteral("-s")}); // -i, -o and -q were the caller's

    const auto onlyExtras = CurlCommandLine::separate({QStringLiteral("--policy"), QStringLiteral("iam")}, extras);
    QVERIFY(onlyExtras);
    QVERIFY(!onlyExtras->hasRequestArguments);
    const auto missing = CurlCommandLine::separate({QStringLiteral("http://h/"), QStringLiteral("--policy")}, extras);
    QVERIFY(!missing);
    QCOMPARE(missing.error(), QStringLiteral("argument 2: --policy needs a value"));
}

// ---------------------------------------------------------------- round trips

namespace {

QList<RequestSpec> roundTripSamples()
{
    QList<RequestSpec> samples;
    const auto add
        = [&samples](const char *method, const QString &url, const HeaderList &headers, const QByteArray &body) {
              RequestSpec r;
              r.method = method;
              r.url = QUrl(url);
              r.headers = headers;
              r.body = body;
              samples.append(r);
          };
    add("GET", QStringLiteral("http://127.0.0.1:8080/items?q=a%20b&page=2"), {}, {});
    add("POST", QStringLiteral("https://api.example.test/v1/orders"),
        {{"Content-Type", "application/json"}, {"X-Quote", "it's \"fine\""}},
        "{\"name\":\"O'Brien\",\"note\":\"50% off; $HOME `id` \\n\"}");
    QByteArray binary;
    for (int i = 0; i < 256; ++i)
        binary.append(char(i));
    add("PUT", QStringLiteral("http://h/blob"), {{"Content-Type", "application/octet-stream"}}, binary);
    add("HEAD", QStringLiteral("http://h/"), {{"Accept", "*/*"}}, {});
    add("DELETE", QStringLiteral("http://h/x/1"), {{"X-Empty", ""}, {"If-Match", "\"v1\""}}, {});
    add("GET", QStringLiteral("http://h/search"), {}, "{\"query\": {\"match_all\": {}}}");
    add("PURGE", QStringLiteral("http://cache.local/a.css"), {}, {});
    add("POST", QStringLiteral("http://h/"), {{"X-Greeting", QStringLiteral("Grüße 東京 🚀").toUtf8()}},
        QStringLiteral("text: Grüße 東京 🚀\n\ttabbed").toUtf8());
    add("GET", QStringLiteral("http://h/list?range=[1-3]&set={a,b}"), {}, {});
    add("POST", QStringLiteral("http://h/big"), {{"Content-Type", "text/plain"}}, QByteArray(100 * 1024, 'x'));
    add("POST", QStringLiteral("http://h/ctl"), {},
        QByteArray("a\x01"
                   "b\x7f"
                   "c\x00"
                   "d",
            7));
    add("POST", QStringLiteral("http://user:pa%20ss@h/login"), {{"Authorization", "Bearer tok"}, {"Cookie", "sid=1"}},
        "password=hunter2&user=ann");
    add("POST", QStringLiteral("http://h/at"), {}, "@notafile");
    add("POST", QStringLiteral("http://h/dash"), {}, "-d --data");
    add("PATCH", QStringLiteral("http://h/p"), {{"Content-Type", "application/merge-patch+json"}}, "{}");
    RequestSpec timed;
    timed.url = QUrl(QStringLiteral("http://h/slow"));
    timed.attemptTimeoutMs = 2500.0;
    samples.append(timed);
    return samples;
}

// What the executor sends for a request: the method in capitals, and the
// Content-Type it adds to a body without one ("Copy as curl" writes it out).
RequestSpec asSent(RequestSpec r)
{
    r.method = r.method.trimmed().toUpper();
    if (!r.body.isEmpty() && !headerValue(r.headers, "Content-Type")) {
        const QByteArray trimmed = r.body.trimmed();
        r.headers.append({"Content-Type",
            trimmed.startsWith('{') || trimmed.startsWith('[') ? QByteArray("application/json")
                                                               : QByteArray("application/octet-stream")});
    }
    return r;
}

} // namespace

void TestCurlCommandLine::roundTrip_copyAsCurlParsesBack_data()
{
    QTest::addColumn<int>("sample");
    const QList<RequestSpec> samples = roundTripSamples();
    for (int i = 0; i < samples.size(); ++i) {
        QTest::addRow("%d %s %s", i, samples[i].method.constData(),
            qPrintable(samples[i].url.toString(QUrl::FullyEncoded).left(40)))
            << i;
    }
}

void TestCurlCommandLine::roundTrip_copyAsCurlParsesBack()
{
    QFETCH(int, sample);
    const RequestSpec original = roundTripSamples().at(sample);
    const CurlCommand::Command command = CurlCommand::build(original, ExportOptions{false});
    const RequestSpec expected = asSent(original);

    const auto result = CurlCommandLine::parse(command.commandLine);
    QVERIFY2(result, qPrintable(result.error() + QStringLiteral("\n") + command.commandLine.left(300)));
    QCOMPARE(requestText(result->spec), requestText(expected));
    QCOMPARE(result->spec.attemptTimeoutMs, expected.attemptTimeoutMs);
    QVERIFY2(result->unknown.isEmpty(), qPrintable(joined(result->unknown)));
    QVERIFY2(result->ignored.isEmpty(), qPrintable(joined(result->ignored)));
    QVERIFY2(result->notes.isEmpty(), qPrintable(joined(result->notes)));

    // bash agrees: the arguments and standard input it gives curl read to the same request.
    const Invocation bash = runInBash(command.commandLine);
    QVERIFY2(bash.error.isEmpty(), qPrintable(bash.error));
    QStringList arguments;
    for (const QByteArray &a : bash.arguments)
        arguments.append(QString::fromUtf8(a));
    CurlCommandLine::Options options;
    const QByteArray input = bash.standardInput;
    options.standardInput = [input]() -> Result<QByteArray> { return input; };
    const auto fromBash = CurlCommandLine::parseArguments(arguments, options);
    QVERIFY2(fromBash, qPrintable(fromBash.error()));
    QCOMPARE(requestText(fromBash->spec), requestText(expected));
}

void TestCurlCommandLine::roundTrip_policyFlagsBecomeTheSameLimits_data()
{
    QTest::addColumn<QString>("preset");
    for (const QString &id : Presets::ids())
        QTest::addRow("%s", qPrintable(id)) << id;
}

void TestCurlCommandLine::roundTrip_policyFlagsBecomeTheSameLimits()
{
    QFETCH(QString, preset);
    const BackoffPolicy policy = *Presets::find(preset);
    RequestSpec r;
    r.url = QUrl(QStringLiteral("http://h/"));
    const auto result = CurlCommandLine::parse(CurlCommand::build(r, {}, policy).commandLine);
    QVERIFY2(result, qPrintable(result.error()));
    QVERIFY2(result->unknown.isEmpty(), qPrintable(joined(result->unknown)));

    BackoffPolicy read;
    CurlCommandLine::applyRetryHints(result->retry, read);
    if (policy.maxAttempts > 1)
        QCOMPARE(read.maxAttempts, policy.maxAttempts);
    if (policy.deadlineMs > 0.0 && policy.maxAttempts != 1)
        QCOMPARE(read.deadlineMs, std::ceil(policy.deadlineMs / 1000.0) * 1000.0);
    if (policy.attemptTimeoutMs > 0.0)
        QCOMPARE(read.attemptTimeoutMs, policy.attemptTimeoutMs);
    QVERIFY2(isUsable(read), qPrintable(describeIssues(validatePolicy(read))));
}

void TestCurlCommandLine::applyRetryHints_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QStringList>("changes");
    QTest::addRow("none") << QStringLiteral("curl http://h/") << QStringList{};
    QTest::addRow("man --retry-delay") << QStringLiteral("curl --retry-delay 5 --retry 7 https://example.com")
                                       << QStringList{QStringLiteral("maxAttempts <- --retry 7: at most 8 attempts"),
                                              QStringLiteral("baseDelayMs <- --retry-delay 5: a constant wait of "
                                                             "5000 ms (5 s) before every retry")};
    QTest::addRow("delay 0 is curl's own backoff") << QStringLiteral("curl --retry-delay 0 --retry 1 http://h/")
                                                   << QStringList{QStringLiteral("maxAttempts <- --retry 1: at most 2 "
                                                                                 "attempts")};
    QTest::addRow("times")
        << QStringLiteral("curl --retry-max-time 30 -m 2.5 --retry-all-errors http://h/")
        << QStringList{QStringLiteral("deadlineMs <- --retry-max-time 30: a total deadline of 30000 ms (30 s)"),
               QStringLiteral("attemptTimeoutMs <- --max-time 2.5: a per-attempt timeout of 2500 ms (2.5 s)"),
               QStringLiteral("classification.networkActions <- --retry-all-errors: every network "
                              "fault is retried after a delay")};
    QTest::addRow("connrefused") << QStringLiteral("curl --retry-connrefused http://h/")
                                 << QStringList{QStringLiteral("classification.networkActions.connection-refused <- "
                                                               "--retry-connrefused: a refused connection is retried "
                                                               "after a delay")};
}

void TestCurlCommandLine::applyRetryHints()
{
    QFETCH(QString, line);
    QFETCH(QStringList, changes);
    const auto result = CurlCommandLine::parse(line);
    QVERIFY2(result, qPrintable(result.error()));
    BackoffPolicy policy = *Presets::find(QStringLiteral("google-cloud-storage"));
    const BackoffPolicy before = policy;
    QStringList shown;
    for (const CurlCommandLine::PolicyChange &c : CurlCommandLine::applyRetryHints(result->retry, policy))
        shown.append(QStringLiteral("%1 <- %2: %3").arg(c.field, c.option, c.description));
    QCOMPARE(shown, changes);
    QVERIFY2(isUsable(policy), qPrintable(describeIssues(validatePolicy(policy))));
    if (changes.isEmpty()) {
        QCOMPARE(policy, before);
    } else {
        // No longer the preset: named and described as edited, once however often applied.
        QCOMPARE(policy.name, before.name + QStringLiteral(" (edited by curl --retry flags)"));
        QVERIFY(policy.description != before.description);
        QVERIFY(policy.description.contains(before.name));
        CurlCommandLine::applyRetryHints(result->retry, policy);
        QCOMPARE(policy.name, before.name + QStringLiteral(" (edited by curl --retry flags)"));
    }
    if (result->retry.delayMs && *result->retry.delayMs > 0.0) {
        QCOMPARE(policy.algorithm, BackoffAlgorithm::Constant);
        QCOMPARE(policy.baseDelayMs, *result->retry.delayMs);
    }
    if (result->retry.retryConnectionRefused) {
        QCOMPARE(policy.classification.networkActions.value(NetworkFaultClass::ConnectionRefused),
            FaultAction::RetryAfterDelay);
    }
}

void TestCurlCommandLine::supportedOptions_eachOnceWithHelp()
{
    const QList<CurlCommandLine::OptionHelp> options = CurlCommandLine::supportedOptions();
    QVERIFY(options.size() >= 30);
    QStringList names;
    for (const CurlCommandLine::OptionHelp &o : options) {
        QVERIFY2(!o.description.isEmpty(), qPrintable(o.names));
        QVERIFY2(!names.contains(o.names), qPrintable(o.names));
        names.append(o.names);
    }
    for (const char *expected : {"-X, --request", "-H, --header", "-d, --data", "--json", "-u, --user",
             "-k, --insecure", "--cacert", "-E, --cert", "-x, --proxy", "--http2", "--retry", "-m, --max-time",
             "-L, --location", "-G, --get", "-I, --head"})
        QVERIFY2(names.contains(QLatin1String(expected)), expected);
}

void TestCurlCommandLine::garbage_neverCrashesAndAlwaysSaysWhy()
{
    // Random lines from the characters that matter to a shell and to curl.
    const QString alphabet = QStringLiteral("curl -dHXkx@'\"\\$`|;&<>()#{}[]=: \n\tabc/.é");
    QRandomGenerator random(14);
    for (int i = 0; i < 3000; ++i) {
        QString line = QStringLiteral("curl ");
        const int length = random.bounded(40);
        for (int k = 0; k < length; ++k)
            line += alphabet[random.bounded(alphabet.size())];
        const auto result = CurlCommandLine::parse(line);
        if (!result)
            QVERIFY2(!result.errorDetail().message.isEmpty(), qPrintable(line));
    }
}

void TestCurlCommandLine::auth_digestAndSigV4TakeTheUser()
{
    const auto digest = CurlCommandLine::parse(QStringLiteral("curl --digest -u 'ada:pa ss' http://127.0.0.1:9/x"));
    QVERIFY2(digest, qPrintable(digest.error()));
    QCOMPARE(digest->spec.auth.kind, AuthSpec::Kind::Digest);
    QCOMPARE(digest->spec.auth.username, QStringLiteral("ada"));
    QCOMPARE(digest->spec.auth.password, QStringLiteral("pa ss"));
    // No Basic header beside it: the server's challenge is answered instead.
    QVERIFY(!headerValue(digest->spec.headers, "Authorization"));

    const auto aws = CurlCommandLine::parse(QStringLiteral(
        "curl --aws-sigv4 aws:amz:eu-west-1:sqs -u AKID:SECRET -H 'X-Amz-Security-Token: TOKEN' http://127.0.0.1:9/"));
    QVERIFY2(aws, qPrintable(aws.error()));
    QCOMPARE(aws->spec.auth.kind, AuthSpec::Kind::AwsSigV4);
    QCOMPARE(aws->spec.auth.accessKeyId, QStringLiteral("AKID"));
    QCOMPARE(aws->spec.auth.secretAccessKey, QStringLiteral("SECRET"));
    QCOMPARE(aws->spec.auth.region, QStringLiteral("eu-west-1"));
    QCOMPARE(aws->spec.auth.service, QStringLiteral("sqs"));
    QCOMPARE(aws->spec.auth.sessionToken, QStringLiteral("TOKEN"));
    QVERIFY(!headerValue(aws->spec.headers, "X-Amz-Security-Token"));
    QVERIFY(!headerValue(aws->spec.headers, "Authorization"));

    // Region and service from the host, as curl takes them.
    const auto fromHost = CurlCommandLine::parse(
        QStringLiteral("curl --aws-sigv4 aws:amz -u A:S https://s3.us-west-2.amazonaws.com/b"));
    QVERIFY2(fromHost, qPrintable(fromHost.error()));
    QCOMPARE(fromHost->spec.auth.region, QStringLiteral("us-west-2"));
    QCOMPARE(fromHost->spec.auth.service, QStringLiteral("s3"));

    // -u alone stays Basic, in a header, as before.
    const auto basic = CurlCommandLine::parse(QStringLiteral("curl -u a:b http://127.0.0.1:9/"));
    QVERIFY(basic);
    QVERIFY(basic->spec.auth.isNone());
    QCOMPARE(headerValue(basic->spec.headers, "Authorization").value_or(QByteArray()), QByteArray("Basic YTpi"));
}

void TestCurlCommandLine::auth_badSigV4IsRefusedSayingWhy()
{
    const auto noUser
        = CurlCommandLine::parse(QStringLiteral("curl --aws-sigv4 aws:amz:us-east-1:s3 http://127.0.0.1/"));
    QVERIFY(!noUser);
    QVERIFY2(noUser.error().contains(QLatin1String("-u ACCESS_KEY_ID:SECRET_ACCESS_KEY")), qPrintable(noUser.error()));
    const auto provider
        = CurlCommandLine::parse(QStringLiteral("curl --aws-sigv4 goog:x:r:s -u a:b http://127.0.0.1/"));
    QVERIFY(!provider);
    QVERIFY2(provider.error().contains(QLatin1String("\"goog\"")), qPrintable(provider.error()));
    const auto noRegion = CurlCommandLine::parse(QStringLiteral("curl --aws-sigv4 aws -u a:b http://127.0.0.1/"));
    QVERIFY(!noRegion);
    QVERIFY2(noRegion.error().contains(QLatin1String("no region")), qPrintable(noRegion.error()));
    const auto tooMany = CurlCommandLine::parse(QStringLiteral("curl --aws-sigv4 a:b:c:d:e -u a:b http://127.0.0.1/"));
    QVERIFY(!tooMany);
}

void TestCurlCommandLine::auth_copyAsCurlReadsBackTheSameAuth()
{
    RequestSpec spec;
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:9/thing?b=2&a=1"));
    AuthSpec digest;
    digest.kind = AuthSpec::Kind::Digest;
    digest.username = QStringLiteral("ada");
    digest.password = QStringLiteral("it's secret");
    AuthSpec aws;
    aws.kind = AuthSpec::Kind::AwsSigV4;
    aws.accessKeyId = QStringLiteral("AKID");
    aws.secretAccessKey = QStringLiteral("wJalr/K7MDENG+bPxRfiCY");
    aws.sessionToken = QStringLiteral("session");
    aws.region = QStringLiteral("us-east-1");
    aws.service = QStringLiteral("execute-api");
    for (const AuthSpec &auth : {digest, aws}) {
        spec.auth = auth;
        const CurlCommand::Command command = CurlCommand::build(spec, ExportOptions{false});
        const auto back = CurlCommandLine::parse(command.commandLine);
        QVERIFY2(back, qPrintable(back.error() + QLatin1Char('\n') + command.commandLine));
        QCOMPARE(back->spec.auth, auth);
        // Redacted, the secrets never reach the command.
        const CurlCommand::Command shown = CurlCommand::build(spec);
        QVERIFY(shown.credentialsRedacted);
        for (const QString &secret : auth.secrets())
            QVERIFY2(!shown.commandLine.contains(secret), qPrintable(shown.commandLine));
    }
    AuthSpec oauth;
    oauth.kind = AuthSpec::Kind::OAuth2ClientCredentials;
    oauth.tokenUrl = QStringLiteral("http://127.0.0.1:9/oauth/token");
    spec.auth = oauth;
    const CurlCommand::Command command = CurlCommand::build(spec, ExportOptions{false});
    QVERIFY2(command.notes.join(QLatin1Char(' ')).contains(QLatin1String("--oauth2-bearer")),
        qPrintable(command.notes.join(QLatin1Char(' '))));
}

QTEST_GUILESS_MAIN(TestCurlCommandLine)
#include "tst_curlcommandline.moc"
