#include "core/import/postmanimport.h"
#include "core/util/englishplurals.h"
#include "tests/ui/import/importfixtures.h"
#include "ui/import/postmanimportdialog.h"

#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

#include <memory>

using namespace RetryLab;
using Ui::PostmanImportDialog;

// The Postman picker: folders and requests as a tree, an environment that
// resolves variables, the unresolved ones named, a bad environment refused.
class TestPostmanImportDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void tree_keepsTheFolders();
    void unresolvedVariables_areNamed();
    void environment_resolvesThem();
    void malformedEnvironment_isSaid_andNothingChanges();
    void pickingAFolder_picksWhatItHolds();

private:
    std::unique_ptr<PostmanImportDialog> open();
    QString write(const QString &name, const QByteArray &bytes);

    QTemporaryDir m_dir;
    QString m_collectionPath;
};

void TestPostmanImportDialog::initTestCase()
{
    Core::EnglishPlurals::install();
    QVERIFY(m_dir.isValid());
}

void TestPostmanImportDialog::init()
{
    m_collectionPath = write(QStringLiteral("orders.postman_collection.json"), ImportFixtures::collection());
}

QString TestPostmanImportDialog::write(const QString &name, const QByteArray &bytes)
{
    QFile file(m_dir.filePath(name));
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(bytes);
    return file.fileName();
}

std::unique_ptr<PostmanImportDialog> TestPostmanImportDialog::open()
{
    const auto collection = Core::PostmanImport::readFile(m_collectionPath);
    if (!collection)
        qFatal("%s", qPrintable(collection.error()));
    return std::make_unique<PostmanImportDialog>(m_collectionPath, *collection);
}

void TestPostmanImportDialog::tree_keepsTheFolders()
{
    const auto dialog = open();
    const QTreeWidget *tree = dialog->tree();
    QCOMPARE(tree->topLevelItemCount(), 2);
    QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("Health"));
    QCOMPARE(tree->topLevelItem(0)->text(1), QStringLiteral("GET https://api.example.com/v1/health"));
    const QTreeWidgetItem *orders = tree->topLevelItem(1);
    QCOMPARE(orders->text(0), QStringLiteral("Orders"));
    QCOMPARE(orders->childCount(), 2);
    QCOMPARE(orders->child(0)->text(0), QStringLiteral("List orders"));
    QCOMPARE(orders->child(1)->text(0), QStringLiteral("Admin"));
    QCOMPARE(orders->child(1)->child(0)->text(0), QStringLiteral("Delete order"));
    QCOMPARE(orders->child(1)->child(0)->text(1), QStringLiteral("DELETE https://api.example.com/v1/orders/7"));
    // The first request is picked, not everything.
    QCOMPARE(dialog->selectedIndexes(), (QList<qsizetype>{0}));
    QVERIFY(dialog->importButton()->isEnabled());
}

void TestPostmanImportDialog::unresolvedVariables_areNamed()
{
    const auto dialog = open();
    QVERIFY2(
        dialog->unresolvedText().contains(QLatin1String("{{page}}, {{token}}")), qPrintable(dialog->unresolvedText()));
    // The request that will not send as it is says so in the tree.
    const QTreeWidgetItem *listOrders = dialog->tree()->topLevelItem(1)->child(0);
    QVERIFY(!listOrders->icon(1).isNull());
    QVERIFY2(listOrders->toolTip(1).contains(QLatin1String("page")), qPrintable(listOrders->toolTip(1)));
    QVERIFY(dialog->tree()->topLevelItem(0)->icon(1).isNull());
    dialog->selectRequests({1});
    const QList<Core::ImportedRequest> picked = dialog->selectedRequests();
    QCOMPARE(picked.size(), 1);
    QCOMPARE(picked.first().urlText, QStringLiteral("https://api.example.com/v1/orders?page={{page}}"));
    QCOMPARE(picked.first().folders, QStringList{QStringLiteral("Orders")});
}

void TestPostmanImportDialog::environment_resolvesThem()
{
    const auto dialog = open();
    dialog->selectRequests({2});
    const QString environment = write(QStringLiteral("staging.json"), ImportFixtures::environment());
    const auto set = dialog->setEnvironmentFile(environment);
    QVERIFY2(set.ok(), qPrintable(set.error()));
    QVERIFY2(dialog->unresolvedText().contains(QLatin1String("Every variable is resolved")),
        qPrintable(dialog->unresolvedText()));
    QVERIFY(dialog->findChild<QLineEdit *>(QStringLiteral("postmanEnvironment"))
                ->text()
                .contains(QLatin1String("Staging")));
    // The pick survives the re-read.
    QCOMPARE(dialog->selectedIndexes(), (QList<qsizetype>{2}));
    const Core::ImportedRequest request = dialog->selectedRequests().first();
    QCOMPARE(request.spec.url, QUrl(QStringLiteral("https://staging.example.com/v1/orders/7")));
    QVERIFY(request.spec.headers.contains({QByteArrayLiteral("Authorization"), QByteArrayLiteral("Bearer t0k")}));
    QCOMPARE(request.folders, (QStringList{QStringLiteral("Orders"), QStringLiteral("Admin")}));

    // Through the Choose button, as a person does it; None goes back.
    dialog->findChild<QPushButton *>(QStringLiteral("noEnvironment"))->click();
    QVERIFY(dialog->unresolvedText().contains(QLatin1String("{{token}}")));
    dialog->setEnvironmentChooser([environment] { return environment; });
    dialog->findChild<QPushButton *>(QStringLiteral("chooseEnvironment"))->click();
    QCOMPARE(dialog->environmentFile(), environment);
    QVERIFY(dialog->unresolvedText().contains(QLatin1String("Every variable is resolved")));
}

void TestPostmanImportDialog::malformedEnvironment_isSaid_andNothingChanges()
{
    const auto dialog = open();
    const QString good = write(QStringLiteral("staging.json"), ImportFixtures::environment());
    QVERIFY(dialog->setEnvironmentFile(good).ok());
    const QString bad = write(QStringLiteral("broken.json"), QByteArray(R"({"name": "X", "values": [{"key": 3}]})"));
    const auto set = dialog->setEnvironmentFile(bad);
    QVERIFY(!set.ok());
    QVERIFY2(set.errorDetail().path.startsWith(QLatin1String("values[0]")), qPrintable(set.errorDetail().path));
    QVERIFY2(dialog->environmentError().contains(QLatin1String("broken.json")), qPrintable(dialog->environmentError()));
    QVERIFY2(dialog->environmentError().contains(QLatin1String("values[0]")), qPrintable(dialog->environmentError()));
    // The good environment still applies.
    QCOMPARE(dialog->environmentFile(), good);
    QVERIFY(dialog->unresolvedText().contains(QLatin1String("Every variable is resolved")));
}

void TestPostmanImportDialog::pickingAFolder_picksWhatItHolds()
{
    const auto dialog = open();
    dialog->tree()->clearSelection();
    dialog->tree()->topLevelItem(1)->setSelected(true); // Orders
    QCOMPARE(dialog->selectedIndexes(), (QList<qsizetype>{1, 2}));
    QCOMPARE(dialog->importButton()->text(), QStringLiteral("&Import 2 requests"));
    dialog->tree()->clearSelection();
    QVERIFY(!dialog->importButton()->isEnabled());
}

QTEST_MAIN(TestPostmanImportDialog)
#include "tst_postmanimportdialog.moc"
