#include "core/executor/threadedexecutor.h"
#include "core/export/reportjson.h"
#include "core/faultserver/faultserver.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/policy/policypanel.h"
#include "ui/request/requestcomposer.h"
#include "ui/run/attemptinspector.h"
#include "ui/run/errorlogview.h"
#include "ui/run/timelineview.h"
#include "ui/run/timingwaterfall.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/bodyview.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <memory>

using namespace RetryLab;
using Core::AttemptRecord;
using Ui::AttemptInspector;
using Ui::BodyView;
using Ui::RunSession;

namespace {

constexpr qint64 ms = 1'000'000;
const QString bullets(8, QChar(0x2022));

Core::RequestSpec orderSpec()
{
    Core::RequestSpec spec;
    spec.method = "POST";
    spec.url = QUrl(QStringLiteral("http://127.0.0.1:8080/orders?access_token=SECRET-QUERY&x=1"));
    spec.headers = {
        {"Authorization", "Bearer SECRET-AUTH"}, {"Cookie", "sid=SECRET-COOKIE"}, {"Content-Type", "application/json"}};
    spec.body = R"({"order":42,"password":"SECRET-PW"})";
    spec.idempotent = true;
    return spec;
}

AttemptRecord orderAttempt(int index, const Core::RequestSpec &spec)
{
    AttemptRecord a;
    a.requestId = 1;
    a.attemptIndex = index;
    a.method = spec.method;
    a.url = spec.url;
    a.requestHeaders = spec.headers;
    a.requestHeaders.append({QByteArray("X-Retry-Request-Id"), QByteArray("99.1-1")});
    a.requestHeaders.append({QByteArray("X-Retry-Attempt"), QByteArray::number(index + 1)});
    a.requestBody = spec.body;
    a.startNs = (index == 0 ? 10 : 170) * ms;
    a.endNs = a.startNs + 8 * ms;
    a.finishedNs = a.endNs;
    a.startWall = QDateTime(QDate(2026, 11, 23), QTime(10, 0), Qt::UTC).addMSecs(a.startNs / ms);
    a.queuedNs = 2 * ms;
    a.connectionStartedNs = a.startNs + 1 * ms;
    a.requestSentNs = a.startNs + 3 * ms;
    a.firstByteNs = a.startNs + 6 * ms;
    a.end = Core::AttemptEnd::Response;
    return a;
}

// Request 1: a POST answered 503 (JSON body, Retry-After, a cookie, after a redirect),
// then 200 over HTTP/2 and TLS. Request 2: a GET whose connection was refused.
void fillSession(RunSession &session)
{
    const Core::RequestSpec spec = orderSpec();
    session.noteRequest(1, spec);
    AttemptRecord failed = orderAttempt(0, spec);
    failed.httpStatus = 503;
    failed.reasonPhrase = "Service Unavailable";
    failed.responseHeaders = {{"Content-Type", "application/json"}, {"Retry-After", "1"},
        {"Set-Cookie", "track=SECRET-SET-COOKIE; Path=/"}, {"RateLimit", R"("default";r=0;t=30)"},
        {"RateLimit-Policy", R"("default";q=100;w=60)"}};
    failed.responseBody = R"({"status":503,"error":"overloaded"})";
    failed.bytesReceived = failed.responseBody.size();
    failed.expectedBytes = failed.bytesReceived;
    Core::RedirectHop hop;
    hop.status = 307;
    hop.from = QUrl(QStringLiteral("http://127.0.0.1:8080/old-orders"));
    hop.to = spec.url;
    failed.redirects = {hop};
    failed.decision = Core::Classification::Decision::RetryAfterDelay;
    failed.cause = QStringLiteral("http-503");
    failed.reason = QStringLiteral("HTTP 503: server error; transient, retry after a delay");
    failed.retryAfterRaw = "1";
    failed.retryAfterMs = 1000.0;
    failed.nextDelayMs = 150.0;
    session.recordAttempt(failed);

    AttemptRecord passed = orderAttempt(1, spec);
    passed.httpStatus = 200;
    passed.reasonPhrase = "OK";
    passed.responseHeaders = {{"Content-Type", "application/json"}};
    passed.responseBody = R"({"id":"o-42","access_token":"SECRET-TOKEN"})";
    passed.bytesReceived = passed.responseBody.size();
    passed.plannedDelayMs = 150.0;
    passed.actualDelayMs = 152.5;
    passed.protocol = QStringLiteral("HTTP/2");
    passed.tls.protocol = QStringLiteral("TLSv1.3");
    passed.tls.cipher = QStringLiteral("TLS_AES_256_GCM_SHA384");
    passed.tls.peerSubject = QStringLiteral("CN=orders.test");
    passed.tls.peerIssuer = QStringLiteral("CN=Test CA");
    passed.tls.peerNotBefore = QStringLiteral("2026-01-01T00:00:00Z");
    passed.tls.peerNotAfter = QStringLiteral("2027-01-01T00:00:00Z");
    passed.decision = Core::Classification::Decision::Success;
    passed.cause = QStringLiteral("http-200");
    passed.reason = QStringLiteral("success");
    session.recordAttempt(passed);
    Core::RequestResult result;
    result.requestId = 1;
    result.outcome = Core::RequestOutcome::Succeeded;
    result.attempts = 2;
    result.finalStatus = 200;
    result.body = passed.responseBody;
    session.recordResult(result);

    Core::RequestSpec get;
    get.url = QUrl(QStringLiteral("http://127.0.0.1:1/down"));
    session.noteRequest(2, get);
    AttemptRecord refused;
    refused.requestId = 2;
    refused.method = "GET";
    refused.url = get.url;
    refused.startNs = 300 * ms;
    refused.endNs = 301 * ms;
    refused.end = Core::AttemptEnd::NetworkError;
    refused.networkError = QNetworkReply::ConnectionRefusedError;
    refused.errorString = QStringLiteral("Connection refused");
    refused.cause = QStringLiteral("connection-refused");
    refused.reason = QStringLiteral("connection refused: give up");
    session.recordAttempt(refused);
    session.flush();
}

QString cell(const QTableWidget *table, const QString &name)
{
    for (int r = 0; r < table->rowCount(); ++r) {
        if (table->item(r, 0)->text() == name)
            return table->item(r, 1)->text();
    }
    return {};
}

QString cellToolTip(const QTableWidget *table, const QString &name)
{
    for (int r = 0; r < table->rowCount(); ++r) {
        if (table->item(r, 0)->text() == name)
            return table->item(r, 1)->toolTip();
    }
    return {};
}

QStringList topKeys(const BodyView *view)
{
    QStringList keys;
    const QAbstractItemModel *model = view->jsonTree()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        keys.append(model->index(r, 0).data().toString() + QLatin1Char('=') + model->index(r, 1).data().toString());
    return keys;
}

Core::BackoffPolicy fastPolicy()
{
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("Inspector test");
    policy.algorithm = Core::BackoffAlgorithm::Exponential;
    policy.baseDelayMs = 10.0;
    policy.multiplier = 2.0;
    policy.maxBackoffMs = 100.0;
    policy.maxAttempts = 5;
    policy.attemptTimeoutMs = 5000.0;
    return policy;
}

} // namespace

// The attempt inspector over a RunSession fed by hand, by a real run against the fault
// server, and by a JSON report read back; and in the window.
class TestAttemptInspector : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void nothingSelected_saysWhatToDo();
    void request_asSent_withCredentialsMasked();
    void response_statusHeadersAndJsonBody();
    void showCredentials_revealsThemEverywhere();
    void summary_classificationDelaysRedirectsProtocolTls();
    void timing_waterfallAndPoints();
    void noResponse_saysWhy();
    void copyButtons_putTheRightTextOnTheClipboard_data();
    void copyButtons_putTheRightTextOnTheClipboard();
    void copyBody_takesTheShownBody();
    void navigation_previousAndNextAttemptOfTheSameRequest();
    void hedgedAttempts_saySoInTheTitle();
    void inFlight_thenItsRecordWhenItEnds();
    void droppedAndTruncatedBodies_areSaid();
    void sessionCleared_showsNothing();
    void realRun_againstTheFaultServer_showsEachAttemptsBody();
    void runFromAJsonReport_showsTheSameBodies();
    void window_timelineAndErrorLogOpenTheInspector();

private:
    std::unique_ptr<RunSession> m_session;
    std::unique_ptr<AttemptInspector> m_inspector;
};

void TestAttemptInspector::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_attemptinspector"));
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestAttemptInspector::init()
{
    m_session = std::make_unique<RunSession>();
    fillSession(*m_session);
    m_inspector = std::make_unique<AttemptInspector>();
    m_inspector->setSession(m_session.get());
    m_inspector->resize(700, 800);
    m_inspector->show();
}

void TestAttemptInspector::cleanup()
{
    m_inspector.reset();
    m_session.reset();
    QFile::remove(QSettings().fileName());
}

void TestAttemptInspector::nothingSelected_saysWhatToDo()
{
    QCOMPARE(m_inspector->currentRow(), -1);
    QVERIFY(!m_inspector->hasRecord());
    QVERIFY(m_inspector->statusLabel()->text().contains(QLatin1String("Select an attempt")));
    QVERIFY(!m_inspector->findChild<QToolButton *>(QStringLiteral("copyExchange"))->isEnabled());
    QVERIFY(!m_inspector->previousAction()->isEnabled());
    QVERIFY(!m_inspector->nextAction()->isEnabled());
}

void TestAttemptInspector::request_asSent_withCredentialsMasked()
{
    m_inspector->showAttempt(0);
    QVERIFY(m_inspector->hasRecord());
    QVERIFY2(m_inspector->titleLabel()->text().startsWith(QLatin1String("#1 POST 127.0.0.1:8080/orders")),
        qPrintable(m_inspector->titleLabel()->text()));
    QVERIFY(m_inspector->titleLabel()->text().endsWith(QLatin1String("attempt 1 of 2")));
    QCOMPARE(m_inspector->requestLineLabel()->text(),
        QStringLiteral("POST http://127.0.0.1:8080/orders?access_token=REDACTED&x=1"));

    const QTableWidget *headers = m_inspector->requestHeaderTable();
    QCOMPARE(headers->rowCount(), 5);
    // As the composer's header table masks them: bullets, and the same tooltip.
    QCOMPARE(cell(headers, QStringLiteral("Authorization")), bullets);
    QCOMPARE(cell(headers, QStringLiteral("Cookie")), bullets);
    QVERIFY(cellToolTip(headers, QStringLiteral("Authorization")).contains(QLatin1String("Show credentials")));
    QCOMPARE(cell(headers, QStringLiteral("Content-Type")), QStringLiteral("application/json"));
    QCOMPARE(cell(headers, QStringLiteral("X-Retry-Attempt")), QStringLiteral("1"));

    const BodyView *body = m_inspector->requestBodyView();
    QCOMPARE(body->kind(), BodyView::Kind::Json);
    QVERIFY(!body->body().bytes.contains("SECRET"));
    QVERIFY(topKeys(body).contains(QStringLiteral("password=\"REDACTED\"")));
    QVERIFY(topKeys(body).contains(QStringLiteral("order=42")));
}

void TestAttemptInspector::response_statusHeadersAndJsonBody()
{
    m_inspector->showAttempt(0);
    m_inspector->setPage(AttemptInspector::Page::Response);
    QCOMPARE(m_inspector->page(), AttemptInspector::Page::Response);
    QCOMPARE(m_inspector->statusLineLabel()->text(), QStringLiteral("503 Service Unavailable"));
    const QTableWidget *headers = m_inspector->responseHeaderTable();
    QCOMPARE(cell(headers, QStringLiteral("Retry-After")), QStringLiteral("1"));
    QCOMPARE(cell(headers, QStringLiteral("Set-Cookie")), bullets);
    const BodyView *body = m_inspector->responseBodyView();
    QCOMPARE(body->kind(), BodyView::Kind::Json);
    QCOMPARE(topKeys(body), (QStringList{QStringLiteral("error=\"overloaded\""), QStringLiteral("status=503")}));
    QVERIFY(m_inspector->statusLabel()->text().contains(QLatin1String("retried after 150 ms")));

    m_inspector->showAttempt(1);
    QCOMPARE(m_inspector->statusLineLabel()->text(), QStringLiteral("HTTP/2 200 OK"));
    QVERIFY(topKeys(m_inspector->responseBodyView()).contains(QStringLiteral("access_token=\"REDACTED\"")));
}

void TestAttemptInspector::showCredentials_revealsThemEverywhere()
{
    m_inspector->showAttempt(0);
    m_inspector->setCredentialsRevealed(true);
    QVERIFY(m_inspector->requestLineLabel()->text().contains(QLatin1String("access_token=SECRET-QUERY")));
    QCOMPARE(
        cell(m_inspector->requestHeaderTable(), QStringLiteral("Authorization")), QStringLiteral("Bearer SECRET-AUTH"));
    QCOMPARE(cell(m_inspector->responseHeaderTable(), QStringLiteral("Set-Cookie")),
        QStringLiteral("track=SECRET-SET-COOKIE; Path=/"));
    QVERIFY(m_inspector->requestBodyView()->body().bytes.contains("SECRET-PW"));
    QVERIFY(m_inspector->requestHeadersText().contains(QLatin1String("Authorization: Bearer SECRET-AUTH")));

    m_inspector->setCredentialsRevealed(false);
    QCOMPARE(cell(m_inspector->requestHeaderTable(), QStringLiteral("Authorization")), bullets);
    QVERIFY(m_inspector->requestHeadersText().contains(QLatin1String("Authorization: Bearer REDACTED")));
    QVERIFY(!m_inspector->exchangeText().contains(QLatin1String("SECRET")));
    QVERIFY(!m_inspector->curlText().contains(QLatin1String("SECRET")));
}

void TestAttemptInspector::summary_classificationDelaysRedirectsProtocolTls()
{
    m_inspector->showAttempt(0);
    const QString first = m_inspector->summaryText();
    QVERIFY2(first.contains(QStringLiteral("Classification: http-503 \u2014 transient: retry after a delay")),
        qPrintable(first));
    QVERIFY(first.contains(QLatin1String("Reason: HTTP 503: server error; transient, retry after a delay")));
    QVERIFY(first.contains(QLatin1String("Delay before it: none: the first attempt")));
    QVERIFY(first.contains(QLatin1String("Delay after it: 150 ms")));
    QVERIFY(first.contains(QLatin1String("Retry-After: 1 (honoured: 1 s)")));
    QVERIFY2(first.contains(QLatin1String("Rate limit: 0 of 100 left, resets in 30 s, window 1 min (RateLimit); "
                                          "the reset read as seconds from now")),
        qPrintable(first));
    QVERIFY(first.contains(QStringLiteral("Redirects: 307 http://127.0.0.1:8080/old-orders \u2192 "
                                          "http://127.0.0.1:8080/orders?access_token=REDACTED&x=1")));
    QVERIFY(first.contains(QLatin1String("Protocol: not reported")));
    QVERIFY(first.contains(QLatin1String("TLS: none (plain HTTP)")));
    QVERIFY(first.contains(QLatin1String("Received: 35 bytes of 35 bytes announced")));
    QVERIFY(m_inspector->summaryLabel()->text().contains(QLatin1String("<b>Classification</b>")));

    m_inspector->showAttempt(1);
    const QString second = m_inspector->summaryText();
    QVERIFY2(
        second.contains(QLatin1String("Delay before it: planned 150 ms, actual 153 ms (+2.5 ms)")), qPrintable(second));
    QVERIFY(second.contains(QLatin1String("Protocol: HTTP/2")));
    QVERIFY(second.contains(QLatin1String("TLS: TLSv1.3, TLS_AES_256_GCM_SHA384\n    subject: CN=orders.test\n    "
                                          "issuer: CN=Test CA\n    valid from 2026-01-01T00:00:00Z to "
                                          "2027-01-01T00:00:00Z")));
    QVERIFY(second.contains(QLatin1String("Redirects: none")));
}

void TestAttemptInspector::timing_waterfallAndPoints()
{
    m_inspector->showAttempt(0);
    const auto &phases = m_inspector->waterfall()->phases();
    QStringList names;
    for (const auto &phase : phases)
        names.append(phase.name + QLatin1Char('=') + QString::number(phase.lengthMs));
    QCOMPARE(names,
        (QStringList{QStringLiteral("Queued=2"), QStringLiteral("Blocked=1"), QStringLiteral("Connect=2"),
            QStringLiteral("Wait=3"), QStringLiteral("Receive=2")}));
    QCOMPARE(phases.first().startMs, -2.0);
    const QString timing = m_inspector->timingText();
    QVERIFY2(timing.contains(QLatin1String("First byte: +6 ms")), qPrintable(timing));
    QVERIFY(timing.contains(QLatin1String("Started: 10 ms into the run (10:00:00.010 UTC)")));
    QVERIFY(timing.contains(QLatin1String("Duration: 8 ms")));
    QVERIFY(m_inspector->waterfall()->height() >= m_inspector->waterfall()->minimumSizeHint().height());
}

void TestAttemptInspector::noResponse_saysWhy()
{
    m_inspector->showAttempt(2);
    QCOMPARE(m_inspector->statusLineLabel()->text(), QStringLiteral("No response: Connection refused"));
    QCOMPARE(m_inspector->responseBodyView()->summary(), QStringLiteral("No response"));
    QCOMPARE(m_inspector->requestBodyView()->summary(), QStringLiteral("No body: a GET sends none"));
    QVERIFY(m_inspector->summaryText().contains(QLatin1String("Error: Connection refused (ConnectionRefusedError)")));
    QVERIFY(m_inspector->exchangeText().contains(QLatin1String("\nNo response: Connection refused\n")));
}

void TestAttemptInspector::copyButtons_putTheRightTextOnTheClipboard_data()
{
    QTest::addColumn<QString>("button");
    QTest::addColumn<QStringList>("contains");
    QTest::addRow("request headers") << QStringLiteral("copyRequestHeaders")
                                     << QStringList{QStringLiteral("Authorization: Bearer REDACTED\n"),
                                            QStringLiteral("Cookie: sid=REDACTED\n"),
                                            QStringLiteral("Content-Type: application/json\n")};
    QTest::addRow("response headers") << QStringLiteral("copyResponseHeaders")
                                      << QStringList{QStringLiteral("Retry-After: 1\n"),
                                             QStringLiteral("Set-Cookie: track=REDACTED; Path=/\n")};
    QTest::addRow("exchange") << QStringLiteral("copyExchange")
                              << QStringList{
                                     QStringLiteral("POST http://127.0.0.1:8080/orders?access_token=REDACTED&x=1\n"
                                                    "Authorization: Bearer REDACTED\n"),
                                     QStringLiteral("\n{\"order\":42,\"password\":\"REDACTED\"}\n"),
                                     QStringLiteral("\n503 Service Unavailable\nContent-Type: application/json\n"),
                                     QStringLiteral("{\"status\":503,\"error\":\"overloaded\"}")};
    QTest::addRow("curl") << QStringLiteral("copyCurl")
                          << QStringList{QStringLiteral("curl "),
                                 QStringLiteral("--data-raw '{\"order\":42,\"password\":\"REDACTED\"}'"),
                                 QStringLiteral("-H 'Authorization: Bearer REDACTED'"),
                                 QStringLiteral("'http://127.0.0.1:8080/orders?access_token=REDACTED&x=1'")};
    QTest::addRow("summary") << QStringLiteral("copySummary")
                             << QStringList{QStringLiteral("#1 POST 127.0.0.1:8080/orders"),
                                    QStringLiteral("Classification: http-503")};
    QTest::addRow("timing") << QStringLiteral("copyTiming")
                            << QStringList{QStringLiteral("Wait: 3 ms"), QStringLiteral("Request sent: +3 ms")};
}

void TestAttemptInspector::copyButtons_putTheRightTextOnTheClipboard()
{
    QFETCH(QString, button);
    QFETCH(QStringList, contains);
    m_inspector->showAttempt(0);
    QApplication::clipboard()->clear();
    auto *copy = m_inspector->findChild<QToolButton *>(button);
    QVERIFY(copy);
    QVERIFY(copy->isEnabled());
    QTest::mouseClick(copy, Qt::LeftButton);
    const QString text = QApplication::clipboard()->text();
    for (const QString &part : contains)
        QVERIFY2(text.contains(part), qPrintable(QStringLiteral("%1 not in:\n%2").arg(part, text)));
    QVERIFY2(!text.contains(QLatin1String("SECRET")), qPrintable(text));
    QVERIFY(m_inspector->copyMessage().startsWith(QLatin1String("Copied ")));
    if (button == QLatin1String("copyCurl")) {
        // A new request, not the executor's attempt again.
        QVERIFY(!text.contains(QLatin1String("X-Retry-Attempt")));
    }
}

void TestAttemptInspector::copyBody_takesTheShownBody()
{
    m_inspector->showAttempt(1);
    QApplication::clipboard()->clear();
    QTest::mouseClick(m_inspector->responseBodyView()->copyButton(), Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(),
        QStringLiteral("{\n    \"access_token\": \"REDACTED\",\n    \"id\": \"o-42\"\n}\n"));
    QCOMPARE(m_inspector->copyMessage(), QStringLiteral("Copied the response body."));
    m_inspector->setCredentialsRevealed(true);
    QTest::mouseClick(m_inspector->responseBodyView()->copyButton(), Qt::LeftButton);
    QVERIFY(QApplication::clipboard()->text().contains(QLatin1String("SECRET-TOKEN")));
}

void TestAttemptInspector::navigation_previousAndNextAttemptOfTheSameRequest()
{
    QSignalSpy shown(m_inspector.get(), &AttemptInspector::attemptShown);
    m_inspector->showAttempt(0);
    QCOMPARE(m_inspector->previousRow(), -1);
    QCOMPARE(m_inspector->nextRow(), 1);
    QVERIFY(!m_inspector->previousAction()->isEnabled());
    QVERIFY(m_inspector->nextAction()->isEnabled());
    QCOMPARE(shown.size(), 0); // told to show it: nothing to follow

    m_inspector->nextAction()->trigger();
    QCOMPARE(m_inspector->currentRow(), 1);
    QCOMPARE(shown.size(), 1);
    QCOMPARE(shown.at(0).at(0).value<qsizetype>(), 1);
    QVERIFY(!m_inspector->nextAction()->isEnabled()); // the last attempt of request 1, not request 2's

    // The keys work from anywhere in the window.
    QVERIFY(QTest::qWaitForWindowActive(m_inspector.get()));
    QTest::keyClick(m_inspector.get(), Qt::Key_BracketLeft, Qt::ControlModifier);
    QCOMPARE(m_inspector->currentRow(), 0);
    QTest::keyClick(m_inspector.get(), Qt::Key_BracketRight, Qt::ControlModifier);
    QCOMPARE(m_inspector->currentRow(), 1);
    QCOMPARE(shown.size(), 3);

    m_inspector->showAttempt(2);
    QCOMPARE(m_inspector->previousRow(), -1);
    QCOMPARE(m_inspector->nextRow(), -1);
}

void TestAttemptInspector::hedgedAttempts_saySoInTheTitle()
{
    // Request 9 hedged: attempt 2 went out beside attempt 1 and its answer was kept.
    const Core::RequestSpec spec = orderSpec();
    m_session->noteRequest(9, spec);
    AttemptRecord first = orderAttempt(0, spec);
    first.requestId = 9;
    first.end = Core::AttemptEnd::Cancelled;
    first.httpStatus.reset();
    AttemptRecord second = orderAttempt(1, spec);
    second.requestId = 9;
    second.hedged = true;
    second.hedgeWinner = true;
    m_session->recordAttempt(second);
    m_session->recordAttempt(first);
    m_session->flush();
    const qsizetype kept = m_session->attemptRowCount() - 2;
    const qsizetype cut = m_session->attemptRowCount() - 1;
    QLabel *title = m_inspector->titleLabel();
    QVERIFY(title);
    m_inspector->showAttempt(kept);
    QVERIFY2(title->text().endsWith(QStringLiteral("the answer kept (hedging)")), qPrintable(title->text()));
    m_inspector->showAttempt(cut);
    QVERIFY2(!title->text().contains(QStringLiteral("hedg")), qPrintable(title->text()));
}

void TestAttemptInspector::inFlight_thenItsRecordWhenItEnds()
{
    m_session->recordAttemptStarted(3, 0, 400 * ms);
    m_session->flush();
    const qsizetype row = m_session->attemptRowCount() - 1;
    m_inspector->showAttempt(row);
    QVERIFY(!m_inspector->hasRecord());
    QVERIFY2(m_inspector->statusLabel()->text().contains(QLatin1String("In flight")),
        qPrintable(m_inspector->statusLabel()->text()));

    AttemptRecord done;
    done.requestId = 3;
    done.method = "GET";
    done.url = QUrl(QStringLiteral("http://127.0.0.1:8080/status/200"));
    done.startNs = 400 * ms;
    done.endNs = 405 * ms;
    done.httpStatus = 200;
    done.reasonPhrase = "OK";
    done.responseBody = "done";
    done.bytesReceived = 4;
    done.decision = Core::Classification::Decision::Success;
    m_session->recordAttempt(done);
    m_session->flush();
    QVERIFY(m_inspector->hasRecord());
    QCOMPARE(m_inspector->currentRow(), row);
    QCOMPARE(m_inspector->responseBodyView()->body().bytes, QByteArray("done"));
}

void TestAttemptInspector::droppedAndTruncatedBodies_areSaid()
{
    // The oldest bodies go first: the request's, then the first response's.
    m_session->setBodyBudget(m_session->bodyBytesHeld() - orderSpec().body.size() - 1);
    m_inspector->showAttempt(0);
    QVERIFY(m_inspector->requestBodyView()->body().dropped);
    const BodyView *body = m_inspector->responseBodyView();
    QVERIFY(body->body().dropped);
    QVERIFY2(body->note().contains(QLatin1String("Body dropped to bound memory")), qPrintable(body->note()));
    QVERIFY(m_inspector->exchangeText().contains(QLatin1String("[body dropped to bound memory]")));

    AttemptRecord big = orderAttempt(0, orderSpec());
    big.requestId = 4;
    big.httpStatus = 200;
    big.responseHeaders = {{"Content-Type", "text/plain"}};
    big.responseBody = QByteArray(4096, 'x');
    big.bytesReceived = 10'000;
    big.responseBodyTruncated = true;
    m_session->setBodyBudget(1024 * 1024);
    m_session->recordAttempt(big);
    m_session->flush();
    m_inspector->showAttempt(m_session->attemptRowCount() - 1);
    QVERIFY2(m_inspector->responseBodyView()->note().startsWith(QLatin1String("Only the first 4.0 KiB")),
        qPrintable(m_inspector->responseBodyView()->note()));
}

void TestAttemptInspector::sessionCleared_showsNothing()
{
    m_inspector->showAttempt(1);
    m_session->clear();
    QCOMPARE(m_inspector->currentRow(), -1);
    QVERIFY(!m_inspector->hasRecord());
    QVERIFY(m_inspector->requestHeaderTable()->rowCount() == 0);
}

void TestAttemptInspector::realRun_againstTheFaultServer_showsEachAttemptsBody()
{
    Core::FaultServer server;
    QVERIFY2(server.listen(), qPrintable(server.errorString()));
    Core::ThreadedExecutor executor;
    executor.setPolicy(fastPolicy());
    RunSession session;
    session.attach(&executor);
    m_inspector->setSession(&session);
    QSignalSpy idle(&executor, &Core::ThreadedExecutor::idle);
    Core::RequestSpec spec;
    spec.url = QUrl(server.baseUrl().toString() + QStringLiteral("/fail/1?key=inspector&code=503"));
    session.submit(spec);
    QVERIFY(idle.wait(10'000));
    session.flush();
    QCOMPARE(session.finishedCount(), 2);

    m_inspector->setCredentialsRevealed(true);
    m_inspector->showAttempt(0);
    QCOMPARE(m_inspector->statusLineLabel()->text(), QStringLiteral("HTTP/1.1 503 Service Unavailable"));
    QCOMPARE(m_inspector->responseBodyView()->kind(), BodyView::Kind::Json);
    QCOMPARE(topKeys(m_inspector->responseBodyView()),
        (QStringList{QStringLiteral("failure=1"), QStringLiteral("key=\"inspector\""), QStringLiteral("of=1"),
            QStringLiteral("status=503")}));
    QVERIFY(cell(m_inspector->requestHeaderTable(), QStringLiteral("X-Retry-Attempt")) == QLatin1String("1"));

    m_inspector->showNext();
    QCOMPARE(m_inspector->statusLineLabel()->text().right(6), QStringLiteral("200 OK"));
    QCOMPARE(topKeys(m_inspector->responseBodyView()),
        (QStringList{QStringLiteral("failures=1"), QStringLiteral("key=\"inspector\""), QStringLiteral("request=2")}));
    QVERIFY(m_inspector->summaryText().contains(QLatin1String("Delay before it: planned")));
    // Masked again, the key (a credential by name) is hidden.
    m_inspector->setCredentialsRevealed(false);
    QVERIFY(topKeys(m_inspector->responseBodyView()).contains(QStringLiteral("key=\"REDACTED\"")));
}

void TestAttemptInspector::runFromAJsonReport_showsTheSameBodies()
{
    Core::ExportOptions unredacted;
    unredacted.redactCredentials = false;
    const auto report = Core::ReportJson::fromJson(Core::ReportJson::toJson(m_session->runRecord(), unredacted));
    QVERIFY2(report, qPrintable(report.error()));
    RunSession loaded;
    loaded.loadRunRecord(report->run);
    loaded.flush();
    m_inspector->setSession(&loaded);
    m_inspector->setCredentialsRevealed(true);
    for (qsizetype row = 0; row < 3; ++row) {
        m_inspector->showAttempt(row);
        const AttemptRecord original = m_session->attemptRecord(m_session->finishedIndexOfRow(row));
        QCOMPARE(m_inspector->record().responseBody, original.responseBody);
        QCOMPARE(m_inspector->record().requestBody, original.requestBody);
        QCOMPARE(m_inspector->responseBodyView()->body().bytes, original.responseBody);
    }
    m_inspector->showAttempt(0);
    QCOMPARE(topKeys(m_inspector->responseBodyView()),
        (QStringList{QStringLiteral("error=\"overloaded\""), QStringLiteral("status=503")}));

    // A redacted report has no secrets to reveal.
    const auto redacted = Core::ReportJson::fromJson(Core::ReportJson::toJson(m_session->runRecord()));
    QVERIFY2(redacted, qPrintable(redacted.error()));
    RunSession fromRedacted;
    fromRedacted.loadRunRecord(redacted->run);
    m_inspector->setSession(&fromRedacted);
    m_inspector->showAttempt(1);
    QVERIFY(topKeys(m_inspector->responseBodyView()).contains(QStringLiteral("access_token=\"REDACTED\"")));
    m_inspector->setSession(m_session.get());
}

void TestAttemptInspector::window_timelineAndErrorLogOpenTheInspector()
{
    m_inspector.reset();
    QFile::remove(QSettings().fileName());
    Ui::MainWindow window;
    policyPanelOf(window)->setPolicy(fastPolicy());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!inspectorDockOf(window)->isVisible());
    QVERIFY(inspectorDockOf(window)->isAncestorOf(inspectorOf(window)));

    composerOf(window)->sendAction()->trigger();
    QVERIFY(QTest::qWaitFor([&] { return sessionOf(window)->resultCount() >= 1; }, 15'000));
    sessionOf(window)->flush();
    QCOMPARE(sessionOf(window)->finishedCount(), 4); // /fail/3: three 503s, then 200

    // A click on an attempt's bar in the timeline.
    window.showTab(Ui::MainWindow::Tab::Timeline);
    timelineViewOf(window)->zoomToFit();
    QTest::qWait(50);
    const QPoint bar = timelineViewOf(window)->attemptRect(1).center().toPoint();
    QTest::mouseClick(timelineViewOf(window)->viewport(), Qt::LeftButton, {}, bar);
    QTRY_VERIFY(inspectorDockOf(window)->isVisible());
    QCOMPARE(inspectorOf(window)->currentRow(), 1);
    QVERIFY(inspectorOf(window)->responseBodyView()->body().bytes.contains("\"status\":503"));

    // A row of the error log.
    window.showTab(Ui::MainWindow::Tab::ErrorLog);
    QVERIFY(errorLogViewOf(window)->showAttempt(3));
    QCOMPARE(inspectorOf(window)->currentRow(), 3);
    QCOMPARE(inspectorOf(window)->statusLineLabel()->text().right(6), QStringLiteral("200 OK"));

    // The inspector's own steps take the log's selection along.
    inspectorOf(window)->showPrevious();
    QCOMPARE(inspectorOf(window)->currentRow(), 2);
    QCOMPARE(
        errorLogViewOf(window)->selectedFinishedIndexes(), QList<qsizetype>{sessionOf(window)->finishedIndexOfRow(2)});

    // Closed, it opens again on the next selection; the View menu toggles it.
    inspectorDockOf(window)->close();
    QVERIFY(errorLogViewOf(window)->showAttempt(0));
    QVERIFY(inspectorDockOf(window)->isVisible());
    QCOMPARE(inspectorOf(window)->currentRow(), 0);
    window.close();
}

QTEST_MAIN(TestAttemptInspector)
#include "tst_attemptinspector.moc"
