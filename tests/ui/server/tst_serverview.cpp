#include "ui/server/serverview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/serverlogmodel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTcpServer>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;
using Ui::ServerScenario;
using Ui::ServerView;

class TestServerView final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void address_isShown();
    void notRunning_saysWhy();
    void preset_becomesTheScenario();
    void editedScript_isAppliedWhenValid();
    void invalidInstruction_isRefusedOnItsLine();
    void sharing_isPartOfTheScenario();
    void setScenario_selectsThePreset();
    void log_showsWhatTheServerReceived();
    void resetServer_forgetsTheLog();
};

void TestServerView::address_isShown()
{
    Ui::EmbeddedServer server;
    QVERIFY(server.start());
    ServerView view;
    view.setServer(&server);
    const auto *address = view.findChild<QLabel *>(QStringLiteral("serverAddress"));
    QVERIFY2(address->text().contains(server.baseUrl().toString()), qPrintable(address->text()));
    QVERIFY(!view.findChild<Ui::FieldMessage *>(QStringLiteral("serverProblem"))->isVisibleTo(&view));
}

void TestServerView::notRunning_saysWhy()
{
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, 0));
    Core::FaultServerOptions options;
    options.port = squatter.serverPort();
    Ui::EmbeddedServer server;
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("did not start")));
    QVERIFY(!server.start(options));
    ServerView view;
    view.setServer(&server);
    auto *problem = view.findChild<Ui::FieldMessage *>(QStringLiteral("serverProblem"));
    QVERIFY(problem->isVisibleTo(&view));
    QVERIFY2(problem->text().contains(server.errorString()), qPrintable(problem->text()));
    QCOMPARE(problem->kind(), Ui::FieldMessage::Kind::Error);
}

void TestServerView::preset_becomesTheScenario()
{
    ServerView view;
    QSignalSpy changed(&view, &ServerView::scenarioChanged);
    QVERIFY(!view.scenario().isActive());
    QComboBox *presets = view.presetChooser();
    const int index = presets->findText(QStringLiteral("3 × 503, then 200"));
    QVERIFY(index > 0);
    presets->setCurrentIndex(index);
    Q_EMIT presets->activated(index);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view.scenario().instructions, (QStringList{QStringLiteral("return-503*3"), QStringLiteral("return-200")}));
    QCOMPARE(view.scenario().presetId, QStringLiteral("three-503"));
    QCOMPARE(view.scriptEditor()->toPlainText(), QStringLiteral("return-503*3\nreturn-200"));
    QVERIFY(view.findChild<QLabel *>(QStringLiteral("scenarioStatus"))->text().contains(QLatin1String("own copy")));
}

void TestServerView::editedScript_isAppliedWhenValid()
{
    ServerView view;
    QSignalSpy changed(&view, &ServerView::scenarioChanged);
    view.scriptEditor()->setPlainText(QStringLiteral("# a comment\nreset\n\nreturn-429-after-1s\nreturn-200"));
    QVERIFY(view.scenarioProblem().isEmpty());
    QCOMPARE(view.scenario().instructions,
        (QStringList{QStringLiteral("reset"), QStringLiteral("return-429-after-1s"), QStringLiteral("return-200")}));
    QVERIFY(view.scenario().presetId.isEmpty());
    QCOMPARE(view.presetChooser()->currentText(), QStringLiteral("Custom script"));
    QCOMPARE(changed.constLast().constFirst().value<ServerScenario>(), view.scenario());
    // Emptying it means "no script".
    view.scriptEditor()->clear();
    QVERIFY(!view.scenario().isActive());
    QCOMPARE(view.presetChooser()->currentIndex(), 0);
}

void TestServerView::invalidInstruction_isRefusedOnItsLine()
{
    ServerView view;
    view.setScenario(ServerScenario::fromPreset(QStringLiteral("three-503")));
    const ServerScenario before = view.scenario();
    QSignalSpy problems(&view, &ServerView::scenarioProblemChanged);
    QSignalSpy changed(&view, &ServerView::scenarioChanged);

    view.scriptEditor()->setPlainText(QStringLiteral("return-503\n\nreturn-999\nreturn-200"));
    QVERIFY(!view.scenarioProblem().isEmpty());
    QVERIFY2(view.scenarioProblem().contains(QLatin1String("Line 3")), qPrintable(view.scenarioProblem()));
    QVERIFY2(view.scenarioProblem().contains(QLatin1String("999")), qPrintable(view.scenarioProblem()));
    QCOMPARE(view.scenario(), before); // the last valid one stays
    QCOMPARE(changed.count(), 0);
    QCOMPARE(problems.count(), 1);
    auto *message = view.findChild<Ui::FieldMessage *>(QStringLiteral("scenarioProblem"));
    QVERIFY(message->isVisibleTo(&view));
    QCOMPARE(message->kind(), Ui::FieldMessage::Kind::Error);

    view.scriptEditor()->setPlainText(QStringLiteral("reset*0"));
    QVERIFY(view.scenarioProblem().contains(QLatin1String("repeat count")));

    view.scriptEditor()->setPlainText(QStringLiteral("return-503\nreturn-200"));
    QVERIFY(view.scenarioProblem().isEmpty());
    QCOMPARE(problems.constLast().constFirst().toString(), QString());
    QCOMPARE(changed.count(), 1);
    QVERIFY(!message->isVisibleTo(&view));
}

void TestServerView::sharing_isPartOfTheScenario()
{
    ServerView view;
    view.scriptEditor()->setPlainText(QStringLiteral("return-503"));
    QCOMPARE(view.scenario().sharing, ServerScenario::Sharing::PerRequest);
    QSignalSpy changed(&view, &ServerView::scenarioChanged);
    view.findChild<QRadioButton *>(QStringLiteral("sharedCopy"))->setChecked(true);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view.scenario().sharing, ServerScenario::Sharing::Shared);
    QVERIFY(view.findChild<QLabel *>(QStringLiteral("scenarioStatus"))->text().contains(QLatin1String("shared")));
}

void TestServerView::setScenario_selectsThePreset()
{
    ServerView view;
    QSignalSpy changed(&view, &ServerView::scenarioChanged);
    view.setScenario(ServerScenario::fromPreset(QStringLiteral("flaky-30")));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(view.presetChooser()->currentText(), QStringLiteral("Flaky: 30 % of answers are 503"));
    QCOMPARE(view.scenario().sharing, ServerScenario::Sharing::Shared);
    QCOMPARE(view.scenario(), ServerScenario::fromPreset(QStringLiteral("flaky-30")));
}

void TestServerView::log_showsWhatTheServerReceived()
{
    Ui::EmbeddedServer server;
    QVERIFY(server.start());
    ServerView view;
    view.setServer(&server);
    QAbstractItemModelTester tester(view.logModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);

    const QString id
        = server.server()->createTest({QStringLiteral("return-503"), QStringLiteral("return-200")}).value();
    QNetworkAccessManager manager;
    for (int i = 0; i < 2; ++i) {
        QNetworkRequest request(QUrl(server.baseUrl().toString() + QStringLiteral("/status/204")));
        request.setRawHeader("X-Retry-Test-Id", id.toLatin1());
        QNetworkReply *reply = manager.get(request);
        QTRY_VERIFY(reply->isFinished());
        reply->deleteLater();
    }
    QTRY_COMPARE(view.logModel()->rowCount(), 2);
    const auto text = [&](int row, int column) { return view.logModel()->index(row, column).data().toString(); };
    QCOMPARE(text(0, Ui::ServerLogModel::Status), QStringLiteral("503"));
    QCOMPARE(text(0, Ui::ServerLogModel::Step), QStringLiteral("%1 step 1").arg(id));
    QCOMPARE(text(1, Ui::ServerLogModel::Status), QStringLiteral("200"));
    QCOMPARE(text(1, Ui::ServerLogModel::Target), QStringLiteral("/status/204"));
    QCOMPARE(view.findChild<QLabel *>(QStringLiteral("serverLogCount"))->text(), QStringLiteral("Requests shown: 2"));
}

void TestServerView::resetServer_forgetsTheLog()
{
    Ui::EmbeddedServer server;
    QVERIFY(server.start());
    ServerView view;
    view.setServer(&server);
    QNetworkAccessManager manager;
    QNetworkReply *reply
        = manager.get(QNetworkRequest(QUrl(server.baseUrl().toString() + QStringLiteral("/status/200"))));
    QTRY_VERIFY(reply->isFinished());
    reply->deleteLater();
    QTRY_COMPARE(view.logModel()->rowCount(), 1);
    QSignalSpy restart(&view, &ServerView::restartRequested);
    view.findChild<QToolButton *>(QStringLiteral("resetServer"))->click();
    QCOMPARE(view.logModel()->rowCount(), 0);
    QVERIFY(server.server()->log().isEmpty());
    QCOMPARE(restart.count(), 1);
}

QTEST_MAIN(TestServerView)
#include "tst_serverview.moc"
