#include "core/collections/collectionstore.h"
#include "core/policy/presets.h"
#include "tests/ui/windowparts.h"
#include "ui/collections/collectionfilter.h"
#include "ui/collections/collectionmodel.h"
#include "ui/collections/collectionsidebar.h"
#include "ui/collections/environmentbar.h"
#include "ui/collections/environmentdialog.h"
#include "ui/folderauthdialog.h"
#include "ui/mainwindow.h"
#include "ui/policy/policypanel.h"
#include "ui/request/requestcomposer.h"
#include "ui/session/run/runsession.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyleOptionViewItem>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <memory>

using namespace RetryLab;
using namespace RetryLab::Ui;

class TestCollectionSidebar : public QObject
{
    Q_OBJECT

private:
    // Two collections on disk: "API" with folders Auth (Login) and Orders (List, Create), "Other" empty.
    void writeSample(const QString &root)
    {
        const Core::CollectionStore store(root);
        Core::Collection api;
        api.name = QStringLiteral("API");
        Core::CollectionItem auth = Core::CollectionItem::makeFolder(QStringLiteral("Auth"));
        Core::RequestDraft login;
        login.method = QStringLiteral("POST");
        login.urlTemplate = QStringLiteral("{{base}}/login");
        auth.items.append(Core::CollectionItem::makeRequest(
            QStringLiteral("Login"), login, Core::SavedPolicy::from(Core::Presets::all().constFirst().policy)));
        // What a collection run checks and takes: kept through every edit the sidebar saves.
        Core::Assertion created;
        created.statuses = {201};
        created.statusText = QStringLiteral("201");
        auth.items.last().assertions = {created};
        Core::ResponseVariables::Rule token;
        token.name = QStringLiteral("token");
        token.pointer = QStringLiteral("/token");
        auth.items.last().extract = {token};
        Core::CollectionItem orders = Core::CollectionItem::makeFolder(QStringLiteral("Orders"));
        Core::RequestDraft list;
        list.urlTemplate = QStringLiteral("{server}/orders/list");
        Core::BackoffPolicy custom;
        custom.name = QStringLiteral("Patient");
        custom.maxAttempts = 9;
        orders.items.append(
            Core::CollectionItem::makeRequest(QStringLiteral("List"), list, Core::SavedPolicy::from(custom)));
        Core::RequestDraft create;
        create.method = QStringLiteral("PUT");
        create.urlTemplate = QStringLiteral("{server}/orders");
        orders.items.append(
            Core::CollectionItem::makeRequest(QStringLiteral("Create"), create, Core::SavedPolicy::from(custom)));
        api.items = {auth, orders};
        QVERIFY(store.save(&api));
        Core::Collection other;
        other.name = QStringLiteral("Other");
        QVERIFY(store.save(&other));
    }

    QModelIndex find(CollectionModel *model, const QString &name, const QModelIndex &parent = {})
    {
        for (int row = 0; row < model->rowCount(parent); ++row) {
            const QModelIndex index = model->index(row, 0, parent);
            if (index.data().toString() == name)
                return index;
            if (const QModelIndex inside = find(model, name, index); inside.isValid())
                return inside;
        }
        return {};
    }

    Core::Collection onDisk(const QString &root, const QString &name)
    {
        for (const Core::Collection &collection : Core::CollectionStore(root).loadCollections().collections) {
            if (collection.name == name)
                return collection;
        }
        return {};
    }

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_collectionsidebar"));
    }

    void model_passesTheModelTester()
    {
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        QAbstractItemModelTester tester(sidebar.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(sidebar.filter(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        CollectionModel *model = sidebar.model();
        QCOMPARE(model->rowCount(), 2);
        QVERIFY(sidebar.problems().isEmpty());
        const QModelIndex list = find(model, QStringLiteral("List"));
        QVERIFY(model->moveItem(list, find(model, QStringLiteral("Auth")), 0));
        model->duplicate(find(model, QStringLiteral("Login")));
        model->remove(find(model, QStringLiteral("Orders")));
        sidebar.filter()->setSearchText(QStringLiteral("log"));
        sidebar.filter()->setSearchText({});
    }

    void search_matchesNameOrUrl_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("shown");
        QTest::addRow("by name") << QStringLiteral("creat") << QStringList{QStringLiteral("Create")};
        QTest::addRow("by URL") << QStringLiteral("orders/list") << QStringList{QStringLiteral("List")};
        QTest::addRow("by variable in URL") << QStringLiteral("{{base}}") << QStringList{QStringLiteral("Login")};
        QTest::addRow("a folder shows what it holds")
            << QStringLiteral("orders") << QStringList{QStringLiteral("List"), QStringLiteral("Create")};
        QTest::addRow("nothing") << QStringLiteral("zzz") << QStringList{};
    }

    void search_matchesNameOrUrl()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, shown);
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        sidebar.searchField()->setText(text);
        QStringList requests;
        std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
            for (int row = 0; row < sidebar.filter()->rowCount(parent); ++row) {
                const QModelIndex index = sidebar.filter()->index(row, 0, parent);
                if (!index.data(CollectionModel::MethodRole).toString().isEmpty())
                    requests.append(index.data().toString());
                walk(index);
            }
        };
        walk({});
        QCOMPARE(requests, shown);
    }

    void rename_inPlace_isWrittenToTheFile()
    {
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        sidebar.show();
        QVERIFY(QTest::qWaitForWindowExposed(&sidebar));
        const QModelIndex login = find(sidebar.model(), QStringLiteral("Login"));
        sidebar.setCurrentIndex(login);
        sidebar.renameAction()->trigger();
        auto *editor = qobject_cast<QLineEdit *>(sidebar.view()->indexWidget(sidebar.view()->currentIndex()));
        QVERIFY(editor);
        editor->setText(QStringLiteral("Sign in"));
        QTest::keyClick(editor, Qt::Key_Return);
        // The delegate commits on the next turn of the event loop.
        QTRY_COMPARE(login.data().toString(), QStringLiteral("Sign in"));
        const Core::CollectionItem saved = onDisk(dir.path(), QStringLiteral("API")).items.at(0).items.at(0);
        QCOMPARE(saved.name, QStringLiteral("Sign in"));
        QCOMPARE(saved.assertions.size(), 1);
        QCOMPARE(saved.assertions.at(0).statusText, QStringLiteral("201"));
        QCOMPARE(saved.extract.size(), 1);
        QCOMPARE(saved.extract.at(0).name, QStringLiteral("token"));
        // An empty name is refused.
        QVERIFY(!sidebar.model()->setData(login, QStringLiteral("  ")));
    }

    void newCollection_isNamedInPlace_andItsFileAfterIt()
    {
        QTemporaryDir dir;
        CollectionSidebar sidebar(dir.path());
        sidebar.show();
        QVERIFY(QTest::qWaitForWindowExposed(&sidebar));
        sidebar.newCollectionAction()->trigger();
        const QDir files(Core::CollectionStore(dir.path()).collectionsDirectory());
        QCOMPARE(files.entryList({QStringLiteral("*.json")}), QStringList{QStringLiteral("new-collection.json")});
        auto *editor = qobject_cast<QLineEdit *>(sidebar.view()->indexWidget(sidebar.view()->currentIndex()));
        QVERIFY(editor);
        editor->setText(QStringLiteral("Billing API"));
        QTest::keyClick(editor, Qt::Key_Return);
        QTRY_COMPARE(files.entryList({QStringLiteral("*.json")}), QStringList{QStringLiteral("billing-api.json")});
        // Renamed again later: the file keeps its name (a stable path in git).
        QVERIFY(sidebar.model()->setData(sidebar.model()->index(0, 0), QStringLiteral("Billing")));
        QCOMPARE(files.entryList({QStringLiteral("*.json")}), QStringList{QStringLiteral("billing-api.json")});
        QCOMPARE(onDisk(dir.path(), QStringLiteral("Billing")).fileName, QStringLiteral("billing-api.json"));
    }

    void duplicate_getsNewIdsAndIsSaved()
    {
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        const QModelIndex orders = find(sidebar.model(), QStringLiteral("Orders"));
        sidebar.setCurrentIndex(orders);
        sidebar.duplicateAction()->trigger();
        const Core::Collection api = onDisk(dir.path(), QStringLiteral("API"));
        QCOMPARE(api.items.size(), 3);
        QCOMPARE(api.items.at(2).name, QStringLiteral("Orders copy"));
        QCOMPARE(api.items.at(2).items.size(), 2);
        QVERIFY(api.items.at(2).items.at(0).id != api.items.at(1).items.at(0).id);
        QCOMPARE(api.items.at(2).items.at(0).request, api.items.at(1).items.at(0).request);
        QCOMPARE(sidebar.currentIndex().data().toString(), QStringLiteral("Orders copy"));
        const QModelIndex auth = find(sidebar.model(), QStringLiteral("Auth"));
        sidebar.setCurrentIndex(auth);
        sidebar.duplicateAction()->trigger();
        const Core::Collection again = onDisk(dir.path(), QStringLiteral("API"));
        QCOMPARE(again.items.at(1).name, QStringLiteral("Auth copy"));
        QCOMPARE(again.items.at(1).items.at(0).assertions, again.items.at(0).items.at(0).assertions);
        QCOMPARE(again.items.at(1).items.at(0).extract, again.items.at(0).items.at(0).extract);
    }

    void delete_asksFirst_andACollectionTakesItsFile()
    {
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        QStringList asked;
        bool answer = false;
        sidebar.setConfirmer([&](const QString &question) {
            asked.append(question);
            return answer;
        });
        sidebar.setCurrentIndex(find(sidebar.model(), QStringLiteral("Create")));
        sidebar.deleteAction()->trigger();
        QCOMPARE(asked.size(), 1);
        QVERIFY(find(sidebar.model(), QStringLiteral("Create")).isValid());
        answer = true;
        sidebar.deleteAction()->trigger();
        QVERIFY(!find(sidebar.model(), QStringLiteral("Create")).isValid());
        QCOMPARE(onDisk(dir.path(), QStringLiteral("API")).requestCount(), 2);

        sidebar.setCurrentIndex(find(sidebar.model(), QStringLiteral("API")));
        sidebar.deleteAction()->trigger();
        QVERIFY(asked.constLast().contains(QStringLiteral("2 requests")));
        QCOMPARE(Core::CollectionStore(dir.path()).loadCollections().collections.size(), 1);
    }

    void dragAndDrop_movesBetweenFoldersAndCollections()
    {
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        CollectionModel *model = sidebar.model();
        const QString createId = find(model, QStringLiteral("Create")).data(CollectionModel::IdRole).toString();

        // Reorder inside a folder: Create before List.
        std::unique_ptr<QMimeData> data(model->mimeData({find(model, QStringLiteral("Create"))}));
        QVERIFY(data);
        const QModelIndex orders = find(model, QStringLiteral("Orders"));
        QVERIFY(model->canDropMimeData(data.get(), Qt::MoveAction, 0, 0, orders));
        QVERIFY(model->dropMimeData(data.get(), Qt::MoveAction, 0, 0, orders));
        QCOMPARE(model->index(0, 0, orders).data().toString(), QStringLiteral("Create"));

        // Into another folder, dropped on a request: after it.
        data.reset(model->mimeData({find(model, QStringLiteral("Create"))}));
        QVERIFY(model->dropMimeData(data.get(), Qt::MoveAction, -1, -1, find(model, QStringLiteral("Login"))));
        const QModelIndex auth = find(model, QStringLiteral("Auth"));
        QCOMPARE(model->rowCount(auth), 2);
        QCOMPARE(model->index(1, 0, auth).data(CollectionModel::IdRole).toString(), createId);
        Core::Collection api = onDisk(dir.path(), QStringLiteral("API"));
        QCOMPARE(api.items.at(0).items.at(1).id, createId);
        QCOMPARE(api.items.at(1).items.size(), 1);

        // A folder into another collection: both files change.
        data.reset(model->mimeData({find(model, QStringLiteral("Orders"))}));
        QVERIFY(model->dropMimeData(data.get(), Qt::MoveAction, -1, -1, find(model, QStringLiteral("Other"))));
        QCOMPARE(onDisk(dir.path(), QStringLiteral("Other")).items.at(0).name, QStringLiteral("Orders"));
        QCOMPARE(onDisk(dir.path(), QStringLiteral("API")).items.size(), 1);

        // A folder never goes into itself, and a collection is not dragged.
        const QModelIndex movedOrders = find(model, QStringLiteral("Orders"));
        data.reset(model->mimeData({movedOrders}));
        QVERIFY(!model->canDropMimeData(data.get(), Qt::MoveAction, 0, 0, movedOrders));
        QVERIFY(!model->canDropMimeData(data.get(), Qt::MoveAction, 0, 0, find(model, QStringLiteral("List"))));
        QVERIFY(!model->mimeData({find(model, QStringLiteral("API"))}));
        QVERIFY(!(model->flags(find(model, QStringLiteral("API"))) & Qt::ItemIsDragEnabled));
    }

    void saveRequest_newThenOverTheOpenedOne()
    {
        QTemporaryDir dir;
        CollectionSidebar sidebar(dir.path());
        Core::RequestDraft draft;
        draft.method = QStringLiteral("DELETE");
        draft.urlTemplate = QStringLiteral("https://api.test/items/7?token={{token}}");
        Core::BackoffPolicy policy = Core::Presets::all().constLast().policy;
        sidebar.setRequestSource([&] { return std::pair{draft, policy}; });

        sidebar.saveRequestAction()->trigger();
        const auto collections = Core::CollectionStore(dir.path()).loadCollections().collections;
        QCOMPARE(collections.size(), 1);
        QCOMPARE(collections.at(0).name, QStringLiteral("My requests"));
        QCOMPARE(collections.at(0).items.at(0).name, QStringLiteral("DELETE /items/7"));
        QCOMPARE(collections.at(0).items.at(0).policy.preset, Core::Presets::all().constLast().id);

        draft.body = QStringLiteral("changed");
        policy.maxAttempts = 2;
        sidebar.saveRequestAction()->trigger();
        const Core::Collection saved = onDisk(dir.path(), QStringLiteral("My requests"));
        QCOMPARE(saved.requestCount(), 1);
        QCOMPARE(saved.items.at(0).request.body, QStringLiteral("changed"));
        QCOMPARE(saved.items.at(0).policy.preset, QString());
        QCOMPARE(saved.items.at(0).policy.custom.maxAttempts, 2);

        sidebar.saveAsNewAction()->trigger();
        QCOMPARE(onDisk(dir.path(), QStringLiteral("My requests")).requestCount(), 2);
    }

    void auth_setOnAFolder_opensWithItsRequests_savedBackAsInherited()
    {
        QTemporaryDir dir;
        writeSample(dir.path());
        CollectionSidebar sidebar(dir.path());
        sidebar.show();
        CollectionModel *model = sidebar.model();
        // Without an asker (the window gives its dialog) there is nothing to edit with.
        sidebar.setCurrentIndex(find(model, QStringLiteral("API")));
        QVERIFY(!sidebar.editAuthAction()->isEnabled());
        // The collection's bearer, the Orders folder's API key (through the action and its asker).
        Core::AuthSpec bearer;
        bearer.kind = Core::AuthSpec::Kind::Bearer;
        bearer.token = QStringLiteral("{{token}}");
        sidebar.setCurrentIndex(find(model, QStringLiteral("API")));
        QString asked;
        sidebar.setAuthAsker([&](const QString &what, const Core::AuthSpec &current) {
            asked = what;
            Q_UNUSED(current);
            return std::optional<Core::AuthSpec>(bearer);
        });
        QVERIFY(sidebar.editAuthAction()->isEnabled());
        sidebar.editAuthAction()->trigger();
        QCOMPARE(asked, QStringLiteral("API"));
        Core::AuthSpec key;
        key.kind = Core::AuthSpec::Kind::ApiKey;
        key.key = QStringLiteral("X-Tenant");
        key.value = QStringLiteral("{{tenant}}");
        sidebar.setCurrentIndex(find(model, QStringLiteral("Orders")));
        sidebar.setAuthAsker([&](const QString &, const Core::AuthSpec &current) {
            return current.kind == Core::AuthSpec::Kind::Inherit ? std::optional<Core::AuthSpec>(key) : std::nullopt;
        });
        sidebar.editAuthAction()->trigger();
        // A request has no auth of its own to edit here.
        sidebar.setCurrentIndex(find(model, QStringLiteral("List")));
        QVERIFY(!sidebar.editAuthAction()->isEnabled());
        QVERIFY(model->data(find(model, QStringLiteral("List")), Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("API key, inherited")));

        const Core::Collection saved = onDisk(dir.path(), QStringLiteral("API"));
        QCOMPARE(saved.auth, bearer);
        // The window's dialog starts from the folder's auth and gives back what its form holds.
        FolderAuthDialog dialog(QStringLiteral("Orders"), key);
        QVERIFY(dialog.windowTitle().contains(QLatin1String("Orders")));
        QCOMPARE(dialog.auth(), key);
        QCOMPARE(saved.items.at(1).auth, key);

        // Opening Orders/List shows the folder's key in the composer; Auth/Login the collection's bearer.
        QList<Core::RequestDraft> opened;
        connect(&sidebar, &CollectionSidebar::requestActivated, this,
            [&](const Core::RequestDraft &draft, const Core::BackoffPolicy &) { opened.append(draft); });
        sidebar.activate(find(model, QStringLiteral("List")));
        sidebar.activate(find(model, QStringLiteral("Login")));
        QCOMPARE(opened.size(), 2);
        QCOMPARE(opened.at(0).auth, key);
        QCOMPARE(opened.at(1).auth, bearer);

        // Saved back as it came: it still inherits. With an auth of its own: that one is kept.
        Core::RequestDraft draft = opened.at(1);
        sidebar.setRequestSource([&] { return std::pair{draft, Core::BackoffPolicy{}}; });
        sidebar.saveRequestAction()->trigger();
        const auto login = [&] { return onDisk(dir.path(), QStringLiteral("API")).items.at(0).items.at(0).request; };
        QCOMPARE(login().auth.kind, Core::AuthSpec::Kind::Inherit);
        draft.auth.token = QStringLiteral("{{own}}");
        sidebar.saveRequestAction()->trigger();
        QCOMPARE(login().auth.token, QStringLiteral("{{own}}"));
    }

    void environments_switchAndEdit_secretsStayOffDisk()
    {
        QTemporaryDir dir;
        CollectionSidebar sidebar(dir.path());
        QSignalSpy changed(&sidebar, &CollectionSidebar::environmentChanged);
        const QList<Core::Environment> environments{
            {QStringLiteral("Staging"),
                {{QStringLiteral("base"), QStringLiteral("https://staging.test"), false},
                    {QStringLiteral("token"), QStringLiteral("tok-12345"), true}},
                false},
            {QStringLiteral("Prod"), {{QStringLiteral("base"), QStringLiteral("https://prod.test"), false}}, false}};
        sidebar.setEnvironments(environments, {});
        QComboBox *combo = sidebar.environmentBar()->comboBox();
        QCOMPARE(combo->count(), 3);
        combo->setCurrentIndex(combo->findText(QStringLiteral("Staging")));
        QCOMPARE(sidebar.activeEnvironment(), QStringLiteral("Staging"));
        QCOMPARE(changed.constLast().at(0).toString(), QStringLiteral("Staging"));
        QCOMPARE(sidebar.variables().value(QStringLiteral("token")), QStringLiteral("tok-12345"));
        QCOMPARE(sidebar.secretValues(), QStringList{QStringLiteral("tok-12345")});

        QFile file(Core::CollectionStore(dir.path()).environmentsFile());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.contains("staging.test"));
        QVERIFY(!bytes.contains("tok-12345"));

        // Started again: the choice is kept, the secret has to be typed again.
        CollectionSidebar again(dir.path());
        QCOMPARE(again.activeEnvironment(), QStringLiteral("Staging"));
        QVERIFY(!again.variables().contains(QStringLiteral("token")));
        QVERIFY(again.environments().at(0).find(QStringLiteral("token"))->secret);
        QCOMPARE(again.environmentBar()->current(), QStringLiteral("Staging"));
    }

    void environmentDialog_newEnvironment_isActiveAfterOk()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        CollectionSidebar sidebar(dir.path());
        sidebar.setEnvironments(
            {{QStringLiteral("Local"), {{QStringLiteral("base"), QStringLiteral("x"), false}}, false}},
            QStringLiteral("Local"));
        QCOMPARE(sidebar.activeEnvironment(), QStringLiteral("Local"));
        // Edit…, New, a name, OK.
        QTimer::singleShot(0, &sidebar, [&sidebar] {
            auto *dialog = sidebar.findChild<EnvironmentDialog *>();
            QVERIFY(dialog);
            dialog->addEnvironment();
            dialog->nameField()->setText(QStringLiteral("Staging"));
            dialog->accept();
        });
        sidebar.editEnvironments();
        QCOMPARE(sidebar.environments().size(), 2);
        QCOMPARE(sidebar.activeEnvironment(), QStringLiteral("Staging"));
        QCOMPARE(sidebar.environmentBar()->current(), QStringLiteral("Staging"));
    }

    void environmentDialog_editsAndRefusesBadNames()
    {
        EnvironmentDialog dialog(
            {{QStringLiteral("Local"), {{QStringLiteral("base"), QStringLiteral("x"), false}}, false}});
        QCOMPARE(dialog.table()->rowCount(), 1);
        dialog.addVariable();
        dialog.table()->item(1, 0)->setText(QStringLiteral("bad name"));
        dialog.table()->item(1, 1)->setText(QStringLiteral("v"));
        QVERIFY(dialog.problem().contains(QStringLiteral("bad name")));
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
        dialog.table()->item(1, 0)->setText(QStringLiteral("token"));
        dialog.table()->item(1, 2)->setCheckState(Qt::Checked);
        dialog.storeSecretsBox()->setChecked(true);
        QCOMPARE(dialog.problem(), QString());
        dialog.addEnvironment();
        dialog.nameField()->setText(QStringLiteral("Local"));
        QVERIFY(dialog.problem().contains(QStringLiteral("Two environments")));
        dialog.nameField()->setText(QStringLiteral("CI"));
        const QList<Core::Environment> result = dialog.environments();
        QCOMPARE(result.size(), 2);
        QCOMPARE(result.at(0).variables.size(), 2);
        QVERIFY(result.at(0).variables.at(1).secret);
        QVERIFY(result.at(0).storeSecrets);
        QCOMPARE(result.at(1).name, QStringLiteral("CI"));

        // A secret value is typed as a password until "Show secret values" is ticked.
        dialog.list()->setCurrentRow(0);
        const QModelIndex secretValue = dialog.table()->model()->index(1, 1);
        QStyleOptionViewItem option;
        std::unique_ptr<QWidget> editor(
            dialog.table()->itemDelegate()->createEditor(dialog.table()->viewport(), option, secretValue));
        QCOMPARE(qobject_cast<QLineEdit *>(editor.get())->echoMode(), QLineEdit::Password);
        dialog.revealSecretsBox()->setChecked(true);
        editor.reset(dialog.table()->itemDelegate()->createEditor(dialog.table()->viewport(), option, secretValue));
        QCOMPARE(qobject_cast<QLineEdit *>(editor.get())->echoMode(), QLineEdit::Normal);
    }

    void window_activationLoadsComposerAndPolicy_variablesResolve_secretsNeverExported()
    {
        MainWindow::Options options;
        MainWindow window(options);
        QTemporaryDir dir;
        writeSample(dir.path());
        {
            QFile damaged(
                QDir(Core::CollectionStore(dir.path()).collectionsDirectory()).filePath(QStringLiteral("bad.json")));
            QVERIFY(damaged.open(QIODevice::WriteOnly));
            damaged.write("{\"formatVersion\": 1, \"items\": [");
        }
        collectionsOf(window)->setDataRoot(dir.path());
        // The window gives the dock its auth dialog: Auth… is on for a collection.
        collectionsOf(window)->setCurrentIndex(find(collectionsOf(window)->model(), QStringLiteral("API")));
        QVERIFY(collectionsOf(window)->editAuthAction()->isEnabled());
        QVERIFY2(messagesOf(window).join(QLatin1Char('\n')).contains(QStringLiteral("bad.json.damaged-")),
            qPrintable(messagesOf(window).join(QLatin1Char('\n'))));
        window.show();
        CollectionModel *model = collectionsOf(window)->model();

        // Activating a request loads it into the composer and its policy into the editor.
        collectionsOf(window)->activate(find(model, QStringLiteral("List")));
        QCOMPARE(composerOf(window)->draft().urlTemplate, QStringLiteral("{server}/orders/list"));
        QCOMPARE(policyPanelOf(window)->policy().maxAttempts, 9);
        collectionsOf(window)->activate(find(model, QStringLiteral("Login")));
        QCOMPARE(composerOf(window)->draft().method, QStringLiteral("POST"));
        QCOMPARE(policyPanelOf(window)->policy(), Core::Presets::all().constFirst().policy);

        // {{base}} without an environment: Send is refused and the reason names it.
        QVERIFY(!composerOf(window)->canSend());
        QVERIFY2(composerOf(window)->problem().contains(QStringLiteral("{{base}}")),
            qPrintable(composerOf(window)->problem()));

        // With an environment: {{base}} holds {server}, {{token}} a secret.
        collectionsOf(window)->setEnvironments({{QStringLiteral("Local"),
                                                   {{QStringLiteral("base"), QStringLiteral("{server}"), false},
                                                       {QStringLiteral("token"), QStringLiteral("s3cr3t-value"), true}},
                                                   false}},
            QStringLiteral("Local"));
        Core::RequestDraft draft;
        draft.urlTemplate = QStringLiteral("{{base}}/status/200?note={{token}}");
        draft.headers = {{QStringLiteral("X-Echo"), QStringLiteral("{{token}}"), true}};
        composerOf(window)->setDraft(draft);
        QVERIFY2(composerOf(window)->canSend(), qPrintable(composerOf(window)->problem()));
        QVERIFY(composerOf(window)->previewUrl().startsWith(QStringLiteral("http://127.0.0.1:")));
        runActionsOf(window)->send();
        QTRY_COMPARE_WITH_TIMEOUT(sessionOf(window)->resultCount(), 1, 10'000);

        for (const auto format : {Ui::ExportController::Format::Json, Ui::ExportController::Format::Csv,
                 Ui::ExportController::Format::Har}) {
            const QString path = dir.filePath(QStringLiteral("run-%1").arg(int(format)));
            for (const bool redact : {true, false}) {
                actionOf(window, "redactExports")->setChecked(redact);
                QVERIFY(exportRunOf(window, path, format));
                QFile file(path);
                QVERIFY(file.open(QIODevice::ReadOnly));
                const QByteArray bytes = file.readAll();
                QVERIFY(!bytes.isEmpty());
                QVERIFY2(!bytes.contains("s3cr3t-value"), qPrintable(path));
            }
        }
        // Saved to a collection: the file keeps {{token}}, never the value.
        collectionsOf(window)->saveAsNewAction()->trigger();
        const QDir collectionsDir(Core::CollectionStore(dir.path()).collectionsDirectory());
        for (const QString &name : collectionsDir.entryList({QStringLiteral("*.json")})) {
            QFile file(collectionsDir.filePath(name));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY(!file.readAll().contains("s3cr3t-value"));
        }
    }
};

QTEST_MAIN(TestCollectionSidebar)
#include "tst_collectionsidebar.moc"
