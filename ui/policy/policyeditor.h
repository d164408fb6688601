#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/policyadvice.h"
#include "core/policy/policyfields.h"
#include "ui/policy/presetbar.h"

#include <QHash>
#include <QList>
#include <QWidget>

#include <functional>
#include <optional>

QT_BEGIN_NAMESPACE
class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
QT_END_NAMESPACE

namespace RetryLab::Ui {

class FaultActionModel;
class FieldMessage;
class Settings;

/// Edits every field of a Core::BackoffPolicy, meant to live in a dock. Each
/// field has its unit, a tooltip that explains it, and the messages of
/// Core::validatePolicy() right below it (errors and warnings told apart);
/// fields the policy does not use are disabled with Core::unusedFieldReason().
/// The fields, their labels, units and help come from Core::policyFields().
/// Above the form, presetBar() offers the built-in presets and the user's own
/// (kept through Settings) and imports and exports policies as JSON.
///
/// The editor holds the policy itself, so values are never rounded by what a
/// field can display: policy() returns exactly what setPolicy() was given,
/// plus the user's edits.
class PolicyEditor final : public QWidget
{
    Q_OBJECT

public:
    /// `settings` keeps the user's presets; without it only built-in presets are offered.
    explicit PolicyEditor(Settings *settings = nullptr, QWidget *parent = nullptr);
    ~PolicyEditor() override;

    Core::BackoffPolicy policy() const { return m_policy; }
    /// Shows the policy; emits policyChanged() when it differs from the current one.
    void setPolicy(const Core::BackoffPolicy &policy);

    /// False while validatePolicy() reports an error or a field holds text
    /// that cannot be read (then policy() still holds the last readable value).
    bool isUsable() const { return m_usable; }
    /// Why the policy cannot be used, one line per error; empty when usable.
    QString invalidReason() const { return m_invalidReason; }
    /// Everything shown next to the fields: validatePolicy()'s findings, the
    /// advice for the usage (Core::advisePolicy()) and the editor's own.
    QList<Core::PolicyIssue> issues() const { return m_issues; }
    /// How the policy will be used: the composer's concurrency; whether a person
    /// waits is the editor's own check box. The advice follows.
    void setConcurrentClients(int clients);
    Core::PolicyUsage usage() const { return m_usage; }

    /// The preset chooser and its actions above the form: loading, saving and
    /// deleting presets, importing and exporting files.
    PresetBar *presetBar() const { return m_presetBar; }

Q_SIGNALS:
    void policyChanged(const Core::BackoffPolicy &policy);
    void validityChanged(bool usable, const QString &why);

protected:
    void changeEvent(QEvent *event) override;

private:
    QComboBox *m_intervalJitterCombo = nullptr;
    QCheckBox *m_interactive = nullptr;
    Core::PolicyUsage m_usage;
    struct Field
    {
        const Core::PolicyField *descriptor = nullptr; ///< nullptr for a field outside the table
        QString name;
        QString title;
        QWidget *editor = nullptr;
        QFormLayout *form = nullptr;
        FieldMessage *message = nullptr;
        int tab = 0;
        QString toolTip;
        bool formulaInToolTip = false;
        std::function<void()> show;
    };

    QWidget *buildBackoffTab();
    QWidget *buildClassificationTab();
    QWidget *buildProtectionTab();
    QWidget *buildDetailsTab();
    QWidget *addTab(QWidget *content, const QString &title);

    /// The table's numbers and switches of `section`, in the table's order; `afterSwitch`
    /// goes below the section's switch (the breaker's note).
    void addTableFields(QFormLayout *form, Core::PolicyField::Section section, QWidget *afterSwitch = nullptr);
    /// A field of the table; `title` replaces its label (empty: none).
    void addField(QFormLayout *form, const Core::PolicyField &field, QWidget *editor, std::function<void()> show,
        std::optional<QString> title = std::nullopt);
    void addField(QFormLayout *form, const QString &name, const QString &title, QWidget *editor, const QString &toolTip,
        std::function<void()> show);
    void addNumberField(QFormLayout *form, const Core::PolicyField &field);
    void addCheckField(QFormLayout *form, const Core::PolicyField &field);
    Field *field(const QString &name);

    void handleFieldEdited();
    void handleStatusesEdited(const QString &text);
    void handleStatusFactorsEdited(const QString &text);
    void handleConditionsEdited();
    void handlePresetChosen(const Core::BackoffPolicy &policy);
    /// Shows `policy`; false when it was shown already (and nothing was pending).
    bool showPolicy(const Core::BackoffPolicy &policy);

    void refreshFields();
    void revalidate();
    void updateApplicability();
    void updateFormula();

    Core::BackoffPolicy m_policy;
    QString m_statusesError;
    QLineEdit *m_statusFactorsEdit = nullptr;
    /// Text in the factors field that does not read as STATUS=FACTOR pairs (the policy keeps the last good ones).
    QString m_statusFactorsError;
    /// The conditions on a response, one a line (Core::ResponseConditions' text).
    QPlainTextEdit *m_conditionsEdit = nullptr;
    /// Text in the conditions field that does not read (the policy keeps the last good conditions).
    QString m_conditionsError;
    QList<Core::PolicyIssue> m_issues;
    bool m_usable = true;
    QString m_invalidReason;
    bool m_updating = false;

    QList<Field> m_fields;
    QHash<QString, qsizetype> m_fieldIndex;
    int m_currentTab = 0;

    PresetBar *m_presetBar = nullptr;
    QTabWidget *m_tabs = nullptr;
    QComboBox *m_algorithmCombo = nullptr;
    QLabel *m_formulaLabel = nullptr;
    QLabel *m_algorithmNote = nullptr;
    QLineEdit *m_statusesEdit = nullptr;
    FaultActionModel *m_faultModel = nullptr;
    QTableView *m_faultView = nullptr;
    QComboBox *m_budgetCombo = nullptr;
    QLabel *m_budgetNote = nullptr;
    QComboBox *m_limiterCombo = nullptr;
    QLabel *m_breakerNote = nullptr;
    FieldMessage *m_summary = nullptr;
    FieldMessage *m_otherIssues = nullptr;
};

} // namespace RetryLab::Ui
