#include "app/cli/policyargument.h"
#include "app/cli/subcommand.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QTest>

#include <optional>

using namespace RetryLab;
using namespace RetryLab::Cli;

namespace {

// A command's option table and Options, as app/cli/cmd_*.cpp write them.
struct Table
{
    void addTo(QCommandLineParser &parser) const { parser.addOptions({help, seed}); }

    QCommandLineOption help{{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help.")};
    QCommandLineOption seed{QStringLiteral("seed"), QStringLiteral("Seed."), QStringLiteral("S")};
};

struct Options
{
    QString help;
    std::optional<quint64> seed;
    int reads = 0;
};

Core::Result<void> readOptions(const QCommandLineParser &parser, const Table &table, Options &options)
{
    ++options.reads;
    if (const auto none = noPositionalArguments(parser); !none)
        return none;
    return readSeed(parser, table.seed, options.seed);
}

Core::Result<Options> parse(
    const QStringList &words, const QString &helpEnd = QStringLiteral("\n"), const QString &hintingCommand = {})
{
    return parseOptionTable<Options, Table>(QStringList{QStringLiteral("retrylab"), QStringLiteral("demo")} + words,
        QStringLiteral("Usage: retrylab demo [options]"), &readOptions, helpEnd, hintingCommand);
}

} // namespace

/// The parse() pieces the commands share (app/cli/subcommand.h, policyargument.h).
class TestSubcommand : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void help_isTheUsageThenTheOptionsThenTheEnd()
    {
        const auto options = parse({QStringLiteral("--help"), QStringLiteral("stray")});
        QVERIFY2(options, qPrintable(options.error()));
        QVERIFY2(
            options->help.startsWith(QLatin1String("Usage: retrylab demo [options]\n")), qPrintable(options->help));
        QVERIFY(options->help.contains(QLatin1String("--seed <S>")));
        QVERIFY(options->help.endsWith(QLatin1String("\n\n")));
        QCOMPARE(options->reads, 0); // --help is all it says: no other option is read

        const auto plain = parse({QStringLiteral("--help")}, QString());
        QVERIFY(plain->help.endsWith(QLatin1Char('\n')));
        QVERIFY(!plain->help.endsWith(QLatin1String("\n\n")));
        QVERIFY(parse({QStringLiteral("-h")}, QStringLiteral("\nmore\n"))->help.endsWith(QLatin1String("\n\nmore\n")));
    }

    void parserError_hintOnlyWhenAsked()
    {
        const auto bare = parse({QStringLiteral("--frobnicate")});
        QVERIFY(!bare);
        QCOMPARE(bare.error(), QStringLiteral("Unknown option 'frobnicate'."));
        const auto hinted = parse({QStringLiteral("--frobnicate")}, QStringLiteral("\n"), QStringLiteral("demo"));
        QCOMPARE(hinted.error(), QStringLiteral("Unknown option 'frobnicate'.; see retrylab demo --help"));
        // The hint is for the parser's errors only; the command's own are as it writes them.
        const auto own = parse({QStringLiteral("stray")}, QStringLiteral("\n"), QStringLiteral("demo"));
        QCOMPARE(own.error(), QStringLiteral("unexpected argument \"stray\""));
    }

    void readOptions_fillsOrRefuses()
    {
        const auto none = parse({});
        QVERIFY(none);
        QCOMPARE(none->reads, 1);
        QCOMPARE(none->seed, std::nullopt);
        QCOMPARE(parse({QStringLiteral("--seed"), QStringLiteral("42")})->seed, std::optional<quint64>(42));
        const auto bad = parse({QStringLiteral("--seed"), QStringLiteral("-1")});
        QCOMPARE(bad.error(), QStringLiteral("--seed must be a whole number (got \"-1\")"));
    }

    void readSeed_leavesTheSeedWithoutTheOption()
    {
        const Table table;
        QCommandLineParser parser;
        table.addTo(parser);
        QVERIFY(parser.parse({QStringLiteral("retrylab demo")}));
        std::optional<quint64> seed = 7; // a scenario's own, say
        QVERIFY(readSeed(parser, table.seed, seed));
        QCOMPARE(seed, std::optional<quint64>(7));
        QVERIFY(parser.parse({QStringLiteral("retrylab demo"), QStringLiteral("--seed"), QStringLiteral("x")}));
        QVERIFY(!readSeed(parser, table.seed, seed));
        QCOMPARE(seed, std::optional<quint64>(7));
    }

    void resolvePolicyOptions_inOrder_orTheFirstThatIsNot()
    {
        const auto two = resolvePolicyOptions({QStringLiteral("iam"), QStringLiteral("curl-retry")});
        QVERIFY2(two, qPrintable(two.error()));
        QCOMPARE(two->size(), 2);
        QCOMPARE(two->at(0).origin, QStringLiteral("preset iam"));
        QCOMPARE(two->at(1).origin, QStringLiteral("preset curl-retry"));
        const auto bad = resolvePolicyOptions({QStringLiteral("iam"), QStringLiteral("nope"), QStringLiteral("worse")});
        QVERIFY(!bad);
        QVERIFY2(bad.error().startsWith(QLatin1String("--policy nope: \"nope\" is neither a policy file nor a preset")),
            qPrintable(bad.error()));
    }
};

QTEST_GUILESS_MAIN(TestSubcommand)
#include "tst_subcommand.moc"
