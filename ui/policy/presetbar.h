#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QString>
#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QComboBox;
class QLabel;
class QToolButton;
QT_END_NAMESPACE

namespace RetryLab::Ui {

class FieldMessage;
class Settings;

/// The preset chooser above the policy editor's form: the built-in presets and
/// the user's own (kept through Settings), "(modified)" while the policy
/// differs from the chosen one, the actions save as, overwrite, delete, import
/// and export, and a line for the last action's outcome.
///
/// The policy belongs to the bar's owner. The owner tells the bar what it
/// shows (setPolicy(), setEditedPolicy(), setUsable(), setStatusesError()); the
/// bar tells the owner what to show (presetChosen(), policyImported()) and the
/// owner then reports the result back. Kept apart from the form so that the
/// editor is the form, and preset handling can be tested without it.
class PresetBar final : public QWidget
{
    Q_OBJECT

public:
    /// `settings` keeps the user's presets; without it only built-in presets are offered.
    explicit PresetBar(Settings *settings = nullptr, QWidget *parent = nullptr);
    ~PresetBar() override;

    /// A whole new policy in the owner: the bar selects the preset it equals, if any
    /// (the current one first, as two presets may be equal).
    void setPolicy(const Core::BackoffPolicy &policy);
    /// The owner's policy after an edit or after presetChosen(): the chosen preset
    /// stays, marked modified when the policy differs from it.
    void setEditedPolicy(const Core::BackoffPolicy &policy);
    /// Whether the owner's policy passes validation; export is refused while it does not.
    void setUsable(bool usable);
    /// Why the retryable statuses text cannot be read, or empty. Saving is
    /// refused meanwhile: the preset would silently keep the previous statuses.
    void setStatusesError(const QString &error);

    /// "builtin:<id>", "user:<name>" or empty: the preset the policy was loaded from.
    QString presetKey() const { return m_presetKey; }
    /// True when the policy differs from the preset it was loaded from.
    bool isModified() const;

    bool loadBuiltInPreset(const QString &id);
    bool loadUserPreset(const QString &name);
    /// Saves the current policy as a user preset under `name` (replacing one of
    /// that name). A refusal is also shown in the bar.
    Core::Result<void> saveAsUserPreset(const QString &name);
    /// Saves the current policy over the user preset it was loaded from.
    Core::Result<void> overwriteUserPreset();
    bool deleteUserPreset(const QString &name);

    /// Reads a policy file and emits policyImported(). On failure the message
    /// (naming the field) is shown and nothing is emitted.
    bool importFile(const QString &path);
    /// Writes the policy as JSON; refused while the policy is not usable.
    bool exportFile(const QString &path);
    /// The last message about a preset, import or export action.
    QString lastMessage() const;

Q_SIGNALS:
    /// The user chose a preset, or saved the policy under a new name: the owner
    /// shows `policy` and calls setEditedPolicy(), which keeps this preset.
    void presetChosen(const Core::BackoffPolicy &policy);
    /// A policy file was read: the owner shows `policy` and calls setPolicy().
    void policyImported(const Core::BackoffPolicy &policy);

private:
    void handlePresetActivated(int index);
    void handleSaveAsClicked();
    void handleDeleteClicked();
    void handleImportClicked();
    void handleExportClicked();

    void rebuildPresetList();
    void updatePresetState();
    void showMessage(const QString &text, bool isError);
    std::optional<Core::BackoffPolicy> presetPolicy(const QString &key) const;
    QString matchingPresetKey(const Core::BackoffPolicy &policy) const;

    Settings *m_settings = nullptr;
    Core::BackoffPolicy m_policy;
    QString m_presetKey;
    QString m_statusesError;
    bool m_usable = true;

    QComboBox *m_presetCombo = nullptr;
    QLabel *m_modifiedLabel = nullptr;
    QToolButton *m_saveAsButton = nullptr;
    QToolButton *m_overwriteButton = nullptr;
    QToolButton *m_deleteButton = nullptr;
    QToolButton *m_importButton = nullptr;
    QToolButton *m_exportButton = nullptr;
    FieldMessage *m_actionMessage = nullptr;
};

} // namespace RetryLab::Ui
