#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestSimulateCommand : public QObject
{
    Q_OBJECT

private:
    struct Outcome
    {
        int exitCode = -1;
        QString out;
        QString err;
    };

    static Outcome simulate(const QStringList &arguments)
    {
        QProcess process;
        process.setProgram(QStringLiteral(RETRYLAB_BINARY));
        process.setArguments(QStringList{QStringLiteral("simulate")} + arguments);
        process.start();
        Outcome outcome;
        if (!process.waitForFinished(120'000)) {
            outcome.err = process.errorString();
            return outcome;
        }
        outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        outcome.out = QString::fromUtf8(process.readAllStandardOutput());
        outcome.err = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }

    static QString read(const QString &path)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(file.readAll());
    }

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase();
    void csv_sameSeed_identicalFiles();
    void csv_differentSeed_differentFiles();
    void csv_oneRowPerClientsAndStrategy();
    void summary_tablePrintedToStdout();
    void csvDash_writesCsvToStdout();
    void loadCsv_outageModel_written();
    void help_exitsZero();
    void badArguments_exitTwoNamingTheProblem_data();
    void badArguments_exitTwoNamingTheProblem();
};

void TestSimulateCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QStringLiteral(RETRYLAB_BINARY)), RETRYLAB_BINARY);
}

void TestSimulateCommand::csv_sameSeed_identicalFiles()
{
    const QString a = m_dir.filePath(QStringLiteral("a.csv"));
    const QString b = m_dir.filePath(QStringLiteral("b.csv"));
    const QStringList common{QStringLiteral("--clients"), QStringLiteral("10:30:10"), QStringLiteral("--runs"),
        QStringLiteral("5"), QStringLiteral("--seed"), QStringLiteral("7")};
    const Outcome first
        = simulate(common + QStringList{QStringLiteral("--csv"), a, QStringLiteral("--threads"), QStringLiteral("1")});
    QCOMPARE(first.exitCode, 0);
    const Outcome second
        = simulate(common + QStringList{QStringLiteral("--csv"), b, QStringLiteral("--threads"), QStringLiteral("2")});
    QCOMPARE(second.exitCode, 0);
    QVERIFY(!read(a).isEmpty());
    QCOMPARE(read(b), read(a));
}

void TestSimulateCommand::csv_differentSeed_differentFiles()
{
    const QString a = m_dir.filePath(QStringLiteral("s1.csv"));
    const QString b = m_dir.filePath(QStringLiteral("s2.csv"));
    QCOMPARE(simulate({QStringLiteral("--clients"), QStringLiteral("40"), QStringLiteral("--runs"), QStringLiteral("3"),
                          QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--csv"), a})
                 .exitCode,
        0);
    QCOMPARE(simulate({QStringLiteral("--clients"), QStringLiteral("40"), QStringLiteral("--runs"), QStringLiteral("3"),
                          QStringLiteral("--seed"), QStringLiteral("2"), QStringLiteral("--csv"), b})
                 .exitCode,
        0);
    QVERIFY(read(a) != read(b));
}

void TestSimulateCommand::csv_oneRowPerClientsAndStrategy()
{
    const QString path = m_dir.filePath(QStringLiteral("rows.csv"));
    const Outcome o = simulate(
        {QStringLiteral("--clients"), QStringLiteral("10,20,50"), QStringLiteral("--runs"), QStringLiteral("2"),
            QStringLiteral("--strategies"), QStringLiteral("full-jitter,none"), QStringLiteral("--csv"), path});
    QCOMPARE(o.exitCode, 0);
    const QStringList lines = read(path).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 3 * 2);
    const QStringList header = lines.first().split(QLatin1Char(','));
    const qsizetype clients = header.indexOf(QLatin1String("clients"));
    const qsizetype strategy = header.indexOf(QLatin1String("strategy"));
    QVERIFY(clients >= 0 && strategy >= 0);
    QVERIFY(header.contains(QLatin1String("calls")));
    QVERIFY(header.contains(QLatin1String("completion_ms")));
    QStringList cells;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QStringList row = lines[i].split(QLatin1Char(','));
        QCOMPARE(row.size(), header.size());
        cells.append(row[clients] + QLatin1Char('/') + row[strategy]);
    }
    QCOMPARE(cells,
        (QStringList{QStringLiteral("10/full-jitter"), QStringLiteral("10/none"), QStringLiteral("20/full-jitter"),
            QStringLiteral("20/none"), QStringLiteral("50/full-jitter"), QStringLiteral("50/none")}));
}

void TestSimulateCommand::summary_tablePrintedToStdout()
{
    const Outcome o = simulate({QStringLiteral("--clients"), QStringLiteral("10:20:10"), QStringLiteral("--runs"),
        QStringLiteral("2"), QStringLiteral("--model"), QStringLiteral("capacity")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY2(o.out.contains(QLatin1String("Calls (mean per run)")), qPrintable(o.out));
    QVERIFY(o.out.contains(QLatin1String("Completion time, ms")));
    QVERIFY(o.out.contains(QLatin1String("decorrelated-jitter")));
    QVERIFY(o.err.isEmpty());
}

void TestSimulateCommand::csvDash_writesCsvToStdout()
{
    const Outcome o = simulate({QStringLiteral("--clients"), QStringLiteral("10"), QStringLiteral("--runs"),
        QStringLiteral("2"), QStringLiteral("--csv"), QStringLiteral("-")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY2(o.out.startsWith(QLatin1String("model,clients,strategy,")), qPrintable(o.out));
    QCOMPARE(o.out.count(QLatin1Char('\n')), 1 + 6);
}

void TestSimulateCommand::loadCsv_outageModel_written()
{
    const QString csv = m_dir.filePath(QStringLiteral("outage.csv"));
    const QString load = m_dir.filePath(QStringLiteral("load.csv"));
    const Outcome o = simulate({QStringLiteral("--model"), QStringLiteral("outage"), QStringLiteral("--clients"),
        QStringLiteral("60"), QStringLiteral("--runs"), QStringLiteral("3"), QStringLiteral("--csv"), csv,
        QStringLiteral("--load-csv"), load, QStringLiteral("--outage-start-ms"), QStringLiteral("200"),
        QStringLiteral("--outage-end-ms"), QStringLiteral("900")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(o.out.contains(QLatin1String("Recovery after the outage")));
    const QStringList loadLines = read(load).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(loadLines.first(), QStringLiteral("clients,strategy,bin_start_ms,calls"));
    QVERIFY(loadLines.size() > 6 * 10);
    const QStringList rows = read(csv).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const qsizetype recovery = rows.first().split(QLatin1Char(',')).indexOf(QLatin1String("recovery_ms"));
    QVERIFY(recovery > 0);
    QVERIFY(!rows[1].split(QLatin1Char(','))[recovery].isEmpty());
}

void TestSimulateCommand::help_exitsZero()
{
    const Outcome o = simulate({QStringLiteral("--help")});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(o.out.startsWith(QLatin1String("Usage: retrylab simulate [options]")));
    QVERIFY(o.out.contains(QLatin1String("--clients")));
    QVERIFY(o.out.contains(QLatin1String("--strategies")));
    // Unlike the other commands' help, no blank line after it: it never had one.
    QVERIFY(o.out.endsWith(QLatin1Char('\n')));
    QVERIFY(!o.out.endsWith(QLatin1String("\n\n")));
}

void TestSimulateCommand::badArguments_exitTwoNamingTheProblem_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");

    QTest::addRow("unknown model") << QStringList{QStringLiteral("--model"), QStringLiteral("queueing")}
                                   << "--model: unknown model \"queueing\"";
    QTest::addRow("zero clients") << QStringList{QStringLiteral("--clients"), QStringLiteral("0:10:5")}
                                  << "--clients: 0 is outside";
    QTest::addRow("clients garbage") << QStringList{QStringLiteral("--clients"), QStringLiteral("lots")}
                                     << "--clients: \"lots\" is not a whole number";
    QTest::addRow("unknown strategy") << QStringList{QStringLiteral("--strategies"), QStringLiteral("none,wobble")}
                                      << "unknown strategy \"wobble\"";
    QTest::addRow("NaN base") << QStringList{QStringLiteral("--base-ms"), QStringLiteral("nan")}
                              << "--base-ms (baseDelayMs)";
    QTest::addRow("negative cap") << QStringList{QStringLiteral("--cap-ms"), QStringLiteral("-1")}
                                  << "--cap-ms (maxBackoffMs)";
    QTest::addRow("runs not a number") << QStringList{QStringLiteral("--runs"), QStringLiteral("many")}
                                       << "--runs: \"many\" is not a whole number";
    QTest::addRow("zero runs") << QStringList{QStringLiteral("--runs"), QStringLiteral("0")}
                               << "--runs (runs): 0 is below the minimum";
    QTest::addRow("absurd grid") << QStringList{QStringLiteral("--clients"), QStringLiteral("10000"),
        QStringLiteral("--runs"), QStringLiteral("100000")}
                                 << "grid:";
    QTest::addRow("bad status") << QStringList{QStringLiteral("--model"), QStringLiteral("capacity"),
        QStringLiteral("--status"), QStringLiteral("500")}
                                << "--status (overloadStatus): must be 503 or 429";
    QTest::addRow("outage backwards") << QStringList{QStringLiteral("--model"), QStringLiteral("outage"),
        QStringLiteral("--outage-start-ms"), QStringLiteral("5000")}
                                      << "--outage-end-ms (outageEndMs)";
    QTest::addRow("bad seed") << QStringList{QStringLiteral("--seed"), QStringLiteral("-4")} << "--seed:";
    QTest::addRow("bad arrivals") << QStringList{QStringLiteral("--arrivals"), QStringLiteral("trickle")}
                                  << "--arrivals: unknown mode";
    QTest::addRow("unknown option") << QStringList{QStringLiteral("--turbo")} << "Unknown option 'turbo'";
    // Read in this order: --strategies, --seed, --arrivals; the first wrong one is named.
    QTest::addRow("seed before arrivals") << QStringList{QStringLiteral("--arrivals"), QStringLiteral("trickle"),
        QStringLiteral("--seed"), QStringLiteral("x")}
                                          << "--seed: \"x\" is not a whole number";
    QTest::addRow("strategies before seed") << QStringList{QStringLiteral("--seed"), QStringLiteral("x"),
        QStringLiteral("--strategies"), QStringLiteral("wobble")}
                                            << "wobble";
    QTest::addRow("stray argument") << QStringList{QStringLiteral("now")} << "unexpected argument \"now\"";
    QTest::addRow("unwritable csv") << QStringList{QStringLiteral("--csv"), QStringLiteral("/nonexistent/dir/x.csv")}
                                    << "--csv: cannot write";
}

void TestSimulateCommand::badArguments_exitTwoNamingTheProblem()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const Outcome o = simulate(arguments);
    QCOMPARE(o.exitCode, 2);
    QVERIFY2(o.err.contains(expected), qPrintable(o.err));
    QVERIFY2(o.err.startsWith(QLatin1String("retrylab simulate: ")), qPrintable(o.err));
    QVERIFY(o.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestSimulateCommand)
#include "tst_simulatecommand.moc"
