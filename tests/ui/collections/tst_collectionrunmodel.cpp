#include "core/runner/collectionrunner.h"
#include "core/runner/collectionrunreport.h"
#include "ui/collections/collectionrunmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace RetryLab;
using Ui::CollectionRunModel;

namespace {

Core::AttemptRecord runAttempt(quint64 request, int index, std::optional<int> status)
{
    Core::AttemptRecord attempt;
    attempt.requestId = request;
    attempt.attemptIndex = index;
    attempt.httpStatus = status;
    if (!status) {
        attempt.end = Core::AttemptEnd::NetworkError;
        attempt.networkError = QNetworkReply::ConnectionRefusedError;
    }
    return attempt;
}

/// A request that ended with these statuses (nothing: no answer), as the runner reports it.
Core::CollectionRequestRun finishedRun(int index, const QString &path, QList<std::optional<int>> statuses)
{
    Core::CollectionRequestRun run;
    run.index = index;
    run.path = path;
    run.name = path.section(QLatin1Char('/'), -1);
    run.requestId = quint64(index) + 1;
    run.policyName = QStringLiteral("aws-standard");
    for (int i = 0; i < statuses.size(); ++i)
        run.attempts.append(runAttempt(run.requestId, i, statuses.at(i)));
    Core::RequestResult result;
    result.requestId = run.requestId;
    result.attempts = int(statuses.size());
    result.finalStatus = statuses.constLast();
    result.outcome = Core::RequestOutcome::Succeeded;
    result.startNs = 0;
    result.endNs = 42'000'000;
    run.result = result;
    return run;
}

} // namespace

class TestCollectionRunModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requests_appearAsTheyStart_andGetTheirVerdictsWhenTheyEnd();
    void children_areAssertionsTestsAndErrors_withTheirMessages();
    void status_namesEveryAttempt_whenThereWereSeveral();
    void iterations_areNamedOnlyWhenThereAreSeveral();
    void setResult_replacesTheRows();
};

void TestCollectionRunModel::requests_appearAsTheyStart_andGetTheirVerdictsWhenTheyEnd()
{
    CollectionRunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.clear();
    model.addStarted(0, QStringLiteral("Orders/Create"), 0);
    QCOMPARE(model.rowCount(), 1);
    const QModelIndex row = model.index(0, CollectionRunModel::VerdictColumn);
    QCOMPARE(row.data().toString(), QStringLiteral("running"));
    QCOMPARE(model.index(0, CollectionRunModel::StatusColumn).data().toString(), QStringLiteral("sending…"));
    QCOMPARE(model.requestAt(row), nullptr);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.addFinished(finishedRun(0, QStringLiteral("Orders/Create"), {200}));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.index(0, CollectionRunModel::RequestColumn).data().toString(), QStringLiteral("Orders/Create"));
    QCOMPARE(model.index(0, CollectionRunModel::StatusColumn).data().toString(), QStringLiteral("200"));
    QCOMPARE(model.index(0, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("passed"));
    QCOMPARE(model.index(0, CollectionRunModel::TimeColumn).data().toString(), QStringLiteral("42 ms"));
    // Colour comes with the word, never alone.
    QVERIFY(model.index(0, CollectionRunModel::VerdictColumn).data(Qt::DecorationRole).value<QColor>().isValid());
    QVERIFY(model.requestAt(row));
    QCOMPARE(model.requestAt(row)->path, QStringLiteral("Orders/Create"));

    // A request that ends without a started row gets one.
    model.addFinished(finishedRun(1, QStringLiteral("Orders/List"), {503, 200}));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("retried"));
    QCOMPARE(
        model.index(1, 0).data(CollectionRunModel::VerdictRole).toInt(), int(CollectionRunModel::Verdict::Retried));
    QCOMPARE(model.indexOfRequest(1), model.index(1, 0));
    QVERIFY(!model.indexOfRequest(7).isValid());
}

void TestCollectionRunModel::children_areAssertionsTestsAndErrors_withTheirMessages()
{
    CollectionRunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Core::CollectionRequestRun run = finishedRun(0, QStringLiteral("Users/Get"), {503});
    run.assertions = {{QStringLiteral("status 200"), false, QStringLiteral("status 200 expected, 503 came"), {}},
        {QStringLiteral("header Content-Type present"), true, QString(), {}}};
    run.tests = {{QStringLiteral("has a name"), false, false, QStringLiteral("expected undefined to be ok")},
        {QStringLiteral("later"), true, true, QString()}};
    run.errors = {QStringLiteral("extract token: /token is not in the body")};
    model.addStarted(0, run.path, 0);
    model.addFinished(run);

    const QModelIndex request = model.index(0, 0);
    QCOMPARE(model.rowCount(request), 5);
    QCOMPARE(model.index(0, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("failed"));
    const auto child = [&](int row, int column) { return model.index(row, column, request).data().toString(); };
    QCOMPARE(child(0, CollectionRunModel::RequestColumn), QStringLiteral("Assertion: status 200"));
    QCOMPARE(child(0, CollectionRunModel::StatusColumn), QStringLiteral("status 200 expected, 503 came"));
    QCOMPARE(child(0, CollectionRunModel::VerdictColumn), QStringLiteral("failed"));
    QCOMPARE(child(1, CollectionRunModel::VerdictColumn), QStringLiteral("passed"));
    QCOMPARE(child(2, CollectionRunModel::RequestColumn), QStringLiteral("Test: has a name"));
    QCOMPARE(child(2, CollectionRunModel::StatusColumn), QStringLiteral("expected undefined to be ok"));
    QCOMPARE(child(3, CollectionRunModel::VerdictColumn), QStringLiteral("skipped"));
    QCOMPARE(child(4, CollectionRunModel::RequestColumn), QStringLiteral("Error"));
    QCOMPARE(child(4, CollectionRunModel::StatusColumn), QStringLiteral("extract token: /token is not in the body"));
    QCOMPARE(
        model.index(4, 0, request).data(CollectionRunModel::KindRole).toInt(), int(CollectionRunModel::Kind::Error));
    QCOMPARE(model.index(2, 0, request).data(CollectionRunModel::RequestIndexRole).toInt(), 0);
    // A verdict's row leads to its request.
    QCOMPARE(model.requestIndex(model.index(3, 2, request)), request);
    QCOMPARE(model.requestAt(model.index(3, 2, request))->path, QStringLiteral("Users/Get"));
}

void TestCollectionRunModel::status_namesEveryAttempt_whenThereWereSeveral()
{
    CollectionRunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.addFinished(finishedRun(0, QStringLiteral("flaky"), {503, 503, 200}));
    model.addFinished(finishedRun(1, QStringLiteral("down"), {std::nullopt, std::nullopt}));
    Core::CollectionRequestRun skipped;
    skipped.index = 2;
    skipped.path = QStringLiteral("skipped");
    skipped.skipped = true;
    model.addFinished(skipped);

    QCOMPARE(model.index(0, CollectionRunModel::StatusColumn).data().toString(),
        QStringLiteral("200 after 3 attempts: 503 → 503 → 200"));
    QCOMPARE(model.index(1, CollectionRunModel::StatusColumn).data().toString(),
        QStringLiteral("no answer after 2 attempts: ConnectionRefusedError → ConnectionRefusedError"));
    QCOMPARE(model.index(2, CollectionRunModel::StatusColumn).data().toString(), QStringLiteral("skipped"));
    QCOMPARE(model.index(2, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("skipped"));
    QVERIFY(model.index(0, CollectionRunModel::VerdictColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("aws-standard")));
}

void TestCollectionRunModel::iterations_areNamedOnlyWhenThereAreSeveral()
{
    CollectionRunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.clear(1);
    model.addStarted(0, QStringLiteral("a"), 0);
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("a"));
    model.clear(3);
    QCOMPARE(model.rowCount(), 0);
    model.addStarted(0, QStringLiteral("a"), 0);
    model.addStarted(1, QStringLiteral("a"), 1);
    QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("a (iteration 2)"));
}

void TestCollectionRunModel::setResult_replacesTheRows()
{
    CollectionRunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.addStarted(0, QStringLiteral("old"), 0);
    Core::CollectionRunResult result;
    result.iterations = 2;
    Core::CollectionRequestRun first = finishedRun(0, QStringLiteral("one"), {200});
    first.assertions = {{QStringLiteral("status 200"), true, QString(), {}}};
    Core::CollectionRequestRun second = finishedRun(1, QStringLiteral("one"), {500});
    second.iteration = 1;
    second.assertions = {{QStringLiteral("status 200"), false, QStringLiteral("500 came"), {}}};
    result.requests = {first, second};
    model.setResult(result);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.iterations(), 2);
    QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("one (iteration 2)"));
    QCOMPARE(model.rowCount(model.index(1, 0)), 1);
    QCOMPARE(model.index(1, CollectionRunModel::VerdictColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(Core::CollectionRunReport::verdictsOf(second).size(), 1);
    QCOMPARE(Core::CollectionRunReport::allVerdicts(result).at(1).name, QStringLiteral("one › status 200"));
}

QTEST_MAIN(TestCollectionRunModel)
#include "tst_collectionrunmodel.moc"
