#include "ui/policy/grpcmethoddialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>

using RetryLab::Ui::GrpcMethodDialog;

// Which gRPC method an exported service config is for: read from a request's
// path or URL template, checked as protobuf names, shown as gRPC will match it.
class TestGrpcMethodDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fromUrl_data();
    void fromUrl();
    void problem_data();
    void problem();
    void okOnlyForANameGrpcCanMatch();
};

void TestGrpcMethodDialog::fromUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("service"); // null: no gRPC path
    QTest::addColumn<QString>("method");
    QTest::addRow("template") << QStringLiteral("{server}/pkg.v1.Orders/Create") << QStringLiteral("pkg.v1.Orders")
                              << QStringLiteral("Create");
    QTest::addRow("https with query") << QStringLiteral("https://api.test:8443/retrylab.Test/Call?x=1#f")
                                      << QStringLiteral("retrylab.Test") << QStringLiteral("Call");
    QTest::addRow("bare path") << QStringLiteral("/Orders/Get") << QStringLiteral("Orders") << QStringLiteral("Get");
    QTest::addRow("one segment") << QStringLiteral("{server}/status") << QString() << QString();
    QTest::addRow("three segments") << QStringLiteral("{server}/status/503/x") << QString() << QString();
    QTest::addRow("numbers") << QStringLiteral("{server}/status/503") << QString() << QString();
    QTest::addRow("empty") << QString() << QString() << QString();
}

void TestGrpcMethodDialog::fromUrl()
{
    QFETCH(QString, url);
    QFETCH(QString, service);
    QFETCH(QString, method);
    const auto found = GrpcMethodDialog::fromUrl(url);
    QCOMPARE(found.has_value(), !service.isNull());
    if (found) {
        QCOMPARE(found->service, service);
        QCOMPARE(found->method, method);
    }
}

void TestGrpcMethodDialog::problem_data()
{
    QTest::addColumn<QString>("service");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("problem"); // empty: usable
    QTest::addRow("service and method") << QStringLiteral("pkg.Orders") << QStringLiteral("Create") << QString();
    QTest::addRow("every method") << QStringLiteral("Orders") << QString() << QString();
    QTest::addRow("no service") << QString() << QStringLiteral("Create") << QStringLiteral("Give the service");
    QTest::addRow("slash in the service")
        << QStringLiteral("pkg/Orders") << QString() << QStringLiteral("is not a service name");
    QTest::addRow("empty part") << QStringLiteral("pkg..Orders") << QString()
                                << QStringLiteral("is not a service name");
    QTest::addRow("dotted method") << QStringLiteral("pkg.Orders") << QStringLiteral("a.b")
                                   << QStringLiteral("is not a method name");
}

void TestGrpcMethodDialog::problem()
{
    QFETCH(QString, service);
    QFETCH(QString, method);
    QFETCH(QString, problem);
    const QString found = GrpcMethodDialog::problem({service, method});
    QCOMPARE(found.isEmpty(), problem.isEmpty());
    QVERIFY2(found.contains(problem), qPrintable(found));
}

void TestGrpcMethodDialog::okOnlyForANameGrpcCanMatch()
{
    GrpcMethodDialog dialog;
    auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    auto *preview = dialog.findChild<QLabel *>(QStringLiteral("grpcPreview"));
    QVERIFY(ok && preview);
    QVERIFY(!ok->isEnabled()); // nothing typed yet
    QVERIFY(preview->text().contains(QLatin1String("Give the service")));
    dialog.setMethod({QStringLiteral("pkg.Orders"), QString()});
    QVERIFY(ok->isEnabled());
    QVERIFY2(preview->text().contains(QLatin1String("every method of pkg.Orders")), qPrintable(preview->text()));
    QTest::keyClicks(dialog.findChild<QLineEdit *>(QStringLiteral("grpcMethod")), QStringLiteral("Create"));
    QVERIFY2(preview->text().contains(QLatin1String("/pkg.Orders/Create")), qPrintable(preview->text()));
    QCOMPARE(dialog.method().method, QStringLiteral("Create"));
    dialog.findChild<QLineEdit *>(QStringLiteral("grpcService"))->setText(QStringLiteral("pkg Orders"));
    QVERIFY(!ok->isEnabled());
}

QTEST_MAIN(TestGrpcMethodDialog)
#include "tst_grpcmethoddialog.moc"
