#include "core/collections/requestdraft.h"
#include "core/util/englishplurals.h"
#include "tests/ui/windowparts.h"
#include "ui/mainwindow.h"
#include "ui/request/requestcomposer.h"
#include "ui/request/requesthistorymodel.h"
#include "ui/request/requesthistoryview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/request/requesthistory.h"
#include "ui/session/run/runsession.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace RetryLab;

/// The History dock in the real window: sends to the embedded fault server, the
/// entries they leave, their search, their file across a restart, and re-opening one.
class TestRequestHistory final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void dock_waitsBehindTheCollections();
    void send_isKeptSearchableAndReopens_acrossARestart();
    void credentials_neverReachTheFile();
    void history_isBounded_andLargeBodiesAreLeftOut();
    void damagedFile_isReported_andTheHistoryStartsEmpty();

private:
    std::unique_ptr<Ui::MainWindow> makeWindow();
    QString historyFile() const { return m_dir.filePath(QStringLiteral("data/request-history.json")); }
    static Ui::RequestHistoryView *historyViewOf(const QObject &window)
    {
        return window.findChild<Ui::RequestHistoryView *>(QStringLiteral("requestHistory"));
    }
    static bool sendAndWait(Ui::MainWindow &window, const Core::RequestDraft &draft, int results);

    QTemporaryDir m_dir;
};

void TestRequestHistory::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_requesthistory"));
    Core::EnglishPlurals::install();
    QVERIFY(m_dir.isValid());
}

void TestRequestHistory::init()
{
    QSettings settings;
    settings.clear();
    settings.sync();
    QFile::remove(historyFile());
}

std::unique_ptr<Ui::MainWindow> TestRequestHistory::makeWindow()
{
    Ui::MainWindow::Options options;
    options.dataDirectory = m_dir.filePath(QStringLiteral("data"));
    auto window = std::make_unique<Ui::MainWindow>(options);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()))
        return nullptr;
    return window;
}

bool TestRequestHistory::sendAndWait(Ui::MainWindow &window, const Core::RequestDraft &draft, int results)
{
    composerOf(window)->setDraft(draft);
    composerOf(window)->sendAction()->trigger();
    return QTest::qWaitFor([&] { return sessionOf(window)->resultCount() >= results; }, 15'000);
}

void TestRequestHistory::dock_waitsBehindTheCollections()
{
    auto window = makeWindow();
    QVERIFY(window);
    auto *dock = window->findChild<QDockWidget *>(QStringLiteral("historyDock"));
    QVERIFY(dock);
    // A tab beside the saved requests, which stay in front (or the policy, where the screen is
    // too narrow for both); the View menu shows it.
    QVERIFY(window->tabifiedDockWidgets(collectionsDockOf(*window)).contains(dock));
    QTRY_VERIFY(
        !collectionsOf(*window)->visibleRegion().isEmpty() || !policyPanelOf(*window)->visibleRegion().isEmpty());
    QVERIFY(historyViewOf(*window)->visibleRegion().isEmpty());
    QVERIFY(dock->toggleViewAction()->isChecked());
    dock->raise();
    QTRY_VERIFY(!historyViewOf(*window)->visibleRegion().isEmpty());
}

void TestRequestHistory::send_isKeptSearchableAndReopens_acrossARestart()
{
    QString firstUrl;
    {
        auto window = makeWindow();
        QVERIFY(window);
        Ui::RequestHistoryView *view = historyViewOf(*window);
        QVERIFY(view);
        QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(view->model()->rowCount(), 0);
        QVERIFY(view->findChild<QLabel *>(QStringLiteral("historyEmpty"))->isVisibleTo(view));

        Core::RequestDraft first;
        first.urlTemplate = QStringLiteral("{server}/fail/1?key={id}");
        first.headers.append({QStringLiteral("X-Trace"), QStringLiteral("history-one"), true});
        QVERIFY(sendAndWait(*window, first, 1));
        Core::RequestDraft second;
        second.method = QStringLiteral("PUT");
        second.idempotent = true;
        second.urlTemplate = QStringLiteral("{server}/status/200?item=shoes");
        second.body = QStringLiteral("{\"size\": 42}");
        QVERIFY(sendAndWait(*window, second, 2));
        QTRY_COMPARE(view->model()->rowCount(), 2);

        // Newest first, as sent.
        const QModelIndex newest = view->model()->index(0, Ui::RequestHistoryModel::Request);
        QCOMPARE(newest.data().toString(), QStringLiteral("PUT {server}/status/200?item=shoes"));
        QCOMPARE(view->model()->index(0, Ui::RequestHistoryModel::What).data().toString(), QStringLiteral("send"));
        QCOMPARE(view->model()->index(1, Ui::RequestHistoryModel::Request).data().toString(),
            QStringLiteral("GET {server}/fail/1?key={id}"));
        QVERIFY(!view->findChild<QLabel *>(QStringLiteral("historyEmpty"))->isVisibleTo(view));

        // The search narrows the list; the dock sits with the collections.
        auto *search = view->findChild<QLineEdit *>(QStringLiteral("historySearch"));
        QTest::keyClicks(search, QStringLiteral("fail/1"));
        QCOMPARE(view->filter()->rowCount(), 1);
        search->clear();
        QCOMPARE(view->filter()->rowCount(), 2);
        auto *dock = window->findChild<QDockWidget *>(QStringLiteral("historyDock"));
        QVERIFY(dock);
        QVERIFY(window->tabifiedDockWidgets(collectionsDockOf(*window)).contains(dock));
        QTRY_VERIFY(QFile::exists(historyFile()));
        firstUrl = first.urlTemplate;
    }

    // After a restart: the same entries, and one re-opens into the composer.
    auto window = makeWindow();
    QVERIFY(window);
    Ui::RequestHistoryView *view = historyViewOf(*window);
    QCOMPARE(view->model()->rowCount(), 2);
    QVERIFY(messagesOf(*window).isEmpty());
    auto *search = view->findChild<QLineEdit *>(QStringLiteral("historySearch"));
    QTest::keyClicks(search, QStringLiteral("SHOES"));
    QCOMPARE(view->filter()->rowCount(), 1);
    auto *list = view->findChild<QTreeView *>(QStringLiteral("historyList"));
    list->setCurrentIndex(view->filter()->index(0, 0));
    auto *open = view->findChild<QPushButton *>(QStringLiteral("openHistoryEntry"));
    QVERIFY(open->isEnabled());
    open->click();
    const Core::RequestDraft reopened = composerOf(*window)->draft();
    QCOMPARE(reopened.method, QStringLiteral("PUT"));
    QCOMPARE(reopened.urlTemplate, QStringLiteral("{server}/status/200?item=shoes"));
    QCOMPARE(reopened.body, QStringLiteral("{\"size\": 42}"));

    // Enter on the other one, and it goes out again.
    search->clear();
    list->setFocus();
    list->setCurrentIndex(view->filter()->index(1, 0));
    QTest::keyClick(list, Qt::Key_Return);
    QCOMPARE(composerOf(*window)->draft().urlTemplate, firstUrl);
    QCOMPARE(composerOf(*window)->draft().headers.size(), 1);
    composerOf(*window)->sendAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(sessionOf(*window)->resultCount(), 1, 15'000);
    QTRY_COMPARE(view->model()->rowCount(), 3);
}

void TestRequestHistory::credentials_neverReachTheFile()
{
    auto window = makeWindow();
    QVERIFY(window);
    Core::RequestDraft draft;
    draft.urlTemplate = QStringLiteral("{server}/status/200?access_token=tok-in-the-url");
    draft.headers.append({QStringLiteral("Authorization"), QStringLiteral("Bearer sekr1t-bearer"), true});
    QVERIFY(sendAndWait(*window, draft, 1));
    Ui::RequestHistoryView *view = historyViewOf(*window);
    QTRY_COMPARE(view->model()->rowCount(), 1);
    QTRY_VERIFY(QFile::exists(historyFile()));
    QFile file(historyFile());
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(!bytes.contains("sekr1t-bearer"));
    QVERIFY(!bytes.contains("tok-in-the-url"));
    QVERIFY(bytes.contains("REDACTED"));
    // What the list re-opens is what the file holds: the composer asks for the credential again.
    const Core::RequestDraft *kept = view->model()->draft(0);
    QVERIFY(kept);
    QCOMPARE(kept->headers.constFirst().value, QStringLiteral("Bearer REDACTED"));
    QVERIFY(!view->model()
                 ->index(0, Ui::RequestHistoryModel::Request)
                 .data()
                 .toString()
                 .contains(QLatin1String("tok-in-the-url")));
}

void TestRequestHistory::history_isBounded_andLargeBodiesAreLeftOut()
{
    auto kept = std::make_unique<Ui::RequestHistory>(historyFile());
    Ui::RequestHistory &history = *kept;
    Core::RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.body = QString(Ui::RequestHistory::maxBodyBytes + 1, QLatin1Char('x'));
    history.add(draft, Ui::RequestHistory::Kind::Batch);
    QVERIFY(history.entries().constFirst().bodyDropped);
    QVERIFY(history.entries().constFirst().draft.body.isEmpty());
    draft.body = QStringLiteral("small");
    for (int i = 0; i < Ui::RequestHistory::maxEntries + 5; ++i) {
        draft.urlTemplate = QStringLiteral("{server}/status/200?n=%1").arg(i);
        history.add(draft, Ui::RequestHistory::Kind::Send);
    }
    QCOMPARE(history.entries().size(), Ui::RequestHistory::maxEntries);
    QCOMPARE(history.entries().constFirst().draft.urlTemplate,
        QStringLiteral("{server}/status/200?n=%1").arg(Ui::RequestHistory::maxEntries + 4));
    // 206 adds, and the file is written once, later: here when the history goes.
    QVERIFY(history.isSavePending());
    QVERIFY(!QFile::exists(historyFile()));
    const QString newest = history.entries().constFirst().draft.urlTemplate;
    kept.reset();

    Ui::RequestHistory reread(historyFile());
    QVERIFY(reread.load());
    QCOMPARE(reread.entries().size(), Ui::RequestHistory::maxEntries);
    QCOMPARE(reread.entries().constFirst().draft.urlTemplate, newest);
    QCOMPARE(reread.entries().constFirst().draft.body, QStringLiteral("small"));

    // Left alone, it writes a change after saveDelayMs.
    reread.clear();
    QVERIFY(reread.isSavePending());
    QTRY_VERIFY(!reread.isSavePending());
    Ui::RequestHistory emptied(historyFile());
    QVERIFY(emptied.load());
    QVERIFY(emptied.entries().isEmpty());
}

void TestRequestHistory::damagedFile_isReported_andTheHistoryStartsEmpty()
{
    QDir().mkpath(QFileInfo(historyFile()).absolutePath());
    QFile file(historyFile());
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"entries\": [ nope");
    file.close();
    auto window = makeWindow();
    QVERIFY(window);
    QCOMPARE(historyViewOf(*window)->model()->rowCount(), 0);
    QVERIFY2(messagesOf(*window).join(QLatin1Char('\n')).contains(QLatin1String("request history")),
        qPrintable(messagesOf(*window).join(QLatin1Char('\n'))));
}

QTEST_MAIN(TestRequestHistory)
#include "tst_requesthistory.moc"
