#include "core/assertions/assertionjson.h"
#include "core/faultserver/faultserver.h"
#include "tests/ui/windowparts.h"
#include "ui/run/checksverdictview.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Rule = Core::ResponseVariables::Rule;
using Ui::AttemptInspector;
using Ui::RequestChecks;

namespace {

Core::BackoffPolicy fastRetries()
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Checks test");
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 10.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 100.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

QList<Core::Assertion> assertionsOf(const char *json)
{
    const auto read = Core::AssertionJson::read(QJsonDocument::fromJson(QByteArray(json)).array());
    if (!read)
        qFatal("fixture does not read: %s", qPrintable(read.error()));
    return *read;
}

QString cellText(const QTableWidget *table, int row, int column)
{
    const QTableWidgetItem *item = table->item(row, column);
    return item ? item->text() : QString();
}

} // namespace

class TestInspectorChecks final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void send_withChecks_showsEachVerdictOnEveryAttempt_andChainsTheValue();
};

void TestInspectorChecks::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_inspectorchecks"));
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    QFile::remove(QSettings().fileName());
}

void TestInspectorChecks::send_withChecks_showsEachVerdictOnEveryAttempt_andChainsTheValue()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    QTemporaryDir data;
    Ui::MainWindow::Options options;
    options.dataDirectory = data.path();
    Ui::MainWindow window(options);
    policyPanelOf(window)->setPolicy(fastRetries());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // One 503, then 200 with {"failures":1,"key":"checks","request":2}.
    Ui::RequestComposer *composer = composerOf(window);
    Core::RequestDraft draft;
    draft.urlTemplate = server.baseUrl().toString() + QStringLiteral("/fail/1?key=checks&code=503");
    composer->setDraft(draft);
    const RequestChecks checks{assertionsOf(R"([
            {"kind": "status", "equals": 200},
            {"kind": "jsonPointer", "pointer": "/request", "equals": 5, "name": "fifth request"},
            {"kind": "body", "contains": "checks"}])"),
        {{QStringLiteral("n"), Rule::Source::JsonPointer, QStringLiteral("/request"), {}, {}},
            {QStringLiteral("missing"), Rule::Source::Header, {}, QStringLiteral("X-Not-There"), {}}}};
    composer->setChecks(checks);
    QVERIFY(composer->canSend());
    composer->sendAction()->trigger();

    Ui::RunSession *session = sessionOf(window);
    QVERIFY(QTest::qWaitFor([&] { return session->resultCount() >= 1; }, 15'000));
    session->flush();
    QCOMPARE(session->finishedCount(), 2);
    const quint64 requestId = session->lane(0).requestId;
    QVERIFY(session->checks(requestId));
    QVERIFY(session->checkVerdict(requestId));

    // The first attempt (the 503) shows the verdict on the request's last attempt.
    window.inspectAttempt(0);
    AttemptInspector *inspector = inspectorOf(window);
    QCOMPARE(inspector->currentRow(), 0);
    QVERIFY(inspector->hasChecks());
    inspector->setPage(AttemptInspector::Page::Checks);
    QCOMPARE(inspector->page(), AttemptInspector::Page::Checks);
    auto *pages = inspector->findChild<QTabWidget *>(QStringLiteral("inspectorPages"));
    QCOMPARE(pages->tabText(int(AttemptInspector::Page::Checks)), QStringLiteral("Checks \u2717 2/3"));
    Ui::ChecksVerdictView *view = inspector->checksView();
    QCOMPARE(view->summaryLabel()->text(),
        QStringLiteral("\u2717 1 of 3 assertions FAILED on attempt 2, the request's last."));
    QTableWidget *table = view->assertionTable();
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(cellText(table, 0, Ui::ChecksVerdictView::Result), QStringLiteral("\u2713 passed"));
    QCOMPARE(cellText(table, 0, Ui::ChecksVerdictView::Name), QStringLiteral("status 200"));
    QCOMPARE(cellText(table, 1, Ui::ChecksVerdictView::Result), QStringLiteral("\u2717 FAILED"));
    QCOMPARE(cellText(table, 1, Ui::ChecksVerdictView::Name), QStringLiteral("fifth request"));
    const QString failure = cellText(table, 1, Ui::ChecksVerdictView::Message);
    QVERIFY2(failure.contains(QLatin1String("5")) && failure.contains(QLatin1String("2")), qPrintable(failure));
    QCOMPARE(cellText(table, 2, Ui::ChecksVerdictView::Result), QStringLiteral("\u2713 passed"));
    QVERIFY(view->variablesLabel()->isVisibleTo(inspector));
    const QString variables = view->variablesLabel()->text();
    QVERIFY2(variables.contains(QLatin1String("n = 2")), qPrintable(variables));
    QVERIFY2(variables.contains(QStringLiteral("\u26a0 not set: missing: the response has no X-Not-There header")),
        qPrintable(variables));

    // The next attempt of the same request shows the same verdict.
    inspector->showNext();
    QCOMPARE(inspector->currentRow(), 1);
    QCOMPARE(inspector->page(), AttemptInspector::Page::Checks);
    QCOMPARE(view->assertionTable()->rowCount(), 3);

    // The value taken is a variable of the next send.
    Ui::RequestRunner *runner = runnerOf(window);
    QCOMPARE(runner->takenVariables().value(QStringLiteral("n")), QStringLiteral("2"));
    QVERIFY(!runner->takenVariables().contains(QStringLiteral("missing")));
    draft.urlTemplate = server.baseUrl().toString() + QStringLiteral("/status/200?seen={{n}}");
    composer->setDraft(draft);
    composer->setChecks({});
    composer->setPreviewContext(runner->nextContext());
    QVERIFY2(composer->canSend(), qPrintable(composer->problem()));
    composer->sendAction()->trigger();
    QVERIFY(QTest::qWaitFor([&] { return session->resultCount() >= 2; }, 15'000));
    session->flush();
    QCOMPARE(session->laneCount(), 2);
    QVERIFY(session->spec(1));
    QCOMPARE(session->spec(1)->url.query(), QStringLiteral("seen=2"));

    // A request without checks has no Checks page.
    window.inspectAttempt(2);
    QCOMPARE(inspector->currentRow(), 2);
    QVERIFY(!inspector->hasChecks());
    QCOMPARE(inspector->page(), AttemptInspector::Page::Summary);
    window.close();
}

QTEST_MAIN(TestInspectorChecks)
#include "tst_inspectorchecks.moc"
