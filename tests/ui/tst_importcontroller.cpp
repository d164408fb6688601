#include "core/import/harimport.h"
#include "core/record/transportoptions.h"
#include "core/util/englishplurals.h"
#include "tests/ui/import/importfixtures.h"
#include "tests/ui/windowparts.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/import/curlimportdialog.h"
#include "ui/import/harimportdialog.h"
#include "ui/import/importedrequestlist.h"
#include "ui/import/postmanimportdialog.h"
#include "ui/importcontroller.h"
#include "ui/mainwindow.h"
#include "ui/policy/policypanel.h"
#include "ui/request/requestcomposer.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

#include <algorithm>
#include <memory>

using namespace RetryLab;
using Ui::MainWindow;

// File > Import request and Request > Copy as HAR entry in the window: what
// reaches the composer and the policy, when, what Undo brings back, and what a
// file that cannot be read changes (nothing).
class TestImportController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void curl_fillsTheComposerOnImport_policyOnlyWhenAsked();
    void curl_transportOptionsCarriedOver_insecureNever();
    void curl_pastedIntoTheUrlField_isImported_undoBringsTheRequestBack();
    void unsentEdits_areSaid_andUndoBringsThemBack();
    void sentDraft_isReplacedWithoutAWarning();
    void restoredDraft_isReplacedWithoutAWarning();
    void har_pickTwo_firstInTheComposer_theOtherInTheList();
    void postman_folderPicked_variablesResolved();
    void imported_savedAsACollection_inTheirFolders();
    void malformedFile_namesFileAndPlace_andChangesNothing_data();
    void malformedFile_namesFileAndPlace_andChangesNothing();
    void copyAsHarEntry_validEntry_credentialsRedacted();
    void droppedFiles_areToldApartByContent();

private:
    std::unique_ptr<MainWindow> makeWindow();
    QString write(const QString &name, const QByteArray &bytes);
    static Core::RequestDraft ownDraft();

    QTemporaryDir m_dir;
    QString m_nextFile;
};

void TestImportController::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_importcontroller"));
    Core::EnglishPlurals::install();
    QVERIFY(m_dir.isValid());
}

void TestImportController::init()
{
    QFile::remove(QSettings().fileName());
    m_nextFile.clear();
}

void TestImportController::cleanup()
{
    QFile::remove(QSettings().fileName());
}

std::unique_ptr<MainWindow> TestImportController::makeWindow()
{
    auto window = std::make_unique<MainWindow>();
    exportsOf(*window)->setFileChooser([this](QFileDialog::AcceptMode, const QString &, const QString &,
                                           const QString &, QString *) { return m_nextFile; });
    window->show();
    return window;
}

QString TestImportController::write(const QString &name, const QByteArray &bytes)
{
    QFile file(m_dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(bytes);
    return file.fileName();
}

Core::RequestDraft TestImportController::ownDraft()
{
    Core::RequestDraft draft;
    draft.method = QStringLiteral("PATCH");
    draft.urlTemplate = QStringLiteral("{server}/status/200?mine={id}");
    draft.headers = {{QStringLiteral("X-Mine"), QStringLiteral("yes"), true}};
    draft.body = QStringLiteral("{\"draft\": \"being written\"}");
    return draft;
}

void TestImportController::curl_pastedIntoTheUrlField_isImported_undoBringsTheRequestBack()
{
    const auto window = makeWindow();
    composerOf(*window)->setDraft(ownDraft());
    auto *url = composerOf(*window)->findChild<QComboBox *>(QStringLiteral("url"));
    QVERIFY(url && url->lineEdit());
    url->lineEdit()->setFocus();
    // Copied from a terminal: continued lines and all.
    QApplication::clipboard()->setText(
        QStringLiteral("curl -X POST \\\n  -H 'X-Trace: 7' \\\n  -d 'a=1' http://127.0.0.1:9/orders"));
    QTest::keySequence(url->lineEdit(), QKeySequence::Paste);
    const Core::RequestDraft imported = composerOf(*window)->draft();
    QCOMPARE(imported.method, QStringLiteral("POST"));
    QCOMPARE(imported.urlTemplate, QStringLiteral("http://127.0.0.1:9/orders"));
    QCOMPARE(imported.body, QStringLiteral("a=1"));
    QVERIFY(std::any_of(imported.headers.cbegin(), imported.headers.cend(),
        [](const auto &h) { return h.name == QLatin1String("X-Trace") && h.value == QLatin1String("7"); }));
    QVERIFY(importsOf(*window)->canUndo());
    QVERIFY(importsOf(*window)->undoImport());
    QCOMPARE(composerOf(*window)->draft().urlTemplate, ownDraft().urlTemplate);
    QCOMPARE(composerOf(*window)->draft().method, ownDraft().method);

    // An ordinary URL pastes as it always did.
    QApplication::clipboard()->setText(QStringLiteral("http://example.org/x"));
    url->lineEdit()->clear();
    QTest::keySequence(url->lineEdit(), QKeySequence::Paste);
    QCOMPARE(url->currentText(), QStringLiteral("http://example.org/x"));
}

void TestImportController::curl_fillsTheComposerOnImport_policyOnlyWhenAsked()
{
    const auto window = makeWindow();
    const Core::RequestDraft before = composerOf(*window)->draft();
    const Core::BackoffPolicy policyBefore = policyPanelOf(*window)->policy();
    importsOf(*window)->curlAction()->trigger();
    auto *dialog = qobject_cast<Ui::CurlImportDialog *>(importsOf(*window)->dialog());
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    dialog->setCommandLine(QStringLiteral("curl -X POST -H 'X-Trace: 7' -d 'a=1' --retry 9 http://127.0.0.1:9/orders"));
    QVERIFY(dialog->canImport());
    // Nothing changes while the dialog is open.
    QCOMPARE(composerOf(*window)->draft(), before);
    dialog->importButton()->click();
    QTRY_VERIFY(!importsOf(*window)->dialog());

    Core::RequestDraft draft = composerOf(*window)->draft();
    QCOMPARE(draft.method, QStringLiteral("POST"));
    QCOMPARE(draft.urlTemplate, QStringLiteral("http://127.0.0.1:9/orders"));
    QVERIFY(draft.headers.contains(Core::DraftHeader{QStringLiteral("X-Trace"), QStringLiteral("7"), true}));
    QCOMPARE(draft.body, QStringLiteral("a=1"));
    QCOMPARE(draft.batchCount, before.batchCount); // the composer's own settings stay
    QCOMPARE(policyPanelOf(*window)->policy().maxAttempts, policyBefore.maxAttempts);
    QCOMPARE(settingsOf(*window)->requestDraft(), draft); // kept, as an edit would be

    // Asked, the policy changes too; Undo puts both back.
    dialog = importsOf(*window)->importCurl();
    dialog->setCommandLine(QStringLiteral("curl --retry 9 http://127.0.0.1:9/other"));
    dialog->setAppliesPolicy(true);
    dialog->accept();
    QCOMPARE(policyPanelOf(*window)->policy().maxAttempts, 10);
    QCOMPARE(composerOf(*window)->draft().urlTemplate, QStringLiteral("http://127.0.0.1:9/other"));
    QVERIFY(importsOf(*window)->undoAction()->isEnabled());
    importsOf(*window)->undoAction()->trigger();
    QCOMPARE(policyPanelOf(*window)->policy().maxAttempts, policyBefore.maxAttempts);
    QCOMPARE(composerOf(*window)->draft(), draft);
    QVERIFY(!importsOf(*window)->undoAction()->isEnabled());

    // A curl command on the clipboard is offered.
    QApplication::clipboard()->setText(QStringLiteral("curl -I http://127.0.0.1:9/copied\n"));
    dialog = importsOf(*window)->importCurl();
    QCOMPARE(dialog->commandLine(), QStringLiteral("curl -I http://127.0.0.1:9/copied"));
    QCOMPARE(composerOf(*window)->draft(), draft);
    dialog->reject();
    QApplication::clipboard()->setText(QStringLiteral("not a command"));
    dialog = importsOf(*window)->importCurl();
    QVERIFY(dialog->commandLine().isEmpty());

    // Cancelled, nothing changes.
    dialog = importsOf(*window)->importCurl();
    dialog->setCommandLine(QStringLiteral("curl http://127.0.0.1:9/cancelled"));
    dialog->reject();
    QCOMPARE(composerOf(*window)->draft(), draft);
}

void TestImportController::curl_transportOptionsCarriedOver_insecureNever()
{
    const auto window = makeWindow();
    auto *dialog = importsOf(*window)->importCurl();
    dialog->setCommandLine(QStringLiteral("curl --cacert /etc/ssl/internal-ca.pem --tlsv1.3 --http2 -k "
                                          "-x socks5://127.0.0.1:1080 https://api.internal.test/health"));
    QVERIFY(dialog->canImport());
    dialog->accept();
    const Core::RequestDraft draft = composerOf(*window)->draft();
    QCOMPARE(draft.urlTemplate, QStringLiteral("https://api.internal.test/health"));
    QCOMPARE(draft.transport.caBundlePath, QStringLiteral("/etc/ssl/internal-ca.pem"));
    QCOMPARE(draft.transport.tlsFloor, Core::TransportOptions::TlsFloor::Tls13);
    QCOMPARE(draft.transport.httpVersion, Core::TransportOptions::HttpVersion::Http2);
    QCOMPARE(draft.transport.proxyMode, Core::TransportOptions::ProxyMode::Socks5);
    QCOMPARE(draft.transport.proxyPort, quint16(1080));
    // -k is said, not carried over: ignoring certificate errors is the user's own tick.
    QVERIFY(draft.transport.insecureHosts.isEmpty());
    const QString message = messagesOf(*window).last();
    QVERIFY2(message.contains(QLatin1String("api.internal.test (-k/--insecure); that was not carried over")),
        qPrintable(message));
}

void TestImportController::unsentEdits_areSaid_andUndoBringsThemBack()
{
    const auto window = makeWindow();
    composerOf(*window)->setDraft(ownDraft());
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    importsOf(*window)->importRequests(Core::HarImport::requests(*archive), QStringLiteral("shop.har"));
    QCOMPARE(composerOf(*window)->draft().urlTemplate, QStringLiteral("https://shop.example.com/"));
    const QString message = messagesOf(*window).last();
    QVERIFY2(message.contains(QLatin1String("had changes that were not sent")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("Undo import")), qPrintable(message));

    // Stepping through the imported requests keeps the user's draft for Undo.
    importsOf(*window)->importedList()->loadNext();
    QCOMPARE(composerOf(*window)->draft().method, QStringLiteral("POST"));
    QVERIFY(importsOf(*window)->undoImport());
    QCOMPARE(composerOf(*window)->draft(), ownDraft());
    QCOMPARE(settingsOf(*window)->requestDraft(), ownDraft());
    QVERIFY(!importsOf(*window)->canUndo());
}

void TestImportController::sentDraft_isReplacedWithoutAWarning()
{
    const auto window = makeWindow();
    composerOf(*window)->setDraft(ownDraft());
    composerOf(*window)->sendAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(sessionOf(*window)->resultCount() == 1, 10'000);
    importsOf(*window)->importRequests(
        {Core::HarImport::requests(*Core::HarImport::read(ImportFixtures::threeEntries())).first()},
        QStringLiteral("shop.har"));
    const QString message = messagesOf(*window).last();
    QVERIFY2(!message.contains(QLatin1String("not sent")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("Undo import")), qPrintable(message));
    QVERIFY(importsOf(*window)->undoImport());
    QCOMPARE(composerOf(*window)->draft(), ownDraft());
}

void TestImportController::restoredDraft_isReplacedWithoutAWarning()
{
    {
        Ui::Settings settings;
        settings.setRequestDraft(ownDraft());
        QVERIFY(settings.sync().ok());
    }
    const auto window = makeWindow();
    QCOMPARE(composerOf(*window)->draft(), ownDraft());
    importsOf(*window)->importRequests(
        {Core::HarImport::requests(*Core::HarImport::read(ImportFixtures::threeEntries())).first()},
        QStringLiteral("shop.har"));
    QVERIFY2(!messagesOf(*window).last().contains(QLatin1String("not sent")), qPrintable(messagesOf(*window).last()));
    QVERIFY(importsOf(*window)->undoImport());
    QCOMPARE(composerOf(*window)->draft(), ownDraft());
}

void TestImportController::har_pickTwo_firstInTheComposer_theOtherInTheList()
{
    const auto window = makeWindow();
    const Core::RequestDraft before = composerOf(*window)->draft();
    m_nextFile = write(QStringLiteral("shop.har"), ImportFixtures::threeEntries());
    QSignalSpy imported(importsOf(*window), &Ui::ImportController::requestsImported);
    importsOf(*window)->harAction()->trigger();
    auto *dialog = qobject_cast<Ui::HarImportDialog *>(importsOf(*window)->dialog());
    QVERIFY(dialog);
    dialog->selectEntries({1, 2});
    QCOMPARE(composerOf(*window)->draft(), before);
    dialog->importButton()->click();

    QCOMPARE(imported.size(), 1);
    const auto requests = imported.first().at(0).value<QList<Core::ImportedRequest>>();
    QCOMPARE(requests.size(), 2);
    QCOMPARE(imported.first().at(1).toString(), QStringLiteral("shop.har"));

    Core::RequestDraft draft = composerOf(*window)->draft();
    QCOMPARE(draft.method, QStringLiteral("POST"));
    QCOMPARE(draft.urlTemplate, QStringLiteral("https://api.example.com/orders?api_key=k3y"));
    QCOMPARE(draft.body, QStringLiteral("{\"qty\":2}"));
    QTRY_VERIFY(importsOf(*window)->importedDock()->isVisible());
    Ui::ImportedRequestList *list = importsOf(*window)->importedList();
    QCOMPARE(list->list()->count(), 2);
    QCOMPARE(list->current(), 0);
    QVERIFY(messagesOf(*window).last().contains(QLatin1String("Request 1 of 2 from shop.har")));

    list->findChild<QPushButton *>(QStringLiteral("nextImported"))->click();
    QCOMPARE(composerOf(*window)->draft().method, QStringLiteral("DELETE"));
    QCOMPARE(list->current(), 1);
    QVERIFY(!list->findChild<QPushButton *>(QStringLiteral("nextImported"))->isEnabled());
    list->findChild<QPushButton *>(QStringLiteral("previousImported"))->click();
    QCOMPARE(composerOf(*window)->draft(), draft);

    // Undo after stepping: the draft from before the import.
    importsOf(*window)->undoAction()->trigger();
    QCOMPARE(composerOf(*window)->draft(), before);
}

void TestImportController::postman_folderPicked_variablesResolved()
{
    const auto window = makeWindow();
    const QString collection = write(QStringLiteral("orders.json"), ImportFixtures::collection());
    const QString environment = write(QStringLiteral("staging.json"), ImportFixtures::environment());
    m_nextFile = collection;
    importsOf(*window)->postmanAction()->trigger();
    auto *dialog = qobject_cast<Ui::PostmanImportDialog *>(importsOf(*window)->dialog());
    QVERIFY(dialog);
    m_nextFile = environment; // the dialog asks the window's chooser for the environment
    dialog->findChild<QPushButton *>(QStringLiteral("chooseEnvironment"))->click();
    QCOMPARE(dialog->environmentFile(), environment);
    dialog->tree()->clearSelection();
    dialog->tree()->topLevelItem(1)->setSelected(true);
    dialog->accept();
    QCOMPARE(composerOf(*window)->draft().urlTemplate, QStringLiteral("https://staging.example.com/v1/orders?page=2"));
    QCOMPARE(importsOf(*window)->importedList()->list()->count(), 2);
    QVERIFY(importsOf(*window)->importedList()->list()->item(1)->text().startsWith(QLatin1String("Orders / Admin / ")));
}

void TestImportController::imported_savedAsACollection_inTheirFolders()
{
    Ui::MainWindow::Options options;
    options.dataDirectory = m_dir.filePath(QStringLiteral("saved-imports"));
    Ui::MainWindow window(options);
    QAction *save = importsOf(window)->saveToCollectionAction();
    QVERIFY(!save->isEnabled()); // nothing imported yet
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    const QList<Core::ImportedRequest> requests = Core::HarImport::requests(*archive);
    QList<Core::ImportedRequest> foldered = requests;
    foldered[1].folders = {QStringLiteral("Checkout"), QStringLiteral("Payments")};
    foldered[2].folders = {QStringLiteral("Checkout")};
    importsOf(window)->importRequests(foldered, QStringLiteral("shop.har"));
    QVERIFY(save->isEnabled());
    const int before = int(collectionsOf(window)->model()->collections().size());
    save->trigger();

    const QList<Core::Collection> collections = collectionsOf(window)->model()->collections();
    QCOMPARE(collections.size(), before + 1);
    const Core::Collection &saved = collections.constLast();
    QCOMPARE(saved.name, QStringLiteral("shop"));
    // The first at the top, the others in Checkout (one of them in Checkout/Payments), one folder each.
    QCOMPARE(saved.items.size(), 2);
    QVERIFY(!saved.items.at(0).isFolder());
    QCOMPARE(saved.items.at(0).request.urlTemplate, QStringLiteral("https://shop.example.com/"));
    const Core::CollectionItem &checkout = saved.items.at(1);
    QVERIFY(checkout.isFolder());
    QCOMPARE(checkout.name, QStringLiteral("Checkout"));
    QCOMPARE(checkout.items.size(), 2);
    QVERIFY(checkout.items.at(0).isFolder());
    QCOMPARE(checkout.items.at(0).name, QStringLiteral("Payments"));
    QCOMPARE(checkout.items.at(0).items.size(), 1);
    QCOMPARE(checkout.items.at(0).items.at(0).request.method, QStringLiteral("POST"));
    QVERIFY(!checkout.items.at(1).isFolder());
    // Each with the policy in the editor.
    QVERIFY(checkout.items.at(1).policy.policy());
    QCOMPARE(checkout.items.at(1).policy.policy()->maxAttempts, policyPanelOf(window)->policy().maxAttempts);
    // And on disk, as a collection file of its own.
    const QDir folder(QDir(options.dataDirectory).filePath(QStringLiteral("collections")));
    QTRY_VERIFY(!folder.entryList({QStringLiteral("shop*.json")}, QDir::Files).isEmpty());
}

void TestImportController::malformedFile_namesFileAndPlace_andChangesNothing_data()
{
    QTest::addColumn<bool>("postman");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("where");
    QTest::addRow("HAR: request without a URL")
        << false << QByteArray(R"({"log": {"version": "1.2", "entries": [{"startedDateTime": "2025-01-01T00:00:00Z",
           "request": {"method": "GET", "headers": []}}]}})")
        << QStringLiteral("log.entries[0].request.url");
    QTest::addRow("HAR: cut short") << false << QByteArray("{\"log\": {\"version\": \"1.2\",\n \"entries\": [")
                                    << QStringLiteral("line 2");
    QTest::addRow("HAR: no request to send")
        << false << QByteArray(R"({"log": {"version": "1.2", "entries": []}})") << QStringLiteral("log.entries");
    QTest::addRow("Postman: item without a request")
        << true
        << QByteArray(
               R"({"info": {"name": "X", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
           "item": [{"name": "Folder", "item": [{"name": "Broken", "request": {"method": "GET"}}]}]})")
        << QStringLiteral("item[0].item[0].request.url");
    QTest::addRow("Postman: not JSON") << true << QByteArray("not json") << QStringLiteral("line 1");
}

void TestImportController::malformedFile_namesFileAndPlace_andChangesNothing()
{
    QFETCH(bool, postman);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, where);
    const auto window = makeWindow();
    composerOf(*window)->setDraft(ownDraft());
    const Core::BackoffPolicy policy = policyPanelOf(*window)->policy();
    m_nextFile = write(QStringLiteral("broken-file.json"), bytes);
    (postman ? importsOf(*window)->postmanAction() : importsOf(*window)->harAction())->trigger();
    QVERIFY(!importsOf(*window)->dialog());
    QMessageBox *box = importsOf(*window)->errorBox();
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().contains(QLatin1String("broken-file.json")), qPrintable(box->text()));
    QVERIFY2(box->text().contains(where), qPrintable(box->text()));
    QVERIFY(messagesOf(*window).last().contains(QLatin1String("Nothing was imported")));
    QCOMPARE(composerOf(*window)->draft(), ownDraft());
    QCOMPARE(policyPanelOf(*window)->policy(), policy);
    QVERIFY(!importsOf(*window)->canUndo());
    box->close();
}

void TestImportController::copyAsHarEntry_validEntry_credentialsRedacted()
{
    const auto window = makeWindow();
    Core::RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:9/orders?token=abc123&page=2");
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cr3t"), true},
        {QStringLiteral("Content-Type"), QStringLiteral("application/json"), true}};
    draft.body = QStringLiteral("{\"qty\": 2, \"password\": \"hunter2\"}");
    composerOf(*window)->setDraft(draft);
    QApplication::clipboard()->clear();
    runActionsOf(*window)->copyHarAction()->trigger();

    const QString text = QApplication::clipboard()->text();
    for (const char *secret : {"s3cr3t", "abc123", "hunter2"})
        QVERIFY2(!text.contains(QLatin1String(secret)), secret);
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &error);
    QVERIFY2(document.isObject(), qPrintable(error.errorString()));
    const QJsonObject request = document.object().value(QStringLiteral("request")).toObject();
    QCOMPARE(request.value(QStringLiteral("method")).toString(), QStringLiteral("POST"));
    QVERIFY(request.value(QStringLiteral("url")).toString().startsWith(QLatin1String("http://127.0.0.1:9/orders?")));
    QVERIFY(text.contains(QLatin1String("REDACTED")));
    QVERIFY(messagesOf(*window).last().contains(QLatin1String("credentials redacted")));

    // A valid entry: a HAR holding it reads back as the same request.
    const QJsonObject har{{QStringLiteral("log"),
        QJsonObject{{QStringLiteral("version"), QStringLiteral("1.2")},
            {QStringLiteral("creator"), QJsonObject{{QStringLiteral("name"), QStringLiteral("test")}}},
            {QStringLiteral("entries"), QJsonArray{document.object()}}}}};
    const auto archive = Core::HarImport::read(QJsonDocument(har).toJson());
    QVERIFY2(archive, qPrintable(archive.error()));
    QCOMPARE(archive->entries.size(), 1);
    const Core::RequestSpec &spec = archive->entries.first().request.spec;
    QCOMPARE(spec.method, QByteArrayLiteral("POST"));
    QCOMPARE(spec.url.path(), QStringLiteral("/orders"));
    QVERIFY(spec.body.contains("\"qty\""));

    // Redaction off: the credentials are in it, and the message says so.
    actionOf(*window, "redactExports")->setChecked(false);
    runActionsOf(*window)->copyHarAction()->trigger();
    QVERIFY(QApplication::clipboard()->text().contains(QLatin1String("s3cr3t")));
    QVERIFY(messagesOf(*window).last().contains(QLatin1String("WITH credentials")));
}

void TestImportController::droppedFiles_areToldApartByContent()
{
    const auto window = makeWindow();
    // A HAR file under a name that says nothing, dropped as a file manager drops it.
    const QString har = write(QStringLiteral("capture.json"), ImportFixtures::threeEntries());
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(har)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window.get(), &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(qobject_cast<Ui::HarImportDialog *>(importsOf(*window)->dialog()));
    importsOf(*window)->dialog()->reject();

    const QString collection = write(QStringLiteral("collection.json"), ImportFixtures::collection());
    QVERIFY(importsOf(*window)->openFile(collection).ok());
    QVERIFY(qobject_cast<Ui::PostmanImportDialog *>(importsOf(*window)->dialog()));
    importsOf(*window)->dialog()->reject();

    QSignalSpy runs(importsOf(*window), &Ui::ImportController::runFileOpened);
    const QString report = write(QStringLiteral("report.json"), QByteArrayLiteral(R"({"format": "retrylab-report"})"));
    QVERIFY(importsOf(*window)->openFile(report).ok());
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.first().first().toString(), report);

    const QString other = write(QStringLiteral("notes.txt"), QByteArrayLiteral("hello"));
    const Core::RequestDraft before = composerOf(*window)->draft();
    QVERIFY(!importsOf(*window)->openFile(other).ok());
    QVERIFY(importsOf(*window)->errorBox()->text().contains(QLatin1String("notes.txt")));
    QVERIFY(importsOf(*window)->errorBox()->text().contains(QLatin1String("not a HAR file")));
    QCOMPARE(composerOf(*window)->draft(), before);
}

QTEST_MAIN(TestImportController)
#include "tst_importcontroller.moc"
