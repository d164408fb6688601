#include "core/assertions/assertionjson.h"
#include "core/collections/collectionstore.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/request/assertiontablemodel.h"
#include "ui/request/checksform.h"
#include "ui/request/extractruletablemodel.h"
#include "ui/request/requestcomposer.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace RetryLab;
using Core::Assertion;
using Rule = Core::ResponseVariables::Rule;
using Ui::AssertionTableModel;
using Ui::ChecksForm;
using Ui::CollectionSidebar;
using Ui::ExtractRuleTableModel;
using Ui::RequestChecks;
using Ui::RequestComposer;

namespace {

QList<Assertion> assertionsOf(const char *json)
{
    const auto read = Core::AssertionJson::read(QJsonDocument::fromJson(QByteArray(json)).array());
    if (!read)
        qFatal("fixture does not read: %s", qPrintable(read.error()));
    return *read;
}

RequestChecks twoChecks()
{
    return {assertionsOf(R"([{"kind": "status", "class": "2xx"},
                              {"kind": "jsonPointer", "pointer": "/token", "exists": true, "name": "has a token"}])"),
        {{QStringLiteral("token"), Rule::Source::JsonPointer, QStringLiteral("/token"), {}, {}}}};
}

QTabWidget *tabsOf(RequestComposer &composer)
{
    return composer.findChild<QTabWidget *>(QStringLiteral("details"));
}

QString checksTabTitle(RequestComposer &composer)
{
    QTabWidget *tabs = tabsOf(composer);
    return tabs->tabText(tabs->indexOf(composer.checksForm()));
}

} // namespace

class TestComposerChecks final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void checksTab_keyboardAddsAndRemovesRows();
    void invalidRow_isMarked_andLeftOutOfTheChecks();
    void setChecks_fillsTheTab_withoutChecksChanged();
    void savedRequest_roundTripsItsChecksThroughTheSidebar();
    void saveWithoutChecksSource_keepsTheSavedChecks();
    void twoChecks_fitTheWindow_andArePictured();
};

void TestComposerChecks::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_composerchecks"));
}

void TestComposerChecks::checksTab_keyboardAddsAndRemovesRows()
{
    RequestComposer composer;
    composer.resize(1000, 400);
    composer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&composer));
    composer.showChecks();
    QCOMPARE(tabsOf(composer)->currentWidget(), composer.checksForm());
    QCOMPARE(checksTabTitle(composer), QStringLiteral("Checks"));
    QSignalSpy changed(&composer, &RequestComposer::checksChanged);

    QTableView *view = composer.checksForm()->assertionView();
    view->setFocus();
    QTRY_VERIFY(view->hasFocus());
    // Insert adds a row and opens the list of kinds; Down and Return pick the next kind.
    QTest::keyClick(view, Qt::Key_Insert);
    QCOMPARE(view->model()->rowCount(), 1);
    auto *kinds = view->findChild<QComboBox *>();
    QVERIFY(kinds);
    QTRY_VERIFY(kinds->hasFocus());
    QTest::keyClick(kinds, Qt::Key_Down);
    QCOMPARE(kinds->currentIndex(), 1);
    QTest::keyClick(kinds, Qt::Key_Return);
    // The delegate commits after the editor has seen the key.
    QTRY_COMPARE(view->model()->index(0, AssertionTableModel::Kind).data().toString(), QStringLiteral("Status class"));
    QCOMPARE(composer.checks().assertions.size(), 0); // "Status class" with "200": not a class
    QVERIFY(checksTabTitle(composer).contains(QStringLiteral("\u26a0 1 not used")));
    // Typing on the Target cell opens its editor; Return commits.
    view->setCurrentIndex(view->model()->index(0, AssertionTableModel::Target));
    QTest::keyClick(view, Qt::Key_F2);
    auto *editor = QApplication::focusWidget();
    QVERIFY(editor && editor != view);
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("4xx"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_COMPARE(composer.checks().assertions.size(), 1);
    QCOMPARE(composer.checks().assertions.constFirst().kind, Assertion::Kind::StatusClass);
    QCOMPARE(composer.checks().assertions.constFirst().statusText, QStringLiteral("4xx"));
    QCOMPARE(checksTabTitle(composer), QStringLiteral("Checks (1)"));

    // The extract table, the same way; Delete removes the current row.
    QTableView *rules = composer.checksForm()->extractView();
    rules->setFocus();
    QTRY_VERIFY(rules->hasFocus());
    QTest::keyClick(rules, Qt::Key_Insert);
    QTRY_VERIFY(QApplication::focusWidget() != rules);
    QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("code"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QTRY_COMPARE(rules->model()->index(0, ExtractRuleTableModel::Variable).data().toString(), QStringLiteral("code"));
    QVERIFY(rules->model()->setData(rules->model()->index(0, ExtractRuleTableModel::Source), QStringLiteral("Status")));
    QCOMPARE(composer.checks().extract, (QList<Rule>{{QStringLiteral("code"), Rule::Source::Status, {}, {}, {}}}));
    QCOMPARE(checksTabTitle(composer), QStringLiteral("Checks (2)"));
    QTRY_VERIFY(rules->hasFocus());
    QTest::keyClick(rules, Qt::Key_Delete);
    QCOMPARE(rules->model()->rowCount(), 0);
    view->setFocus();
    QTRY_VERIFY(view->hasFocus());
    QTest::keyClick(view, Qt::Key_Delete);
    QCOMPARE(view->model()->rowCount(), 0);
    QVERIFY(composer.checks().isEmpty());
    QVERIFY(changed.count() >= 6);
}

void TestComposerChecks::invalidRow_isMarked_andLeftOutOfTheChecks()
{
    RequestComposer composer;
    composer.setChecks(twoChecks());
    AssertionTableModel *model = composer.checksForm()->assertionModel();
    QVERIFY(model->setData(model->index(1, AssertionTableModel::Target), QStringLiteral("token")));
    // The row reads as a file would not: "token" is not a JSON pointer.
    QCOMPARE(model->problemColumn(1), int(AssertionTableModel::Target));
    QVERIFY2(model->problem(1).contains(QStringLiteral("is not a JSON pointer")), qPrintable(model->problem(1)));
    QCOMPARE(composer.checks().assertions.size(), 1);
    QCOMPARE(checksTabTitle(composer), QStringLiteral("Checks (2) \u26a0 1 not used"));
    auto *summary = composer.checksForm()->findChild<QLabel *>(QStringLiteral("checksSummary"));
    QVERIFY2(summary->text().startsWith(QStringLiteral("\u26a0 1 row not used until corrected: assertion 2: \"token\" "
                                                       "is not a JSON pointer")),
        qPrintable(summary->text()));
    QVERIFY(model->setData(model->index(1, AssertionTableModel::Target), QStringLiteral("/token")));
    QCOMPARE(composer.checks(), twoChecks());
    QCOMPARE(checksTabTitle(composer), QStringLiteral("Checks (3)"));
}

void TestComposerChecks::setChecks_fillsTheTab_withoutChecksChanged()
{
    RequestComposer composer;
    QSignalSpy changed(&composer, &RequestComposer::checksChanged);
    QSignalSpy draft(&composer, &RequestComposer::draftChanged);
    composer.setChecks(twoChecks());
    QCOMPARE(composer.checks(), twoChecks());
    QCOMPARE(composer.checksForm()->assertionModel()->rowCount(), 2);
    QCOMPARE(composer.checksForm()->extractModel()->rowCount(), 1);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(draft.count(), 0);
    // The draft knows nothing of them: a restored draft leaves the tab alone.
    composer.setDraft(Core::RequestDraft{});
    QCOMPARE(composer.checks(), twoChecks());
}

void TestComposerChecks::savedRequest_roundTripsItsChecksThroughTheSidebar()
{
    QTemporaryDir dir;
    RequestComposer composer;
    Core::RequestDraft login;
    login.method = QStringLiteral("POST");
    login.urlTemplate = QStringLiteral("{{base}}/login");
    composer.setDraft(login);
    {
        CollectionSidebar sidebar(dir.path());
        sidebar.setRequestSource([&] { return std::pair{composer.draft(), Core::BackoffPolicy{}}; });
        sidebar.setChecksSource([&] { return composer.checks(); });
        connect(&sidebar, &CollectionSidebar::requestActivated, &composer,
            [&](const Core::RequestDraft &d, const Core::BackoffPolicy &) { composer.setDraft(d); });
        connect(&sidebar, &CollectionSidebar::checksActivated, &composer, &RequestComposer::setChecks);

        composer.setChecks(twoChecks());
        sidebar.saveAsNewRequest();
        const QString loginId = sidebar.openedRequestId();
        QVERIFY(!loginId.isEmpty());
        const auto saved = sidebar.model()->item(sidebar.model()->indexOfId(loginId));
        QVERIFY(saved);
        QCOMPARE(saved->assertions, twoChecks().assertions);
        QCOMPARE(saved->extract, twoChecks().extract);

        // Another request without checks: loading it empties the tab.
        composer.setChecks({});
        composer.setDraft(Core::RequestDraft{});
        sidebar.saveAsNewRequest();
        const QString otherId = sidebar.openedRequestId();
        composer.setChecks(twoChecks());
        QSignalSpy activated(&sidebar, &CollectionSidebar::checksActivated);
        sidebar.activate(sidebar.model()->indexOfId(otherId));
        QCOMPARE(activated.count(), 1);
        QVERIFY(composer.checks().isEmpty());

        // The login again: its checks come back with it.
        sidebar.activate(sidebar.model()->indexOfId(loginId));
        QCOMPARE(composer.draft().urlTemplate, QStringLiteral("{{base}}/login"));
        QCOMPARE(composer.checks(), twoChecks());

        // Edited and saved over: the file holds the edit.
        AssertionTableModel *model = composer.checksForm()->assertionModel();
        QVERIFY(model->removeRows(0, 1));
        QVERIFY(model->setData(model->index(0, AssertionTableModel::Not), Qt::Checked, Qt::CheckStateRole));
        sidebar.saveRequest();
        QCOMPARE(sidebar.openedRequestId(), loginId);
    }
    // A new sidebar reads the files again.
    CollectionSidebar reloaded(dir.path());
    QVERIFY(reloaded.problems().isEmpty());
    RequestComposer other;
    connect(&reloaded, &CollectionSidebar::checksActivated, &other, &RequestComposer::setChecks);
    const QList<Core::Collection> collections = reloaded.model()->collections();
    QCOMPARE(collections.size(), 1);
    const Core::CollectionItem &item = collections.constFirst().items.constFirst();
    QCOMPARE(item.request.urlTemplate, QStringLiteral("{{base}}/login"));
    QCOMPARE(item.assertions.size(), 1);
    QCOMPARE(item.assertions.constFirst().pointer, QStringLiteral("/token"));
    QVERIFY(item.assertions.constFirst().negate);
    QCOMPARE(item.extract, twoChecks().extract);
    reloaded.activate(reloaded.model()->indexOfId(item.id));
    QCOMPARE(other.checks().assertions, item.assertions);
    QCOMPARE(other.checks().extract, item.extract);
    QCOMPARE(checksTabTitle(other), QStringLiteral("Checks (2)"));
}

void TestComposerChecks::saveWithoutChecksSource_keepsTheSavedChecks()
{
    QTemporaryDir dir;
    RequestComposer composer;
    CollectionSidebar sidebar(dir.path());
    sidebar.setRequestSource([&] { return std::pair{composer.draft(), Core::BackoffPolicy{}}; });
    sidebar.setChecksSource([] { return twoChecks(); });
    sidebar.saveAsNewRequest();
    const QString id = sidebar.openedRequestId();
    // A window that does not hand its checks over must not wipe the saved ones.
    sidebar.setChecksSource({});
    Core::RequestDraft changed = composer.draft();
    changed.urlTemplate = QStringLiteral("http://127.0.0.1:1/other");
    composer.setDraft(changed);
    sidebar.saveRequest();
    const auto item = sidebar.model()->item(sidebar.model()->indexOfId(id));
    QVERIFY(item);
    QCOMPARE(item->request.urlTemplate, QStringLiteral("http://127.0.0.1:1/other"));
    QCOMPARE(item->assertions, twoChecks().assertions);
    QCOMPARE(item->extract, twoChecks().extract);
    // Duplicated, the copy has them too.
    const QModelIndex copy = sidebar.model()->duplicate(sidebar.model()->indexOfId(id));
    QCOMPARE(sidebar.model()->item(copy)->assertions, twoChecks().assertions);
}

void TestComposerChecks::twoChecks_fitTheWindow_andArePictured()
{
    RequestComposer composer;
    Core::RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:8080/login");
    composer.setDraft(draft);
    composer.setChecks(twoChecks());
    AssertionTableModel *model = composer.checksForm()->assertionModel();
    // A third row, mistyped, to show the mark.
    QVERIFY(model->insertRows(2, 1));
    QVERIFY(model->setData(model->index(2, AssertionTableModel::Kind), QStringLiteral("Header matches")));
    QVERIFY(model->setData(model->index(2, AssertionTableModel::Target), QStringLiteral("Content-Type")));
    QVERIFY(model->setData(model->index(2, AssertionTableModel::Expected), QStringLiteral("json(")));
    composer.resize(1000, 330);
    composer.showChecks();
    composer.show();
    QVERIFY(QTest::qWaitForWindowExposed(&composer));
    QTableView *view = composer.checksForm()->assertionView();
    QTRY_VERIFY(view->isVisible());
    // Every row of both tables in view without scrolling.
    for (int row = 0; row < 3; ++row)
        QVERIFY(view->viewport()->rect().contains(view->visualRect(model->index(row, AssertionTableModel::Kind))));
    QVERIFY(composer.checksForm()->extractView()->viewport()->rect().contains(
        composer.checksForm()->extractView()->visualRect(composer.checksForm()->extractModel()->index(0, 0))));
    QVERIFY(composer.minimumSizeHint().width() <= 1024);

    const QImage picture = composer.grab().toImage();
    QVERIFY(!picture.isNull());
    if (const QString path = qEnvironmentVariable("RETRYLAB_SCREENSHOT"); !path.isEmpty())
        QVERIFY(picture.save(path));
}

QTEST_MAIN(TestComposerChecks)
#include "tst_composerchecks.moc"
