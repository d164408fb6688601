#include "core/policy/policyjson.h"
#include "core/policy/presets.h"
#include "ui/policy/presetbar.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/fieldmessage.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;
using Core::BackoffPolicy;
using Ui::FieldMessage;
using Ui::PresetBar;
using Ui::Settings;

Q_DECLARE_METATYPE(RetryLab::Core::BackoffPolicy)

namespace {

template<typename T>
T *child(const PresetBar &bar, const char *name)
{
    auto *widget = bar.findChild<T *>(QString::fromLatin1(name));
    if (!widget)
        qFatal("no widget named %s", name);
    return widget;
}

// As a person would: pick in the combo box.
void choose(QComboBox *combo, const QString &key)
{
    const int index = combo->findData(key);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    Q_EMIT combo->activated(index);
}

bool modifiedShown(const PresetBar &bar)
{
    const auto labels = bar.findChildren<QLabel *>();
    for (const QLabel *label : labels) {
        if (label->text() == QLatin1String("(modified)"))
            return label->isVisibleTo(&bar);
    }
    qFatal("no (modified) label");
    return false;
}

// Reports back as PolicyEditor does: the bar keeps its preset after presetChosen()
// and looks for a matching one after policyImported().
void ownLikeTheEditor(PresetBar &bar)
{
    QObject::connect(&bar, &PresetBar::presetChosen, &bar, &PresetBar::setEditedPolicy);
    QObject::connect(&bar, &PresetBar::policyImported, &bar, &PresetBar::setPolicy);
}

BackoffPolicy preset(const char *id)
{
    return *Core::Presets::find(QString::fromLatin1(id));
}

} // namespace

class TestPresetBar final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void builtInPreset_chosen_isEmittedAndMarkedUnmodified();
    void setPolicy_findsThePreset_setEditedPolicy_keepsItAndMarksEdits();
    void withoutSettings_ownPresetActionsAreOff();
    void saveAs_storesTheNamedPolicyAndEmitsIt();
    void saveAs_refusedWhileTheStatusesCannotBeRead();
    void overwrite_onlyOwnPresets_deleteKeepsThePolicy();
    void import_emitsTheFilesPolicy_malformedEmitsNothing();
    void export_followsUsability();

private:
    QTemporaryDir m_dir;
};

void TestPresetBar::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RetryLab"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_presetbar"));
    QVERIFY(m_dir.isValid());
}

void TestPresetBar::init()
{
    QFile::remove(QSettings().fileName());
}

void TestPresetBar::builtInPreset_chosen_isEmittedAndMarkedUnmodified()
{
    PresetBar bar;
    auto *combo = child<QComboBox>(bar, "presetCombo");
    QCOMPARE(combo->count(), Core::Presets::all().size());
    QSignalSpy chosen(&bar, &PresetBar::presetChosen);

    choose(combo, QStringLiteral("builtin:iam"));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.constFirst().constFirst().value<BackoffPolicy>(), preset("iam"));
    QCOMPARE(bar.presetKey(), QStringLiteral("builtin:iam"));
    QVERIFY(!bar.isModified());
    QVERIFY(!modifiedShown(bar));

    QVERIFY(bar.loadBuiltInPreset(QStringLiteral("memorystore")));
    QCOMPARE(chosen.count(), 2);
    QCOMPARE(bar.presetKey(), QStringLiteral("builtin:memorystore"));
    QVERIFY(!bar.loadBuiltInPreset(QStringLiteral("no-such-preset")));
    QCOMPARE(chosen.count(), 2);
}

void TestPresetBar::setPolicy_findsThePreset_setEditedPolicy_keepsItAndMarksEdits()
{
    PresetBar bar;
    auto *combo = child<QComboBox>(bar, "presetCombo");
    bar.setPolicy(preset("iam"));
    QCOMPARE(bar.presetKey(), QStringLiteral("builtin:iam"));
    QCOMPARE(combo->currentData().toString(), QStringLiteral("builtin:iam"));

    BackoffPolicy edited = preset("iam");
    edited.maxBackoffMs = 64'000.0;
    bar.setEditedPolicy(edited);
    QCOMPARE(bar.presetKey(), QStringLiteral("builtin:iam"));
    QVERIFY(bar.isModified());
    QVERIFY(modifiedShown(bar));

    // The same policy as a whole new one matches no preset.
    bar.setPolicy(edited);
    QVERIFY(bar.presetKey().isEmpty());
    QCOMPARE(combo->currentIndex(), -1);
    QVERIFY(!bar.isModified());
}

void TestPresetBar::withoutSettings_ownPresetActionsAreOff()
{
    PresetBar bar;
    for (const char *name : {"saveAsButton", "overwriteButton", "deleteButton"}) {
        auto *button = child<QToolButton>(bar, name);
        QVERIFY2(!button->isEnabled(), name);
        QVERIFY2(button->toolTip().contains(QLatin1String("settings")), name);
    }
    QVERIFY(child<QToolButton>(bar, "importButton")->isEnabled());
    const auto saved = bar.saveAsUserPreset(QStringLiteral("Mine"));
    QVERIFY(!saved);
    QVERIFY2(saved.error().contains(QLatin1String("settings")), qPrintable(saved.error()));
    QVERIFY(!bar.loadUserPreset(QStringLiteral("Mine")));
    QVERIFY(!bar.deleteUserPreset(QStringLiteral("Mine")));
}

void TestPresetBar::saveAs_storesTheNamedPolicyAndEmitsIt()
{
    Settings settings;
    PresetBar bar(&settings);
    ownLikeTheEditor(bar);
    QVERIFY(bar.loadBuiltInPreset(QStringLiteral("memorystore")));
    BackoffPolicy edited = preset("memorystore");
    edited.maxAttempts = 4;
    bar.setEditedPolicy(edited);
    QSignalSpy chosen(&bar, &PresetBar::presetChosen);

    QVERIFY(bar.saveAsUserPreset(QStringLiteral("  Redis, patient ")));
    QCOMPARE(chosen.count(), 1);
    BackoffPolicy expected = edited;
    expected.name = QStringLiteral("Redis, patient");
    // The built-in's description and source describe its numbers, not these.
    const BackoffPolicy base = preset("memorystore");
    expected.description = QStringLiteral("Yours, made from the preset \"%1\".").arg(base.name);
    expected.source = QStringLiteral("Your edit of \"%1\" (%2)").arg(base.name, base.source);
    QCOMPARE(chosen.constFirst().constFirst().value<BackoffPolicy>(), expected);
    QCOMPARE(settings.userPreset(QStringLiteral("Redis, patient")), expected);
    QCOMPARE(bar.presetKey(), QStringLiteral("user:Redis, patient"));
    QVERIFY(!bar.isModified());
    QVERIFY(child<QComboBox>(bar, "presetCombo")->findData(QStringLiteral("user:Redis, patient")) >= 0);
    QCOMPARE(bar.lastMessage(), QStringLiteral("Saved as your preset \"Redis, patient\"."));
    QCOMPARE(child<FieldMessage>(bar, "actionMessage")->kind(), FieldMessage::Kind::Success);

    // A built-in name is refused by Settings, and the refusal is shown.
    const auto refused = bar.saveAsUserPreset(QStringLiteral("IAM"));
    QVERIFY(!refused);
    QCOMPARE(bar.lastMessage(), refused.error());
    QCOMPARE(child<FieldMessage>(bar, "actionMessage")->kind(), FieldMessage::Kind::Error);
    QCOMPARE(chosen.count(), 1);
}

void TestPresetBar::saveAs_refusedWhileTheStatusesCannotBeRead()
{
    Settings settings;
    PresetBar bar(&settings);
    QSignalSpy chosen(&bar, &PresetBar::presetChosen);
    bar.setStatusesError(QStringLiteral("\"five\" is not a status code"));
    const auto saved = bar.saveAsUserPreset(QStringLiteral("Mine"));
    QVERIFY(!saved);
    QVERIFY2(saved.error().startsWith(QLatin1String("Fix the retryable statuses first: \"five\"")),
        qPrintable(saved.error()));
    QCOMPARE(bar.lastMessage(), saved.error());
    QCOMPARE(chosen.count(), 0);
    QVERIFY(settings.userPresets().isEmpty());

    bar.setStatusesError(QString());
    QVERIFY(bar.saveAsUserPreset(QStringLiteral("Mine")));
    QCOMPARE(chosen.count(), 1);
}

void TestPresetBar::overwrite_onlyOwnPresets_deleteKeepsThePolicy()
{
    Settings settings;
    PresetBar bar(&settings);
    ownLikeTheEditor(bar);
    auto *overwrite = child<QToolButton>(bar, "overwriteButton");
    auto *remove = child<QToolButton>(bar, "deleteButton");

    QVERIFY(bar.loadBuiltInPreset(QStringLiteral("iam")));
    QVERIFY(!remove->isEnabled());
    const auto refused = bar.overwriteUserPreset();
    QVERIFY(!refused);
    QVERIFY2(refused.error().contains(QLatin1String("Only presets of your own")), qPrintable(refused.error()));

    QVERIFY(bar.saveAsUserPreset(QStringLiteral("Mine")));
    QVERIFY(remove->isEnabled());
    QVERIFY(!overwrite->isEnabled()); // nothing to overwrite yet
    BackoffPolicy edited = *settings.userPreset(QStringLiteral("Mine"));
    edited.baseDelayMs = 750.0;
    bar.setEditedPolicy(edited);
    QVERIFY(overwrite->isEnabled());
    QVERIFY(bar.overwriteUserPreset());
    QCOMPARE(settings.userPreset(QStringLiteral("Mine"))->baseDelayMs, 750.0);
    QVERIFY(!overwrite->isEnabled());

    QSignalSpy chosen(&bar, &PresetBar::presetChosen);
    QVERIFY(bar.deleteUserPreset(QStringLiteral("Mine")));
    QCOMPARE(chosen.count(), 0); // the policy stays with the owner
    QVERIFY(bar.presetKey().isEmpty());
    QCOMPARE(child<QComboBox>(bar, "presetCombo")->findData(QStringLiteral("user:Mine")), -1);
    QVERIFY(bar.lastMessage().contains(QLatin1String("still in the editor")));
    QVERIFY(!bar.deleteUserPreset(QStringLiteral("Mine")));
    QVERIFY(bar.lastMessage().contains(QLatin1String("no preset of yours")));
}

void TestPresetBar::import_emitsTheFilesPolicy_malformedEmitsNothing()
{
    const QString good = m_dir.filePath(QStringLiteral("good.json"));
    BackoffPolicy policy = preset("aws-standard");
    policy.baseDelayMs = 80.0;
    QVERIFY(Core::PolicyJson::writeFile(good, policy));
    const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
    {
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"baseDelayMs": "fast"})");
    }

    PresetBar bar;
    QSignalSpy imported(&bar, &PresetBar::policyImported);
    QVERIFY(!bar.importFile(bad));
    QCOMPARE(imported.count(), 0);
    QVERIFY2(bar.lastMessage().contains(QLatin1String("baseDelayMs")), qPrintable(bar.lastMessage()));
    QVERIFY(bar.lastMessage().contains(QLatin1String("unchanged")));
    QCOMPARE(child<FieldMessage>(bar, "actionMessage")->kind(), FieldMessage::Kind::Error);

    QVERIFY(bar.importFile(good));
    QCOMPARE(imported.count(), 1);
    QCOMPARE(imported.constFirst().constFirst().value<BackoffPolicy>(), policy);
    QVERIFY2(bar.lastMessage().startsWith(QStringLiteral("Imported \"%1\"").arg(policy.name)),
        qPrintable(bar.lastMessage()));
}

void TestPresetBar::export_followsUsability()
{
    const QString path = m_dir.filePath(QStringLiteral("exported.json"));
    PresetBar bar;
    auto *button = child<QToolButton>(bar, "exportButton");
    BackoffPolicy policy = preset("grpc-retry-policy");
    policy.maxAttempts = 3;
    bar.setPolicy(policy);

    bar.setUsable(false);
    QVERIFY(!button->isEnabled());
    QVERIFY(button->toolTip().contains(QLatin1String("Fix the errors first")));
    QVERIFY(!bar.exportFile(path));
    QVERIFY(!QFile::exists(path));
    QVERIFY(bar.lastMessage().contains(QLatin1String("errors")));

    bar.setUsable(true);
    QVERIFY(button->isEnabled());
    QVERIFY(bar.exportFile(path));
    QVERIFY(bar.lastMessage().startsWith(QLatin1String("Exported to")));
    const auto read = Core::PolicyJson::readFile(path);
    QVERIFY2(read.ok(), qPrintable(read.error()));
    QCOMPARE(*read, policy);
}

QTEST_MAIN(TestPresetBar)
#include "tst_presetbar.moc"
