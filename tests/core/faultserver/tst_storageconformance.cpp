#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/faultserver/storageretrytests.h"
#include "core/policy/presets.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <memory>
#include <vector>

using namespace RetryLab::Core;

namespace {

/// One run of Google's conformance cases: a case's instruction list against one of its methods.
struct Run
{
    int caseId = 0;
    QString description;
    QStringList instructions;
    QString method;
    bool precondition = false;
    bool expectSuccess = false;
    QString object; ///< the object it reads, deletes or writes
    QString testId;
    quint64 requestId = 0;

    QString name() const
    {
        return QStringLiteral("case %1 (%2) %3 [%4]%5")
            .arg(caseId)
            .arg(description, method, instructions.join(QStringLiteral(", ")),
                precondition ? QStringLiteral(" with a precondition") : QString());
    }
};

// The methods of retry_tests.json that the fault server's Cloud Storage API does not
// serve, each with the reason. A method in the file that is neither served nor listed
// here fails the suite: a new one in a later version of the file is never skipped silently.
QHash<QString, QString> unsupportedMethods()
{
    const QString acl = QStringLiteral("ACLs are not modelled by the fault server's storage API");
    const QString buckets
        = QStringLiteral("bucket writes and listings are not modelled: every valid bucket name exists");
    const QString iam = QStringLiteral("IAM policies of buckets are not modelled");
    const QString hmac = QStringLiteral("HMAC keys belong to projects, which are not modelled");
    const QString notifications = QStringLiteral("Pub/Sub notifications are not modelled");
    const QString rewrite = QStringLiteral(
        "server-side copies (compose, copy, rewrite) are not served; their retry rule is the same as insert's");
    const QString metadata
        = QStringLiteral("metadata updates (patch, update) are not served; their retry rule is the same as delete's");
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
    out.insert(
        QStringLiteral("storage.serviceaccount.get"), QStringLiteral("project service accounts are not modelled"));
    return out;
}

/// Bytes an upload or download of the run must have so that its "after N K" faults fire.
qint64 transferBytesFor(const QStringList &instructions)
{
    qint64 most = 0;
    for (const QString &text : instructions) {
        const auto parsed = StorageInstruction::parse(text, QStringLiteral("storage.objects.insert"));
        const auto asGet = StorageInstruction::parse(text, QStringLiteral("storage.objects.get"));
        if (parsed)
            most = std::max(most, parsed->afterBytes);
        if (asGet)
            most = std::max(most, asGet->afterBytes);
    }
    return most > 0 ? most + 64 * 1024 : 0;
}

} // namespace

/// Google's conformance cases for Cloud Storage's retry behaviour
/// (googleapis/conformance-tests, storage/v1/retry_tests.json, kept in data/ with
/// its source) played by RetryLab's executor under the Cloud Storage preset
/// against the fault server's retry test API on loopback: every case, every
/// instruction list, every method the server serves; success or failure must be
/// what the case expects.
class TestStorageConformance final : public QObject
{
    Q_OBJECT

private:
    QByteArray call(QNetworkAccessManager &nam, const QByteArray &method, const QUrl &url, const QByteArray &body,
        int *status = nullptr)
    {
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = nam.sendCustomRequest(request, method, body);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            finished.wait(30'000);
        if (status)
            *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray out = reply->readAll();
        reply->deleteLater();
        return out;
    }

private Q_SLOTS:
    void retryTests_matchExpectSuccess_underTheCloudStoragePreset()
    {
        QFile file(QStringLiteral(RETRYLAB_RETRY_TESTS_JSON));
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
        const QJsonArray cases
            = QJsonDocument::fromJson(file.readAll()).object().value(QLatin1String("retryTests")).toArray();
        QCOMPARE(cases.size(), 8);

        FaultServerOptions options;
        options.maxBodyBytes = 16 * 1024 * 1024; // uploads past 8192K, for return-503-after-8192K
        options.maxStorageBytes = 256 * 1024 * 1024;
        FaultServer server(options);
        QVERIFY2(server.listen(), qPrintable(server.errorString()));
        const QString base = server.baseUrl().toString();
        QNetworkAccessManager nam;
        nam.setProxy(QNetworkProxy::NoProxy);

        const QStringList served = StorageOperations::served();
        const QHash<QString, QString> unsupported = unsupportedMethods();
        QList<Run> runs;
        QStringList skipped;
        for (const QJsonValue &c : cases) {
            const QJsonObject test = c.toObject();
            QStringList methods;
            for (const QJsonValue &m : test.value(QLatin1String("methods")).toArray())
                methods.append(m.toObject().value(QLatin1String("name")).toString());
            for (const QString &method : methods) {
                if (served.contains(method))
                    continue;
                QVERIFY2(unsupported.contains(method),
                    qPrintable(
                        QStringLiteral("%1 is neither served nor listed as unsupported with a reason").arg(method)));
                skipped.append(method);
            }
            const QJsonArray lists = test.value(QLatin1String("cases")).toArray();
            for (const QJsonValue &list : lists) {
                QStringList instructions;
                for (const QJsonValue &i : list.toObject().value(QLatin1String("instructions")).toArray())
                    instructions.append(i.toString());
                for (const QString &method : methods) {
                    if (!served.contains(method))
                        continue;
                    Run run;
                    run.caseId = test.value(QLatin1String("id")).toInt();
                    run.description = test.value(QLatin1String("description")).toString();
                    run.instructions = instructions;
                    run.method = method;
                    run.precondition = test.value(QLatin1String("preconditionProvided")).toBool();
                    run.expectSuccess = test.value(QLatin1String("expectSuccess")).toBool();
                    run.object = QStringLiteral("run-%1").arg(runs.size());
                    runs.append(run);
                }
            }
        }
        skipped.removeDuplicates();
        std::sort(skipped.begin(), skipped.end());
        for (const QString &method : std::as_const(skipped))
            qInfo().noquote() << "not played:" << method << "-" << unsupported.value(method);

        // Each run: its objects, its retry test, its request.
        const auto policy = Presets::find(QStringLiteral("google-cloud-storage"));
        QVERIFY(policy);
        // One executor, and so one network manager, per run: all runs go at once, and a
        // manager shared between runs lets one run's reset fail another's request on the
        // client (Qt 6.4 fails an attempt on a pooled connection with RemoteHostClosedError
        // before it reaches the server), which the attempt counts below would take for a
        // policy fault.
        std::vector<std::unique_ptr<RetryExecutor>> executors;
        QHash<int, RequestResult> results; // by run
        QHash<int, QStringList> attemptsOf; // each attempt in a line, for the failures
        for (Run &run : runs) {
            const qint64 size = std::max<qint64>(transferBytesFor(run.instructions), 512 * 1024);
            QByteArray data(size, 'r');
            QString generation;
            if (run.method != QLatin1String("storage.objects.insert")) {
                int status = 0;
                const QByteArray made = call(nam, "POST",
                    QUrl(base + QStringLiteral("/upload/storage/v1/b/conformance/o?uploadType=media&name=")
                        + run.object),
                    data, &status);
                QCOMPARE(status, 200);
                generation = QJsonDocument::fromJson(made).object().value(QLatin1String("generation")).toString();
            }
            int status = 0;
            const QByteArray created = call(nam, "POST", QUrl(base + QStringLiteral("/retry_test")),
                QJsonDocument(QJsonObject{{QStringLiteral("instructions"),
                                  QJsonObject{{run.method, QJsonArray::fromStringList(run.instructions)}}}})
                    .toJson(),
                &status);
            QVERIFY2(status == 200, created.constData());
            run.testId = QJsonDocument::fromJson(created).object().value(QLatin1String("id")).toString();

            RequestSpec spec;
            spec.label = run.name();
            spec.headers.append({QByteArrayLiteral("x-retry-test-id"), run.testId.toLatin1()});
            const QString object = base + QStringLiteral("/storage/v1/b/conformance/o/") + run.object;
            // Preconditions go where the case says one is provided, on the operations that are
            // only conditionally idempotent (Cloud Storage's rule; the reads have no use for one).
            // The request is never marked idempotent: the preset's classifier must decide.
            if (run.method == QLatin1String("storage.buckets.get")) {
                spec.url = QUrl(base + QStringLiteral("/storage/v1/b/conformance"));
            } else if (run.method == QLatin1String("storage.objects.list")) {
                spec.url = QUrl(base + QStringLiteral("/storage/v1/b/conformance/o?prefix=") + run.object);
            } else if (run.method == QLatin1String("storage.objects.get")) {
                spec.url = QUrl(object + QStringLiteral("?alt=media"));
            } else if (run.method == QLatin1String("storage.objects.delete")) {
                spec.method = "DELETE";
                spec.url = QUrl(
                    object + (run.precondition ? QStringLiteral("?ifGenerationMatch=") + generation : QString()));
            } else {
                spec.method = "POST";
                spec.url = QUrl(base + QStringLiteral("/upload/storage/v1/b/conformance/o?uploadType=media&name=")
                    + run.object + (run.precondition ? QStringLiteral("&ifGenerationMatch=0") : QString()));
                spec.headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/octet-stream")});
                spec.body = data;
            }
            const int index = int(executors.size());
            auto &executor = executors.emplace_back(std::make_unique<RetryExecutor>());
            executor->setSeed(20'240'101 + index);
            connect(executor.get(), &RetryExecutor::requestFinished, this,
                [&results, index](const RequestResult &r) { results.insert(index, r); });
            connect(
                executor.get(), &RetryExecutor::attemptFinished, this, [&attemptsOf, index](const AttemptRecord &a) {
                    attemptsOf[index].append(QStringLiteral("attempt %1: %2 %3, %4 ms, %5 bytes: %6")
                                                 .arg(a.attemptIndex + 1)
                                                 .arg(a.httpStatus.value_or(0))
                                                 .arg(networkErrorName(a.networkError))
                                                 .arg(a.durationMs(), 0, 'f', 1)
                                                 .arg(a.bytesReceived)
                                                 .arg(a.reason));
                });
            run.requestId = executor->submit(spec, *policy);
        }
        // All at once: the preset's real waits (1 s, 2 s, plus up to 1 s of jitter) overlap.
        QTRY_COMPARE_WITH_TIMEOUT(results.size(), runs.size(), 120'000);

        int played = 0;
        QStringList failures;
        for (qsizetype index = 0; index < runs.size(); ++index) {
            const Run &run = runs[index];
            const RequestResult result = results.value(int(index));
            const bool succeeded = result.outcome == RequestOutcome::Succeeded;
            ++played;
            if (succeeded != run.expectSuccess) {
                failures.append(
                    QStringLiteral("%1: expected %2, got %3 after %4 attempts: %5")
                        .arg(run.name(), run.expectSuccess ? QStringLiteral("success") : QStringLiteral("failure"),
                            succeeded ? QStringLiteral("success") : QStringLiteral("failure"))
                        .arg(result.attempts)
                        .arg(result.reason));
                continue;
            }
            // The faults really happened: every instruction was used, one per attempt of a success.
            const QJsonObject state = QJsonDocument::fromJson(
                call(nam, "GET", QUrl(base + QStringLiteral("/retry_test/") + run.testId), {}))
                                          .object();
            if (!state.value(QLatin1String("completed")).toBool())
                failures.append(
                    QStringLiteral("%1: instructions left unused: %2")
                        .arg(run.name(), QString::fromUtf8(QJsonDocument(state).toJson(QJsonDocument::Compact))));
            if (run.expectSuccess && result.attempts != run.instructions.size() + 1)
                failures.append(QStringLiteral("%1: %2 attempts, expected %3")
                                    .arg(run.name())
                                    .arg(result.attempts)
                                    .arg(run.instructions.size() + 1)
                    + QStringLiteral("\n    ") + attemptsOf.value(int(index)).join(QStringLiteral("\n    ")));
        }
        if (!failures.isEmpty()) {
            // What the server saw of the runs that went wrong, to tell a client's fault from the server's.
            for (const ServerLogEntry &entry : server.log())
                qInfo().noquote() << entry.summary() << entry.testId;
        }
        qInfo().noquote() << QStringLiteral("played %1 runs (%2 cases); %3 methods of the file not played")
                                 .arg(played)
                                 .arg(cases.size())
                                 .arg(skipped.size());
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join(QLatin1Char('\n'))));
        QCOMPARE(played, 45);
    }
};

QTEST_GUILESS_MAIN(TestStorageConformance)
#include "tst_storageconformance.moc"
