#include "core/executor/threadedexecutor.h"
#include "core/export/grpcserviceconfig.h"
#include "core/faultserver/faultserver.h"
#include "ui/exportcontroller.h"
#include "ui/policy/comparedialog.h"
#include "ui/policy/grpcmethoddialog.h"
#include "ui/policy/layercalculator.h"
#include "ui/policy/policyexportdialog.h"
#include "ui/policy/policypanel.h"
#include "ui/policyactions.h"
#include "ui/run/errorlogview.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace RetryLab;
using Ui::PolicyActions;

// The Policy menu on its own parts, without the window: which actions it holds,
// the file names it suggests and where, what a cancelled export leaves, and the
// policy the calculator and the comparison open with.
class TestPolicyActions final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void menu_holdsEveryPolicyAction();
    void exports_suggestAFileInTheExportFolder_cancelWritesNothing_data();
    void exports_suggestAFileInTheExportFolder_cancelWritesNothing();
    void exportPolicyAsGrpc_withoutSuffix_writesJson();
    void exportPolicyAsGrpc_offersTheRequestsMethod_realGrpcObeysIt();
    void exportPolicyAsGrpc_cancelledDialog_asksForNoFile();
    void calculatorAndComparison_openWithTheEditedPolicy();
    void exportDialog_opensWithThePolicyAndSavesThroughTheController();

private:
    struct Parts
    {
        Ui::Settings settings;
        Core::ThreadedExecutor executor;
        Ui::RunSession session;
        Ui::RequestRunner runner{&executor, &session};
        Ui::PolicyPanel panel{&settings};
        Ui::ErrorLogView errorLog;
        Ui::MessageBar messages;
        QWidget parent;
        Ui::ExportController exports{&session, &errorLog, &settings, &messages, &parent};
        QString requestUrl;
        PolicyActions actions{
            {&panel, &runner, &settings, &exports, &messages, &parent, [this] { return requestUrl; }}};
    };

    /// Answers the gRPC method dialog when it opens: with `service` and `method` typed in,
    /// or, with `service` null, as it was offered; `fields` gets what it offered.
    static void answerGrpcDialog(
        const QString &service, const QString &method, bool accept = true, QStringList *fields = nullptr)
    {
        auto *timer = new QTimer;
        timer->setInterval(10);
        QObject::connect(timer, &QTimer::timeout, timer, [=] {
            for (QWidget *widget : QApplication::topLevelWidgets()) {
                auto *dialog = qobject_cast<Ui::GrpcMethodDialog *>(widget);
                if (!dialog || !dialog->isVisible())
                    continue;
                auto *serviceEdit = dialog->findChild<QLineEdit *>(QStringLiteral("grpcService"));
                auto *methodEdit = dialog->findChild<QLineEdit *>(QStringLiteral("grpcMethod"));
                if (fields)
                    *fields = QStringList{serviceEdit->text(), methodEdit->text()};
                if (!service.isNull()) {
                    serviceEdit->setText(service);
                    methodEdit->setText(method);
                }
                accept ? dialog->accept() : dialog->reject();
                timer->deleteLater();
                return;
            }
        });
        timer->start();
    }

    static Core::BackoffPolicy editedPolicy()
    {
        Core::BackoffPolicy policy;
        policy.name = QStringLiteral("Checkout Service");
        policy.algorithm = Core::BackoffAlgorithm::Exponential;
        policy.baseDelayMs = 50.0;
        policy.maxAttempts = 4;
        return policy;
    }

    QTemporaryDir m_dir;
};

void TestPolicyActions::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_policyactions"));
    QVERIFY(m_dir.isValid());
}

void TestPolicyActions::init()
{
    {
        QSettings settings;
        settings.clear();
        settings.sync();
    }
    Ui::Settings().setExportDirectory(m_dir.path());
}

void TestPolicyActions::menu_holdsEveryPolicyAction()
{
    Parts parts;
    QMenuBar bar;
    QMenu *menu = parts.actions.addMenu(&bar);
    QCOMPARE(menu->title(), QStringLiteral("&Policy"));
    QStringList names;
    for (const QAction *action : menu->actions()) {
        if (!action->isSeparator())
            names.append(action->objectName());
    }
    QCOMPARE(names,
        (QStringList{QStringLiteral("importPolicy"), QStringLiteral("exportPolicy"), QStringLiteral("exportPolicyGrpc"),
            QStringLiteral("exportPolicyFormats"), QStringLiteral("endpointPolicies"),
            QStringLiteral("layerCalculator"), QStringLiteral("comparePolicies")}));
}

void TestPolicyActions::exports_suggestAFileInTheExportFolder_cancelWritesNothing_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("suggested");
    QTest::addRow("policy") << QStringLiteral("exportPolicy") << QStringLiteral("checkout-service.json");
    QTest::addRow("gRPC service config") << QStringLiteral("exportPolicyAsGrpc")
                                         << QStringLiteral("service-config.json");
}

void TestPolicyActions::exports_suggestAFileInTheExportFolder_cancelWritesNothing()
{
    QFETCH(QString, action);
    QFETCH(QString, suggested);
    Parts parts;
    parts.panel.setPolicy(editedPolicy());
    QStringList suggestions;
    parts.exports.setFileChooser(
        [&](QFileDialog::AcceptMode mode, const QString &, const QString &suggestion, const QString &, QString *) {
            if (mode == QFileDialog::AcceptSave)
                suggestions.append(suggestion);
            return QString();
        });
    const QStringList before = QDir(m_dir.path()).entryList(QDir::Files);
    if (action == QLatin1String("exportPolicyAsGrpc"))
        answerGrpcDialog(QStringLiteral("pkg.Orders"), QString());
    QVERIFY(QMetaObject::invokeMethod(&parts.actions, action.toLatin1().constData()));
    QCOMPARE(suggestions, QStringList{QDir(m_dir.path()).filePath(suggested)});
    QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files), before);
    QVERIFY(parts.messages.messages().isEmpty());
}

void TestPolicyActions::exportPolicyAsGrpc_withoutSuffix_writesJson()
{
    Parts parts;
    parts.panel.setPolicy(editedPolicy());
    const QString chosen = m_dir.filePath(QStringLiteral("checkout"));
    parts.exports.setFileChooser([&](auto, auto, auto, auto, auto) { return chosen; });
    answerGrpcDialog(QStringLiteral("pkg.Orders"), QStringLiteral("Create"));
    parts.actions.exportPolicyAsGrpc();
    QFile file(chosen + QStringLiteral(".json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(),
        Core::GrpcServiceConfig::toJson(Core::GrpcServiceConfig::fromPolicy(
            editedPolicy(), QStringLiteral("pkg.Orders"), QStringLiteral("Create"))));
    QCOMPARE(parts.messages.messages().size(), 1);
    QVERIFY(parts.messages.messages().constFirst().startsWith(QLatin1String("Exported")));
}

// The request's gRPC path names the method; real gRPC (python3-grpcio) loads the file and
// tries a failing call of that method as often as the policy says.
void TestPolicyActions::exportPolicyAsGrpc_offersTheRequestsMethod_realGrpcObeysIt()
{
    Parts parts;
    parts.panel.setPolicy(editedPolicy());
    parts.requestUrl = QStringLiteral("{server}/retrylab.Test/Call?trace=1");
    const QString chosen = m_dir.filePath(QStringLiteral("grpc-service-config.json"));
    parts.exports.setFileChooser([&](auto, auto, auto, auto, auto) { return chosen; });
    QStringList offered;
    answerGrpcDialog(QString(), QString(), true, &offered);
    parts.actions.exportPolicyAsGrpc();
    QCOMPARE(offered, (QStringList{QStringLiteral("retrylab.Test"), QStringLiteral("Call")}));
    QVERIFY2(parts.messages.messages().constFirst().contains(QLatin1String("/retrylab.Test/Call")),
        qPrintable(parts.messages.messages().constFirst()));

    QFile file(chosen);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject name = QJsonDocument::fromJson(file.readAll())
                                 .object()
                                 .value(QStringLiteral("methodConfig"))
                                 .toArray()
                                 .at(0)
                                 .toObject()
                                 .value(QStringLiteral("name"))
                                 .toArray()
                                 .at(0)
                                 .toObject();
    QCOMPARE(name.value(QStringLiteral("service")).toString(), QStringLiteral("retrylab.Test"));
    QCOMPARE(name.value(QStringLiteral("method")).toString(), QStringLiteral("Call"));

    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral(RETRYLAB_GRPC_SCRIPT), chosen});
    QVERIFY(python.waitForStarted(10'000));
    QVERIFY(python.waitForFinished(60'000));
    const QJsonObject counted = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    QVERIFY2(!counted.isEmpty(), python.readAllStandardError().constData());
    QCOMPARE(counted.value(QStringLiteral("code")).toString(), QStringLiteral("UNAVAILABLE"));
    QCOMPARE(counted.value(QStringLiteral("attempts")).toInt(), editedPolicy().maxAttempts);

    // The next export offers the same method again when the request has no gRPC path.
    parts.requestUrl = QStringLiteral("{server}/status/200");
    answerGrpcDialog(QString(), QString(), false, &offered);
    parts.actions.exportPolicyAsGrpc();
    QCOMPARE(offered, (QStringList{QStringLiteral("retrylab.Test"), QStringLiteral("Call")}));
}

void TestPolicyActions::exportPolicyAsGrpc_cancelledDialog_asksForNoFile()
{
    Parts parts;
    parts.panel.setPolicy(editedPolicy());
    int asked = 0;
    parts.exports.setFileChooser([&](auto, auto, auto, auto, auto) {
        ++asked;
        return QString();
    });
    answerGrpcDialog(QString(), QString(), false);
    parts.actions.exportPolicyAsGrpc();
    QCOMPARE(asked, 0);
    QVERIFY(parts.messages.messages().isEmpty());
}

void TestPolicyActions::calculatorAndComparison_openWithTheEditedPolicy()
{
    Parts parts;
    parts.panel.setPolicy(editedPolicy());
    parts.parent.show();

    parts.actions.showLayerCalculator();
    auto *calculator = parts.parent.findChild<Ui::LayerCalculator *>();
    QVERIFY(calculator);
    QVERIFY(calculator->isVisible());
    QVERIFY(calculator->testAttribute(Qt::WA_DeleteOnClose));
    QCOMPARE(calculator->stack().constFirst().name, editedPolicy().name);

    parts.actions.showCompare();
    auto *compare = parts.parent.findChild<Ui::CompareDialog *>();
    QVERIFY(compare);
    QVERIFY(compare->isVisible());
    QVERIFY(compare->testAttribute(Qt::WA_DeleteOnClose));

    // Closed, they are gone.
    calculator->close();
    compare->close();
    QTRY_VERIFY(!parts.parent.findChild<Ui::LayerCalculator *>());
    QTRY_VERIFY(!parts.parent.findChild<Ui::CompareDialog *>());
}

// Policy > Export…: the edited policy, the request's URL for programs, and Save… asking the
// controller (which tests answer) for a file in the export folder.
void TestPolicyActions::exportDialog_opensWithThePolicyAndSavesThroughTheController()
{
    Parts parts;
    parts.panel.setPolicy(editedPolicy());
    parts.requestUrl = QStringLiteral("http://127.0.0.1:8123/checkout");
    parts.parent.show();
    QString suggested;
    const QString chosen = m_dir.filePath(QStringLiteral("checkout.go"));
    parts.exports.setFileChooser([&](auto, auto, const QString &suggestion, auto, auto) {
        suggested = suggestion;
        return chosen;
    });

    parts.actions.showExportDialog();
    auto *dialog = parts.parent.findChild<Ui::PolicyExportDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY(dialog->testAttribute(Qt::WA_DeleteOnClose));
    QVERIFY(dialog->setFormat(QStringLiteral("go-backoff")));
    dialog->setRunnable(true);
    QVERIFY(dialog->text().contains(QLatin1String("Checkout Service")));
    QVERIFY(dialog->text().contains(QLatin1String("\"http://127.0.0.1:8123/checkout\"")));
    dialog->findChild<QPushButton *>(QStringLiteral("exportSave"))->click();
    QCOMPARE(suggested, QDir(m_dir.path()).filePath(QStringLiteral("checkout-service.go")));
    QFile file(chosen);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), dialog->text());
    dialog->close();
    QTRY_VERIFY(!parts.parent.findChild<Ui::PolicyExportDialog *>());
}

QTEST_MAIN(TestPolicyActions)
#include "tst_policyactions.moc"
