#include "core/policy/presets.h"
#include "ui/policy/endpointpoliciesdialog.h"

#include <QComboBox>
#include <QLabel>
#include <QTableWidget>
#include <QTest>

using namespace RetryLab;
using Ui::EndpointPoliciesDialog;

class TestEndpointPoliciesDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rows_becomeRules_presetsAndUserPresets();
    void badPath_isNamedAndLeftOut();
    void savedRule_keepsItsPolicyWhenThePresetDiffers();
};

void TestEndpointPoliciesDialog::rows_becomeRules_presetsAndUserPresets()
{
    Core::BackoffPolicy mine;
    mine.name = QStringLiteral("Uploads");
    mine.maxAttempts = 7;
    EndpointPoliciesDialog dialog({mine});
    QVERIFY(dialog.policies().isEmpty());
    const int batch = int(Core::Presets::ids().indexOf(QStringLiteral("azure-batch")));
    dialog.addRow(QStringLiteral("*.example.com"), QStringLiteral("/upload/*"), batch);
    dialog.addRow(QString(), QStringLiteral("/api/*"), int(Core::Presets::all().size())); // the user preset
    const QList<Core::EndpointPolicy> rules = dialog.policies();
    QCOMPARE(rules.size(), 2);
    QCOMPARE(rules[0].host, QStringLiteral("*.example.com"));
    QCOMPARE(rules[0].policy, *Core::Presets::find(QStringLiteral("azure-batch")));
    QCOMPARE(rules[0].origin, QStringLiteral("preset azure-batch"));
    QCOMPARE(rules[1].policy, mine);
    QCOMPARE(rules[1].origin, QStringLiteral("user preset Uploads"));
    QVERIFY(rules[0].matches(QUrl(QStringLiteral("https://eu.example.com/upload/a"))));
    QVERIFY(dialog.problem().isEmpty());
}

void TestEndpointPoliciesDialog::badPath_isNamedAndLeftOut()
{
    EndpointPoliciesDialog dialog({});
    dialog.addRow(QStringLiteral("h"), QStringLiteral("upload/*"), 0);
    QVERIFY(dialog.problem().contains(QLatin1String("Row 1: a path pattern starts with /")));
    QVERIFY(dialog.policies().isEmpty());
    auto *table = dialog.findChild<QTableWidget *>(QStringLiteral("endpointTable"));
    table->item(0, 1)->setText(QStringLiteral("/upload/*"));
    QVERIFY(dialog.problem().isEmpty());
    QCOMPARE(dialog.policies().size(), 1);
}

void TestEndpointPoliciesDialog::savedRule_keepsItsPolicyWhenThePresetDiffers()
{
    Core::EndpointPolicy saved;
    saved.path = QStringLiteral("/x");
    saved.policy = *Core::Presets::find(QStringLiteral("iam"));
    saved.policy.maxAttempts = 3; // no longer what the preset says
    saved.origin = QStringLiteral("preset iam");
    Core::EndpointPolicy plain;
    plain.host = QStringLiteral("api.example");
    plain.policy = *Core::Presets::find(QStringLiteral("curl-retry"));
    plain.origin = QStringLiteral("preset curl-retry");
    EndpointPoliciesDialog dialog({});
    dialog.setPolicies({saved, plain});
    const QList<Core::EndpointPolicy> back = dialog.policies();
    QCOMPARE(back.size(), 2);
    QCOMPARE(back[0].policy, saved.policy);
    QCOMPARE(back[1], plain);
}

QTEST_MAIN(TestEndpointPoliciesDialog)
#include "tst_endpointpoliciesdialog.moc"
