#include "commandtesting.h"

#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/policy/retrylayers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;

class TestLayersCommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("layers", words); };
        QTest::addRow("one layer") << args({"--policy", "iam"}) << "give 2 to 4 --policy options";
        QTest::addRow("five layers") << args(
            {"--policy", "iam", "--policy", "iam", "--policy", "iam", "--policy", "iam", "--policy", "iam"})
                                     << "got 5";
        QTest::addRow("unknown policy") << args({"--policy", "iam", "--policy", "nope"})
                                        << "\"nope\" is neither a policy file nor a preset";
        QTest::addRow("p above 1") << args({"--policy", "iam", "--policy", "iam", "-p", "1.5"}) << "-p must be";
        QTest::addRow("negative failure time")
            << args({"--policy", "iam", "--policy", "iam", "--failure-ms", "-1"}) << "--failure-ms must be";
        QTest::addRow("runs fraction") << args({"--policy", "iam", "--policy", "iam", "--runs", "1.5"})
                                       << "--runs must be";
    }

    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains(expected), qPrintable(outcome.err));
    }

    // Several mistakes: the first in the order the options are read is named, once, with the help hint.
    void theFirstMistakeIsNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const auto args
            = [](std::initializer_list<const char *> words) { return CommandTesting::arguments("layers", words); };
        QTest::addRow("policy before numbers")
            << args({"--runs", "x", "-p", "2", "--policy", "iam", "--policy", "nope"})
            << "retrylab layers: --policy nope: \"nope\" is neither a policy file nor a preset";
        QTest::addRow("p before runs") << args({"--runs", "x", "--policy", "iam", "--policy", "iam", "-p", "2"})
                                       << "retrylab layers: -p must be a probability from 0 to 1 (got \"2\"); see "
                                          "retrylab layers --help\n";
        QTest::addRow("numbers before seed")
            << args({"--seed", "x", "--policy", "iam", "--policy", "iam", "--threshold", "0"})
            << "retrylab layers: --threshold must be from 1 to 10^12 (got \"0\"); see retrylab layers --help\n";
    }

    void theFirstMistakeIsNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto outcome = CommandTesting::run(arguments);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.startsWith(expected), qPrintable(outcome.err));
        QCOMPARE(outcome.err.count(QLatin1Char('\n')), 1);
    }

    void threeLayers_figuresAndCheck_exitOneAboveTheThreshold()
    {
        const auto outcome = CommandTesting::run(CommandTesting::arguments("layers",
            {"--policy", "google-cloud-storage", "--policy", "aws-standard", "--policy", "grpc-retry-policy", "-p",
                "0.4", "--runs", "5000", "--seed", "9", "--json"}));
        QCOMPARE(outcome.exitCode, 1); // 10 x 3 x 5 attempts: far above 10
        const QJsonObject json = QJsonDocument::fromJson(outcome.out.toUtf8()).object();
        QList<Core::BackoffPolicy> stack;
        for (const char *id : {"google-cloud-storage", "aws-standard", "grpc-retry-policy"})
            stack.append(*Core::Presets::find(QString::fromLatin1(id)));
        Core::RetryLayers::Assumptions a;
        a.failureProbability = 0.4;
        const Core::RetryLayers::Result exact = Core::RetryLayers::compute(stack, a);
        QCOMPARE(json.value(QStringLiteral("layers")).toArray().size(), 3);
        QCOMPARE(json.value(QStringLiteral("worstCaseServerAttempts")).toDouble(), exact.worstCaseServerAttempts);
        QCOMPARE(json.value(QStringLiteral("expectedServerAttempts")).toDouble(), exact.expectedServerAttempts);
        QVERIFY(json.value(QStringLiteral("exceedsThreshold")).toBool());
        QVERIFY(json.value(QStringLiteral("warning")).toString().contains(QLatin1String("the layers multiply")));
        const QJsonObject check = json.value(QStringLiteral("check")).toObject();
        QCOMPARE(check.value(QStringLiteral("runs")).toInt(), 5000);
        QCOMPARE(check.value(QStringLiteral("seed")).toString(), QStringLiteral("9"));
        const double mean = check.value(QStringLiteral("meanServerAttempts")).toDouble();
        const double error = check.value(QStringLiteral("standardError")).toDouble();
        QVERIFY2(std::abs(mean - exact.expectedServerAttempts) <= 4.0 * error,
            qPrintable(QStringLiteral("%1 +- %2 vs %3").arg(mean).arg(error).arg(exact.expectedServerAttempts)));
    }

    // A layer's name from a policy file is shown with its control characters escaped.
    void layerNames_controlCharactersShownEscaped()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Core::BackoffPolicy p = *Core::Presets::find(QStringLiteral("curl-retry"));
        p.name = QStringLiteral("inner\u001b]0;title\u0007\rlayer 9 forged");
        const QString file = dir.filePath(QStringLiteral("inner.json"));
        QVERIFY(CommandTesting::write(file, Core::PolicyJson::toJson(p)));
        const auto outcome = CommandTesting::run(
            CommandTesting::arguments("layers", {"--policy", "iam", "--runs", "0", "--policy"}) << file);
        QVERIFY2(!outcome.out.contains(QChar(0x1b)) && !outcome.out.contains(QChar(0x07))
                && !outcome.out.contains(QLatin1Char('\r')),
            qPrintable(outcome.out));
        QVERIFY2(outcome.out.contains(QLatin1String("layer 2 inner\\e]0;title\\x07\\rlayer 9 forged: up to")),
            qPrintable(outcome.out));
    }

    void twoGentleLayers_textAndExitZero()
    {
        const auto outcome = CommandTesting::run(CommandTesting::arguments(
            "layers", {"--policy", "curl-retry", "--policy", "azure-retry-pattern", "--threshold", "100"}));
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY2(outcome.out.contains(QLatin1String("layer 1 curl --retry: up to")), qPrintable(outcome.out));
        QVERIFY(outcome.out.contains(QLatin1String("attempts at the server per user action: at most")));
        QVERIFY(outcome.out.contains(QLatin1String("check: 10000 user actions played (seed ")));
        QVERIFY(!outcome.out.contains(QLatin1String("warning:")));
    }
};

QTEST_GUILESS_MAIN(TestLayersCommand)
#include "tst_layerscommand.moc"
