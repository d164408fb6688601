#include "core/executor/threadedexecutor.h"
#include "core/faultserver/faultserver.h"
#include "ui/session/run/runsession.h"
#include "ui/statusbarpresenter.h"

#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

using namespace RetryLab;
using Ui::StatusBarPresenter;

class TestStatusBarPresenter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fields_sayWhatIsOff();
    void scheduledUpdates_areCoalesced();
    void server_textAndReason();
    void seed_shownWithHowToReplayIt();
    void openBreaker_isShownAndPolledUntilItCloses();

private:
    static QString text(QStatusBar &bar, const char *name)
    {
        auto *label = bar.findChild<QLabel *>(QLatin1String(name));
        return label ? label->text() : QStringLiteral("<no %1>").arg(QLatin1String(name));
    }
};

void TestStatusBarPresenter::fields_sayWhatIsOff()
{
    QStatusBar bar;
    Core::ThreadedExecutor executor;
    Core::BackoffPolicy policy;
    policy.circuitBreaker.enabled = false;
    policy.retryBudget.kind = Core::RetryBudgetKind::None;
    executor.setPolicy(policy);
    Ui::RunSession session;
    session.attach(&executor);
    StatusBarPresenter presenter(&bar, &session);
    QSignalSpy updated(&presenter, &StatusBarPresenter::updated);
    presenter.update();
    QCOMPARE(updated.count(), 1);
    QCOMPARE(updated.first(), (QVariantList{0, 0}));
    QCOMPARE(text(bar, "breakerStatus"), QStringLiteral("Circuit breaker: off"));
    QCOMPARE(text(bar, "budgetStatus"), QStringLiteral("Retry budget: off"));
    QCOMPARE(text(bar, "activityStatus"), QStringLiteral("In flight: 0 · running: 0"));
}

void TestStatusBarPresenter::scheduledUpdates_areCoalesced()
{
    QStatusBar bar;
    Core::ThreadedExecutor executor;
    Ui::RunSession session;
    session.attach(&executor);
    StatusBarPresenter presenter(&bar, &session);
    QSignalSpy updated(&presenter, &StatusBarPresenter::updated);
    for (int i = 0; i < 50; ++i)
        presenter.scheduleUpdate();
    QVERIFY(updated.wait(2'000));
    QVERIFY(!updated.wait(300)); // no second update follows
    QCOMPARE(updated.count(), 1);
}

void TestStatusBarPresenter::server_textAndReason()
{
    QStatusBar bar;
    Core::ThreadedExecutor executor;
    Ui::RunSession session;
    session.attach(&executor);
    StatusBarPresenter presenter(&bar, &session);
    presenter.setServer(QStringLiteral("Server: not running"), QStringLiteral("address in use"));
    auto *label = bar.findChild<QLabel *>(QStringLiteral("serverStatus"));
    QCOMPARE(label->text(), QStringLiteral("Server: not running"));
    QCOMPARE(label->toolTip(), QStringLiteral("address in use"));
}

void TestStatusBarPresenter::openBreaker_isShownAndPolledUntilItCloses()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    QStatusBar bar;
    Core::ThreadedExecutor executor;
    Core::BackoffPolicy policy;
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 1;
    policy.maxBackoffMs = 1;
    policy.maxAttempts = 1;
    policy.circuitBreaker.enabled = true;
    policy.circuitBreaker.consecutiveFailures = 2;
    // Long enough to be seen OPEN however slowly the machine delivers the results.
    policy.circuitBreaker.openMs = 2'000;
    executor.setPolicy(policy);
    Ui::RunSession session;
    session.attach(&executor);
    StatusBarPresenter presenter(&bar, &session);
    QSignalSpy idle(&executor, &Core::ThreadedExecutor::idle);
    Core::RequestSpec spec;
    spec.url = QUrl(server.baseUrl().toString() + QStringLiteral("/status/503"));
    executor.submit(spec);
    executor.submit(spec);
    QVERIFY(idle.wait(5'000));
    presenter.update();
    QVERIFY2(text(bar, "breakerStatus").contains(QLatin1String(" OPEN")), qPrintable(text(bar, "breakerStatus")));
    // No signal says when an open breaker turns half-open: the presenter polls.
    QTRY_VERIFY_WITH_TIMEOUT(text(bar, "breakerStatus").contains(QLatin1String("half-open")), 10'000);
}

void TestStatusBarPresenter::seed_shownWithHowToReplayIt()
{
    QStatusBar bar;
    Core::ThreadedExecutor executor;
    Ui::RunSession session;
    session.attach(&executor);
    StatusBarPresenter presenter(&bar, &session);
    auto *label = bar.findChild<QLabel *>(QStringLiteral("seedStatus"));
    QVERIFY(label);
    QVERIFY(label->isHidden()); // no send yet
    presenter.setSeed(271828, true);
    QCOMPARE(text(bar, "seedStatus"), QStringLiteral("Seed 271828"));
    QVERIFY(label->toolTip().contains(QLatin1String("Replay last")));
    presenter.setSeed(5, false);
    QCOMPARE(text(bar, "seedStatus"), QStringLiteral("Seed 5"));
    QVERIFY(label->toolTip().contains(QLatin1String("given in the composer")));
}

QTEST_MAIN(TestStatusBarPresenter)
#include "tst_statusbarpresenter.moc"
