#include "core/import/harimport.h"
#include "core/util/englishplurals.h"
#include "tests/ui/import/importfixtures.h"
#include "ui/import/harimportdialog.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <QUrl>

using namespace RetryLab;
using Ui::HarImportDialog;

namespace {

QString cell(const QTableWidget *table, int row, int column)
{
    return table->item(row, column)->text();
}

} // namespace

// The HAR picker: the entries as a table, one or several picked, the rest untouched.
class TestHarImportDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void table_showsMethodUrlStatusTime();
    void credentials_maskedInTheTable_keptInTheRequest();
    void firstEntry_isPickedAtFirst();
    void pickTwo_givesThoseTwoInOrder();
    void nothingPicked_cannotImport();
    void filter_hidesEntries_andHiddenOnesAreNotPicked();
    void retryLabHar_offersItsPolicy();
};

void TestHarImportDialog::initTestCase()
{
    Core::EnglishPlurals::install();
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestHarImportDialog::table_showsMethodUrlStatusTime()
{
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY2(archive, qPrintable(archive.error()));
    HarImportDialog dialog(*archive, QStringLiteral("/tmp/shop.har"));
    const QTableWidget *table = dialog.table();
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(table->columnCount(), int(HarImportDialog::ColumnCount));
    QCOMPARE(cell(table, 0, HarImportDialog::MethodColumn), QStringLiteral("GET"));
    QCOMPARE(cell(table, 0, HarImportDialog::UrlColumn), QStringLiteral("https://shop.example.com/"));
    QCOMPARE(cell(table, 0, HarImportDialog::StatusColumn), QStringLiteral("200 OK"));
    QCOMPARE(cell(table, 0, HarImportDialog::TimeColumn), QStringLiteral("84.4 ms"));
    QCOMPARE(cell(table, 0, HarImportDialog::PageColumn), QStringLiteral("Shop"));
    QCOMPARE(cell(table, 1, HarImportDialog::StatusColumn), QStringLiteral("503 Service Unavailable"));
    QCOMPARE(cell(table, 1, HarImportDialog::TimeColumn), QStringLiteral("1.2 s"));
    QCOMPARE(cell(table, 2, HarImportDialog::MethodColumn), QStringLiteral("DELETE"));
    QCOMPARE(cell(table, 2, HarImportDialog::StatusColumn), QStringLiteral("net::ERR_CONNECTION_REFUSED"));
    QVERIFY(dialog.windowTitle().contains(QLatin1String("shop.har")));
    QVERIFY2(dialog.summaryText().contains(QLatin1String("3 requests, written by Firefox 126.0")),
        qPrintable(dialog.summaryText()));
}

void TestHarImportDialog::credentials_maskedInTheTable_keptInTheRequest()
{
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    HarImportDialog dialog(*archive, QStringLiteral("shop.har"));
    const QString url = cell(dialog.table(), 1, HarImportDialog::UrlColumn);
    QVERIFY2(!url.contains(QLatin1String("k3y")) && url.contains(QLatin1String("REDACTED")), qPrintable(url));
    dialog.selectEntries({1});
    const QList<Core::ImportedRequest> picked = dialog.selectedRequests();
    QCOMPARE(picked.size(), 1);
    QCOMPARE(picked.first().spec.url.query(), QStringLiteral("api_key=k3y"));
    QVERIFY(picked.first().spec.headers.contains({QByteArrayLiteral("Authorization"), "Bearer s3cr3t"}));
}

void TestHarImportDialog::firstEntry_isPickedAtFirst()
{
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    HarImportDialog dialog(*archive, QStringLiteral("shop.har"));
    QCOMPARE(dialog.selectedEntries(), (QList<qsizetype>{0}));
    QVERIFY(dialog.importButton()->isEnabled());
    QCOMPARE(dialog.importButton()->text(), QStringLiteral("&Import"));
}

void TestHarImportDialog::pickTwo_givesThoseTwoInOrder()
{
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    HarImportDialog dialog(*archive, QStringLiteral("shop.har"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    // As a person does it: click the last, Ctrl+click the second.
    QTableWidget *table = dialog.table();
    const auto click = [table](int row, Qt::KeyboardModifiers modifiers) {
        const QRect rect = table->visualRect(table->model()->index(row, HarImportDialog::MethodColumn));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, modifiers, rect.center());
    };
    click(2, {});
    click(1, Qt::ControlModifier);
    QCOMPARE(dialog.selectedEntries(), (QList<qsizetype>{1, 2}));
    QCOMPARE(dialog.importButton()->text(), QStringLiteral("&Import 2 requests"));
    const QList<Core::ImportedRequest> picked = dialog.selectedRequests();
    QCOMPARE(picked.size(), 2);
    QCOMPARE(picked.at(0).spec.method, QByteArrayLiteral("POST"));
    QCOMPARE(picked.at(0).spec.body, QByteArrayLiteral("{\"qty\":2}"));
    QCOMPARE(picked.at(1).spec.method, QByteArrayLiteral("DELETE"));
    QCOMPARE(picked.at(1).spec.url, QUrl(QStringLiteral("https://api.example.com/orders/7")));
    QVERIFY(!dialog.appliesPolicy());
}

void TestHarImportDialog::nothingPicked_cannotImport()
{
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    HarImportDialog dialog(*archive, QStringLiteral("shop.har"));
    dialog.table()->clearSelection();
    QVERIFY(dialog.selectedEntries().isEmpty());
    QVERIFY(!dialog.importButton()->isEnabled());
}

void TestHarImportDialog::filter_hidesEntries_andHiddenOnesAreNotPicked()
{
    const auto archive = Core::HarImport::read(ImportFixtures::threeEntries());
    QVERIFY(archive);
    HarImportDialog dialog(*archive, QStringLiteral("shop.har"));
    auto *filter = dialog.findChild<QLineEdit *>(QStringLiteral("harFilter"));
    QVERIFY(filter);
    QTest::keyClicks(filter, QStringLiteral("api.example"));
    QCOMPARE(dialog.shownCount(), 2);
    QVERIFY(dialog.table()->isRowHidden(0));
    // Row 0 was picked at first; hidden, it is not picked any more.
    QVERIFY(dialog.selectedEntries().isEmpty());
    QVERIFY(!dialog.importButton()->isEnabled());
    dialog.table()->selectAll();
    QCOMPARE(dialog.selectedEntries(), (QList<qsizetype>{1, 2}));
    dialog.setFilter(QStringLiteral("refused"));
    QCOMPARE(dialog.shownCount(), 1);
    QCOMPARE(dialog.selectedEntries(), (QList<qsizetype>{2}));
    QCOMPARE(dialog.importButton()->text(), QStringLiteral("&Import"));
    dialog.setFilter(QString());
    QCOMPARE(dialog.shownCount(), 3);
    QCOMPARE(filter->text(), QString());
}

void TestHarImportDialog::retryLabHar_offersItsPolicy()
{
    Core::HarImport::Archive archive = *Core::HarImport::read(ImportFixtures::threeEntries());
    Core::BackoffPolicy policy;
    policy.name = QStringLiteral("From the run");
    archive.policy = policy;
    HarImportDialog dialog(archive, QStringLiteral("run.har"));
    auto *apply = dialog.findChild<QCheckBox *>(QStringLiteral("harApplyPolicy"));
    QVERIFY(!apply->isHidden());
    QVERIFY(apply->text().contains(QLatin1String("From the run")));
    QVERIFY(!dialog.appliesPolicy());
    dialog.setAppliesPolicy(true);
    QVERIFY(dialog.appliesPolicy());

    HarImportDialog plain(*Core::HarImport::read(ImportFixtures::threeEntries()), QStringLiteral("shop.har"));
    QVERIFY(plain.findChild<QCheckBox *>(QStringLiteral("harApplyPolicy"))->isHidden());
    plain.setAppliesPolicy(true);
    QVERIFY(!plain.appliesPolicy());
}

QTEST_MAIN(TestHarImportDialog)
#include "tst_harimportdialog.moc"
