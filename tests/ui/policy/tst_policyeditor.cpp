#include "core/http/httpstatuslist.h"
#include "core/policy/policyfields.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "core/policy/responseconditions.h"
#include "ui/policy/faultactionmodel.h"
#include "ui/policy/policyeditor.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/unitspinbox.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace RetryLab;
using Core::BackoffAlgorithm;
using Core::BackoffPolicy;
using Ui::FieldMessage;
using Ui::PolicyEditor;
using Ui::Settings;
using Ui::UnitSpinBox;

Q_DECLARE_METATYPE(RetryLab::Core::BackoffPolicy)

namespace RetryLab::Core {
// Lets QCOMPARE print a policy that differs.
char *toString(const BackoffPolicy &policy)
{
    return qstrdup(PolicyJson::toJson(policy).constData());
}
} // namespace RetryLab::Core

namespace {

// Every number field of the form, with the policy value it edits.
struct NumberField
{
    const char *name;
    std::function<double(const BackoffPolicy &)> value;
};

const QList<NumberField> &numberFields()
{
    static const QList<NumberField> fields{
        {"baseDelayMs", [](const BackoffPolicy &p) { return p.baseDelayMs; }},
        {"multiplier", [](const BackoffPolicy &p) { return p.multiplier; }},
        {"maxBackoffMs", [](const BackoffPolicy &p) { return p.maxBackoffMs; }},
        {"jitterMs", [](const BackoffPolicy &p) { return p.jitterMs; }},
        {"jitterFraction", [](const BackoffPolicy &p) { return p.jitterFraction; }},
        {"maxAttempts", [](const BackoffPolicy &p) { return double(p.maxAttempts); }},
        {"deadlineMs", [](const BackoffPolicy &p) { return p.deadlineMs; }},
        {"attemptTimeoutMs", [](const BackoffPolicy &p) { return p.attemptTimeoutMs; }},
        {"maxRetryAfterMs", [](const BackoffPolicy &p) { return p.classification.maxRetryAfterMs; }},
        {"circuitBreaker.consecutiveFailures",
            [](const BackoffPolicy &p) { return double(p.circuitBreaker.consecutiveFailures); }},
        {"circuitBreaker.failureRatio", [](const BackoffPolicy &p) { return p.circuitBreaker.failureRatio; }},
        {"circuitBreaker.window", [](const BackoffPolicy &p) { return double(p.circuitBreaker.window); }},
        {"circuitBreaker.openMs", [](const BackoffPolicy &p) { return p.circuitBreaker.openMs; }},
        {"circuitBreaker.halfOpenTrials",
            [](const BackoffPolicy &p) { return double(p.circuitBreaker.halfOpenTrials); }},
        {"retryBudget.awsCapacity", [](const BackoffPolicy &p) { return p.retryBudget.awsCapacity; }},
        {"retryBudget.awsRetryCost", [](const BackoffPolicy &p) { return p.retryBudget.awsRetryCost; }},
        {"retryBudget.awsTimeoutCost", [](const BackoffPolicy &p) { return p.retryBudget.awsTimeoutCost; }},
        {"retryBudget.awsSuccessRefund", [](const BackoffPolicy &p) { return p.retryBudget.awsSuccessRefund; }},
        {"retryBudget.grpcMaxTokens", [](const BackoffPolicy &p) { return p.retryBudget.grpcMaxTokens; }},
        {"retryBudget.grpcTokenRatio", [](const BackoffPolicy &p) { return p.retryBudget.grpcTokenRatio; }},
        {"rateLimiter.beta", [](const BackoffPolicy &p) { return p.rateLimiter.beta; }},
        {"rateLimiter.scale", [](const BackoffPolicy &p) { return p.rateLimiter.scale; }},
        {"rateLimiter.minRate", [](const BackoffPolicy &p) { return p.rateLimiter.minRate; }},
        {"hedging.maxAttempts", [](const BackoffPolicy &p) { return double(p.hedging.maxAttempts); }},
        {"hedging.delayMs", [](const BackoffPolicy &p) { return p.hedging.delayMs; }},
    };
    return fields;
}

template<typename T>
T *child(const PolicyEditor &editor, const char *name)
{
    auto *widget = editor.findChild<T *>(QString::fromLatin1(name));
    if (!widget)
        qFatal("no widget named %s", name);
    return widget;
}

UnitSpinBox *spin(const PolicyEditor &editor, const char *name)
{
    return child<UnitSpinBox>(editor, name);
}

FieldMessage *message(const PolicyEditor &editor, const char *field)
{
    const QByteArray name = QByteArray(field) + "Message";
    return child<FieldMessage>(editor, name.constData());
}

// As a person would: pick in the combo box.
void choose(QComboBox *combo, const QVariant &data)
{
    const int index = combo->findData(data);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    Q_EMIT combo->activated(index);
}

// As a person would: replace the text of a number field by typing.
void typeInto(UnitSpinBox *box, const QString &text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClick(box, Qt::Key_Delete);
    QTest::keyClicks(box, text);
}

void typeInto(QLineEdit *edit, const QString &text)
{
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Delete);
    QTest::keyClicks(edit, text);
}

void setShown(UnitSpinBox *box, double stored)
{
    box->setValue(stored / box->scale());
}

// Enters a whole policy through the form's widgets, in the order a person
// must (a field only becomes editable once the setting it depends on is on).
void enterThroughWidgets(PolicyEditor &editor, const BackoffPolicy &p)
{
    auto *algorithm = child<QComboBox>(editor, "algorithm");
    auto *budget = child<QComboBox>(editor, "retryBudget.kind");
    auto *breaker = child<QCheckBox>(editor, "circuitBreaker");
    auto *honour = child<QCheckBox>(editor, "honourRetryAfter");

    typeInto(child<QLineEdit>(editor, "name"), p.name);
    typeInto(child<QLineEdit>(editor, "source"), p.source);
    child<QPlainTextEdit>(editor, "description")->setPlainText(p.description);

    // The fields every algorithm shares, under Google's (which uses jitterMs), then the rest.
    choose(algorithm, static_cast<int>(BackoffAlgorithm::GoogleTruncatedExponential));
    setShown(spin(editor, "jitterMs"), p.jitterMs);
    choose(algorithm, static_cast<int>(BackoffAlgorithm::ProportionalJitter));
    setShown(spin(editor, "jitterFraction"), p.jitterFraction);
    for (const char *name :
        {"baseDelayMs", "multiplier", "maxBackoffMs", "maxAttempts", "deadlineMs", "attemptTimeoutMs"}) {
        for (const auto &field : numberFields()) {
            if (qstrcmp(field.name, name) == 0)
                setShown(spin(editor, name), field.value(p));
        }
    }
    choose(algorithm, static_cast<int>(p.algorithm));
    choose(child<QComboBox>(editor, "intervalJitter"), static_cast<int>(p.intervalJitter));

    typeInto(child<QLineEdit>(editor, "retryableStatuses"),
        Core::HttpStatusList::format(p.classification.retryableStatuses));
    child<QCheckBox>(editor, "retryConflictAborted")->setChecked(p.classification.retryConflictAborted);
    child<QCheckBox>(editor, "retryNonIdempotent")->setChecked(p.classification.retryNonIdempotent);
    child<QCheckBox>(editor, "putDeleteNeedPrecondition")->setChecked(p.classification.putDeleteNeedPrecondition);
    typeInto(child<QLineEdit>(editor, "statusDelayFactors"),
        Core::HttpStatusList::formatFactors(p.classification.statusDelayFactors));
    honour->setChecked(true);
    setShown(spin(editor, "maxRetryAfterMs"), p.classification.maxRetryAfterMs);
    honour->setChecked(p.classification.honourRetryAfter);
    child<QCheckBox>(editor, "honourRateLimitReset")->setChecked(p.classification.honourRateLimitReset);
    auto *faults = child<QTableView>(editor, "networkActions");
    for (int row = 0; row < faults->model()->rowCount(); ++row) {
        const auto fault = static_cast<Core::NetworkFaultClass>(
            faults->model()->index(row, 0).data(Ui::FaultActionModel::FaultRole).toInt());
        auto *combo = qobject_cast<QComboBox *>(
            faults->indexWidget(faults->model()->index(row, Ui::FaultActionModel::ActionColumn)));
        QVERIFY2(combo, "the action column has an open combo box per row");
        choose(combo, static_cast<int>(p.classification.networkActions.value(fault)));
    }

    breaker->setChecked(true);
    for (const char *name : {"circuitBreaker.consecutiveFailures", "circuitBreaker.failureRatio",
             "circuitBreaker.window", "circuitBreaker.openMs", "circuitBreaker.halfOpenTrials"}) {
        for (const auto &field : numberFields()) {
            if (qstrcmp(field.name, name) == 0)
                setShown(spin(editor, name), field.value(p));
        }
    }
    breaker->setChecked(p.circuitBreaker.enabled);

    choose(budget, static_cast<int>(Core::RetryBudgetKind::AwsStandard));
    for (const auto &field : numberFields()) {
        if (QByteArray(field.name).startsWith("retryBudget.aws"))
            setShown(spin(editor, field.name), field.value(p));
    }
    choose(budget, static_cast<int>(Core::RetryBudgetKind::GrpcThrottling));
    for (const auto &field : numberFields()) {
        if (QByteArray(field.name).startsWith("retryBudget.grpc"))
            setShown(spin(editor, field.name), field.value(p));
    }
    choose(budget, static_cast<int>(p.retryBudget.kind));

    // The limiter's numbers are editable once a limiter is chosen.
    auto *limiter = child<QComboBox>(editor, "rateLimiter.kind");
    choose(limiter, static_cast<int>(Core::RateLimiterKind::AwsAdaptive));
    for (const auto &field : numberFields()) {
        if (QByteArray(field.name).startsWith("rateLimiter."))
            setShown(spin(editor, field.name), field.value(p));
    }
    choose(limiter, static_cast<int>(p.rateLimiter.kind));

    // Hedging's numbers, once it is on.
    auto *hedging = child<QCheckBox>(editor, "hedging.enabled");
    hedging->setChecked(true);
    for (const auto &field : numberFields()) {
        if (QByteArray(field.name).startsWith("hedging."))
            setShown(spin(editor, field.name), field.value(p));
    }
    hedging->setChecked(p.hedging.enabled);
}

// Checks that every widget shows the policy (to the precision it displays).
void verifyWidgetsShow(const PolicyEditor &editor, const BackoffPolicy &p)
{
    for (const auto &field : numberFields()) {
        UnitSpinBox *box = spin(editor, field.name);
        const double tolerance = box->scale() * std::pow(10.0, -box->decimals()) / 2 + 1e-9;
        QVERIFY2(std::abs(box->storedValue() - field.value(p)) <= tolerance,
            qPrintable(QStringLiteral("%1 shows %2, policy has %3")
                           .arg(QLatin1String(field.name))
                           .arg(box->storedValue())
                           .arg(field.value(p))));
    }
    QCOMPARE(child<QComboBox>(editor, "algorithm")->currentData().toInt(), static_cast<int>(p.algorithm));
    QCOMPARE(child<QComboBox>(editor, "intervalJitter")->currentData().toInt(), static_cast<int>(p.intervalJitter));
    QCOMPARE(child<QComboBox>(editor, "retryBudget.kind")->currentData().toInt(), static_cast<int>(p.retryBudget.kind));
    QCOMPARE(child<QComboBox>(editor, "rateLimiter.kind")->currentData().toInt(), static_cast<int>(p.rateLimiter.kind));
    QCOMPARE(child<QCheckBox>(editor, "circuitBreaker")->isChecked(), p.circuitBreaker.enabled);
    QCOMPARE(child<QCheckBox>(editor, "hedging.enabled")->isChecked(), p.hedging.enabled);
    QCOMPARE(child<QCheckBox>(editor, "retryConflictAborted")->isChecked(), p.classification.retryConflictAborted);
    QCOMPARE(child<QCheckBox>(editor, "retryNonIdempotent")->isChecked(), p.classification.retryNonIdempotent);
    QCOMPARE(
        child<QCheckBox>(editor, "putDeleteNeedPrecondition")->isChecked(), p.classification.putDeleteNeedPrecondition);
    QCOMPARE(Core::HttpStatusList::parseFactors(child<QLineEdit>(editor, "statusDelayFactors")->text()).value(),
        p.classification.statusDelayFactors);
    QCOMPARE(child<QCheckBox>(editor, "honourRetryAfter")->isChecked(), p.classification.honourRetryAfter);
    QCOMPARE(child<QCheckBox>(editor, "honourRateLimitReset")->isChecked(), p.classification.honourRateLimitReset);
    QCOMPARE(Core::ResponseConditions::parse(child<QPlainTextEdit>(editor, "retryOnResponse")->toPlainText()).value(),
        p.classification.retryOnResponse);
    QCOMPARE(Core::HttpStatusList::parse(child<QLineEdit>(editor, "retryableStatuses")->text()).value(),
        p.classification.retryableStatuses);
    QCOMPARE(child<QLineEdit>(editor, "name")->text(), p.name);
    QCOMPARE(child<QLineEdit>(editor, "source")->text(), p.source);
    QCOMPARE(child<QPlainTextEdit>(editor, "description")->toPlainText(), p.description);
    auto *model = qobject_cast<Ui::FaultActionModel *>(child<QTableView>(editor, "networkActions")->model());
    QCOMPARE(model->actions(), p.classification.networkActions);
}

// Leaves of a JSON tree by path, to show that a policy differs from the default everywhere.
void leaves(const QJsonObject &object, const QString &prefix, QHash<QString, QJsonValue> &out)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString path = prefix.isEmpty() ? it.key() : prefix + QLatin1Char('.') + it.key();
        if (it.value().isObject())
            leaves(it.value().toObject(), path, out);
        else
            out.insert(path, it.value());
    }
}

// The JSON paths where two policies differ, for readable failure messages.
QString differences(const BackoffPolicy &actual, const BackoffPolicy &expected)
{
    QHash<QString, QJsonValue> a;
    QHash<QString, QJsonValue> e;
    leaves(Core::PolicyJson::toJsonObject(actual), {}, a);
    leaves(Core::PolicyJson::toJsonObject(expected), {}, e);
    QStringList lines;
    for (auto it = e.cbegin(); it != e.cend(); ++it) {
        if (a.value(it.key()) != it.value()) {
            lines.append(
                QStringLiteral("%1: got %2, expected %3")
                    .arg(it.key(), a.value(it.key()).toVariant().toString(), it.value().toVariant().toString()));
        }
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

class TestPolicyEditor final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void roundTrip_preset_fieldsPolicyJsonFields_data();
    void roundTrip_preset_fieldsPolicyJsonFields();
    void roundTrip_everyFieldNonDefault_throughTheWidgets();
    void setPolicy_isNotRoundedByTheDisplay();

    void invalidInput_showsMessageAtTheFieldAndEmitsInvalid_data();
    void invalidInput_showsMessageAtTheFieldAndEmitsInvalid();
    void warning_isToldApartFromErrors_andPolicyStaysUsable();
    void unreadableStatuses_keepLastGoodValueUntilFixed();
    void responseConditions_typedOneALine_errorsAtTheField();
    void inapplicableFields_areDisabledWithTheReason();
    void intervalJitterAndDelayFactors_reachThePolicy();
    void advice_followsTheUsage_atTheFields();
    void fieldWithError_staysEditableEvenWhenInapplicable();
    void budgetFields_onlyForTheChosenBudget();

    void presetCombo_loadsBuiltInPresets_andMarksEdits();
    void userPresets_saveLoadOverwriteDelete_persistThroughSettings();
    void userPresets_builtInName_isRefusedWithMessage();

    void import_malformedFile_namesTheFieldAndKeepsPolicy_data();
    void import_malformedFile_namesTheFieldAndKeepsPolicy();
    void exportThenImport_roundTrips();
    void export_refusedWhilePolicyHasErrors();
    void layout_narrowOrWide_everyPageFitsItsView_data();
    void layout_narrowOrWide_everyPageFitsItsView();

    void fieldTable_oneWidgetPerField_withItsUnitAndLabel();
    void fieldTable_delayFieldsEnabledAsTheAlgorithmUsesThem_data();
    void fieldTable_delayFieldsEnabledAsTheAlgorithmUsesThem();

private:
    QTemporaryDir m_dir;
};

void TestPolicyEditor::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_policyeditor"));
    QVERIFY(m_dir.isValid());
    QVERIFY(!Core::Presets::all().isEmpty());
}

void TestPolicyEditor::init()
{
    QFile::remove(QSettings().fileName());
}

void TestPolicyEditor::roundTrip_preset_fieldsPolicyJsonFields_data()
{
    QTest::addColumn<BackoffPolicy>("preset");
    for (const auto &preset : Core::Presets::all())
        QTest::addRow("%s", qPrintable(preset.id)) << preset.policy;
}

void TestPolicyEditor::roundTrip_preset_fieldsPolicyJsonFields()
{
    QFETCH(BackoffPolicy, preset);

    // fields -> policy
    PolicyEditor typed;
    enterThroughWidgets(typed, preset);
    QVERIFY2(typed.policy() == preset, qPrintable(differences(typed.policy(), preset)));
    QVERIFY2(typed.isUsable(), qPrintable(typed.invalidReason()));

    // policy -> JSON -> policy
    const auto parsed = Core::PolicyJson::fromJson(Core::PolicyJson::toJson(typed.policy()));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(*parsed, preset);

    // -> fields
    PolicyEditor shown;
    QSignalSpy changed(&shown, &PolicyEditor::policyChanged);
    shown.setPolicy(*parsed);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.constFirst().constFirst().value<BackoffPolicy>(), preset);
    verifyWidgetsShow(shown, preset);
    QCOMPARE(shown.policy(), preset);
    QCOMPARE(shown.presetBar()->presetKey(), QStringLiteral("builtin:") + QString::fromLatin1(QTest::currentDataTag()));
}

void TestPolicyEditor::roundTrip_everyFieldNonDefault_throughTheWidgets()
{
    BackoffPolicy p;
    p.name = QStringLiteral("Everything changed");
    p.description = QStringLiteral("Two lines,\nwith ünïcode.");
    p.source = QStringLiteral("tst_policyeditor");
    p.algorithm = BackoffAlgorithm::ProportionalJitter;
    p.baseDelayMs = 250.5;
    p.multiplier = 1.5;
    p.maxBackoffMs = 45'500.0;
    p.jitterMs = 333.0;
    p.jitterFraction = 0.35;
    p.maxAttempts = 7;
    p.deadlineMs = 123'456.0;
    p.attemptTimeoutMs = 2'500.0;
    p.classification.retryableStatuses = {404, 429, 502, 503, 504};
    p.classification.retryConflictAborted = false;
    p.classification.retryNonIdempotent = true;
    p.classification.putDeleteNeedPrecondition = true;
    p.classification.honourRetryAfter = false;
    p.classification.honourRateLimitReset = true;
    p.classification.maxRetryAfterMs = 12'000.0;
    for (auto fault : Core::allNetworkFaultClasses()) {
        const auto standard = Core::ClassificationRules::defaultNetworkActions().value(fault);
        p.classification.networkActions[fault]
            = standard == Core::FaultAction::GiveUp ? Core::FaultAction::RetryImmediately : Core::FaultAction::GiveUp;
    }
    p.circuitBreaker = {true, 3, 0.5, 40, 2'500.0, 2};
    p.retryBudget = {Core::RetryBudgetKind::GrpcThrottling, 250.0, 4.0, 8.0, 2.0, 20.0, 0.25};

    // The test itself must cover every field: each JSON leaf differs from the default.
    QHash<QString, QJsonValue> mine;
    QHash<QString, QJsonValue> standard;
    leaves(Core::PolicyJson::toJsonObject(p), {}, mine);
    leaves(Core::PolicyJson::toJsonObject(BackoffPolicy{}), {}, standard);
    QCOMPARE(mine.keys().size(), standard.keys().size());
    for (auto it = mine.cbegin(); it != mine.cend(); ++it) {
        if (it.key() == QLatin1String("format") || it.key() == QLatin1String("version"))
            continue;
        QVERIFY2(it.value() != standard.value(it.key()), qPrintable(it.key()));
    }

    PolicyEditor typed;
    enterThroughWidgets(typed, p);
    QVERIFY2(typed.policy() == p, qPrintable(differences(typed.policy(), p)));

    const auto parsed = Core::PolicyJson::fromJson(Core::PolicyJson::toJson(typed.policy()));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error()));
    QCOMPARE(*parsed, p);

    PolicyEditor shown;
    shown.setPolicy(*parsed);
    verifyWidgetsShow(shown, p);
    QCOMPARE(shown.policy(), p);
    QVERIFY(shown.presetBar()->presetKey().isEmpty());
}

void TestPolicyEditor::setPolicy_isNotRoundedByTheDisplay()
{
    BackoffPolicy p;
    p.baseDelayMs = 0.123456789;
    p.maxBackoffMs = 32'000.0004;
    p.jitterFraction = 0.123456;
    PolicyEditor editor;
    editor.setPolicy(p);
    QCOMPARE(editor.policy(), p);

    // Editing one field leaves the others exactly as they were.
    setShown(spin(editor, "jitterMs"), 500.0);
    BackoffPolicy expected = p;
    expected.jitterMs = 500.0;
    QCOMPARE(editor.policy(), expected);
}

void TestPolicyEditor::invalidInput_showsMessageAtTheFieldAndEmitsInvalid_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("fix");
    QTest::addRow("negative base delay") << QByteArray("baseDelayMs") << QStringLiteral("-5")
                                         << QStringLiteral("negative") << QStringLiteral("500");
    QTest::addRow("cap below base") << QByteArray("maxBackoffMs") << QStringLiteral("0.5")
                                    << QStringLiteral("below the base delay") << QStringLiteral("64");
    QTest::addRow("absurd deadline") << QByteArray("deadlineMs") << QStringLiteral("99999999")
                                     << QStringLiteral("sensible limit") << QStringLiteral("300");
    QTest::addRow("negative timeout") << QByteArray("attemptTimeoutMs") << QStringLiteral("-1")
                                      << QStringLiteral("negative") << QStringLiteral("10");
    QTest::addRow("shrinking multiplier")
        << QByteArray("multiplier") << QStringLiteral("0.5") << QStringLiteral("below 1") << QStringLiteral("3");
    QTest::addRow("retries forever") << QByteArray("maxAttempts") << QStringLiteral("0")
                                     << QStringLiteral("retry forever") << QStringLiteral("3");
    QTest::addRow("jitter fraction above 100 %%") << QByteArray("jitterFraction") << QStringLiteral("150")
                                                  << QStringLiteral("between 0 and 100 %") << QStringLiteral("10");
    // Fourteen digits stay fourteen digits, and the message reads in years and hours.
    QTest::addRow("fourteen digits of base delay")
        << QByteArray("baseDelayMs") << QStringLiteral("99999999999999")
        << QStringLiteral("99999999999999 ms (3169 years) is beyond the sensible limit of 24 h.")
        << QStringLiteral("500");
}

void TestPolicyEditor::invalidInput_showsMessageAtTheFieldAndEmitsInvalid()
{
    QFETCH(QByteArray, field);
    QFETCH(QString, typed);
    QFETCH(QString, expected);
    QFETCH(QString, fix);

    PolicyEditor editor;
    BackoffPolicy start;
    start.algorithm = BackoffAlgorithm::ProportionalJitter; // every delay field applies
    editor.setPolicy(start);
    QVERIFY(editor.isUsable());
    QSignalSpy validity(&editor, &PolicyEditor::validityChanged);
    QSignalSpy changed(&editor, &PolicyEditor::policyChanged);

    typeInto(spin(editor, field.constData()), typed);
    QVERIFY(changed.count() >= 1);
    QVERIFY(!editor.isUsable());
    // Intermediate keystrokes may already be invalid (and say so with other numbers).
    QVERIFY(validity.count() >= 1);
    QCOMPARE(validity.constLast().at(0).toBool(), false);
    const QString why = validity.constLast().at(1).toString();
    QVERIFY2(why.contains(expected), qPrintable(why));
    // Said with the field's label, never its internal name.
    if (field != field.toLower())
        QVERIFY2(!why.contains(QString::fromLatin1(field)), qPrintable(why));
    QString label;
    for (const QLabel *candidate : editor.findChildren<QLabel *>()) {
        if (candidate->buddy() == spin(editor, field.constData()))
            label = QString(candidate->text()).remove(QLatin1Char('&'));
    }
    QVERIFY(!label.isEmpty());
    if (!label.isEmpty())
        QVERIFY2(why.startsWith(label + QStringLiteral(": ")), qPrintable(why + QStringLiteral(" / ") + label));

    FieldMessage *shown = message(editor, field.constData());
    QCOMPARE(shown->kind(), FieldMessage::Kind::Error);
    QVERIFY2(shown->text().contains(expected), qPrintable(shown->text()));
    QVERIFY(shown->isVisibleTo(&editor));
    QCOMPARE(child<FieldMessage>(editor, "summary")->kind(), FieldMessage::Kind::Error);

    typeInto(spin(editor, field.constData()), fix);
    QVERIFY2(editor.isUsable(), qPrintable(editor.invalidReason()));
    QCOMPARE(validity.constLast().at(0).toBool(), true);
    QCOMPARE(validity.constLast().at(1).toString(), QString());
    QVERIFY(shown->kind() != FieldMessage::Kind::Error);
}

void TestPolicyEditor::warning_isToldApartFromErrors_andPolicyStaysUsable()
{
    PolicyEditor editor;
    QSignalSpy validity(&editor, &PolicyEditor::validityChanged);
    child<QCheckBox>(editor, "retryNonIdempotent")->click();
    QVERIFY(editor.policy().classification.retryNonIdempotent);
    QVERIFY(editor.isUsable());
    QCOMPARE(validity.count(), 0);
    FieldMessage *shown = message(editor, "retryNonIdempotent");
    QCOMPARE(shown->kind(), FieldMessage::Kind::Warning);
    QVERIFY2(shown->text().contains(QLatin1String("applied twice")), qPrintable(shown->text()));
    QCOMPARE(child<FieldMessage>(editor, "summary")->kind(), FieldMessage::Kind::Warning);

    child<QCheckBox>(editor, "retryNonIdempotent")->click();
    QCOMPARE(shown->kind(), FieldMessage::Kind::None);
    QCOMPARE(child<FieldMessage>(editor, "summary")->kind(), FieldMessage::Kind::Success);
}

void TestPolicyEditor::unreadableStatuses_keepLastGoodValueUntilFixed()
{
    PolicyEditor editor;
    QSignalSpy validity(&editor, &PolicyEditor::validityChanged);
    auto *statuses = child<QLineEdit>(editor, "retryableStatuses");
    const QSet<int> before = editor.policy().classification.retryableStatuses;

    // Appending: every keystroke up to the "f" still reads as the old set.
    statuses->setFocus();
    QTest::keyClick(statuses, Qt::Key_End);
    QTest::keyClicks(statuses, QStringLiteral(", five hundred"));
    QVERIFY(!editor.isUsable());
    QCOMPARE(editor.policy().classification.retryableStatuses, before);
    QCOMPARE(message(editor, "retryableStatuses")->kind(), FieldMessage::Kind::Error);
    QVERIFY(editor.invalidReason().contains(QLatin1String("\"five\"")));

    typeInto(statuses, QStringLiteral("429, 503"));
    QVERIFY(editor.isUsable());
    QCOMPARE(editor.policy().classification.retryableStatuses, (QSet<int>{429, 503}));
    QCOMPARE(validity.constLast().at(0).toBool(), true);

    typeInto(statuses, QStringLiteral("302"));
    QVERIFY(!editor.isUsable());
    QVERIFY2(editor.invalidReason().contains(QLatin1String("not an error")), qPrintable(editor.invalidReason()));
}

void TestPolicyEditor::responseConditions_typedOneALine_errorsAtTheField()
{
    using Condition = Core::ResponseRetryCondition;
    PolicyEditor editor;
    QSignalSpy changed(&editor, &PolicyEditor::policyChanged);
    auto *conditions = child<QPlainTextEdit>(editor, "retryOnResponse");
    QVERIFY(conditions->toPlainText().isEmpty());
    QVERIFY(!conditions->placeholderText().isEmpty());

    // As a person types: every keystroke is read, and the last reads as one condition.
    conditions->setFocus();
    QTest::keyClicks(conditions, QStringLiteral("json /done = false"));
    QVERIFY2(editor.isUsable(), qPrintable(editor.invalidReason()));
    const QList<Condition> one{Condition::jsonEquals(QStringLiteral("/done"), false)};
    QCOMPARE(editor.policy().classification.retryOnResponse, one);
    QVERIFY(!changed.isEmpty());
    QCOMPARE(message(editor, "retryOnResponse")->kind(), FieldMessage::Kind::None);

    // A line that does not read: the error names it, and the policy keeps the last good conditions.
    QTest::keyClick(conditions, Qt::Key_Return);
    QTest::keyClicks(conditions, QStringLiteral("header"));
    QVERIFY(!editor.isUsable());
    QCOMPARE(editor.policy().classification.retryOnResponse, one);
    QCOMPARE(message(editor, "retryOnResponse")->kind(), FieldMessage::Kind::Error);
    QVERIFY2(message(editor, "retryOnResponse")->text().contains(QLatin1String("line 2: write header NAME")),
        qPrintable(message(editor, "retryOnResponse")->text()));
    QTest::keyClicks(conditions, QStringLiteral(" X-Pending"));
    QVERIFY2(editor.isUsable(), qPrintable(editor.invalidReason()));
    QCOMPARE(editor.policy().classification.retryOnResponse,
        (QList<Condition>{one.constFirst(), Condition::headerPresent(QStringLiteral("X-Pending"))}));

    // A condition that reads but cannot be used: validatePolicy()'s error, at the field, by its place.
    conditions->setPlainText(QStringLiteral("body later\njson status = \"PENDING\""));
    QVERIFY(!editor.isUsable());
    QCOMPARE(message(editor, "retryOnResponse")->kind(), FieldMessage::Kind::Error);
    QVERIFY2(message(editor, "retryOnResponse")
                 ->text()
                 .contains(QLatin1String("condition 2: \"status\" is not a JSON pointer")),
        qPrintable(message(editor, "retryOnResponse")->text()));
    QVERIFY2(editor.invalidReason().contains(QLatin1String("condition 2")), qPrintable(editor.invalidReason()));

    // A policy set from outside shows its conditions, one a line, and reads back the same.
    BackoffPolicy p;
    p.classification.retryOnResponse = {Condition::jsonEquals(QStringLiteral("/status"), QStringLiteral("PENDING")),
        Condition::headerPresent(QStringLiteral("X-Retry"), QStringLiteral("yes")),
        Condition::bodyContains(QStringLiteral("try again"))};
    editor.setPolicy(p);
    QVERIFY(editor.isUsable());
    QCOMPARE(
        conditions->toPlainText(), QStringLiteral("json /status = \"PENDING\"\nheader X-Retry = yes\nbody try again"));
    QCOMPARE(message(editor, "retryOnResponse")->kind(), FieldMessage::Kind::None);
    QCOMPARE(editor.policy(), p);
}

void TestPolicyEditor::advice_followsTheUsage_atTheFields()
{
    PolicyEditor editor;
    BackoffPolicy p = *Core::Presets::find(QStringLiteral("iam"));
    p.algorithm = BackoffAlgorithm::Exponential; // no jitter
    editor.setPolicy(p);
    const auto fields = [&editor] {
        QStringList names;
        for (const Core::PolicyIssue &issue : editor.issues())
            names.append(issue.field);
        return names;
    };
    QVERIFY2(!fields().contains(QStringLiteral("algorithm")), qPrintable(fields().join(QLatin1Char(' '))));
    editor.setConcurrentClients(20);
    QVERIFY(fields().contains(QStringLiteral("algorithm")));
    QVERIFY(fields().contains(QStringLiteral("retryBudget.kind")));
    QCOMPARE(message(editor, "algorithm")->kind(), FieldMessage::Kind::Warning);
    QVERIFY2(message(editor, "algorithm")->text().contains(QLatin1String("retry in step")),
        qPrintable(message(editor, "algorithm")->text()));
    QVERIFY(editor.isUsable()); // advice never blocks

    // A person waiting: IAM's 300 s deadline is too long.
    QVERIFY(!fields().contains(QStringLiteral("deadlineMs")));
    child<QCheckBox>(editor, "interactive")->setChecked(true);
    QVERIFY(editor.usage().interactive);
    QVERIFY(fields().contains(QStringLiteral("deadlineMs")));
    QVERIFY(message(editor, "deadlineMs")->text().contains(QLatin1String("a person may wait")));
    editor.setConcurrentClients(1);
    QVERIFY(!fields().contains(QStringLiteral("algorithm")));
}

void TestPolicyEditor::intervalJitterAndDelayFactors_reachThePolicy()
{
    BackoffPolicy p;
    p.algorithm = BackoffAlgorithm::Linear;
    p.intervalJitter = Core::IntervalJitter::Full;
    p.classification.networkDelayFactors = {{Core::NetworkFaultClass::ConnectionReset, 0.25}};
    PolicyEditor editor;
    editor.setPolicy(p);
    QCOMPARE(child<QComboBox>(editor, "intervalJitter")->currentData().toInt(), int(Core::IntervalJitter::Full));
    auto *model = qobject_cast<Ui::FaultActionModel *>(child<QTableView>(editor, "networkActions")->model());
    QCOMPARE(model->delayFactors(), p.classification.networkDelayFactors);

    // Editing a factor in the table reaches the policy; out of range is refused.
    int timeoutRow = -1;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->index(row, 0).data(Ui::FaultActionModel::FaultRole).toInt() == int(Core::NetworkFaultClass::Timeout))
            timeoutRow = row;
    }
    const QModelIndex factor = model->index(timeoutRow, Ui::FaultActionModel::DelayFactorColumn);
    QVERIFY(model->flags(factor) & Qt::ItemIsEditable);
    QVERIFY(model->setData(factor, 2.0));
    QVERIFY(!model->setData(factor, 11.0));
    QVERIFY(!model->setData(factor, -1.0));
    QCOMPARE(factor.data().toString(), QStringLiteral("\u00d7 2"));
    QCOMPARE(editor.policy().classification.delayFactor(Core::NetworkFaultClass::Timeout), 2.0);
    QCOMPARE(editor.policy().classification.delayFactor(Core::NetworkFaultClass::ConnectionReset), 0.25);

    // Factors by status are typed: STATUS=FACTOR; a text that does not read so is an error on the field,
    // and the policy keeps the last good ones.
    auto *byStatus = child<QLineEdit>(editor, "statusDelayFactors");
    typeInto(byStatus, QStringLiteral("429=2, 503=0.5"));
    QCOMPARE(editor.policy().classification.statusDelayFactors, (QMap<int, double>{{429, 2.0}, {503, 0.5}}));
    byStatus->selectAll(); // typed over, never empty on the way: the policy keeps its last readable factors
    QTest::keyClicks(byStatus, QStringLiteral("429=lots"));
    QVERIFY(!editor.isUsable());
    QVERIFY2(message(editor, "statusDelayFactors")->text().contains(QLatin1String("STATUS=FACTOR")),
        qPrintable(message(editor, "statusDelayFactors")->text()));
    QCOMPARE(editor.policy().classification.statusDelayFactors, (QMap<int, double>{{429, 2.0}, {503, 0.5}}));
    typeInto(byStatus, QStringLiteral("429=11"));
    QVERIFY(!editor.isUsable()); // beyond a factor of 10: validatePolicy refuses it
    typeInto(byStatus, QStringLiteral("429=2, 503=0.5"));
    QVERIFY(editor.isUsable());

    // Both survive the policy file.
    const auto back = Core::PolicyJson::fromJson(Core::PolicyJson::toJson(editor.policy()));
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(*back, editor.policy());
}

void TestPolicyEditor::inapplicableFields_areDisabledWithTheReason()
{
    PolicyEditor editor;
    auto *algorithm = child<QComboBox>(editor, "algorithm");

    choose(algorithm, static_cast<int>(BackoffAlgorithm::Constant));
    for (const char *name : {"multiplier", "jitterMs", "jitterFraction"}) {
        QVERIFY2(!spin(editor, name)->isEnabled(), name);
        QCOMPARE(message(editor, name)->kind(), FieldMessage::Kind::Note);
        QVERIFY(message(editor, name)->text().contains(QLatin1String("Not used by Constant")));
    }
    QVERIFY(spin(editor, "baseDelayMs")->isEnabled());
    // Constant and linear take an interval jitter; proportional reads the fraction.
    auto *intervalJitter = child<QComboBox>(editor, "intervalJitter");
    QVERIFY(intervalJitter->isEnabled());
    choose(intervalJitter, static_cast<int>(Core::IntervalJitter::Proportional));
    QCOMPARE(editor.policy().intervalJitter, Core::IntervalJitter::Proportional);
    QVERIFY(spin(editor, "jitterFraction")->isEnabled());
    QVERIFY(Core::hasJitter(editor.policy()));
    choose(intervalJitter, static_cast<int>(Core::IntervalJitter::None));
    QVERIFY(!spin(editor, "jitterFraction")->isEnabled());

    choose(algorithm, static_cast<int>(BackoffAlgorithm::GoogleTruncatedExponential));
    QVERIFY(!intervalJitter->isEnabled());
    QVERIFY(message(editor, "intervalJitter")->text().contains(QLatin1String("only the constant and linear")));
    QVERIFY(spin(editor, "multiplier")->isEnabled());
    QVERIFY(spin(editor, "jitterMs")->isEnabled());
    QVERIFY(!spin(editor, "jitterFraction")->isEnabled());
    QCOMPARE(message(editor, "multiplier")->kind(), FieldMessage::Kind::None);
    QVERIFY(spin(editor, "multiplier")
                ->toolTip()
                .contains(Core::algorithmFormula(BackoffAlgorithm::GoogleTruncatedExponential)));

    choose(algorithm, static_cast<int>(BackoffAlgorithm::Immediate));
    QVERIFY(!spin(editor, "baseDelayMs")->isEnabled());
    QVERIFY(!spin(editor, "maxBackoffMs")->isEnabled());

    choose(algorithm, static_cast<int>(BackoffAlgorithm::DecorrelatedJitter));
    QVERIFY(message(editor, "multiplier")->text().contains(QLatin1String("factor of 3")));

    // Settings that switch a group of fields on.
    auto *honour = child<QCheckBox>(editor, "honourRetryAfter");
    honour->setChecked(false);
    QVERIFY(!spin(editor, "maxRetryAfterMs")->isEnabled());
    honour->setChecked(true);
    QVERIFY(spin(editor, "maxRetryAfterMs")->isEnabled());

    auto *breaker = child<QCheckBox>(editor, "circuitBreaker");
    QVERIFY(!breaker->isChecked());
    QVERIFY(!spin(editor, "circuitBreaker.openMs")->isEnabled());
    breaker->click();
    QVERIFY(spin(editor, "circuitBreaker.openMs")->isEnabled());
    QVERIFY(editor.policy().circuitBreaker.enabled);
}

void TestPolicyEditor::fieldWithError_staysEditableEvenWhenInapplicable()
{
    PolicyEditor editor;
    typeInto(spin(editor, "multiplier"), QStringLiteral("500"));
    QVERIFY(!editor.isUsable());
    choose(child<QComboBox>(editor, "algorithm"), static_cast<int>(BackoffAlgorithm::Constant));
    QVERIFY(!editor.isUsable());
    QVERIFY2(spin(editor, "multiplier")->isEnabled(), "the error could not be fixed otherwise");
    QCOMPARE(message(editor, "multiplier")->kind(), FieldMessage::Kind::Error);
    typeInto(spin(editor, "multiplier"), QStringLiteral("2"));
    QVERIFY(editor.isUsable());
    QVERIFY(!spin(editor, "multiplier")->isEnabled());
}

void TestPolicyEditor::budgetFields_onlyForTheChosenBudget()
{
    PolicyEditor editor;
    auto *budget = child<QComboBox>(editor, "retryBudget.kind");
    // Relative to the group: the tab page itself is hidden while another tab is current.
    auto visible = [&](const char *name) {
        UnitSpinBox *box = spin(editor, name);
        return box->isVisibleTo(box->parentWidget());
    };

    QCOMPARE(editor.policy().retryBudget.kind, Core::RetryBudgetKind::None);
    QVERIFY(!visible("retryBudget.awsCapacity"));
    QVERIFY(!visible("retryBudget.grpcMaxTokens"));

    choose(budget, static_cast<int>(Core::RetryBudgetKind::AwsStandard));
    QVERIFY(visible("retryBudget.awsCapacity"));
    QVERIFY(!visible("retryBudget.grpcMaxTokens"));

    choose(budget, static_cast<int>(Core::RetryBudgetKind::GrpcThrottling));
    QVERIFY(!visible("retryBudget.awsCapacity"));
    QVERIFY(visible("retryBudget.grpcTokenRatio"));
    typeInto(spin(editor, "retryBudget.grpcMaxTokens"), QStringLiteral("0"));
    QVERIFY(!editor.isUsable());
    QCOMPARE(message(editor, "retryBudget.grpcMaxTokens")->kind(), FieldMessage::Kind::Error);
}

void TestPolicyEditor::presetCombo_loadsBuiltInPresets_andMarksEdits()
{
    PolicyEditor editor;
    auto *combo = child<QComboBox>(editor, "presetCombo");
    QCOMPARE(combo->count(), Core::Presets::all().size());
    QSignalSpy changed(&editor, &PolicyEditor::policyChanged);

    choose(combo, QStringLiteral("builtin:iam"));
    QCOMPARE(editor.policy(), *Core::Presets::find(QStringLiteral("iam")));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(editor.presetBar()->presetKey(), QStringLiteral("builtin:iam"));
    QVERIFY(!editor.presetBar()->isModified());

    setShown(spin(editor, "maxBackoffMs"), 64'000);
    QVERIFY(editor.presetBar()->isModified());
    QCOMPARE(editor.presetBar()->presetKey(), QStringLiteral("builtin:iam"));

    // Choosing the preset again discards the edit.
    choose(combo, QStringLiteral("builtin:iam"));
    QVERIFY(!editor.presetBar()->isModified());
    QCOMPARE(editor.policy().maxBackoffMs, 32'000.0);
}

void TestPolicyEditor::userPresets_saveLoadOverwriteDelete_persistThroughSettings()
{
    BackoffPolicy saved;
    {
        Settings settings;
        PolicyEditor editor(&settings);
        QVERIFY(editor.presetBar()->loadBuiltInPreset(QStringLiteral("memorystore")));
        setShown(spin(editor, "maxAttempts"), 4);
        QVERIFY(editor.presetBar()->isModified());

        QVERIFY(editor.presetBar()->saveAsUserPreset(QStringLiteral("Redis, patient")));
        QCOMPARE(editor.presetBar()->presetKey(), QStringLiteral("user:Redis, patient"));
        QCOMPARE(editor.policy().name, QStringLiteral("Redis, patient"));
        QVERIFY(!editor.presetBar()->isModified());
        QVERIFY(editor.presetBar()->lastMessage().contains(QLatin1String("Saved")));
        saved = editor.policy();
        QVERIFY(child<QComboBox>(editor, "presetCombo")->findData(QStringLiteral("user:Redis, patient")) >= 0);
    }
    {
        // Another editor over a fresh Settings object finds it in the file.
        Settings settings;
        QCOMPARE(settings.userPreset(QStringLiteral("redis, PATIENT")), saved);
        PolicyEditor editor(&settings);
        QVERIFY(child<QComboBox>(editor, "presetCombo")->findData(QStringLiteral("user:Redis, patient")) >= 0);
        QVERIFY(editor.presetBar()->loadUserPreset(QStringLiteral("redis, patient")));
        QCOMPARE(editor.policy(), saved);

        auto *overwrite = child<QToolButton>(editor, "overwriteButton");
        QVERIFY(!overwrite->isEnabled());
        setShown(spin(editor, "baseDelayMs"), 750);
        QVERIFY(overwrite->isEnabled());
        QVERIFY(editor.presetBar()->overwriteUserPreset());
        saved = editor.policy();
    }
    {
        Settings settings;
        QCOMPARE(settings.userPreset(QStringLiteral("Redis, patient"))->baseDelayMs, 750.0);
        PolicyEditor editor(&settings);
        QVERIFY(editor.presetBar()->loadUserPreset(QStringLiteral("Redis, patient")));
        QVERIFY(child<QToolButton>(editor, "deleteButton")->isEnabled());
        QVERIFY(editor.presetBar()->deleteUserPreset(QStringLiteral("Redis, patient")));
        QCOMPARE(editor.policy(), saved); // the policy stays in the editor
        QVERIFY(editor.presetBar()->presetKey().isEmpty());
        QCOMPARE(child<QComboBox>(editor, "presetCombo")->findData(QStringLiteral("user:Redis, patient")), -1);
        QVERIFY(!editor.presetBar()->deleteUserPreset(QStringLiteral("Redis, patient")));
    }
    QVERIFY(Settings().userPresets().isEmpty());
}

void TestPolicyEditor::userPresets_builtInName_isRefusedWithMessage()
{
    Settings settings;
    PolicyEditor editor(&settings);
    const BackoffPolicy before = editor.policy();
    const auto saved = editor.presetBar()->saveAsUserPreset(QStringLiteral("IAM"));
    QVERIFY(!saved);
    const QString error = saved.error();
    QVERIFY2(error.contains(QLatin1String("built-in")), qPrintable(error));
    QCOMPARE(editor.presetBar()->lastMessage(), error);
    QCOMPARE(child<FieldMessage>(editor, "actionMessage")->kind(), FieldMessage::Kind::Error);
    QCOMPARE(editor.policy(), before);
    QVERIFY(settings.userPresets().isEmpty());
}

void TestPolicyEditor::import_malformedFile_namesTheFieldAndKeepsPolicy_data()
{
    QTest::addColumn<QByteArray>("contents");
    QTest::addColumn<QString>("named");
    QTest::addRow("not JSON") << QByteArray("{ \"baseDelayMs\": ") << QStringLiteral("not valid JSON");
    QTest::addRow("array") << QByteArray("[1, 2]") << QStringLiteral("JSON object");
    QTest::addRow("wrong type") << QByteArray(R"({"baseDelayMs": "fast"})") << QStringLiteral("baseDelayMs");
    QTest::addRow("cap below base") << QByteArray(R"({"baseDelayMs": 5000, "maxBackoffMs": 10})")
                                    << QStringLiteral("maxBackoffMs");
    QTest::addRow("unknown algorithm") << QByteArray(R"({"algorithm": "telepathy"})") << QStringLiteral("telepathy");
    QTest::addRow("nested field") << QByteArray(R"({"circuitBreaker": {"window": 2.5}})")
                                  << QStringLiteral("circuitBreaker.window");
    QTest::addRow("bad status") << QByteArray(R"({"classification": {"retryableStatuses": [503, "x"]}})")
                                << QStringLiteral("retryableStatuses");
    QTest::addRow("missing file") << QByteArray() << QStringLiteral("cannot read");
}

void TestPolicyEditor::import_malformedFile_namesTheFieldAndKeepsPolicy()
{
    QFETCH(QByteArray, contents);
    QFETCH(QString, named);

    const QString path = m_dir.filePath(QStringLiteral("bad-%1.json")
                                            .arg(QString::fromLatin1(QTest::currentDataTag()))
                                            .replace(QLatin1Char(' '), QLatin1Char('-')));
    if (!contents.isEmpty()) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
    }

    PolicyEditor editor;
    QVERIFY(editor.presetBar()->loadBuiltInPreset(QStringLiteral("grpc-retry-policy")));
    setShown(spin(editor, "maxAttempts"), 3); // an unsaved edit must survive too
    const BackoffPolicy before = editor.policy();
    QSignalSpy changed(&editor, &PolicyEditor::policyChanged);

    QVERIFY(!editor.presetBar()->importFile(path));
    QCOMPARE(editor.policy(), before);
    QCOMPARE(changed.count(), 0);
    QVERIFY2(editor.presetBar()->lastMessage().contains(named), qPrintable(editor.presetBar()->lastMessage()));
    QVERIFY(editor.presetBar()->lastMessage().contains(QLatin1String("unchanged")));
    QCOMPARE(child<FieldMessage>(editor, "actionMessage")->kind(), FieldMessage::Kind::Error);
}

void TestPolicyEditor::exportThenImport_roundTrips()
{
    const QString path = m_dir.filePath(QStringLiteral("exported.json"));
    PolicyEditor source;
    QVERIFY(source.presetBar()->loadBuiltInPreset(QStringLiteral("aws-standard")));
    setShown(spin(source, "baseDelayMs"), 80);
    QVERIFY(source.presetBar()->exportFile(path));
    QVERIFY(source.presetBar()->lastMessage().contains(QLatin1String("Exported")));

    PolicyEditor target;
    QSignalSpy changed(&target, &PolicyEditor::policyChanged);
    QVERIFY(target.presetBar()->importFile(path));
    QCOMPARE(target.policy(), source.policy());
    QCOMPARE(changed.count(), 1);
    verifyWidgetsShow(target, source.policy());
}

void TestPolicyEditor::export_refusedWhilePolicyHasErrors()
{
    const QString path = m_dir.filePath(QStringLiteral("never.json"));
    PolicyEditor editor;
    typeInto(spin(editor, "baseDelayMs"), QStringLiteral("-1"));
    QVERIFY(!child<QToolButton>(editor, "exportButton")->isEnabled());
    QVERIFY(!editor.presetBar()->exportFile(path));
    QVERIFY(!QFile::exists(path));
    QVERIFY(editor.presetBar()->lastMessage().contains(QLatin1String("errors")));
}

void TestPolicyEditor::layout_narrowOrWide_everyPageFitsItsView_data()
{
    QTest::addColumn<int>("width");
    QTest::newRow("narrow dock") << 360;
    QTest::newRow("default dock") << 430;
    QTest::newRow("wide window") << 900;
}

void TestPolicyEditor::layout_narrowOrWide_everyPageFitsItsView()
{
    // A page wider than its view would be cut at the dock's edge (its horizontal
    // scroll bar is off): wrapped notes must wrap inside what is seen.
    QFETCH(int, width);
    PolicyEditor editor;
    editor.resize(width, 700);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    auto *tabs = editor.findChild<QTabWidget *>();
    QVERIFY(tabs);
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        auto *area = qobject_cast<QScrollArea *>(tabs->currentWidget());
        QVERIFY(area && area->widget());
        QTRY_VERIFY2(area->widget()->width() <= area->viewport()->width(),
            qPrintable(QStringLiteral("%1: page %2 px in a view of %3 px (its least: %4 px)")
                           .arg(tabs->tabText(i))
                           .arg(area->widget()->width())
                           .arg(area->viewport()->width())
                           .arg(area->widget()->minimumSizeHint().width())));
    }
}

// The widget that edits a field of the table: named after it, except the
// breaker's switch, which carries the messages about the whole breaker.
QString widgetName(const Core::PolicyField &field)
{
    return field.id == Core::PolicyFieldId::BreakerEnabled ? field.object() : field.name();
}

void TestPolicyEditor::fieldTable_oneWidgetPerField_withItsUnitAndLabel()
{
    PolicyEditor editor;
    int numbers = 0;
    for (const Core::PolicyField &field : Core::policyFields()) {
        // The delay factors are a column of the network actions' table.
        if (field.id == Core::PolicyFieldId::NetworkDelayFactors) {
            QVERIFY(child<QTableView>(editor, "networkActions")->model()->columnCount() > 2);
            continue;
        }
        const QString name = widgetName(field);
        const QList<QWidget *> widgets = editor.findChildren<QWidget *>(name);
        QVERIFY2(widgets.size() == 1, qPrintable(name));
        QWidget *widget = widgets.first();
        QCOMPARE(widget->toolTip().left(field.toolTip().size()), field.toolTip());
        switch (field.type) {
        case Core::PolicyField::Type::Number:
        case Core::PolicyField::Type::WholeNumber: {
            auto *box = qobject_cast<UnitSpinBox *>(widget);
            QVERIFY2(box, qPrintable(name));
            ++numbers;
            QCOMPARE(box->scale(), field.displayScale);
            QCOMPARE(box->decimals(), field.decimals());
            QCOMPARE(box->suffix().trimmed(), field.unitText());
            // What the box shows is the policy's value.
            QCOMPARE(box->storedValue(), field.number(editor.policy()));
            break;
        }
        case Core::PolicyField::Type::Switch: {
            auto *check = qobject_cast<QCheckBox *>(widget);
            QVERIFY2(check, qPrintable(name));
            QCOMPARE(check->text(), field.title());
            QCOMPARE(check->isChecked(), field.flag(editor.policy()));
            break;
        }
        case Core::PolicyField::Type::Text:
        case Core::PolicyField::Type::Choice:
        case Core::PolicyField::Type::Collection:
            break;
        }
        // The label the form shows, when it has one.
        const auto labels = editor.findChildren<QLabel *>();
        const bool labelled
            = std::any_of(labels.cbegin(), labels.cend(), [widget](QLabel *l) { return l->buddy() == widget; });
        if (labelled) {
            const auto label
                = std::find_if(labels.cbegin(), labels.cend(), [widget](QLabel *l) { return l->buddy() == widget; });
            QCOMPARE((*label)->text(), field.title());
        }
    }
    // No number field outside the table.
    QCOMPARE(editor.findChildren<UnitSpinBox *>().size(), numbers);
}

void TestPolicyEditor::fieldTable_delayFieldsEnabledAsTheAlgorithmUsesThem_data()
{
    QTest::addColumn<BackoffAlgorithm>("algorithm");
    for (BackoffAlgorithm algorithm : Core::allAlgorithms())
        QTest::addRow("%s", qPrintable(Core::algorithmName(algorithm))) << algorithm;
}

void TestPolicyEditor::fieldTable_delayFieldsEnabledAsTheAlgorithmUsesThem()
{
    QFETCH(BackoffAlgorithm, algorithm);
    PolicyEditor editor;
    BackoffPolicy policy;
    policy.algorithm = algorithm;
    editor.setPolicy(policy);
    for (const Core::PolicyField &field : Core::policyFields()) {
        if (!field.delayField)
            continue;
        const QString name = widgetName(field);
        const bool hasIssue = std::any_of(editor.issues().cbegin(), editor.issues().cend(),
            [&name](const Core::PolicyIssue &issue) { return issue.field == name; });
        if (hasIssue)
            continue; // a field with a message stays editable
        QVERIFY2(editor.findChild<QWidget *>(name)->isEnabled() == field.usedBy(algorithm), qPrintable(name));
    }
}

QTEST_MAIN(TestPolicyEditor)
#include "tst_policyeditor.moc"
