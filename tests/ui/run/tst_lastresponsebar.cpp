#include "core/util/clock.h"
#include "tests/ui/session/sessionfixtures.h"
#include "ui/run/lastresponsebar.h"
#include "ui/session/run/runsession.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;
using namespace RetryLab::Core;
using namespace RetryLab::Fixtures;
using Ui::LastResponseBar;
using Ui::RunSession;

class TestLastResponseBar final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hiddenUntilAnAttemptIsAnswered();
    void showsTheLastAttempt_statusTimeAndBody_inspectOpensIt();
    void credentialsInTheBody_areMasked();
    void clearedRun_hidesItAgain();
};

void TestLastResponseBar::hiddenUntilAnAttemptIsAnswered()
{
    RunSession session;
    LastResponseBar bar;
    bar.setSession(&session);
    QVERIFY(bar.isHidden());
    QCOMPARE(bar.shownRow(), -1);
}

void TestLastResponseBar::showsTheLastAttempt_statusTimeAndBody_inspectOpensIt()
{
    ManualClock clock;
    RunSession session;
    session.setClock(&clock);
    LastResponseBar bar;
    bar.setSession(&session);
    AttemptRecord first = httpAttempt(1, 0, 0, 40, 503, 100);
    first.responseBody = "{\"failure\": 1}";
    session.recordAttempt(first);
    AttemptRecord second = httpAttempt(1, 1, 140, 152, 200);
    second.responseBody = "{\"ok\": true,\n  \"items\": [1, 2, 3]}";
    session.recordAttempt(second);
    session.flush();
    QVERIFY(!bar.isHidden());
    // The last answer, not the first: 200 after 12 ms, the body on one line.
    QVERIFY2(bar.text().startsWith(QLatin1String("200 OK in 12")), qPrintable(bar.text()));
    QVERIFY2(bar.text().contains(QLatin1String("{\"ok\": true, \"items\": [1, 2, 3]}")), qPrintable(bar.text()));
    QCOMPARE(bar.shownRow(), qsizetype(session.finishedRow(1)));

    QSignalSpy inspect(&bar, &LastResponseBar::inspectRequested);
    bar.findChild<QToolButton *>(QStringLiteral("inspectLastResponse"))->click();
    QCOMPARE(inspect.size(), 1);
    QCOMPARE(inspect.first().first().value<qsizetype>(), qsizetype(session.finishedRow(1)));
}

void TestLastResponseBar::credentialsInTheBody_areMasked()
{
    RunSession session;
    LastResponseBar bar;
    bar.setSession(&session);
    AttemptRecord answer = httpAttempt(1, 0, 0, 10, 200);
    answer.responseHeaders = {{"Content-Type", "application/json"}};
    answer.responseBody = "{\"access_token\":\"sekrit-123\",\"expires_in\":3600}";
    session.recordAttempt(answer);
    session.flush();
    QVERIFY(!bar.text().contains(QLatin1String("sekrit")));
    QVERIFY(bar.text().contains(QLatin1String("REDACTED")));
}

void TestLastResponseBar::clearedRun_hidesItAgain()
{
    RunSession session;
    LastResponseBar bar;
    bar.setSession(&session);
    session.recordAttempt(httpAttempt(1, 0, 0, 10, 200));
    session.flush();
    QVERIFY(!bar.isHidden());
    session.clear();
    QVERIFY(bar.isHidden());
    QCOMPARE(bar.shownRow(), -1);
}

QTEST_MAIN(TestLastResponseBar)
#include "tst_lastresponsebar.moc"
