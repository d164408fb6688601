#include "tests/app/commandtesting.h"

#include "core/collections/collectionjson.h"
#include "core/collections/environmentsjson.h"
#include "core/executor/retryexecutor.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "tests/core/executor/realservers.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab::Core;

namespace {

struct Outcome
{
    int exitCode = -1; ///< -1: crashed or did not finish
    QByteArray out;
    QString err;
};

// Runs the command without blocking this thread's event loop, which serves
// the test's own servers meanwhile.
Outcome request(
    const QStringList &arguments, const QByteArray &input = {}, const QString &binary = QStringLiteral(RETRYLAB_BINARY))
{
    QProcess process;
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(binary, QStringList{QStringLiteral("request")} + arguments);
    Outcome outcome;
    if (!process.waitForStarted(10'000)) {
        outcome.err = QStringLiteral("did not start: ") + process.errorString();
        return outcome;
    }
    process.write(input);
    process.closeWriteChannel();
    if (!finished.wait(60'000)) {
        process.kill();
        process.waitForFinished();
        outcome.err = QStringLiteral("did not finish");
        return outcome;
    }
    outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    outcome.out = process.readAllStandardOutput();
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

QString describe(const Outcome &o)
{
    return QStringLiteral("exit %1\n--- stdout\n%2\n--- stderr\n%3")
        .arg(o.exitCode)
        .arg(QString::fromUtf8(o.out.left(2000)), o.err);
}

// Fast retries for the tests: a few milliseconds between attempts.
QStringList fast()
{
    return {
        QStringLiteral("--retry-base-ms"), QStringLiteral("5"), QStringLiteral("--retry-cap-ms"), QStringLiteral("20")};
}

/// A loopback server that answers every request with the same response and
/// records what it received.
class ResponseServer final : public QTcpServer
{
public:
    struct Received
    {
        QByteArray method;
        QByteArray target;
        QByteArray head;
        QByteArray body;
    };

    ResponseServer()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { handle(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    bool start() { return listen(QHostAddress::LocalHost, 0); }
    QString url(const QString &path = QStringLiteral("/")) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(serverPort()).arg(path);
    }

    QByteArray headers = "Content-Type: application/octet-stream\r\n";
    QByteArray body;
    /// Announces 10 GB and sends `body` over and over until the client goes.
    bool endless = false;
    QList<Received> received;

private:
    void handle(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        Received r;
        r.head = buffer.left(end);
        const QList<QByteArray> requestLine = r.head.left(r.head.indexOf("\r\n")).split(' ');
        r.method = requestLine.value(0);
        r.target = requestLine.value(1);
        static const QRegularExpression lengthHeader(
            QStringLiteral("\\r\\ncontent-length: *(\\d+)"), QRegularExpression::CaseInsensitiveOption);
        const auto match = lengthHeader.match(QString::fromLatin1(r.head));
        const qint64 length = match.hasMatch() ? match.captured(1).toLongLong() : 0;
        if (buffer.size() < end + 4 + length)
            return;
        r.body = buffer.mid(end + 4, length);
        m_buffers.remove(socket);
        received.append(r);
        if (endless) {
            socket->write("HTTP/1.1 200 OK\r\n" + headers + "Content-Length: 10000000000\r\n\r\n");
            const auto more = [socket, piece = body] {
                while (socket->state() == QAbstractSocket::ConnectedState && socket->bytesToWrite() < 256 * 1024)
                    socket->write(piece);
            };
            more();
            connect(socket, &QTcpSocket::bytesWritten, socket, more);
            return;
        }
        socket->write("HTTP/1.1 200 OK\r\n" + headers + "Content-Length: " + QByteArray::number(body.size())
            + "\r\nConnection: close\r\n\r\n" + body);
        socket->disconnectFromHost();
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
};

QByteArray allBytes()
{
    QByteArray bytes;
    for (int i = 0; i < 256; ++i)
        bytes.append(char(i));
    return bytes;
}

} // namespace

class TestRequestCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void help_listsItsOwnAndCurlsOptions();
    void failTwice_succeedsOnTheThirdAttempt();
    void status500_twoAttempts_failsForGood();
    void quiet_printsOnlyTheBody();
    void fallback_answersAfterThePolicyGivesUp();
    void fallbackOn_onlyTheListedFaultsLeadToTheFallback();
    void usageErrors_exit2AndSendNothing_data();
    void usageErrors_exit2AndSendNothing();
    void include_printsStatusAndHeadersBeforeTheBody();
    void head_printsTheHeaders();
    void output_writesTheBodyByteForByte();
    void output_largerThanKept_writesNothing();
    void output_toAFullDevice_isAFileError();
    void endlessBody_maxBodyEndsTheTransfer();
    void output_largeBodyWrittenWhole();
    void largeBody_cutOnStandardOutputWithAWarning();
    void binaryBody_notDumpedOnATerminal();
    void requestOptions_reachTheServer();
    void connectionAndBodyOptions_reachTheServer();
    void fromCurl_readsAWholeCommandLine();
    void standardInput_feedsAtDash();
    void curlRetryFlags_shapeThePolicy();
    void exports_writtenAndReadBack();
    void insecure_refusedWithoutTheLongOption_data();
    void insecure_refusedWithoutTheLongOption();
    void tls_caBundleTrustsTheServer();
    void tls_unknownCertificate_failsNamingTheError();
    void tls_insecure_warnedInOutputAndReport();
    void transportFiles_badFileOrPassphrase_exit2AndSendNothing_data();
    void transportFiles_badFileOrPassphrase_exit2AndSendNothing();
    void proxy_carriesTheRequest_provenByItsLog();
    void proxy_unreachable_failsNamingTheProxy();
    void credentials_redactedUnlessNoRedact();
    void auth_fileFetchesATokenAndNeverPrintsTheSecret();
    void auth_wrongClientSecret_failsForGoodSayingWhy();
    void auth_malformedFile_exit2AndSendNothing_data();
    void auth_malformedFile_exit2AndSendNothing();
    void auth_googleServiceAccountKeyFile_relativeToTheAuthFile();
    void cliBinary_hasTheCommand();
    void collection_sendsTheNamedRequestWithItsVariables();
    void collection_savedPolicyApplies_commandLineGoesOver();
    void collection_serverPlaceholder_startsAnEmbeddedServer();
    void collection_curlRequestOption_staysCurls();
    void collection_formAndFileBodies_reachTheServer();
    void collection_streamedFile_sentWholeWithEveryAttempt();
    void collection_authInheritedFromFolderAndCollection();
    void collection_errors_exit2AndSendNothing_data();
    void collection_errors_exit2AndSendNothing();
    void collection_help_describesTheOptions();

private:
    static FaultServerOptions serverOptions()
    {
        FaultServerOptions options;
        options.httpsPort = 0; // HTTPS too, with a CA of its own
        return options;
    }

    FaultServer m_server{serverOptions()};
    QTemporaryDir m_dir;
    RealServers::Certificates m_certificates; ///< client certificates and a garbage file, made by openssl
    QString url(const QString &path) const { return m_server.baseUrl().toString() + path; }
    /// Writes the collections and environments the collection_ cases send from.
    void writeCollections();
    QString path(const char *name) const { return m_dir.filePath(QLatin1String(name)); }
};

void TestRequestCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_server.listen(), qPrintable(m_server.errorString()));
    QString error;
    QVERIFY2(m_certificates.make(m_dir.filePath(QStringLiteral("certificates")), &error), qPrintable(error));
    writeCollections();
}

void TestRequestCommand::writeCollections()
{
    // Fast retries, saved with the requests: the command line gives no --retry-*.
    BackoffPolicy fastPolicy;
    fastPolicy.name = QStringLiteral("fast");
    fastPolicy.maxAttempts = 3;
    fastPolicy.baseDelayMs = 5;
    fastPolicy.maxBackoffMs = 20;
    BackoffPolicy twoAttempts = fastPolicy;
    twoAttempts.name = QStringLiteral("two attempts");
    twoAttempts.maxAttempts = 2;

    // shop.json: two requests, the second in a folder, both through {{variables}}.
    Collection shop;
    shop.name = QStringLiteral("Shop");
    RequestDraft health;
    health.urlTemplate = QStringLiteral("{{base}}/status/200?from=health");
    shop.items.append(CollectionItem::makeRequest(QStringLiteral("Health"), health, SavedPolicy::from(fastPolicy)));
    RequestDraft create;
    create.method = QStringLiteral("POST");
    create.urlTemplate = QStringLiteral("{{base}}/fail/1?key={id}&tenant={{tenant}}");
    create.headers = {{QStringLiteral("X-Request-Id"), QStringLiteral("order-{{tenant}}"), true}};
    create.body = QStringLiteral(R"({"sku": "{{sku}}"})");
    create.idempotent = true;
    CollectionItem orders = CollectionItem::makeFolder(QStringLiteral("Orders"));
    orders.items.append(CollectionItem::makeRequest(QStringLiteral("Create"), create, SavedPolicy::from(fastPolicy)));
    shop.items.append(orders);
    QVERIFY(CommandTesting::write(path("shop.json"), CollectionJson::toJson(shop)));

    // more.json: the other cases.
    Collection more;
    more.name = QStringLiteral("More");
    RequestDraft flaky;
    flaky.urlTemplate = url(QStringLiteral("/status/503"));
    more.items.append(CollectionItem::makeRequest(QStringLiteral("Flaky"), flaky, SavedPolicy::from(twoAttempts)));
    RequestDraft embedded;
    embedded.urlTemplate = QStringLiteral("{server}/status/200?key={id}");
    more.items.append(CollectionItem::makeRequest(QStringLiteral("Embedded"), embedded, SavedPolicy::from(fastPolicy)));
    CollectionItem a = CollectionItem::makeFolder(QStringLiteral("A"));
    a.items.append(CollectionItem::makeRequest(QStringLiteral("Twin"), flaky, SavedPolicy::from(fastPolicy)));
    CollectionItem b = CollectionItem::makeFolder(QStringLiteral("B"));
    b.items.append(CollectionItem::makeRequest(QStringLiteral("Twin"), flaky, SavedPolicy::from(fastPolicy)));
    more.items.append(a);
    more.items.append(b);
    SavedPolicy gone;
    gone.preset = QStringLiteral("no-such-preset");
    more.items.append(CollectionItem::makeRequest(QStringLiteral("Old preset"), flaky, gone));
    // A credential typed into the request is written as REDACTED: it cannot be sent.
    RequestDraft typedToken = flaky;
    typedToken.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret-typed"), true}};
    more.items.append(
        CollectionItem::makeRequest(QStringLiteral("Typed token"), typedToken, SavedPolicy::from(fastPolicy)));
    RequestDraft withSecret = flaky;
    withSecret.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer {{token}}"), true}};
    more.items.append(
        CollectionItem::makeRequest(QStringLiteral("With secret"), withSecret, SavedPolicy::from(fastPolicy)));
    RequestDraft traced = flaky;
    traced.headers = {{QStringLiteral("X-Trace"), QStringLiteral("{{trace}}"), true}};
    more.items.append(CollectionItem::makeRequest(QStringLiteral("Traced"), traced, SavedPolicy::from(fastPolicy)));
    QVERIFY(CommandTesting::write(path("more.json"), CollectionJson::toJson(more)));

    // The environments, as the window keeps them: "Local" selected last.
    const QString base = m_server.baseUrl().toString();
    const QList<Environment> environments{
        {QStringLiteral("Local"),
            {{QStringLiteral("base"), base, false}, {QStringLiteral("tenant"), QStringLiteral("acme"), false},
                {QStringLiteral("sku"), QStringLiteral("sku-1"), false}},
            false},
        {QStringLiteral("Other"),
            {{QStringLiteral("base"), base, false}, {QStringLiteral("tenant"), QStringLiteral("globex"), false},
                {QStringLiteral("sku"), QStringLiteral("sku-2"), false}},
            false},
        {QStringLiteral("Partial"),
            {{QStringLiteral("base"), base, false}, {QStringLiteral("tenant"), QStringLiteral("acme"), false}}, false},
        // Its secret is not kept on disk: the file holds no value for it.
        {QStringLiteral("Secret"), {{QStringLiteral("token"), QStringLiteral("tok-not-on-disk"), true}}, false},
        // A value that would split the request once put into a header.
        {QStringLiteral("Injected"),
            {{QStringLiteral("trace"), QStringLiteral("t\r\nHost: victim\r\n\r\nGET /SMUGGLED HTTP/1.1"), false}},
            false},
    };
    QVERIFY(CommandTesting::write(
        path("environments.json"), EnvironmentsJson::toJson(environments, QStringLiteral("Local"))));
    QVERIFY(CommandTesting::write(path("unselected.json"), EnvironmentsJson::toJson(environments, QString())));
    QVERIFY(CommandTesting::write(path("broken.json"), "{\"formatVersion\": 1, \"name\": \"Broken\""));
    QVERIFY(CommandTesting::write(path("bad-item.json"),
        R"({"formatVersion": 1, "name": "Bad", "items": [{"type": "request", "id": "1", "name": "X",
            "request": {"url": 5}, "policy": {"preset": "aws-standard"}}]})"));
    QVERIFY(CommandTesting::write(path("bad-environments.json"),
        R"({"formatVersion": 1, "environments": [{"name": "E", "variables": [{"name": "not a name", "value": "1"}]}]})"));
}

void TestRequestCommand::init()
{
    m_server.reset();
}

void TestRequestCommand::help_listsItsOwnAndCurlsOptions()
{
    const Outcome o = request({QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    const QString help = QString::fromUtf8(o.out);
    for (const char *expected : {"Usage: retrylab request", "--policy", "--retry-max-attempts", "--retry-base-ms",
             "--retry-cap-ms", "--retry-deadline-ms", "--from-curl", "-i, --include", "-o, --output", "--insecure",
             "--report", "--har", "--csv", "--junit", "--no-redact", "--seed", "-q, --quiet", "-X, --request",
             "-H, --header", "-d, --data", "--json", "-u, --user", "--cacert", "-E, --cert", "-x, --proxy", "--http2",
             "--retry N", "-m, --max-time", "-L, --location"})
        QVERIFY2(help.contains(QLatin1String(expected)), expected);
}

void TestRequestCommand::failTwice_succeedsOnTheThirdAttempt()
{
    const Outcome o = request(fast() << url(QStringLiteral("/fail/2?key=t1")));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("request, attempt 1 failed: HTTP 503")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("request, attempt 2 failed: HTTP 503")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("succeeded after 3 attempts")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("HTTP/1.1 200 OK")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 3);
    QVERIFY2(o.out.startsWith("{\"failures\":2"), o.out.constData()); // the body, and only it
}

void TestRequestCommand::status500_twoAttempts_failsForGood()
{
    const Outcome o = request(
        fast() << QStringLiteral("--retry-max-attempts") << QStringLiteral("2") << url(QStringLiteral("/status/500")));
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("attempts-exhausted after 2 attempts")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 2);
    QCOMPARE(o.out, QByteArray("{\"status\":500}\n")); // the last answer's body, as curl without --fail
}

void TestRequestCommand::fallback_answersAfterThePolicyGivesUp()
{
    const Outcome o = request(fast() << QStringLiteral("--retry-max-attempts") << QStringLiteral("2")
                                     << QStringLiteral("--fallback") << url(QStringLiteral("/status/502"))
                                     << QStringLiteral("--fallback") << url(QStringLiteral("/status/200"))
                                     << url(QStringLiteral("/status/503")));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(o.out, QByteArray("{\"status\":200}\n")); // the fallback's answer
    QVERIFY2(o.err.contains(QLatin1String("trying fallback 1 of 2")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("succeeded after 4 attempts")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("from fallback 2 of 2")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 4);
    // A fallback that is not a URL is a usage error, and nothing is sent.
    const Outcome bad = request(
        {QStringLiteral("--fallback"), QStringLiteral("ftp://127.0.0.1/x"), url(QStringLiteral("/status/200"))});
    QVERIFY2(bad.exitCode == 2, qPrintable(describe(bad)));
    QVERIFY2(bad.err.contains(QLatin1String("fallback 1")), qPrintable(bad.err));
    QCOMPARE(m_server.log().size(), 4);
}

void TestRequestCommand::fallbackOn_onlyTheListedFaultsLeadToTheFallback()
{
    // 500 is transient to the policy, but the list names 503 and timeouts only: no fallback.
    const Outcome unlisted = request(fast()
        << QStringLiteral("--retry-max-attempts") << QStringLiteral("2") << QStringLiteral("--fallback")
        << url(QStringLiteral("/status/200")) << QStringLiteral("--fallback-on") << QStringLiteral("503, timeout")
        << url(QStringLiteral("/status/500")));
    QVERIFY2(unlisted.exitCode == 1, qPrintable(describe(unlisted)));
    QVERIFY2(unlisted.err.contains(QLatin1String("http-500 is not in the request's fallback list (503, timeout)")),
        qPrintable(unlisted.err));
    QCOMPARE(m_server.log().size(), 2);

    // A 400 the policy would not retry falls back when the list names its class; the move says which entry.
    const Outcome listed
        = request(fast() << QStringLiteral("--fallback") << url(QStringLiteral("/status/200"))
                         << QStringLiteral("--fallback-on") << QStringLiteral("503") << QStringLiteral("--fallback-on")
                         << QStringLiteral("4XX") << url(QStringLiteral("/status/400")));
    QVERIFY2(listed.exitCode == 0, qPrintable(describe(listed)));
    QVERIFY2(listed.err.contains(QLatin1String("\"4xx\" is in the request's fallback list")), qPrintable(listed.err));
    QVERIFY2(listed.err.contains(QLatin1String("from fallback 1 of 1")), qPrintable(listed.err));
    QCOMPARE(m_server.log().size(), 4);

    // A bad entry, or a list without fallbacks, is a usage error naming it, and nothing is sent.
    const Outcome bad = request({QStringLiteral("--fallback"), url(QStringLiteral("/status/200")),
        QStringLiteral("--fallback-on"), QStringLiteral("5xx,6xx"), url(QStringLiteral("/status/503"))});
    QVERIFY2(bad.exitCode == 2, qPrintable(describe(bad)));
    QVERIFY2(bad.err.contains(QLatin1String("--fallback-on: \"6xx\"")), qPrintable(bad.err));
    const Outcome alone
        = request({QStringLiteral("--fallback-on"), QStringLiteral("503"), url(QStringLiteral("/status/503"))});
    QVERIFY2(alone.exitCode == 2, qPrintable(describe(alone)));
    QVERIFY2(alone.err.contains(QLatin1String("give --fallback too")), qPrintable(alone.err));
    QCOMPARE(m_server.log().size(), 4);

    // --help lists it.
    const Outcome help = request({QStringLiteral("--help")});
    QVERIFY2(help.out.contains("--fallback-on <LIST>"), help.out.constData());
}

void TestRequestCommand::quiet_printsOnlyTheBody()
{
    Outcome o = request({QStringLiteral("-q"), url(QStringLiteral("/status/200"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(o.err, QString());
    QCOMPARE(o.out, QByteArray("{\"status\":200}\n"));
    o = request({QStringLiteral("-q"), QStringLiteral("--retry-max-attempts"), QStringLiteral("1"),
        url(QStringLiteral("/status/404"))});
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.startsWith(QLatin1String("retrylab request: gave-up after 1 attempt: ")), qPrintable(o.err));
}

void TestRequestCommand::usageErrors_exit2AndSendNothing_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString u = url(QStringLiteral("/status/200"));
    QTest::addRow("no URL") << QStringList{} << QStringLiteral("no URL");
    QTest::addRow("two URLs") << QStringList{u, u} << QStringLiteral("argument 2: a second URL");
    QTest::addRow("unknown option") << QStringList{QStringLiteral("--frobnicate"), u}
                                    << QStringLiteral("unknown option --frobnicate");
    QTest::addRow("curl option retrylab does not carry out") << QStringList{QStringLiteral("--proto"),
        QStringLiteral("https"), u} << QStringLiteral("unknown option --proto https");
    QTest::addRow("negative connect timeout") << QStringList{QStringLiteral("--connect-timeout"), QStringLiteral("-1"),
        u} << QStringLiteral("argument 1: --connect-timeout takes seconds, a number from 0 to");
    QTest::addRow("--resolve without an address") << QStringList{QStringLiteral("--resolve"),
        QStringLiteral("example.test:443"), u} << QStringLiteral("is not HOST:PORT:ADDRESS");
    QTest::addRow("-F with a missing file")
        << QStringList{QStringLiteral("-F"), QStringLiteral("upload=@/nonexistent/gone.bin"), u}
        << QStringLiteral("-F upload=@/nonexistent/gone.bin: there is no file /nonexistent/gone.bin");
    QTest::addRow("value missing") << QStringList{u, QStringLiteral("-H")}
                                   << QStringLiteral("argument 2: -H needs a value");
    QTest::addRow("bad --retry") << QStringList{QStringLiteral("--retry"), QStringLiteral("many"), u}
                                 << QStringLiteral("argument 1: --retry takes a whole number");
    QTest::addRow("unknown policy") << QStringList{QStringLiteral("--policy"), QStringLiteral("nope"), u}
                                    << QStringLiteral("--policy \"nope\" is neither a policy file nor a preset");
    QTest::addRow("override not a number") << QStringList{QStringLiteral("--retry-base-ms"), QStringLiteral("soon"), u}
                                           << QStringLiteral("--retry-base-ms takes a number of milliseconds");
    QTest::addRow("attempts not whole") << QStringList{QStringLiteral("--retry-max-attempts"), QStringLiteral("2.5"), u}
                                        << QStringLiteral("--retry-max-attempts takes a whole number");
    QTest::addRow("invalid policy names the option") << QStringList{QStringLiteral("--retry-cap-ms"),
        QStringLiteral("5"), QStringLiteral("--retry-base-ms"), QStringLiteral("100"),
        u} << QStringLiteral("--retry-cap-ms 5: the policy cannot be used: maxBackoffMs:");
    QTest::addRow("curl flag makes the policy invalid") << QStringList{QStringLiteral("--retry-max-attempts"),
        QStringLiteral("0"), u} << QStringLiteral("--retry-max-attempts 0: the policy cannot be used: maxAttempts:");
    QTest::addRow("--from-curl and a URL") << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl ") + u, u}
                                           << QStringLiteral("--from-curl takes the whole request");
    QTest::addRow("--from-curl unbalanced")
        << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl -H 'X: y ") + u}
        << QStringLiteral("--from-curl: column 9: the single quote");
    QTest::addRow("--from-curl -H @file")
        << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl -H @headers.txt ") + u}
        << QStringLiteral("reading headers from a file is not supported");
    QTest::addRow("-o into a missing folder") << QStringList{QStringLiteral("-o"), QStringLiteral("/nonexistent/x/out"),
        u} << QStringLiteral("-o /nonexistent/x/out: cannot write there");
    QVERIFY(QFile::link(QStringLiteral("/nonexistent-dir/out.bin"), m_dir.filePath(QStringLiteral("dangling.bin"))));
    QTest::addRow("-o through a dangling link")
        << QStringList{QStringLiteral("-o"), m_dir.filePath(QStringLiteral("dangling.bin")), u}
        << QStringLiteral("it is a symbolic link to /nonexistent-dir/out.bin, which does not exist");
    QTest::addRow("-o same as --report") << QStringList{QStringLiteral("-o"), QStringLiteral("same.json"),
        QStringLiteral("--report"), QStringLiteral("same.json"), u}
                                         << QStringLiteral("-o names a file that another");
    QTest::addRow("missing data file") << QStringList{QStringLiteral("-d"), QStringLiteral("@no-such-file.json"), u}
                                       << QStringLiteral("-d @no-such-file.json: there is no file");
    QTest::addRow("--max-body too small") << QStringList{QStringLiteral("--max-body"), QStringLiteral("10"), u}
                                          << QStringLiteral("--max-body takes a number of bytes from 4096 to");
    QTest::addRow("--max-body not a number")
        << QStringList{QStringLiteral("--max-body"), QStringLiteral("1M"), u} << QStringLiteral("not \"1M\"");
    QTest::addRow("--seed") << QStringList{QStringLiteral("--seed"), QStringLiteral("x"), u}
                            << QStringLiteral("--seed must be a whole number");
    // Request splitting: each value that becomes a header is checked where it is given,
    // directly or inside --from-curl, and the error names the option.
    const QString smuggled = QStringLiteral("x\r\n\r\nGET /SMUGGLED HTTP/1.1\r\nHost: victim");
    const QString cr = QStringLiteral("a carriage return (CR) at byte 2 cannot stand in a header value");
    for (const char *option : {"-A", "--user-agent", "-b", "--cookie", "-e", "--referer", "--oauth2-bearer"}) {
        const QString name = QString::fromLatin1(option);
        const bool cookie = name == QLatin1String("-b") || name == QLatin1String("--cookie");
        const QString value = cookie ? QStringLiteral("a=") + smuggled : smuggled;
        const QString expected
            = QStringLiteral("%1 is refused: %2")
                  .arg(name,
                      cookie ? QStringLiteral("a carriage return (CR) at byte 4 cannot stand in a header value") : cr);
        QTest::addRow("%s with CR LF", option) << QStringList{name, value, u} << expected;
    }
    QTest::addRow("-H with a control byte")
        << QStringList{QStringLiteral("-H"), QStringLiteral("X-A: 1") + QChar(0x01) + QLatin1Char('2'), u}
        << QStringLiteral("-H is refused: the byte 0x01 at byte 7 cannot stand in a header value");
    QTest::addRow("-H with an escape") << QStringList{QStringLiteral("-H"), QStringLiteral("X-A: \x1b[2J"),
        u} << QStringLiteral("-H is refused: the byte 0x1b at byte 6 cannot stand in a header value");
    QTest::addRow("-X with CR LF") << QStringList{QStringLiteral("-X"), QStringLiteral("GET\r\nHost:"), u}
                                   << QStringLiteral("is not a method name");
    QTest::addRow("--from-curl -A with CR LF") << QStringList{QStringLiteral("--from-curl"),
        QStringLiteral("curl -A $'x\\r\\nGET /SMUGGLED HTTP/1.1\\r\\nHost: victim' ") + u}
                                               << QStringLiteral("-A is refused: ") + cr;
    QTest::addRow("--from-curl -b with a line feed")
        << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl -b $'a=1\\nSet-Cookie: b=2' ") + u}
        << QStringLiteral("-b is refused: a line feed (LF) at byte 4 cannot stand in a header value");
    QTest::addRow("--from-curl --oauth2-bearer with CR LF")
        << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl --oauth2-bearer $'t\\r\\nX: 1' ") + u}
        << QStringLiteral(
               "--oauth2-bearer is refused: a carriage return (CR) at byte 2 cannot stand in a header value");
    QTest::addRow("--policy twice") << QStringList{QStringLiteral("--policy"), QStringLiteral("iam"),
        QStringLiteral("--policy=aws-standard"), u}
                                    << QStringLiteral("--policy is given more than once");
}

void TestRequestCommand::usageErrors_exit2AndSendNothing()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Outcome o = request(arguments);
    QVERIFY2(o.exitCode == 2, qPrintable(describe(o)));
    QVERIFY2(o.err.startsWith(QLatin1String("retrylab request: ")), qPrintable(o.err));
    QVERIFY2(o.err.contains(message), qPrintable(o.err));
    QVERIFY(o.out.isEmpty());
    QCOMPARE(m_server.log().size(), 0);
}

void TestRequestCommand::include_printsStatusAndHeadersBeforeTheBody()
{
    ResponseServer server;
    QVERIFY(server.start());
    server.headers = "Content-Type: text/plain\r\nSet-Cookie: sid=PLANTED-COOKIE; Path=/\r\nX-Trace: t-1\r\n";
    server.body = "hello\n";
    const Outcome o = request({QStringLiteral("-i"), server.url()});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    const QList<QByteArray> lines = o.out.split('\n');
    QCOMPARE(lines.value(0), QByteArray("HTTP/1.1 200 OK"));
    QVERIFY2(o.out.contains("\nContent-Type: text/plain\n"), o.out.constData());
    QVERIFY2(o.out.contains("\nX-Trace: t-1\n"), o.out.constData());
    QVERIFY2(o.out.contains("\nSet-Cookie: sid=REDACTED"), o.out.constData());
    QVERIFY2(o.out.endsWith("\n\nhello\n"), o.out.constData());
    QVERIFY(!o.out.contains("PLANTED"));
}

void TestRequestCommand::head_printsTheHeaders()
{
    // 204: the executor sends HEAD as a custom verb, so Qt waits for the body a
    // Content-Length announces; an answer without a body keeps that out of this test.
    const Outcome o = request({QStringLiteral("-I"), url(QStringLiteral("/status/204"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.out.startsWith("HTTP/1.1 204 No Content\n"), o.out.constData());
    QVERIFY2(o.out.contains("\nServer: RetryLab-FaultServer\n"), o.out.constData());
    QCOMPARE(m_server.log().value(0).method, QByteArray("HEAD"));
}

void TestRequestCommand::output_writesTheBodyByteForByte()
{
    ResponseServer server;
    QVERIFY(server.start());
    server.body = allBytes().repeated(40); // 10 KiB of every byte value
    const QString path = m_dir.filePath(QStringLiteral("body.bin"));
    const Outcome o = request({QStringLiteral("-o"), path, server.url(QStringLiteral("/blob"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY(o.out.isEmpty());
    QCOMPARE(CommandTesting::read(path), server.body);
    QVERIFY2(o.err.contains(QStringLiteral("Wrote the body to %1 (10.0 KiB)").arg(path)), qPrintable(o.err));

    // Without -o the bytes go to standard output as they are (it is not a terminal here).
    const Outcome piped = request({QStringLiteral("-q"), server.url(QStringLiteral("/blob"))});
    QVERIFY2(piped.exitCode == 0, qPrintable(describe(piped)));
    QCOMPARE(piped.out, server.body);
}

void TestRequestCommand::output_largerThanKept_writesNothing()
{
    ResponseServer server;
    QVERIFY(server.start());
    server.body = QByteArray(100 * 1024, 'x');
    const QString path = m_dir.filePath(QStringLiteral("kept.txt"));
    QVERIFY(CommandTesting::write(path, "what the user had"));
    const Outcome o
        = request({QStringLiteral("--max-body"), QStringLiteral("65536"), QStringLiteral("-o"), path, server.url()});
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("the body is longer than 64.0 KiB, the most RetryLab keeps of one "
                                          "(--max-body); the transfer was ended there and nothing was written")),
        qPrintable(o.err));
    QCOMPARE(CommandTesting::read(path), QByteArray("what the user had"));
}

void TestRequestCommand::endlessBody_maxBodyEndsTheTransfer()
{
    // 10 GB announced and sent without end: --max-body ends the transfer, for -o
    // (nothing written, exit 1) and on standard output (the first part shown).
    ResponseServer server;
    QVERIFY(server.start());
    server.endless = true;
    server.headers = "Content-Type: text/plain\r\n";
    server.body = QByteArray(16 * 1024, 'e');
    const QString path = m_dir.filePath(QStringLiteral("endless.txt"));
    const Outcome toFile
        = request({QStringLiteral("--max-body"), QStringLiteral("65536"), QStringLiteral("-o"), path, server.url()});
    QVERIFY2(toFile.exitCode == 1, qPrintable(describe(toFile)));
    QVERIFY2(toFile.err.contains(QLatin1String("the body is longer than 64.0 KiB, the most RetryLab keeps of one "
                                               "(--max-body); the transfer was ended there and nothing was written")),
        qPrintable(toFile.err));
    QVERIFY(!QFileInfo::exists(path));

    const Outcome shown = request({QStringLiteral("--max-body"), QStringLiteral("65536"), server.url()});
    QVERIFY2(shown.exitCode == 0, qPrintable(describe(shown)));
    QCOMPARE(shown.out, QByteArray(65536, 'e'));
    QVERIFY2(shown.err.contains(QLatin1String("warning: the body is longer than 64.0 KiB; the transfer was ended "
                                              "there and only the first 64.0 KiB are shown")),
        qPrintable(shown.err));
    QCOMPARE(server.received.size(), 2); // one attempt each: a status of 200 is a success
}

void TestRequestCommand::output_toAFullDevice_isAFileError()
{
    // The help says 2 for a file error; the request itself succeeded.
    ResponseServer server;
    QVERIFY(server.start());
    server.body = "body";
    const Outcome o = request({QStringLiteral("-o"), QStringLiteral("/dev/full"), server.url()});
    QVERIFY2(o.exitCode == 2, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("cannot write /dev/full: No space left on device")), qPrintable(describe(o)));
}

void TestRequestCommand::output_largeBodyWrittenWhole()
{
    // Larger than the executor keeps by default: -o raises what it keeps.
    ResponseServer server;
    QVERIFY(server.start());
    server.body = QByteArray(3 * 1024 * 1024, 'y') + allBytes();
    const QString path = m_dir.filePath(QStringLiteral("large.bin"));
    const Outcome o = request({QStringLiteral("-o"), path, server.url()});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY(CommandTesting::read(path) == server.body);
}

void TestRequestCommand::largeBody_cutOnStandardOutputWithAWarning()
{
    ResponseServer server;
    QVERIFY(server.start());
    server.headers = "Content-Type: text/plain\r\n";
    server.body = QByteArray(2 * 1024 * 1024, 'z');
    const Outcome o = request({server.url()});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(o.out.size(), RetryExecutor::defaultResponseBodyLimit);
    QVERIFY2(o.err.contains(QLatin1String("warning: the body has 2.0 MiB; only the first 1.0 MiB are shown")),
        qPrintable(o.err));
}

void TestRequestCommand::binaryBody_notDumpedOnATerminal()
{
    // script(1) (util-linux, in Debian's essential bsdutils package) gives the command a terminal.
    const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
    QVERIFY2(!script.isEmpty(), "script(1) is missing: install the Debian package bsdutils");
    ResponseServer server;
    QVERIFY(server.start());
    server.body = allBytes();
    const QString command = QStringLiteral("%1 request %2").arg(QStringLiteral(RETRYLAB_BINARY), server.url());
    QProcess process;
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(script, {QStringLiteral("-qec"), command, QStringLiteral("/dev/null")});
    QVERIFY(finished.wait(60'000));
    const QByteArray output = process.readAll();
    QCOMPARE(process.exitCode(), 0);
    QVERIFY2(output.contains("the body is binary (256 bytes) and is not shown on a terminal; save it with -o FILE"),
        output.constData());
    QVERIFY2(!output.contains(QByteArray("\x01\x02\x03", 3)), output.constData());
}

void TestRequestCommand::requestOptions_reachTheServer()
{
    ResponseServer server;
    QVERIFY(server.start());
    QVERIFY(CommandTesting::write(m_dir.filePath(QStringLiteral("order.json")), "{\"item\": \"book\"}\n"));
    const Outcome o = request(
        {QStringLiteral("-sSX"), QStringLiteral("PUT"), QStringLiteral("-H"), QStringLiteral("X-Test: one two"),
            QStringLiteral("--data-binary"), QStringLiteral("@") + m_dir.filePath(QStringLiteral("order.json")),
            QStringLiteral("-u"), QStringLiteral("ann:pw"), server.url(QStringLiteral("/orders/1"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(server.received.size(), 1);
    const ResponseServer::Received &r = server.received.first();
    QCOMPARE(r.method, QByteArray("PUT"));
    QCOMPARE(r.target, QByteArray("/orders/1"));
    QCOMPARE(r.body, QByteArray("{\"item\": \"book\"}\n"));
    QVERIFY2(r.head.contains("\r\nX-Test: one two\r\n"), r.head.constData());
    QVERIFY2(r.head.contains("\r\nAuthorization: Basic YW5uOnB3\r\n"), r.head.constData());
    QVERIFY2(r.head.contains("\r\nContent-Type: application/x-www-form-urlencoded\r\n"), r.head.constData());
    QVERIFY2(o.err.contains(QLatin1String("note: -s is understood and has no effect here")), qPrintable(o.err));
}

void TestRequestCommand::connectionAndBodyOptions_reachTheServer()
{
    // A pinned name, no keep-alive, a connect timeout, and a multipart body with a
    // streamed file: what arrives, and what the report says of the connection.
    ResponseServer server;
    QVERIFY(server.start());
    QVERIFY(CommandTesting::write(m_dir.filePath(QStringLiteral("note.txt")), "streamed part\n"));
    const QString report = m_dir.filePath(QStringLiteral("connection.json"));
    const QString host = QStringLiteral("api.example.test:%1").arg(server.serverPort());
    const Outcome o = request({QStringLiteral("--resolve"), host + QStringLiteral(":127.0.0.1"),
        QStringLiteral("--no-keepalive"), QStringLiteral("--connect-timeout"), QStringLiteral("2.5"),
        QStringLiteral("-F"), QStringLiteral("title=hello"), QStringLiteral("-F"),
        QStringLiteral("upload=@%1;type=text/plain").arg(m_dir.filePath(QStringLiteral("note.txt"))),
        QStringLiteral("--report"), report, QStringLiteral("http://%1/upload").arg(host)});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(server.received.size(), 1);
    const ResponseServer::Received &r = server.received.first();
    QCOMPARE(r.method, QByteArray("POST"));
    QVERIFY2(r.head.contains(QByteArray("\r\nHost: " + host.toLatin1() + "\r\n")), r.head.constData());
    QVERIFY2(r.head.contains("\r\nConnection: close\r\n"), r.head.constData());
    QVERIFY2(r.head.contains("\r\nContent-Type: multipart/form-data; boundary="), r.head.constData());
    QVERIFY2(r.body.contains("Content-Disposition: form-data; name=\"title\"\r\n\r\nhello\r\n"), r.body.constData());
    QVERIFY2(r.body.contains("Content-Type: text/plain\r\nContent-Disposition: form-data; name=\"upload\"; "
                             "filename=\"note.txt\"\r\n\r\nstreamed part\n\r\n"),
        r.body.constData());

    const auto read = ReportJson::readFile(report);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->run.requests.size(), 1);
    const TransportOptions t = read->run.requests.begin().value().transport;
    QCOMPARE(t.connectTimeoutMs, 2500.0);
    QCOMPARE(t.keepAlive, false);
    QCOMPARE(t.resolve.size(), 1);
    const AttemptRecord &a = read->run.attempts.first();
    QCOMPARE(a.connectAddress, QStringLiteral("127.0.0.1"));
    QCOMPARE(a.lookupStartNs, a.lookupEndNs); // the pin gave the address: nothing to look up
    const QJsonObject written = QJsonDocument::fromJson(CommandTesting::read(report)).object();
    const QJsonObject attempt = written.value(QStringLiteral("attempts")).toArray().first().toObject();
    QCOMPARE(attempt.value(QStringLiteral("dnsMs")).toDouble(-1), 0.0);
    QVERIFY(attempt.value(QStringLiteral("connectMs")).isDouble());
    // Known, or null when Qt reported the upload's end only after the answer began.
    QVERIFY(attempt.value(QStringLiteral("waitMs")).isDouble() || attempt.value(QStringLiteral("waitMs")).isNull());
    QVERIFY(attempt.contains(QStringLiteral("waitMs")));
    QVERIFY2(written.value(QStringLiteral("requests"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("bodyFrom"))
                 .toString()
                 .startsWith(QLatin1String("multipart/form-data: title, upload=@")),
        qPrintable(QString::fromUtf8(CommandTesting::read(report).left(600))));
}

void TestRequestCommand::fromCurl_readsAWholeCommandLine()
{
    ResponseServer server;
    QVERIFY(server.start());
    const QString line = QStringLiteral("curl -s -X POST \\\n  -H 'X-Quote: it'\\''s' \\\n  --json '{\"a\": 1}' \\\n  "
                                        "--frobnicate -o out.json %1")
                             .arg(server.url(QStringLiteral("/things")));
    const Outcome o = request({QStringLiteral("-i"), QStringLiteral("--from-curl"), line});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(server.received.size(), 1);
    const ResponseServer::Received &r = server.received.first();
    QCOMPARE(r.method, QByteArray("POST"));
    QCOMPARE(r.body, QByteArray("{\"a\": 1}"));
    QVERIFY2(r.head.contains("\r\nX-Quote: it's\r\n"), r.head.constData());
    QVERIFY2(r.head.contains("\r\nAccept: application/json\r\n"), r.head.constData());
    QVERIFY2(
        o.err.contains(QLatin1String("warning: the curl command's --frobnicate is not supported")), qPrintable(o.err));
    QVERIFY2(
        o.err.contains(QLatin1String("note: -o out.json is understood and has no effect here")), qPrintable(o.err));
    QVERIFY2(o.out.startsWith("HTTP/1.1 200 OK\n"), o.out.constData()); // retrylab's own -i
    QVERIFY(!QFileInfo::exists(QStringLiteral("out.json")));
}

void TestRequestCommand::standardInput_feedsAtDash()
{
    ResponseServer server;
    QVERIFY(server.start());
    const QByteArray input = allBytes();
    const Outcome o = request({QStringLiteral("--data-binary"), QStringLiteral("@-"), server.url()}, input);
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(server.received.value(0).body, input);
}

void TestRequestCommand::curlRetryFlags_shapeThePolicy()
{
    // --retry 1: two attempts; --retry-delay 0.01: 10 ms between them, whatever the preset says.
    const Outcome o = request({QStringLiteral("--retry"), QStringLiteral("1"), QStringLiteral("--retry-delay"),
        QStringLiteral("0.01"), QStringLiteral("-m"), QStringLiteral("5"), url(QStringLiteral("/status/503"))});
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("--retry 1: at most 2 attempts")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("retrying in 10 ms")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("attempts-exhausted after 2 attempts")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 2);

    // retrylab's own override wins over curl's flag.
    const Outcome over
        = request(fast() << QStringLiteral("--retry") << QStringLiteral("1") << QStringLiteral("--retry-max-attempts")
                         << QStringLiteral("3") << url(QStringLiteral("/status/503")));
    QVERIFY2(over.err.contains(QLatin1String("attempts-exhausted after 3 attempts")), qPrintable(over.err));
}

void TestRequestCommand::exports_writtenAndReadBack()
{
    const QString report = m_dir.filePath(QStringLiteral("run.json"));
    const QString har = m_dir.filePath(QStringLiteral("run.har"));
    const QString csv = m_dir.filePath(QStringLiteral("run.csv"));
    const QString junit = m_dir.filePath(QStringLiteral("run.xml"));
    const Outcome o = request(fast() << QStringLiteral("--report") << report << QStringLiteral("--har") << har
                                     << QStringLiteral("--csv") << csv << QStringLiteral("--junit") << junit
                                     << QStringLiteral("--policy") << QStringLiteral("aws-standard")
                                     << url(QStringLiteral("/fail/1?key=e1")));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    for (const QString &file : {report, har, csv, junit})
        QVERIFY2(o.err.contains(QDir::toNativeSeparators(file)), qPrintable(o.err));

    const auto read = ReportJson::readFile(report);
    QVERIFY2(read, qPrintable(read.error()));
    QCOMPARE(read->run.requests.size(), 1);
    QCOMPARE(read->run.attempts.size(), 2);
    QCOMPARE(read->run.results.size(), 1);
    QCOMPARE(read->run.results.first().outcome, RequestOutcome::Succeeded);
    QCOMPARE(read->run.policy.name, QStringLiteral("AWS SDK standard mode"));
    QCOMPARE(read->run.policy.baseDelayMs, 5.0);
    QCOMPARE(read->expectations.size(), 1);
    QVERIFY(read->expectations.first().passed);

    QCOMPARE(CommandTesting::parseCsv(CommandTesting::read(csv)).size(), 3); // header + two attempts
    QVERIFY(CommandTesting::read(har).contains("\"entries\""));
    QVERIFY(CommandTesting::read(junit).contains("<testcase"));
}

void TestRequestCommand::insecure_refusedWithoutTheLongOption_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString u = url(QStringLiteral("/status/200"));
    QTest::addRow("-k") << QStringList{QStringLiteral("-k"), u} << 2
                        << QStringLiteral("-k would turn certificate checks off for 127.0.0.1; retrylab request takes "
                                          "only the long --insecure");
    QTest::addRow("-sk cluster") << QStringList{QStringLiteral("-sk"), u} << 2 << QStringLiteral("-k would turn");
    QTest::addRow("from curl -k") << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl -k ") + u} << 2
                                  << QStringLiteral("the curl command turns certificate checks off for 127.0.0.1 "
                                                    "(-k/--insecure); give --insecure to retrylab request as well");
    QTest::addRow("from curl --insecure")
        << QStringList{QStringLiteral("--from-curl"), QStringLiteral("curl --insecure ") + u} << 2
        << QStringLiteral("give --insecure to retrylab request as well");
    QTest::addRow("--insecure given") << QStringList{QStringLiteral("--insecure"),
        u} << 0 << QStringLiteral("warning: --insecure: certificate errors of 127.0.0.1 are ignored");
    QTest::addRow("from curl -k with --insecure")
        << QStringList{QStringLiteral("--insecure"), QStringLiteral("--from-curl"), QStringLiteral("curl -k ") + u} << 0
        << QStringLiteral("warning: --insecure: ");
}

void TestRequestCommand::insecure_refusedWithoutTheLongOption()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Outcome o = request(arguments);
    QVERIFY2(o.exitCode == exitCode, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(message), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), exitCode == 0 ? 1 : 0);
}

void TestRequestCommand::tls_caBundleTrustsTheServer()
{
    const QString ca = m_dir.filePath(QStringLiteral("fault-server-ca.pem"));
    QVERIFY(CommandTesting::write(ca, m_server.trustAnchorsPem()));
    const QString report = m_dir.filePath(QStringLiteral("tls.json"));
    const Outcome o = request({QStringLiteral("--cacert"), ca, QStringLiteral("--tlsv1.2"), QStringLiteral("--report"),
        report, QStringLiteral("-i"), m_server.httpsBaseUrl().toString() + QStringLiteral("/status/200")});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.out.startsWith("HTTP/1.1 200"), o.out.constData());
    QCOMPARE(m_server.log().size(), 1);
    const QJsonObject attempt = QJsonDocument::fromJson(CommandTesting::read(report))
                                    .object()
                                    .value(QStringLiteral("attempts"))[0]
                                    .toObject();
    const QJsonObject tls = attempt.value(QStringLiteral("tls")).toObject();
    QVERIFY2(tls.value(QStringLiteral("protocol")).toString().startsWith(QLatin1String("TLSv1.")),
        qPrintable(QString::fromUtf8(QJsonDocument(attempt).toJson())));
    QVERIFY(!tls.value(QStringLiteral("cipher")).toString().isEmpty());
    QCOMPARE(attempt.value(QStringLiteral("protocol")).toString(), QStringLiteral("HTTP/1.1"));
}

void TestRequestCommand::tls_unknownCertificate_failsNamingTheError()
{
    // The system's CAs do not know the fault server's: the attempt fails, and
    // a certificate error is not retried (another attempt would meet the same certificate).
    const Outcome o = request(fast() << m_server.httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("certificate"), Qt::CaseInsensitive), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("after 1 attempt")), qPrintable(o.err));
    // The server saw the handshake refused, and no request.
    QTRY_COMPARE(m_server.log().size(), 1);
    const QList<ServerLogEntry> log = m_server.log();
    QCOMPARE(log.constFirst().action, QStringLiteral("tls-refused"));
    QVERIFY(log.constFirst().method.isEmpty());
}

void TestRequestCommand::tls_insecure_warnedInOutputAndReport()
{
    const QString report = m_dir.filePath(QStringLiteral("insecure.json"));
    const QString har = m_dir.filePath(QStringLiteral("insecure.har"));
    const Outcome o
        = request({QStringLiteral("--insecure"), QStringLiteral("--report"), report, QStringLiteral("--har"), har,
            m_server.tlsFaultUrl(TlsFault::UnknownCa).toString() + QStringLiteral("/status/200")});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("warning: --insecure: certificate errors of 127.0.0.1 are ignored")),
        qPrintable(o.err));
    const QJsonObject written = QJsonDocument::fromJson(CommandTesting::read(report)).object();
    QVERIFY2(written.value(QStringLiteral("insecureWarning"))
                 .toString()
                 .startsWith(QLatin1String("Certificate errors were ignored for 1 attempt (127.0.0.1)")),
        qPrintable(written.value(QStringLiteral("insecureWarning")).toString()));
    QVERIFY(CommandTesting::read(har).contains("Certificate errors were ignored"));
}

void TestRequestCommand::transportFiles_badFileOrPassphrase_exit2AndSendNothing_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString missing = m_dir.filePath(QStringLiteral("no-such-ca.pem"));
    QTest::addRow("missing CA bundle") << QStringList{QStringLiteral("--cacert"), missing}
                                       << QStringLiteral("the CA bundle %1 does not exist").arg(missing);
    QTest::addRow("garbage CA bundle") << QStringList{QStringLiteral("--cacert"), m_certificates.garbage}
                                       << m_certificates.garbage;
    QTest::addRow("missing client certificate")
        << QStringList{QStringLiteral("--cert"), m_dir.filePath(QStringLiteral("nobody.pem"))}
        << m_dir.filePath(QStringLiteral("nobody.pem"));
    QTest::addRow("wrong PKCS#12 passphrase") << QStringList{QStringLiteral("--cert-type"), QStringLiteral("P12"),
        QStringLiteral("--cert"), m_certificates.clientP12 + QStringLiteral(":PLANTED-WRONG")}
                                              << m_certificates.clientP12;
    QTest::addRow("encrypted key without its passphrase") << QStringList{QStringLiteral("--cert"),
        m_certificates.clientPem, QStringLiteral("--key"), m_certificates.clientEncryptedKey}
                                                          << m_certificates.clientEncryptedKey;
}

void TestRequestCommand::transportFiles_badFileOrPassphrase_exit2AndSendNothing()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Outcome o = request(arguments << m_server.httpsBaseUrl().toString() + QStringLiteral("/status/200"));
    QVERIFY2(o.exitCode == 2, qPrintable(describe(o)));
    QVERIFY2(o.err.startsWith(QLatin1String("retrylab request: ")), qPrintable(o.err));
    QVERIFY2(o.err.contains(message), qPrintable(o.err));
    QVERIFY2(!o.err.contains(QLatin1String("PLANTED")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 0);
}

void TestRequestCommand::proxy_carriesTheRequest_provenByItsLog()
{
    RealServers::Tinyproxy proxy(m_dir.filePath(QStringLiteral("tinyproxy")));
    QString error;
    QVERIFY2(proxy.start(QStringLiteral("ann"), QStringLiteral("PLANTED-PROXY"), &error), qPrintable(error));
    const QString target = url(QStringLiteral("/fail/1?key=via-proxy"));
    const Outcome o
        = request(fast() << QStringLiteral("-x")
                         << QStringLiteral("http://ann:PLANTED-PROXY@127.0.0.1:%1").arg(proxy.port()) << target);
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("succeeded after 2 attempts")), qPrintable(o.err));
    QVERIFY2(!o.err.contains(QLatin1String("PLANTED")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 2);
    // Both attempts went through the proxy: it logged each request it forwarded.
    QTRY_COMPARE_WITH_TIMEOUT(proxy.log().count(QLatin1String("/fail/1?key=via-proxy")) >= 2, true, 10'000);
}

void TestRequestCommand::proxy_unreachable_failsNamingTheProxy()
{
    const quint16 closed = RealServers::freePort();
    const Outcome o
        = request(fast() << QStringLiteral("--retry-max-attempts") << QStringLiteral("2") << QStringLiteral("-x")
                         << QStringLiteral("socks5://bob:PLANTED-PROXY@127.0.0.1:%1").arg(closed)
                         << url(QStringLiteral("/status/200")));
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QStringLiteral("through the SOCKS5 proxy 127.0.0.1:%1").arg(closed)), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("after 2 attempts")), qPrintable(o.err));
    QVERIFY2(!o.err.contains(QLatin1String("PLANTED")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 0);
}

void TestRequestCommand::credentials_redactedUnlessNoRedact()
{
    const QString report = m_dir.filePath(QStringLiteral("secrets.json"));
    const QStringList arguments{QStringLiteral("-u"), QStringLiteral("ann:PLANTED-USERPW"), QStringLiteral("-H"),
        QStringLiteral("X-Api-Key: PLANTED-APIKEY"), QStringLiteral("--report"), report, QStringLiteral("-i"),
        url(QStringLiteral("/fail/1?key=k9&access_token=PLANTED-QUERY"))};
    Outcome o = request(fast() + arguments);
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(!o.err.contains(QLatin1String("PLANTED")), qPrintable(o.err));
    QVERIFY2(!o.out.contains("PLANTED"), o.out.constData());
    QVERIFY(!CommandTesting::read(report).contains("PLANTED"));
    QVERIFY2(o.err.contains(QLatin1String("access_token=REDACTED")), qPrintable(o.err));

    o = request(fast() << QStringLiteral("--no-redact") << arguments);
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("warning: --no-redact")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("access_token=PLANTED-QUERY")), qPrintable(o.err));
    const QByteArray written = CommandTesting::read(report);
    QVERIFY(written.contains("PLANTED-APIKEY"));
    QVERIFY(written.contains(QByteArray(QByteArray("Basic ") + QByteArray("ann:PLANTED-USERPW").toBase64())));
}

void TestRequestCommand::cliBinary_hasTheCommand()
{
    const Outcome o = request(fast() << url(QStringLiteral("/fail/1?key=c1")), {}, QStringLiteral(RETRYLAB_CLI_BINARY));
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("succeeded after 2 attempts")), qPrintable(o.err));
}

void TestRequestCommand::collection_sendsTheNamedRequestWithItsVariables()
{
    const Outcome o = request({QStringLiteral("--collection"), path("shop.json"), QStringLiteral("--request"),
        QStringLiteral("Orders/Create"), QStringLiteral("--env"), path("environments.json")});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QStringLiteral("note: sending the saved request \"Orders/Create\" of %1 with the "
                                           "environment \"Local\" of %2")
                                .arg(path("shop.json"), path("environments.json"))),
        qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("succeeded after 2 attempts")), qPrintable(o.err));
    QVERIFY2(o.out.startsWith("{\"failures\":1"), o.out.constData());
    // Only the named request went out, with the variables of the environment selected
    // last and {id} one new key for both attempts.
    const QList<ServerLogEntry> log = m_server.log();
    QCOMPARE(log.size(), 2);
    static const QRegularExpression target(QStringLiteral("^/fail/1\\?key=([0-9a-z]{4}-1)&tenant=acme$"));
    const auto first = target.match(log.at(0).target);
    QVERIFY2(first.hasMatch(), qPrintable(log.at(0).target));
    QCOMPARE(log.at(1).target, log.at(0).target);
    QCOMPARE(log.at(0).method, QByteArray("POST"));
    QCOMPARE(log.at(0).identityHeader("x-request-id"), std::optional<QByteArray>("order-acme"));
    QCOMPARE(log.at(0).bodyDigest, ServerLogEntry::bodyDigestOf(R"({"sku": "sku-1"})"));

    // By its name alone, unique in the file, and with another environment of the file.
    m_server.reset();
    const Outcome other = request({QStringLiteral("--collection"), path("shop.json"), QStringLiteral("--request"),
        QStringLiteral("Create"), QStringLiteral("--env"), path("environments.json"), QStringLiteral("--env-name"),
        QStringLiteral("Other"), QStringLiteral("-q")});
    QVERIFY2(other.exitCode == 0, qPrintable(describe(other)));
    QVERIFY2(!other.err.contains(QLatin1String("sending")), qPrintable(other.err)); // -q: no notes
    QCOMPARE(m_server.log().size(), 2);
    QVERIFY2(
        m_server.log().at(0).target.endsWith(QLatin1String("&tenant=globex")), qPrintable(m_server.log().at(0).target));
    QCOMPARE(m_server.log().at(0).bodyDigest, ServerLogEntry::bodyDigestOf(R"({"sku": "sku-2"})"));
}

void TestRequestCommand::collection_savedPolicyApplies_commandLineGoesOver()
{
    const QStringList flaky{
        QStringLiteral("--collection"), path("more.json"), QStringLiteral("--request"), QStringLiteral("Flaky")};
    // The policy saved with the request: two attempts.
    Outcome o = request(flaky);
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(
        o.err.contains(QLatin1String("under the policy \"two attempts\" (saved with the request)")), qPrintable(o.err));
    QVERIFY2(o.err.contains(QLatin1String("attempts-exhausted after 2 attempts")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 2);

    // --retry-* over it.
    m_server.reset();
    o = request(flaky + QStringList{QStringLiteral("--retry-max-attempts"), QStringLiteral("3")});
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("attempts-exhausted after 3 attempts")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 3);

    // --policy instead of it.
    m_server.reset();
    o = request(flaky + QStringList{QStringLiteral("--policy"), QStringLiteral("aws-standard")} + fast());
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("(preset aws-standard;")), qPrintable(o.err));
    QCOMPARE(m_server.log().size(), 3);
}

void TestRequestCommand::collection_serverPlaceholder_startsAnEmbeddedServer()
{
    const Outcome o = request({QStringLiteral("--collection"), path("more.json"), QStringLiteral("--request"),
        QStringLiteral("Embedded"), QStringLiteral("-q")});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(o.out, QByteArray("{\"status\":200}\n"));
    QCOMPARE(m_server.log().size(), 0); // another server answered: the command's own
}

void TestRequestCommand::collection_curlRequestOption_staysCurls()
{
    // Without --collection, --request is curl's -X, as before.
    const Outcome o = request(
        {QStringLiteral("-q"), QStringLiteral("--request"), QStringLiteral("PUT"), url(QStringLiteral("/status/200"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QCOMPARE(m_server.log().size(), 1);
    QCOMPARE(m_server.log().at(0).method, QByteArray("PUT"));
}

void TestRequestCommand::collection_formAndFileBodies_reachTheServer()
{
    // The composer's body modes, saved in a collection and sent from it headless:
    // a URL-encoded form, a multipart form with a file and a whole file, their
    // {{variables}} filled in, the files read when sent.
    ResponseServer server;
    QVERIFY(server.start());
    QVERIFY(CommandTesting::write(path("note.txt"), "multipart file part\n"));
    QVERIFY(CommandTesting::write(path("blob.bin"), allBytes().repeated(8)));
    Collection bodies;
    bodies.name = QStringLiteral("Bodies");
    RequestDraft form;
    form.method = QStringLiteral("POST");
    form.urlTemplate = QStringLiteral("{{base}}/form");
    form.bodyFrom.mode = DraftBody::Mode::UrlEncoded;
    form.bodyFrom.fields = {{QStringLiteral("q"), QStringLiteral("a b&c"), {}, {}, {}, true},
        {QStringLiteral("who"), QStringLiteral("{{tenant}}"), {}, {}, {}, true}};
    bodies.items.append(CollectionItem::makeRequest(QStringLiteral("Form"), form, {}));
    RequestDraft upload = form;
    upload.urlTemplate = QStringLiteral("{{base}}/upload");
    upload.bodyFrom.mode = DraftBody::Mode::Multipart;
    upload.bodyFrom.fields = {{QStringLiteral("title"), QStringLiteral("{{tenant}}"), {}, {}, {}, true},
        {QStringLiteral("upload"), {}, QStringLiteral("{{dir}}/note.txt"), {}, QStringLiteral("text/plain"), true}};
    bodies.items.append(CollectionItem::makeRequest(QStringLiteral("Upload"), upload, {}));
    RequestDraft streamed = form;
    streamed.method = QStringLiteral("PUT");
    streamed.urlTemplate = QStringLiteral("{{base}}/blob");
    streamed.bodyFrom.mode = DraftBody::Mode::File;
    streamed.bodyFrom.filePath = QStringLiteral("{{dir}}/blob.bin");
    bodies.items.append(CollectionItem::makeRequest(QStringLiteral("Streamed"), streamed, {}));
    QVERIFY(CommandTesting::write(path("bodies.json"), CollectionJson::toJson(bodies)));
    const QList<Environment> environments{{QStringLiteral("Here"),
        {{QStringLiteral("base"), server.url(QString()), false},
            {QStringLiteral("tenant"), QStringLiteral("acme"), false}, {QStringLiteral("dir"), m_dir.path(), false}},
        false}};
    QVERIFY(CommandTesting::write(path("bodies-env.json"), EnvironmentsJson::toJson(environments, QString())));

    for (const char *name : {"Form", "Upload", "Streamed"}) {
        const Outcome o = request({QStringLiteral("--collection"), path("bodies.json"), QStringLiteral("--request"),
            QLatin1String(name), QStringLiteral("--env"), path("bodies-env.json"), QStringLiteral("-q")});
        QVERIFY2(o.exitCode == 0, qPrintable(QLatin1String(name) + QLatin1Char(' ') + describe(o)));
    }
    QCOMPARE(server.received.size(), 3);
    const ResponseServer::Received &sentForm = server.received.at(0);
    QCOMPARE(sentForm.body, QByteArray("q=a+b%26c&who=acme"));
    QVERIFY2(
        sentForm.head.contains("\r\nContent-Type: application/x-www-form-urlencoded\r\n"), sentForm.head.constData());
    const ResponseServer::Received &sentUpload = server.received.at(1);
    QVERIFY2(sentUpload.head.contains("\r\nContent-Type: multipart/form-data; boundary="), sentUpload.head.constData());
    QVERIFY2(sentUpload.body.contains("Content-Disposition: form-data; name=\"title\"\r\n\r\nacme\r\n"),
        sentUpload.body.constData());
    QVERIFY2(sentUpload.body.contains("Content-Type: text/plain\r\nContent-Disposition: form-data; name=\"upload\"; "
                                      "filename=\"note.txt\"\r\n\r\nmultipart file part\n\r\n"),
        sentUpload.body.constData());
    const ResponseServer::Received &sentFile = server.received.at(2);
    QCOMPARE(sentFile.method, QByteArray("PUT"));
    QCOMPARE(sentFile.body, allBytes().repeated(8));

    // A file gone since it was saved: exit 2, naming it, nothing sent.
    QVERIFY(QFile::remove(path("blob.bin")));
    const Outcome gone = request({QStringLiteral("--collection"), path("bodies.json"), QStringLiteral("--request"),
        QStringLiteral("Streamed"), QStringLiteral("--env"), path("bodies-env.json")});
    QCOMPARE(gone.exitCode, 2);
    QVERIFY2(gone.err.contains(path("blob.bin")), qPrintable(gone.err));
    QCOMPARE(server.received.size(), 3);
}

void TestRequestCommand::collection_streamedFile_sentWholeWithEveryAttempt()
{
    // A retried request reads its file again: both attempts carry all of it.
    const QByteArray content = allBytes().repeated(64); // 16 KiB
    QVERIFY(CommandTesting::write(path("retried.bin"), content));
    Collection collection;
    collection.name = QStringLiteral("Retried");
    RequestDraft put;
    put.method = QStringLiteral("PUT");
    put.urlTemplate = url(QStringLiteral("/fail/1?key={id}"));
    put.bodyFrom.mode = DraftBody::Mode::File;
    put.bodyFrom.filePath = path("retried.bin");
    BackoffPolicy fast;
    fast.name = QStringLiteral("fast");
    fast.maxAttempts = 3;
    fast.baseDelayMs = 5;
    fast.maxBackoffMs = 20;
    collection.items.append(CollectionItem::makeRequest(QStringLiteral("Put"), put, SavedPolicy::from(fast)));
    QVERIFY(CommandTesting::write(path("retried.json"), CollectionJson::toJson(collection)));
    m_server.reset();
    const Outcome o = request(
        {QStringLiteral("--collection"), path("retried.json"), QStringLiteral("--request"), QStringLiteral("Put")});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("succeeded after 2 attempts")), qPrintable(o.err));
    const QList<ServerLogEntry> log = m_server.log();
    QCOMPARE(log.size(), 2);
    for (const ServerLogEntry &entry : log)
        QCOMPARE(entry.bodyDigest, ServerLogEntry::bodyDigestOf(content));
}

void TestRequestCommand::collection_authInheritedFromFolderAndCollection()
{
    // A request with "No auth" (Inherit) takes its folder's; one outside the folder the collection's.
    ResponseServer server;
    QVERIFY(server.start());
    Collection collection;
    collection.name = QStringLiteral("Inheriting");
    collection.auth.kind = AuthSpec::Kind::Bearer;
    collection.auth.token = QStringLiteral("{{token}}");
    RequestDraft plain;
    plain.urlTemplate = server.url(QStringLiteral("/who"));
    CollectionItem admin = CollectionItem::makeFolder(QStringLiteral("Admin"));
    admin.auth.kind = AuthSpec::Kind::ApiKey;
    admin.auth.key = QStringLiteral("X-Tenant");
    admin.auth.value = QStringLiteral("{{tenant}}");
    admin.items.append(CollectionItem::makeRequest(QStringLiteral("Inner"), plain, {}));
    collection.items.append(admin);
    collection.items.append(CollectionItem::makeRequest(QStringLiteral("Top"), plain, {}));
    QVERIFY(CommandTesting::write(path("inheriting.json"), CollectionJson::toJson(collection)));
    const QList<Environment> environments{{QStringLiteral("Here"),
        {{QStringLiteral("token"), QStringLiteral("tok-42"), false},
            {QStringLiteral("tenant"), QStringLiteral("acme"), false}},
        false}};
    QVERIFY(CommandTesting::write(path("inheriting-env.json"), EnvironmentsJson::toJson(environments, QString())));
    for (const char *name : {"Admin/Inner", "Top"}) {
        const Outcome o = request({QStringLiteral("--collection"), path("inheriting.json"), QStringLiteral("--request"),
            QLatin1String(name), QStringLiteral("--env"), path("inheriting-env.json"), QStringLiteral("-q")});
        QVERIFY2(o.exitCode == 0, qPrintable(QLatin1String(name) + QLatin1Char(' ') + describe(o)));
    }
    QCOMPARE(server.received.size(), 2);
    QVERIFY2(server.received.at(0).head.contains("\r\nX-Tenant: acme\r\n"), server.received.at(0).head.constData());
    QVERIFY2(!server.received.at(0).head.contains("Authorization"), server.received.at(0).head.constData());
    QVERIFY2(server.received.at(1).head.contains("\r\nAuthorization: Bearer tok-42\r\n"),
        server.received.at(1).head.constData());
}

void TestRequestCommand::collection_errors_exit2AndSendNothing_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString collection = QStringLiteral("--collection");
    const QString name = QStringLiteral("--request");
    const QString env = QStringLiteral("--env");
    const QString envName = QStringLiteral("--env-name");
    const QString shop = path("shop.json");
    const QString more = path("more.json");
    const QString environments = path("environments.json");

    QTest::addRow("unknown name") << QStringList{collection, shop, name, QStringLiteral("Nope"), env, environments}
                                  << QStringLiteral("--request \"Nope\": %1 has no request of that name or path; it "
                                                    "has Health, Orders/Create")
                                         .arg(shop);
    QTest::addRow("two of that name") << QStringList{collection, more, name, QStringLiteral("Twin")}
                                      << QStringLiteral("--request \"Twin\" names 2 requests of %1 (A/Twin, B/Twin): "
                                                        "give its path")
                                             .arg(more);
    QTest::addRow("no --request") << QStringList{collection, shop}
                                  << QStringLiteral("--collection needs --request NAME, one of the requests of %1: "
                                                    "Health, Orders/Create")
                                         .arg(shop);
    QTest::addRow("missing collection") << QStringList{collection, path("missing.json"), name, QStringLiteral("X")}
                                        << QStringLiteral("--collection: %1 cannot be read").arg(path("missing.json"));
    QTest::addRow("not JSON") << QStringList{collection, path("broken.json"), name, QStringLiteral("X")}
                              << QStringLiteral("--collection %1: not valid JSON").arg(path("broken.json"));
    QTest::addRow("damaged item") << QStringList{collection, path("bad-item.json"), name, QStringLiteral("X")}
                                  << QStringLiteral(
                                         "--collection %1: items[0].request.url: expected a string, got a number")
                                         .arg(path("bad-item.json"));
    QTest::addRow("variable, no --env") << QStringList{collection, shop, name, QStringLiteral("Health")}
                                        << QStringLiteral("the saved request \"Health\" of %1 uses {{base}}; give "
                                                          "--env FILE")
                                               .arg(shop);
    QTest::addRow("variable the environment lacks")
        << QStringList{collection, shop, name, QStringLiteral("Orders/Create"), env, environments, envName,
               QStringLiteral("Partial")}
        << QStringLiteral("{{sku}} has no value in the environment \"Partial\" of %1 (the saved request "
                          "\"Orders/Create\" of %2 uses it)")
               .arg(environments, shop);
    QTest::addRow("secret not on disk")
        << QStringList{collection, more, name, QStringLiteral("With secret"), env, environments, envName,
               QStringLiteral("Secret")}
        << QStringLiteral("{{token}} is a secret, and the file keeps its value only when the environment keeps its "
                          "secrets on disk");
    QTest::addRow("environment value splitting a header")
        << QStringList{collection, more, name, QStringLiteral("Traced"), env, environments, envName,
               QStringLiteral("Injected")}
        << QStringLiteral("Header 1 (X-Trace): a carriage return (CR) at byte 2 cannot stand in a header value");
    QTest::addRow("missing environments file") << QStringList{collection, shop, name, QStringLiteral("Health"), env,
        path("missing-env.json")} << QStringLiteral("--env: %1 cannot be read").arg(path("missing-env.json"));
    QTest::addRow("damaged environments file")
        << QStringList{collection, shop, name, QStringLiteral("Health"), env, path("bad-environments.json")}
        << QStringLiteral("--env %1: environments[0].variables[0].name: \"not a name\" is not a variable name")
               .arg(path("bad-environments.json"));
    QTest::addRow("unknown environment")
        << QStringList{collection, shop, name, QStringLiteral("Health"), env, environments, envName,
               QStringLiteral("Prod")}
        << QStringLiteral("--env-name \"Prod\": %1 has no environment of that name; it has Local, Other, Partial, "
                          "Secret")
               .arg(environments);
    QTest::addRow("none selected")
        << QStringList{collection, shop, name, QStringLiteral("Health"), env, path("unselected.json")}
        << QStringLiteral("--env %1 holds 5 environments and none is selected: choose one with --env-name")
               .arg(path("unselected.json"));
    QTest::addRow("preset this RetryLab lacks")
        << QStringList{collection, more, name, QStringLiteral("Old preset")}
        << QStringLiteral("uses the preset \"no-such-preset\", which this RetryLab does not have; give --policy");
    QTest::addRow("credential saved as REDACTED") << QStringList{collection, more, name,
        QStringLiteral("Typed token")} << QStringLiteral("the value of Authorization was not saved and reads REDACTED");
    QTest::addRow("a URL as well") << QStringList{collection, shop, name, QStringLiteral("Health"),
        url(QStringLiteral("/status/200"))}
                                   << QStringLiteral("--collection takes the request from the file");
    QTest::addRow("--env without --collection") << QStringList{env, environments, url(QStringLiteral("/status/200"))}
                                                << QStringLiteral("--env and --env-name fill in a saved request's "
                                                                  "variables");
}

void TestRequestCommand::collection_errors_exit2AndSendNothing()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const Outcome o = request(arguments);
    QVERIFY2(o.exitCode == 2, qPrintable(describe(o)));
    QVERIFY2(o.err.startsWith(QLatin1String("retrylab request: ")), qPrintable(o.err));
    QVERIFY2(o.err.contains(message), qPrintable(o.err));
    QVERIFY(o.out.isEmpty());
    QCOMPARE(m_server.log().size(), 0);
}

void TestRequestCommand::collection_help_describesTheOptions()
{
    const Outcome o = request({QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    const QString help = QString::fromUtf8(o.out);
    for (const char *expected :
        {"--collection FILE --request NAME [--env FILE]", "--collection <FILE>", "--request <NAME>", "--env <FILE>",
            "--env-name <NAME>", "A saved request (--collection FILE --request NAME)", "--request is curl's -X."})
        QVERIFY2(help.contains(QLatin1String(expected)), expected);
}

void TestRequestCommand::auth_fileFetchesATokenAndNeverPrintsTheSecret()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString authFile = dir.filePath(QStringLiteral("auth.json"));
    QFile file(authFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QJsonDocument(QJsonObject{{QStringLiteral("type"), QStringLiteral("oauth2-client-credentials")},
                                 {QStringLiteral("tokenUrl"), url(QStringLiteral("/oauth/token"))},
                                 {QStringLiteral("clientId"), QStringLiteral("retrylab")},
                                 {QStringLiteral("clientSecret"), QStringLiteral("retrylab-secret")}})
                   .toJson());
    file.close();
    const QString report = dir.filePath(QStringLiteral("report.json"));
    const Outcome o = request(fast()
        + QStringList{QStringLiteral("--auth"), authFile, QStringLiteral("--report"), report,
            url(QStringLiteral("/oauth/protected"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("access token from")), qPrintable(describe(o)));
    QVERIFY(!o.err.contains(QLatin1String("retrylab-secret")));
    QFile written(report);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QByteArray json = written.readAll();
    QVERIFY(json.contains("\"kind\": \"token\""));
    QVERIFY(json.contains("oauth2-client-credentials"));
    QVERIFY(!json.contains("retrylab-secret"));
}

void TestRequestCommand::auth_wrongClientSecret_failsForGoodSayingWhy()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString authFile = dir.filePath(QStringLiteral("auth.json"));
    QFile file(authFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral(R"({"type": "oauth2-client-credentials", "tokenUrl": "%1", "clientId": "retrylab",
        "clientSecret": "wrong-one"})")
                   .arg(url(QStringLiteral("/oauth/token")))
                   .toUtf8());
    file.close();
    const Outcome o
        = request(fast() + QStringList{QStringLiteral("--auth"), authFile, url(QStringLiteral("/oauth/protected"))});
    QVERIFY2(o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("invalid_client")), qPrintable(describe(o)));
    QVERIFY2(o.err.contains(QLatin1String("after 1 attempt")), qPrintable(describe(o)));
    QVERIFY(!o.err.contains(QLatin1String("wrong-one")));
}

void TestRequestCommand::auth_malformedFile_exit2AndSendNothing_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::addRow("not JSON") << QByteArray("{type: basic") << QStringLiteral("auth.json: line 1");
    QTest::addRow("unknown type") << QByteArray(R"({"type": "ntlm"})") << QStringLiteral("unknown auth type \"ntlm\"");
    QTest::addRow("field of another type")
        << QByteArray(R"({"type": "bearer", "token": "t", "username": "u"})") << QStringLiteral("username");
    QTest::addRow("missing secret") << QByteArray(R"({"type": "aws-sigv4", "accessKeyId": "A", "region": "r",
        "service": "s"})") << QStringLiteral("secret access key is empty");
    QTest::addRow("service account without key file")
        << QByteArray(R"({"type": "google-service-account", "keyFile": "nowhere.json"})")
        << QStringLiteral("nowhere.json");
}

void TestRequestCommand::auth_malformedFile_exit2AndSendNothing()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString authFile = dir.filePath(QStringLiteral("auth.json"));
    QFile file(authFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();
    const qsizetype before = m_server.log().size();
    const Outcome o
        = request(fast() + QStringList{QStringLiteral("--auth"), authFile, url(QStringLiteral("/status/200"))});
    QVERIFY2(o.exitCode == 2 || o.exitCode == 1, qPrintable(describe(o)));
    QVERIFY2(o.err.contains(expected), qPrintable(describe(o)));
    QCOMPARE(m_server.log().size(), before); // nothing was sent
}

void TestRequestCommand::auth_googleServiceAccountKeyFile_relativeToTheAuthFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Result<QByteArray> key = m_server.serviceAccountKeyFile();
    QVERIFY2(key, qPrintable(key.error()));
    QFile keyFile(dir.filePath(QStringLiteral("key.json")));
    QVERIFY(keyFile.open(QIODevice::WriteOnly));
    keyFile.write(*key);
    keyFile.close();
    QFile authFile(dir.filePath(QStringLiteral("auth.json")));
    QVERIFY(authFile.open(QIODevice::WriteOnly));
    authFile.write(R"({"type": "google-service-account", "keyFile": "key.json"})");
    authFile.close();
    // Run from elsewhere: the key file is found beside the auth file.
    const Outcome o = request(
        fast() + QStringList{QStringLiteral("--auth"), authFile.fileName(), url(QStringLiteral("/oauth/protected"))});
    QVERIFY2(o.exitCode == 0, qPrintable(describe(o)));
    QVERIFY(!o.err.contains(QLatin1String("PRIVATE KEY")));
}

QTEST_GUILESS_MAIN(TestRequestCommand)
#include "tst_requestcommand.moc"
