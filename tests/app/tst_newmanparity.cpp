// Parity with newman: the same Postman collections run by newman 6 (the
// node_tools fixture installs it) and by `retrylab run`, each against the same
// httpbin (tests/tools/httpbin-logged.py), which logs every request it gets.
// The two logs must show the same requests in the same order, with the same
// methods, targets, headers (those each client adds on its own aside, see
// ownHeaders()) and bodies; every pm.test must pass or fail the same way.
// Then faults: against the fault server's /fail/2, newman fails and
// `retrylab run` with a policy retries and passes, and its report says so.

#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "tests/tools/requiredtool.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace RetryLab::Core;

namespace {

const QString sourceDir = QStringLiteral(RETRYLAB_SOURCE_DIR);
const QString dataDir = sourceDir + QStringLiteral("/tests/app/data/newman");

/// The headers each client adds on its own, whatever the collection says;
/// the comparison leaves them out (names in lower case).
const QSet<QString> &ownHeaders()
{
    static const QSet<QString> names{
        // Each client names itself ("PostmanRuntime/7.39.1", Qt's "Mozilla/5.0").
        QStringLiteral("user-agent"),
        // newman: a fresh UUID per request, so that Postman's servers tell two sends apart.
        QStringLiteral("postman-token"),
        // The encodings each HTTP stack decodes (newman "gzip, deflate, br", Qt adds zstd).
        QStringLiteral("accept-encoding"),
        // Connection reuse, the transport's business ("keep-alive" and "Keep-Alive").
        QStringLiteral("connection"),
        // newman sends "no-cache" to keep proxies' caches out of a test run.
        QStringLiteral("cache-control"),
        // The same host and port for both; written by each HTTP stack.
        QStringLiteral("host"),
        // Follows from the body, which is compared itself.
        QStringLiteral("content-length"),
        // RetryLab's attempt headers, which name the logical request and the attempt.
        QStringLiteral("x-retry-request-id"),
        QStringLiteral("x-retry-attempt"),
        // A REAL DIFFERENCE, likewise: Qt adds "Accept-Language: en,*" to every
        // request, newman sends none.
        QStringLiteral("accept-language"),
    };
    return names;
}

/// One line of httpbin-logged.py's log.
struct LoggedRequest
{
    QString method;
    QString target;
    QList<std::pair<QString, QString>> headers; ///< as sent: names in their case, in their order
    QString body; ///< UTF-8 text, or "base64:..." when it was not
};

QList<LoggedRequest> readLog(const QString &path)
{
    QList<LoggedRequest> requests;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return requests;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.isEmpty())
            continue;
        const QJsonObject entry = QJsonDocument::fromJson(line).object();
        LoggedRequest request;
        request.method = entry.value(QLatin1String("method")).toString();
        request.target = entry.value(QLatin1String("target")).toString();
        const QJsonArray headers = entry.value(QLatin1String("headers")).toArray();
        for (const QJsonValue &header : headers)
            request.headers.append({header[0].toString(), header[1].toString()});
        request.body = entry.contains(QLatin1String("body"))
            ? entry.value(QLatin1String("body")).toString()
            : QStringLiteral("base64:") + entry.value(QLatin1String("bodyBase64")).toString();
        requests.append(request);
    }
    return requests;
}

/// Values that differ from run to run by design compared by their shape:
/// {{$guid}}/{{$randomUUID}}, {{$timestamp}}, {{$isoTimestamp}}.
QString masked(QString text)
{
    static const QRegularExpression uuid(
        QStringLiteral("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"));
    static const QRegularExpression iso(QStringLiteral("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"));
    static const QRegularExpression seconds(QStringLiteral("(?<![0-9])1[0-9]{9}(?![0-9])"));
    text.replace(uuid, QStringLiteral("<uuid>"));
    text.replace(iso, QStringLiteral("<iso-time>"));
    text.replace(seconds, QStringLiteral("<unix-seconds>"));
    return text;
}

/// A request as text for QCOMPARE: the method and target, the headers the
/// collection decides (sorted by name: their order on the wire is each HTTP
/// stack's own), and the body. A multipart boundary, which each client draws
/// at random, becomes <boundary>.
QString comparable(const LoggedRequest &request)
{
    QStringList headers;
    QString boundary;
    for (const auto &[name, value] : request.headers) {
        if (ownHeaders().contains(name.toLower()))
            continue;
        headers.append(name.toLower() + QStringLiteral(": ") + value);
        const qsizetype at = value.indexOf(QLatin1String("boundary="));
        if (name.compare(QLatin1String("content-type"), Qt::CaseInsensitive) == 0 && at >= 0)
            boundary = value.mid(at + 9).section(QLatin1Char(';'), 0, 0).remove(QLatin1Char('"'));
    }
    headers.sort();
    QString text = request.method + QLatin1Char(' ') + request.target + QLatin1Char('\n')
        + headers.join(QLatin1Char('\n')) + QStringLiteral("\n\n") + request.body;
    if (!boundary.isEmpty())
        text.replace(boundary, QStringLiteral("<boundary>"));
    return masked(text);
}

/// Each item's id to its path in the collection newman's report holds:
/// its folders' names and its own, joined by '/', as RetryLab names a request.
void collectPaths(const QJsonArray &items, const QString &prefix, QHash<QString, QString> *paths)
{
    for (const QJsonValue &item : items) {
        const QString path = prefix + item[QLatin1String("name")].toString();
        paths->insert(item[QLatin1String("id")].toString(), path);
        collectPaths(item[QLatin1String("item")].toArray(), path + QLatin1Char('/'), paths);
    }
}

/// "request path › test: passed|failed", in the order the tests ran, from
/// newman's JSON report (run.executions[].assertions[]); skipped tests are
/// left out.
QStringList newmanVerdicts(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {QStringLiteral("no newman report at ") + path};
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    QHash<QString, QString> paths;
    collectPaths(report.value(QLatin1String("collection"))[QLatin1String("item")].toArray(), QString(), &paths);
    const QJsonObject run = report.value(QLatin1String("run")).toObject();
    QStringList verdicts;
    const QJsonArray executions = run.value(QLatin1String("executions")).toArray();
    for (const QJsonValue &execution : executions) {
        const QJsonValue item = execution[QLatin1String("item")];
        const QString request
            = paths.value(item[QLatin1String("id")].toString(), item[QLatin1String("name")].toString());
        const QJsonArray assertions = execution[QLatin1String("assertions")].toArray();
        for (const QJsonValue &assertion : assertions) {
            if (assertion[QLatin1String("skipped")].toBool())
                continue;
            verdicts.append(QStringLiteral("%1 › %2: %3")
                                .arg(request, assertion[QLatin1String("assertion")].toString(),
                                    assertion[QLatin1String("error")].isObject() ? QStringLiteral("failed")
                                                                                 : QStringLiteral("passed")));
        }
    }
    return verdicts;
}

/// The same from RetryLab's JUnit file: one suite per request, named by its
/// path (and " (iteration N)" in a run of several), a case per test. The cases
/// named "request runs" are RetryLab's own (a script's error, a request not
/// sent), which newman's assertions do not list.
QStringList retryLabVerdicts(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {QStringLiteral("no JUnit file at ") + path};
    static const QRegularExpression iteration(QStringLiteral(" \\(iteration \\d+\\)$"));
    QXmlStreamReader xml(&file);
    QStringList verdicts;
    QString request;
    QString testCase;
    bool failed = false;
    while (!xml.atEnd()) {
        const auto token = xml.readNext();
        if (token == QXmlStreamReader::StartElement) {
            if (xml.name() == QLatin1String("testsuite"))
                request = xml.attributes().value(QLatin1String("name")).toString().remove(iteration);
            if (xml.name() == QLatin1String("testcase")) {
                testCase = xml.attributes().value(QLatin1String("name")).toString();
                failed = false;
            }
            if (xml.name() == QLatin1String("failure") || xml.name() == QLatin1String("error"))
                failed = true;
        } else if (token == QXmlStreamReader::EndElement && xml.name() == QLatin1String("testcase")
            && testCase != QLatin1String("request runs")) {
            verdicts.append(QStringLiteral("%1 › %2: %3")
                                .arg(request, testCase, failed ? QStringLiteral("failed") : QStringLiteral("passed")));
        }
    }
    if (xml.hasError())
        verdicts.append(QStringLiteral("malformed JUnit: ") + xml.errorString());
    return verdicts;
}

struct Finished
{
    int exitCode = -1; ///< -1: it did not start, crashed or did not finish in time
    QString output;
};

/// Runs a program in `workDir` with this thread's event loop running, so that
/// a server the test runs in this thread answers it meanwhile.
Finished runProgram(const QString &program, const QStringList &arguments, const QString &workDir)
{
    QProcess process;
    process.setWorkingDirectory(workDir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(program, arguments);
    Finished outcome;
    if (!process.waitForStarted(30'000) || !finished.wait(180'000)) {
        process.kill();
        process.waitForFinished();
        outcome.output = program + QStringLiteral(" did not finish: ") + process.errorString();
        return outcome;
    }
    outcome.output = QString::fromUtf8(process.readAll());
    if (process.exitStatus() == QProcess::NormalExit)
        outcome.exitCode = process.exitCode();
    return outcome;
}

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

bool writeText(const QString &path, const QString &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(text.toUtf8()) >= 0;
}

} // namespace

class TestNewmanParity final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void collection_sameRequestsAndVerdictsAsNewman_data();
    void collection_sameRequestsAndVerdictsAsNewman();
    void faults_newmanFailsRetryLabRetriesAndPasses();

private:
    /// Empty when node, newman and httpbin are there; else what is missing and its package.
    QString missingTool() const;
    bool startHttpbin(QString *error);
    /// Runs newman on the collection and environment (and `data`, newman's -d,
    /// unless empty); its requests go to `log`.
    Finished runNewman(
        const QString &collection, const QString &environment, const QString &report, const QString &data = {});
    Finished runRetryLab(const QStringList &arguments);
    /// The server's log so far, moved to `keep`, so that the next run starts a fresh one.
    QList<LoggedRequest> takeLog(const QString &keep);

    QTemporaryDir m_dir;
    QProcess m_httpbin;
    quint16 m_httpbinPort = 0;
    QString m_log;
    QString m_newman;
};

QString TestNewmanParity::missingTool() const
{
    if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
        return QStringLiteral("node is not installed: install the Debian package nodejs (scripts/deps.sh does)");
    if (!QFileInfo::exists(m_newman)) {
        return QStringLiteral("newman is not in %1: the ctest fixture node_tools installs it from the npm registry "
                              "(tests/tools/install-node-tools.sh; it needs the Debian package npm)")
            .arg(m_newman);
    }
    if (!QFile::exists(QStringLiteral("/usr/lib/python3/dist-packages/httpbin/core.py")))
        return QStringLiteral("httpbin is missing: install the Debian package python3-httpbin (scripts/deps.sh does)");
    return {};
}

void TestNewmanParity::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_newman = QStringLiteral(RETRYLAB_NODE_TOOLS_DIR) + QStringLiteral("/node_modules/.bin/newman");
    m_log = m_dir.filePath(QStringLiteral("httpbin.log"));
    const QString missing = missingTool();
    if (!missing.isEmpty())
        RETRYLAB_MISSING_TOOL(qPrintable(missing));
    QString error;
    QVERIFY2(startHttpbin(&error), qPrintable(error));
}

void TestNewmanParity::cleanupTestCase()
{
    if (m_httpbin.state() != QProcess::NotRunning) {
        m_httpbin.terminate();
        if (!m_httpbin.waitForFinished(5'000))
            m_httpbin.kill();
        m_httpbin.waitForFinished();
    }
}

bool TestNewmanParity::startHttpbin(QString *error)
{
    // Debian's interpreter: python3-httpbin's module is there, whatever python3 comes first on the PATH.
    m_httpbin.start(
        QStringLiteral("/usr/bin/python3"), {sourceDir + QStringLiteral("/tests/tools/httpbin-logged.py"), m_log});
    if (!m_httpbin.waitForStarted(10'000)) {
        *error = QStringLiteral("httpbin-logged.py did not start: ") + m_httpbin.errorString();
        return false;
    }
    static const QRegularExpression listening(QStringLiteral("listening on (\\d+)"));
    QString out;
    QDeadlineTimer deadline(30'000);
    while (!deadline.hasExpired() && m_httpbin.state() == QProcess::Running) {
        m_httpbin.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime())));
        out += QString::fromUtf8(m_httpbin.readAllStandardOutput());
        const auto match = listening.match(out);
        if (match.hasMatch()) {
            m_httpbinPort = quint16(match.captured(1).toUInt());
            return true;
        }
    }
    *error = QStringLiteral("httpbin-logged.py did not listen: ") + out
        + QString::fromUtf8(m_httpbin.readAllStandardError());
    return false;
}

Finished TestNewmanParity::runNewman(
    const QString &collection, const QString &environment, const QString &report, const QString &data)
{
    QStringList arguments{QStringLiteral("run"), collection, QStringLiteral("--environment"), environment,
        QStringLiteral("--reporters"), QStringLiteral("cli,json"), QStringLiteral("--reporter-json-export"), report,
        QStringLiteral("--color"), QStringLiteral("off")};
    if (!data.isEmpty())
        arguments << QStringLiteral("--iteration-data") << data;
    return runProgram(m_newman, arguments, m_dir.path());
}

Finished TestNewmanParity::runRetryLab(const QStringList &arguments)
{
    return runProgram(QStringLiteral(RETRYLAB_CLI_BINARY), arguments, m_dir.path());
}

QList<LoggedRequest> TestNewmanParity::takeLog(const QString &keep)
{
    QFile::remove(keep);
    if (QFile::exists(m_log) && !QFile::rename(m_log, keep))
        return {};
    return readLog(keep);
}

void TestNewmanParity::collection_sameRequestsAndVerdictsAsNewman_data()
{
    QTest::addColumn<QString>("collection");
    QTest::addColumn<QString>("environment");
    QTest::addColumn<QString>("data"); // newman's -d, retrylab run's --data; empty: none
    // Written for this suite (tests/app/data/newman/*.json).
    QTest::newRow("chaining and scripts") << QStringLiteral("chaining.postman_collection.json")
                                          << QStringLiteral("httpbin.postman_environment.json") << QString();
    QTest::newRow("auth and bodies") << QStringLiteral("auth-bodies.postman_collection.json")
                                     << QStringLiteral("httpbin.postman_environment.json") << QString();
    // Public collections (tests/app/data/newman/public/*/SOURCE.md), their base URL pointed at httpbin.
    QTest::newRow("realworld Conduit") << QStringLiteral("public/conduit/Conduit.postman_collection.json")
                                       << QStringLiteral("public/conduit/httpbin.postman_environment.json")
                                       << QString();
    QTest::newRow("newman sample v2.0") << QStringLiteral("public/newman-sample/sample-collection.json")
                                        << QStringLiteral("public/newman-sample/httpbin.postman_environment.json")
                                        << QString();
    QTest::newRow("newman steph data file") << QStringLiteral("public/newman-steph/steph.postman_collection.json")
                                            << QStringLiteral("public/newman-steph/httpbin.postman_environment.json")
                                            << QStringLiteral("public/newman-steph/steph.postman_data.json");
    QTest::newRow("newman inherited entities")
        << QStringLiteral("public/newman-inherited-entities/inherited-entities.postman_collection.json")
        << QStringLiteral("public/newman-inherited-entities/inherited-entities.postman_environment.json") << QString();
}

void TestNewmanParity::collection_sameRequestsAndVerdictsAsNewman()
{
    QFETCH(QString, collection);
    QFETCH(QString, environment);
    QFETCH(QString, data);
    const QString missing = missingTool();
    if (!missing.isEmpty())
        RETRYLAB_MISSING_TOOL(qPrintable(missing));

    // The environment's @HTTPBIN@ is the server's base URL.
    const QString env = m_dir.filePath(QStringLiteral("environment.json"));
    QVERIFY(writeText(env,
        readText(dataDir + QLatin1Char('/') + environment)
            .replace(QLatin1String("@HTTPBIN@"), QStringLiteral("http://127.0.0.1:%1").arg(m_httpbinPort))));
    const QString file = dataDir + QLatin1Char('/') + collection;
    const QString dataFile = data.isEmpty() ? QString() : dataDir + QLatin1Char('/') + data;

    QElapsedTimer clock;
    clock.start();
    QFile::remove(m_log);
    const QString newmanReport = m_dir.filePath(QStringLiteral("newman.json"));
    const Finished newman = runNewman(file, env, newmanReport, dataFile);
    QVERIFY2(newman.exitCode == 0 || newman.exitCode == 1, qPrintable(newman.output));
    const QList<LoggedRequest> sentByNewman = takeLog(m_dir.filePath(QStringLiteral("newman.log")));
    const qint64 newmanMs = clock.restart();

    const QString junit = m_dir.filePath(QStringLiteral("retrylab.xml"));
    // --no-redact: the JUnit names must be the requests' names as written.
    QStringList arguments{QStringLiteral("run"), file, QStringLiteral("--env"), env, QStringLiteral("--report"),
        m_dir.filePath(QStringLiteral("retrylab.json")), QStringLiteral("--junit"), junit,
        QStringLiteral("--no-redact"), QStringLiteral("--seed"), QStringLiteral("1")};
    if (!dataFile.isEmpty())
        arguments << QStringLiteral("--data") << dataFile;
    const Finished retryLab = runRetryLab(arguments);
    QVERIFY2(retryLab.exitCode == 0 || retryLab.exitCode == 1, qPrintable(retryLab.output));
    const QList<LoggedRequest> sentByRetryLab = takeLog(m_dir.filePath(QStringLiteral("retrylab.log")));
    qInfo("%s: newman %lld ms, retrylab run %lld ms", qPrintable(collection), newmanMs, clock.elapsed());

    // Same exit status: both fail exactly when a test failed.
    QCOMPARE(retryLab.exitCode, newman.exitCode);
    QVERIFY2(!sentByNewman.isEmpty(), qPrintable(newman.output));
    for (qsizetype i = 0; i < std::min(sentByNewman.size(), sentByRetryLab.size()); ++i) {
        const QString expected = comparable(sentByNewman.at(i));
        const QString actual = comparable(sentByRetryLab.at(i));
        if (actual != expected)
            qWarning("request %lld differs", qlonglong(i + 1));
        QCOMPARE(actual, expected);
    }
    QCOMPARE(sentByRetryLab.size(), sentByNewman.size());

    const QStringList expected = newmanVerdicts(newmanReport);
    const QStringList actual = retryLabVerdicts(junit);
    for (qsizetype i = 0; i < std::min(expected.size(), actual.size()); ++i)
        QCOMPARE(actual.at(i), expected.at(i));
    QCOMPARE(actual.size(), expected.size());
    QVERIFY(!expected.isEmpty());
}

void TestNewmanParity::faults_newmanFailsRetryLabRetriesAndPasses()
{
    const QString missing = missingTool();
    if (!missing.isEmpty())
        RETRYLAB_MISSING_TOOL(qPrintable(missing));
    FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));

    // /fail/2?key=K: 503 twice for each key, then 200; each runner gets its own key.
    const QString collection = m_dir.filePath(QStringLiteral("faults.postman_collection.json"));
    QVERIFY(writeText(collection, readText(dataDir + QStringLiteral("/faults.postman_collection.json"))));
    const auto environment = [&](const QString &key) {
        const QString path = m_dir.filePath(key + QStringLiteral(".postman_environment.json"));
        const QJsonObject env{{QStringLiteral("name"), QStringLiteral("faults")},
            {QStringLiteral("values"),
                QJsonArray{QJsonObject{{QStringLiteral("key"), QStringLiteral("faultServer")},
                               {QStringLiteral("value"), server.baseUrl().toString()}},
                    QJsonObject{{QStringLiteral("key"), QStringLiteral("key")}, {QStringLiteral("value"), key}}}}};
        writeText(path, QString::fromUtf8(QJsonDocument(env).toJson()));
        return path;
    };

    const QString newmanReport = m_dir.filePath(QStringLiteral("faults-newman.json"));
    const Finished newman = runNewman(collection, environment(QStringLiteral("newman-key")), newmanReport);
    QVERIFY2(newman.exitCode == 1, qPrintable(newman.output));
    QCOMPARE(newmanVerdicts(newmanReport), QStringList{QStringLiteral("Flaky dependency › status is 200: failed")});

    const QString report = m_dir.filePath(QStringLiteral("faults-retrylab.json"));
    const QString junit = m_dir.filePath(QStringLiteral("faults-retrylab.xml"));
    const Finished retryLab = runRetryLab(
        {QStringLiteral("run"), collection, QStringLiteral("--env"), environment(QStringLiteral("retrylab-key")),
            QStringLiteral("--policy"), QStringLiteral("aws-standard"), QStringLiteral("--report"), report,
            QStringLiteral("--junit"), junit, QStringLiteral("--seed"), QStringLiteral("1")});
    QVERIFY2(retryLab.exitCode == 0, qPrintable(retryLab.output));
    QCOMPARE(retryLabVerdicts(junit), QStringList{QStringLiteral("Flaky dependency › status is 200: passed")});
    QVERIFY2(readText(junit).contains(QLatin1String("<property name=\"retried\" value=\"true\"/>")),
        qPrintable(readText(junit)));

    // The report shows why: three attempts, the first two answered 503.
    const auto read = ReportJson::readFile(report);
    QVERIFY2(read.ok(), qPrintable(read.error()));
    const QList<AttemptRecord> &attempts = read->run.attempts;
    QCOMPARE(attempts.size(), 3);
    QCOMPARE(attempts.at(0).httpStatus, std::optional<int>(503));
    QCOMPARE(attempts.at(1).httpStatus, std::optional<int>(503));
    QCOMPARE(attempts.at(2).httpStatus, std::optional<int>(200));
    QCOMPARE(attempts.at(2).attemptIndex, 2);
}

QTEST_GUILESS_MAIN(TestNewmanParity)
#include "tst_newmanparity.moc"
