#include "commandtesting.h"

#include "core/export/curlretryflags.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace RetryLab;

/// retrylab policy export, its output read back, and its gRPC service config
/// loaded into real gRPC (Debian's python3-grpcio) against a server that
/// answers UNAVAILABLE.
class TestPolicyCommand : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString writePolicy(const Core::BackoffPolicy &policy, const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(Core::PolicyJson::toJson(policy));
        return path;
    }

    /// Runs the gRPC client script on a service config file; its attempts and final status code.
    QJsonObject countAttempts(const QString &configPath)
    {
        QProcess python;
        QSignalSpy finished(&python, &QProcess::finished);
        python.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral(RETRYLAB_GRPC_SCRIPT), configPath});
        if (!python.waitForStarted(10'000) || !finished.wait(60'000))
            return {};
        const QByteArray err = python.readAllStandardError();
        if (!err.isEmpty())
            qWarning().noquote() << err;
        return QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    }

    static Core::BackoffPolicy fastPolicy(int maxAttempts)
    {
        Core::BackoffPolicy p;
        p.name = QStringLiteral("fast");
        p.algorithm = Core::BackoffAlgorithm::FullJitter;
        p.baseDelayMs = 10;
        p.multiplier = 2;
        p.maxBackoffMs = 80;
        p.maxAttempts = maxAttempts;
        return p;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("policy", words); };
        QTest::addRow("no action") << args({}) << "say what to do: export or check";
        QTest::addRow("unknown action") << args({"lint"}) << "unknown action \"lint\"";
        QTest::addRow("check neither") << args({"check"}) << "either --preset ID or a policy file";
        QTest::addRow("check with --format")
            << args({"check", "--format", "grpc", "--preset", "iam"}) << "go with export";
        QTest::addRow("export with --clients")
            << args({"export", "--clients", "5", "--preset", "iam"}) << "go with check";
        QTest::addRow("clients zero") << args({"check", "--clients", "0", "--preset", "iam"})
                                      << "--clients must be a whole number";
        QTest::addRow("neither") << args({"export"}) << "either --preset ID or a policy file";
        QTest::addRow("both") << args({"export", "--preset", "curl-retry", "x.json"}) << "not both";
        QTest::addRow("format") << args({"export", "--format", "yaml", "--preset", "curl-retry"})
                                << "--format must be one of grpc, curl, json, tenacity, urllib3, botocore, polly, "
                                   "polly-options, resilience4j, envoy, go-backoff, google-http-java (got \"yaml\")";
        for (const char *format :
            {"grpc", "json", "polly", "polly-options", "resilience4j", "envoy", "google-http-java"}) {
            QTest::addRow("runnable %s", format)
                << args({"export", "--format", format, "--runnable", "http://127.0.0.1:1/", "--preset", "curl-retry"})
                << QStringLiteral("--runnable goes with --format curl|tenacity|urllib3|botocore|go-backoff; %1 cannot "
                                  "be a program")
                       .arg(QLatin1String(format));
        }
        QTest::addRow("runnable without http")
            << args({"export", "--format", "go-backoff", "--runnable", "ftp://h/", "--preset", "curl-retry"})
            << "--runnable needs an http:// or https:// URL (got \"ftp://h/\")";
        QTest::addRow("preset") << args({"export", "--preset", "nope"}) << "no preset \"nope\" (known: ";
        QTest::addRow("file") << args({"export", "/nonexistent/policy.json"}) << "cannot read";
        QTest::addRow("service without grpc")
            << args({"export", "--preset", "curl-retry", "--service", "a.B"}) << "go with --format grpc";
        QTest::addRow("method without service")
            << args({"export", "--format", "grpc", "--preset", "curl-retry", "--method", "Get"}) << "needs --service";
    }

    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
    }

    void fifoAndDevices_areRefusedAtOnce()
    {
        // A FIFO nobody writes to hung the reader; /dev/zero (size 0, endless) filled the memory.
        const QString fifo = m_dir.filePath(QStringLiteral("policy-pipe"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const auto piped = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("check"), fifo}, 20'000);
        QCOMPARE(piped.exitCode, 2);
        QVERIFY2(piped.err.contains(
                     QStringLiteral("cannot read %1: it is a FIFO (named pipe), not a regular file").arg(fifo)),
            qPrintable(piped.err));
        const auto zero = CommandTesting::run(
            {QStringLiteral("policy"), QStringLiteral("check"), QStringLiteral("/dev/zero")}, 20'000);
        QCOMPARE(zero.exitCode, 2);
        QVERIFY2(zero.err.contains(QLatin1String("it is a device, not a regular file")), qPrintable(zero.err));
        // A 14 MB file is too large, as request --policy says, not "invalid JSON at offset 4194304".
        const QString huge = m_dir.filePath(QStringLiteral("huge.json"));
        QVERIFY(CommandTesting::write(huge, QByteArray(14 * 1000 * 1000, ' ')));
        const auto large = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("check"), huge}, 20'000);
        QCOMPARE(large.exitCode, 2);
        QVERIFY2(large.err.contains(QStringLiteral("%1 is larger than 4 MiB, the most a policy file may be").arg(huge)),
            qPrintable(large.err));
    }

    // Several mistakes: the first in the order they are checked is named, in one line with the help hint.
    void theFirstMistakeIsNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("policy", words); };
        QTest::addRow("format before preset")
            << args({"export", "--format", "yaml", "--preset", "nope"})
            << "--format must be one of grpc, curl, json, tenacity, urllib3, botocore, polly, polly-options, "
               "resilience4j, envoy, go-backoff, google-http-java (got \"yaml\")";
        QTest::addRow("clients before arguments") << args({"check", "--clients", "0", "a.json", "b.json"})
                                                  << "--clients must be a whole number from 1 to 100000000 (got \"0\")";
        QTest::addRow("arguments before preset")
            << args({"check", "--preset", "iam", "a.json", "b.json"}) << "unexpected argument \"b.json\"";
        // check keeps export's rules for --method: it needs --format grpc (and --format goes with export).
        QTest::addRow("check with --method")
            << args({"check", "--preset", "iam", "--method", "Get"}) << "--service and --method go with --format grpc";
    }

    void theFirstMistakeIsNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QCOMPARE(outcome.err, QStringLiteral("retrylab policy: %1; see retrylab policy --help\n").arg(expected));
    }

    void outWritesTheFileAndNothingElse()
    {
        const QString path = m_dir.filePath(QStringLiteral("out.json"));
        const auto outcome = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"),
            QStringLiteral("--preset"), QStringLiteral("curl-retry"), QStringLiteral("--out"), path});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(outcome.out.isEmpty());
        QCOMPARE(
            CommandTesting::read(path), Core::PolicyJson::toJson(*Core::Presets::find(QStringLiteral("curl-retry"))));
        const auto unwritable = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"),
            QStringLiteral("--preset"), QStringLiteral("curl-retry"), QStringLiteral("--out"), m_dir.path()});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY2(unwritable.err.startsWith(QLatin1String("retrylab policy: --out: ")), qPrintable(unwritable.err));
    }

    void aBadPolicyFileSaysWhere()
    {
        const QString path = m_dir.filePath(QStringLiteral("bad.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format":"retrylab-policy","version":1,"maxAttempts":-3})");
        file.close();
        const auto outcome = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"), path});
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(path), qPrintable(outcome.err));
    }

    void jsonReadsBackAsThePreset()
    {
        for (const Core::Presets::Preset &preset : Core::Presets::all()) {
            const auto outcome = CommandTesting::run(
                {QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("--preset"), preset.id});
            QCOMPARE(outcome.exitCode, 0);
            const auto back = Core::PolicyJson::fromJson(outcome.out.toUtf8());
            QVERIFY2(back, qPrintable(preset.id + QStringLiteral(": ") + back.error()));
            QCOMPARE(Core::PolicyJson::toJson(*back), Core::PolicyJson::toJson(preset.policy));
        }
    }

    // A name from a file cannot move the cursor, clear the screen or forge a line of the output.
    void check_controlCharactersOfTheNameAreShownEscaped()
    {
        Core::BackoffPolicy p = fastPolicy(3);
        p.name = QStringLiteral("evil\u001b[2J\r\nwarning: forged");
        const QString file = writePolicy(p, QStringLiteral("evil.json"));
        const auto outcome = CommandTesting::run(CommandTesting::arguments("policy", {"check"}) << file);
        QVERIFY2(
            !outcome.out.contains(QChar(0x1b)) && !outcome.out.contains(QLatin1Char('\r')), qPrintable(outcome.out));
        QVERIFY2(
            outcome.out.contains(QLatin1String("Policy \"evil\\e[2J\\r\\nwarning: forged\"")), qPrintable(outcome.out));
        QVERIFY(!outcome.out.contains(QLatin1String("\nwarning: forged")));
    }

    void checkWarnsWithTheReason_exitOne()
    {
        // IAM waits up to 300 s: fine for a batch job, too long for a person.
        const auto batch = CommandTesting::run(CommandTesting::arguments("policy", {"check", "--preset", "iam"}));
        QCOMPARE(batch.exitCode, 0);
        QVERIFY2(batch.out.contains(QLatin1String("no warnings")), qPrintable(batch.out));
        const auto interactive = CommandTesting::run(
            CommandTesting::arguments("policy", {"check", "--preset", "iam", "--interactive", "--clients", "200"}));
        QCOMPARE(interactive.exitCode, 1);
        QVERIFY2(interactive.out.contains(QLatin1String("Policy \"IAM\" for 200 clients, interactive")),
            qPrintable(interactive.out));
        QVERIFY(interactive.out.contains(QLatin1String("warning: deadlineMs: a person may wait 5 min before")));
        QVERIFY(interactive.out.contains(QLatin1String("warning: retryBudget.kind: no retry budget with 200 clients")));
        QVERIFY(interactive.out.contains(QLatin1String("2 warnings")));

        // A file: more than 10 attempts, no jitter with many clients.
        Core::BackoffPolicy p;
        p.name = QStringLiteral("Hammer");
        p.algorithm = Core::BackoffAlgorithm::Constant;
        p.maxAttempts = 25;
        p.retryBudget.kind = Core::RetryBudgetKind::AwsStandard;
        const QString path = m_dir.filePath(QStringLiteral("hammer.json"));
        QVERIFY(Core::PolicyJson::writeFile(path, p));
        const auto file = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("check"), path,
            QStringLiteral("--clients"), QStringLiteral("50")});
        QCOMPARE(file.exitCode, 1);
        QVERIFY2(file.out.contains(QLatin1String("warning: intervalJitter: no jitter with 50 clients")),
            qPrintable(file.out));
        QVERIFY(file.out.contains(QLatin1String("warning: maxAttempts: 25 attempts")));
    }

    void curlFlagsAreTheExporters()
    {
        const Core::BackoffPolicy preset = *Core::Presets::find(QStringLiteral("curl-retry"));
        const auto outcome
            = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("--format"),
                QStringLiteral("curl"), QStringLiteral("--preset"), QStringLiteral("curl-retry")});
        QCOMPARE(outcome.exitCode, 0);
        QCOMPARE(outcome.out.trimmed(), Core::CurlRetryFlags::fromPolicy(preset).arguments.join(QLatin1Char(' ')));
        QVERIFY(outcome.out.startsWith(QStringLiteral("--retry ")));
    }

    // The formats beyond Python each write their text to standard output and their notes to standard error.
    void newFormatsAreAccepted_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::addRow("polly") << "polly"
                               << "new ResiliencePipelineBuilder<HttpResponseMessage>()";
        QTest::addRow("polly-options") << "polly-options"
                                       << "\"MaxRetryAttempts\": 3";
        QTest::addRow("resilience4j") << "resilience4j"
                                      << "resilience4j:\n  retry:\n    instances:\n      curl-retry:\n";
        QTest::addRow("envoy") << "envoy"
                               << "  retry_policy:\n";
        QTest::addRow("go-backoff") << "go-backoff"
                                    << "backoff.NewExponentialBackOff()";
        QTest::addRow("google-http-java") << "google-http-java"
                                          << "new ExponentialBackOff.Builder()";
    }

    void newFormatsAreAccepted()
    {
        QFETCH(QString, format);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"),
            QStringLiteral("--format"), format, QStringLiteral("--preset"), QStringLiteral("curl-retry")});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains(expected), qPrintable(outcome.out));
        QVERIFY2(outcome.err.contains(QLatin1String("note: ")), qPrintable(outcome.err));
    }

    // --runnable makes a program of each runnable format, with the URL as its default.
    void runnableFormatsWriteAProgram_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::addRow("curl") << "curl"
                              << "#!/bin/sh\n";
        QTest::addRow("tenacity") << "tenacity"
                                  << "sys.exit(main())";
        QTest::addRow("urllib3") << "urllib3"
                                 << "sys.exit(main())";
        QTest::addRow("botocore") << "botocore"
                                  << "sys.exit(main())";
        QTest::addRow("go-backoff") << "go-backoff"
                                    << "package main\n";
    }

    void runnableFormatsWriteAProgram()
    {
        QFETCH(QString, format);
        QFETCH(QString, expected);
        const QString path = m_dir.filePath(QStringLiteral("program-") + format);
        const auto outcome = CommandTesting::run({QStringLiteral("policy"), QStringLiteral("export"),
            QStringLiteral("--format"), format, QStringLiteral("--runnable"), QStringLiteral("http://127.0.0.1:9/x"),
            QStringLiteral("--preset"), QStringLiteral("aws-standard"), QStringLiteral("--out"), path});
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(outcome.out.isEmpty());
        const QString text = QString::fromUtf8(CommandTesting::read(path));
        QVERIFY2(text.contains(expected), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("http://127.0.0.1:9/x")), qPrintable(text));
    }

    void grpcServiceConfigIsObeyedByRealGrpc_data()
    {
        QTest::addColumn<int>("maxAttempts");
        QTest::addColumn<int>("grpcAttempts");
        QTest::addColumn<bool>("warned");
        QTest::newRow("4 attempts") << 4 << 4 << false;
        QTest::newRow("8 attempts: gRPC stops at its 5") << 8 << 5 << true;
    }

    void grpcServiceConfigIsObeyedByRealGrpc()
    {
        QFETCH(int, maxAttempts);
        QFETCH(int, grpcAttempts);
        QFETCH(bool, warned);
        const QString policy = writePolicy(fastPolicy(maxAttempts), QStringLiteral("fast%1.json").arg(maxAttempts));
        const QString config = m_dir.filePath(QStringLiteral("service-config-%1.json").arg(maxAttempts));
        const auto outcome = CommandTesting::run(
            {QStringLiteral("policy"), QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("grpc"),
                QStringLiteral("--service"), QStringLiteral("retrylab.Test"), QStringLiteral("--out"), config, policy});
        QCOMPARE(outcome.exitCode, 0);
        // What gRPC does differently is said; above five attempts, that gRPC stops at five.
        QVERIFY(outcome.err.contains(QStringLiteral("note: ")));
        QCOMPARE(outcome.err.contains(QStringLiteral("gRPC clients treat it as 5")), warned);
        QFile file(config);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject exported = QJsonDocument::fromJson(file.readAll()).object();
        const QJsonObject retry = exported.value(QStringLiteral("methodConfig"))
                                      .toArray()
                                      .at(0)
                                      .toObject()
                                      .value(QStringLiteral("retryPolicy"))
                                      .toObject();
        QCOMPARE(retry.value(QStringLiteral("maxAttempts")).toInt(), maxAttempts);

        const QJsonObject counted = countAttempts(config);
        QCOMPARE(counted.value(QStringLiteral("code")).toString(), QStringLiteral("UNAVAILABLE"));
        QCOMPARE(counted.value(QStringLiteral("attempts")).toInt(), grpcAttempts);
    }
};

QTEST_GUILESS_MAIN(TestPolicyCommand)
#include "tst_policycommand.moc"
