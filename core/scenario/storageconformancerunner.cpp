#include "core/scenario/storageconformancerunner.h"

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/faultserver/storageinstruction.h"
#include "core/faultserver/storageretrytests.h"
#include "core/scenario/conformancesuite.h"
#include "core/util/coretr.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>

#include <algorithm>

namespace RetryLab::Core {

namespace {

// Bytes an upload or download of the run must have so that its "after N K" faults fire.
qint64 transferBytesFor(const QStringList &instructions)
{
    qint64 most = 0;
    for (const QString &text : instructions) {
        for (const char *operation : {"storage.objects.insert", "storage.objects.get"}) {
            const auto parsed = StorageInstruction::parse(text, QLatin1String(operation));
            if (parsed)
                most = std::max(most, parsed->afterBytes);
        }
    }
    return std::max<qint64>(most > 0 ? most + 64 * 1024 : 0, 512 * 1024);
}

QString storageObjectOf(int index)
{
    return QStringLiteral("run-%1").arg(index);
}

} // namespace

QString StorageConformanceRun::name() const
{
    return QStringLiteral("case %1 (%2) %3 [%4]%5")
        .arg(caseId)
        .arg(description, method, instructions.join(QStringLiteral(", ")),
            precondition ? QStringLiteral(" with a precondition") : QString());
}

QString StorageConformanceSuite::source()
{
    return QStringLiteral("googleapis/conformance-tests storage/v1/retry_tests.json (commit 998891a8, Apache-2.0, "
                          "\u00a9 Google LLC)");
}

QHash<QString, QString> StorageConformanceSuite::unsupportedMethods()
{
    const QString acl = Tr::tr("ACLs are not modelled by the fault server's storage API");
    const QString buckets = Tr::tr("bucket writes and listings are not modelled: every valid bucket name exists");
    const QString iam = Tr::tr("IAM policies of buckets are not modelled");
    const QString hmac = Tr::tr("HMAC keys belong to projects, which are not modelled");
    const QString notifications = Tr::tr("Pub/Sub notifications are not modelled");
    const QString rewrite = Tr::tr(
        "server-side copies (compose, copy, rewrite) are not served; their retry rule is the same as insert's");
    const QString metadata
        = Tr::tr("metadata updates (patch, update) are not served; their retry rule is the same as delete's");
    QHash<QString, QString> out;
    for (const char *m : {"storage.bucket_acl.delete", "storage.bucket_acl.get", "storage.bucket_acl.insert",
             "storage.bucket_acl.list", "storage.bucket_acl.patch", "storage.bucket_acl.update",
             "storage.default_object_acl.delete", "storage.default_object_acl.get", "storage.default_object_acl.insert",
             "storage.default_object_acl.list", "storage.default_object_acl.patch", "storage.default_object_acl.update",
             "storage.object_acl.delete", "storage.object_acl.get", "storage.object_acl.insert",
             "storage.object_acl.list", "storage.object_acl.patch", "storage.object_acl.update"})
        out.insert(QLatin1String(m), acl);
    for (const char *m : {"storage.buckets.delete", "storage.buckets.insert", "storage.buckets.list",
             "storage.buckets.patch", "storage.buckets.update", "storage.buckets.lockRetentionPolicy"})
        out.insert(QLatin1String(m), buckets);
    for (const char *m :
        {"storage.buckets.getIamPolicy", "storage.buckets.setIamPolicy", "storage.buckets.testIamPermissions"})
        out.insert(QLatin1String(m), iam);
    for (const char *m : {"storage.hmacKey.create", "storage.hmacKey.delete", "storage.hmacKey.get",
             "storage.hmacKey.list", "storage.hmacKey.update"})
        out.insert(QLatin1String(m), hmac);
    for (const char *m : {"storage.notifications.delete", "storage.notifications.get", "storage.notifications.insert",
             "storage.notifications.list"})
        out.insert(QLatin1String(m), notifications);
    for (const char *m : {"storage.objects.compose", "storage.objects.copy", "storage.objects.rewrite"})
        out.insert(QLatin1String(m), rewrite);
    for (const char *m : {"storage.objects.patch", "storage.objects.update"})
        out.insert(QLatin1String(m), metadata);
    out.insert(QStringLiteral("storage.serviceaccount.get"), Tr::tr("project service accounts are not modelled"));
    return out;
}

Result<StorageConformanceSuite> StorageConformanceSuite::fromJson(const QByteArray &json)
{
    using Read = Result<StorageConformanceSuite>;
    QJsonParseError parse;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parse);
    if (parse.error != QJsonParseError::NoError)
        return Read::failure(Tr::tr("not JSON: %1 at offset %2").arg(parse.errorString()).arg(parse.offset));
    const QJsonValue tests = document.object().value(QLatin1String("retryTests"));
    if (!tests.isArray())
        return Read::failure(QStringLiteral("retryTests"), Tr::tr("must be a list of cases"));
    StorageConformanceSuite suite;
    const QStringList served = StorageOperations::served();
    const QHash<QString, QString> unsupported = unsupportedMethods();
    const QJsonArray cases = tests.toArray();
    suite.caseCount = int(cases.size());
    for (qsizetype c = 0; c < cases.size(); ++c) {
        const QJsonObject test = cases.at(c).toObject();
        const QString where = QStringLiteral("retryTests[%1]").arg(c);
        QStringList methods;
        for (const QJsonValue &m : test.value(QLatin1String("methods")).toArray()) {
            const QString method = m.toObject().value(QLatin1String("name")).toString();
            if (!served.contains(method)) {
                if (!unsupported.contains(method))
                    return Read::failure(where + QStringLiteral(".methods"),
                        Tr::tr("%1 is neither served by the fault server nor known as unsupported").arg(method));
                suite.notPlayed.insert(method, unsupported.value(method));
                continue;
            }
            methods << method;
        }
        const QJsonArray lists = test.value(QLatin1String("cases")).toArray();
        if (lists.isEmpty())
            return Read::failure(where + QStringLiteral(".cases"), Tr::tr("has no instruction list"));
        for (qsizetype l = 0; l < lists.size(); ++l) {
            QStringList instructions;
            for (const QJsonValue &i : lists.at(l).toObject().value(QLatin1String("instructions")).toArray())
                instructions << i.toString();
            for (const QString &method : std::as_const(methods)) {
                StorageConformanceRun run;
                run.caseId = test.value(QLatin1String("id")).toInt();
                run.description = test.value(QLatin1String("description")).toString();
                run.listIndex = int(l);
                run.instructions = instructions;
                run.method = method;
                run.precondition = test.value(QLatin1String("preconditionProvided")).toBool();
                run.expectSuccess = test.value(QLatin1String("expectSuccess")).toBool();
                suite.runs << run;
            }
        }
    }
    return suite;
}

Result<StorageConformanceSuite> StorageConformanceSuite::bundled()
{
    QFile file(QStringLiteral(":/conformance/retry_tests.json"));
    if (!file.open(QIODevice::ReadOnly))
        return Result<StorageConformanceSuite>::failure(Tr::tr("the program carries no retry_tests.json"));
    return fromJson(file.readAll());
}

StorageConformanceRunner::StorageConformanceRunner(QObject *parent)
    : QObject(parent), m_manager(new QNetworkAccessManager(this))
{
    m_manager->setProxy(QNetworkProxy::NoProxy);
}

StorageConformanceRunner::~StorageConformanceRunner()
{
    m_executors.clear();
}

void StorageConformanceRunner::setSuite(const StorageConformanceSuite &suite)
{
    if (!m_running)
        m_suite = suite;
}

void StorageConformanceRunner::setPolicy(const BackoffPolicy &policy, bool realTiming)
{
    m_policy = policy;
    if (realTiming)
        return;
    // The waits shrink as the matrix's do; the timeouts stay, for 8 MiB uploads take their time.
    const BackoffPolicy compressed = Conformance::compressed(policy);
    m_policy.baseDelayMs = compressed.baseDelayMs;
    m_policy.maxBackoffMs = compressed.maxBackoffMs;
    m_policy.jitterMs = compressed.jitterMs;
}

int StorageConformanceRunner::passedCount() const
{
    return int(std::count_if(m_suite.runs.cbegin(), m_suite.runs.cend(),
        [](const StorageConformanceRun &r) { return r.state == StorageConformanceRun::State::Passed; }));
}

QString StorageConformanceRunner::base() const
{
    return m_server ? m_server->baseUrl().toString() : QString();
}

void StorageConformanceRunner::start()
{
    if (m_running)
        return;
    ++m_generation;
    m_executors.clear();
    m_testIds.clear();
    FaultServerOptions options;
    options.maxBodyBytes = 16 * 1024 * 1024; // uploads past 8192K, for return-503-after-8192K
    options.maxStorageBytes = 512 * 1024 * 1024;
    options.seed = m_seed;
    m_server = std::make_unique<FaultServer>(options);
    if (!m_server->listen()) {
        const QString why = m_server->errorString();
        m_server.reset();
        Q_EMIT failed(Tr::tr("the fault server for the Cloud Storage cases did not start: %1").arg(why));
        return;
    }
    m_running = true;
    m_pending = int(m_suite.runs.size());
    for (StorageConformanceRun &run : m_suite.runs) {
        run.state = StorageConformanceRun::State::Running;
        run.succeeded = false;
        run.attempts = 0;
        run.detail.clear();
    }
    if (m_pending == 0) {
        done();
        return;
    }
    for (int index = 0; index < m_suite.runs.size(); ++index)
        setUp(index);
}

void StorageConformanceRunner::setUp(int index)
{
    const StorageConformanceRun &run = m_suite.runs.at(index);
    const quint64 generation = m_generation;
    const QByteArray data(transferBytesFor(run.instructions), 'r');
    // The retry test, once the object it acts on is there (or straight away, for an insert).
    auto createTest = [this, index, generation](const QString &objectGeneration) {
        if (generation != m_generation || !m_running)
            return;
        const StorageConformanceRun &planned = m_suite.runs.at(index);
        QNetworkRequest request(QUrl(base() + QStringLiteral("/retry_test")));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        const QByteArray body
            = QJsonDocument(QJsonObject{{QStringLiteral("instructions"),
                                QJsonObject{{planned.method, QJsonArray::fromStringList(planned.instructions)}}}})
                  .toJson(QJsonDocument::Compact);
        QNetworkReply *reply = m_manager->post(request, body);
        connect(reply, &QNetworkReply::finished, this, [this, reply, index, generation, objectGeneration] {
            reply->deleteLater();
            if (generation != m_generation || !m_running)
                return;
            const QByteArray answer = reply->readAll();
            const QString id = QJsonDocument::fromJson(answer).object().value(QLatin1String("id")).toString();
            if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 200 || id.isEmpty()) {
                finishRun(
                    index, false, 0, Tr::tr("the retry test was refused: %1").arg(QString::fromUtf8(answer.left(300))));
                return;
            }
            submit(index, id, objectGeneration);
        });
    };
    if (run.method == QLatin1String("storage.objects.insert")) {
        createTest(QString());
        return;
    }
    QNetworkRequest upload(QUrl(
        base() + QStringLiteral("/upload/storage/v1/b/conformance/o?uploadType=media&name=") + storageObjectOf(index)));
    upload.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/octet-stream"));
    QNetworkReply *reply = m_manager->post(upload, data);
    connect(reply, &QNetworkReply::finished, this, [this, reply, index, createTest, generation] {
        reply->deleteLater();
        if (generation != m_generation || !m_running)
            return; // an upload of a run that was cancelled (and maybe started again)
        const QByteArray answer = reply->readAll();
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 200) {
            finishRun(index, false, 0,
                Tr::tr("the object to act on could not be made: %1").arg(QString::fromUtf8(answer.left(300))));
            return;
        }
        createTest(QJsonDocument::fromJson(answer).object().value(QLatin1String("generation")).toString());
    });
}

void StorageConformanceRunner::submit(int index, const QString &testId, const QString &generation)
{
    const StorageConformanceRun &run = m_suite.runs.at(index);
    m_testIds.insert(index, testId);
    RequestSpec spec;
    spec.label = run.name();
    spec.headers.append({QByteArrayLiteral("x-retry-test-id"), testId.toLatin1()});
    const QString object = base() + QStringLiteral("/storage/v1/b/conformance/o/") + storageObjectOf(index);
    // Preconditions go where the case says one is provided, on the operations that are only
    // conditionally idempotent (Cloud Storage's rule; the reads have no use for one). The
    // request is never marked idempotent: the policy's classifier decides.
    if (run.method == QLatin1String("storage.buckets.get")) {
        spec.url = QUrl(base() + QStringLiteral("/storage/v1/b/conformance"));
    } else if (run.method == QLatin1String("storage.objects.list")) {
        spec.url = QUrl(base() + QStringLiteral("/storage/v1/b/conformance/o?prefix=") + storageObjectOf(index));
    } else if (run.method == QLatin1String("storage.objects.get")) {
        spec.url = QUrl(object + QStringLiteral("?alt=media"));
    } else if (run.method == QLatin1String("storage.objects.delete")) {
        spec.method = "DELETE";
        spec.url = QUrl(object + (run.precondition ? QStringLiteral("?ifGenerationMatch=") + generation : QString()));
    } else {
        spec.method = "POST";
        spec.url = QUrl(base() + QStringLiteral("/upload/storage/v1/b/conformance/o?uploadType=media&name=")
            + storageObjectOf(index) + (run.precondition ? QStringLiteral("&ifGenerationMatch=0") : QString()));
        spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/octet-stream")});
        spec.body = QByteArray(transferBytesFor(run.instructions), 'w');
    }
    auto &executor = m_executors.emplace_back(std::make_unique<RetryExecutor>());
    executor->setSeed(m_seed + quint64(index));
    const quint64 generationNow = m_generation;
    connect(executor.get(), &RetryExecutor::requestFinished, this,
        [this, index, generationNow](const RequestResult &result) {
            if (generationNow != m_generation || !m_running)
                return;
            checkUsed(index, result.outcome == RequestOutcome::Succeeded, result.attempts, result.reason);
        });
    m_suite.runs[index].state = StorageConformanceRun::State::Running;
    executor->submit(spec, m_policy);
}

void StorageConformanceRunner::checkUsed(int index, bool succeeded, int attempts, const QString &reason)
{
    // The faults really happened: every instruction was used.
    QNetworkReply *reply
        = m_manager->get(QNetworkRequest(QUrl(base() + QStringLiteral("/retry_test/") + m_testIds.value(index))));
    const quint64 generation = m_generation;
    connect(reply, &QNetworkReply::finished, this, [this, reply, index, succeeded, attempts, reason, generation] {
        reply->deleteLater();
        if (generation != m_generation || !m_running)
            return;
        const QJsonObject state = QJsonDocument::fromJson(reply->readAll()).object();
        const StorageConformanceRun &run = m_suite.runs.at(index);
        QString detail = Tr::tr("%1 after %2 attempts: %3")
                             .arg(succeeded ? Tr::tr("succeeded") : Tr::tr("failed"))
                             .arg(attempts)
                             .arg(reason);
        bool passed = succeeded == run.expectSuccess;
        if (passed && !state.value(QLatin1String("completed")).toBool()) {
            passed = false;
            detail += Tr::tr("; instructions left unused");
        }
        if (passed && succeeded && attempts != run.instructions.size() + 1) {
            passed = false;
            detail += Tr::tr("; %1 attempts where %2 were expected").arg(attempts).arg(run.instructions.size() + 1);
        }
        if (succeeded != run.expectSuccess) {
            detail
                = Tr::tr("expected %1, got %2").arg(run.expectSuccess ? Tr::tr("success") : Tr::tr("failure"), detail);
        }
        m_suite.runs[index].succeeded = succeeded;
        finishRun(index, passed, attempts, detail);
    });
}

void StorageConformanceRunner::finishRun(int index, bool passed, int attempts, const QString &detail)
{
    StorageConformanceRun &run = m_suite.runs[index];
    if (run.state != StorageConformanceRun::State::Running)
        return;
    run.state = passed ? StorageConformanceRun::State::Passed : StorageConformanceRun::State::Failed;
    run.attempts = attempts;
    run.detail = detail;
    Q_EMIT runFinished(index);
    if (--m_pending == 0)
        done();
}

void StorageConformanceRunner::done()
{
    m_running = false;
    Q_EMIT finished(passedCount(), int(m_suite.runs.size()));
}

void StorageConformanceRunner::cancel()
{
    if (!m_running)
        return;
    ++m_generation;
    m_running = false;
    for (auto &executor : m_executors)
        executor->cancelAll();
    for (int index = 0; index < m_suite.runs.size(); ++index) {
        StorageConformanceRun &run = m_suite.runs[index];
        if (run.state == StorageConformanceRun::State::Running) {
            run.state = StorageConformanceRun::State::Cancelled;
            run.detail = Tr::tr("cancelled");
            Q_EMIT runFinished(index);
        }
    }
    Q_EMIT finished(passedCount(), int(m_suite.runs.size()));
}

} // namespace RetryLab::Core
