#pragma once

#include "core/import/curlcommandline.h"
#include "core/import/importedrequest.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QDialog>
#include <QList>
#include <QString>

#include <optional>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace RetryLab::Ui {

class FieldMessage;

/// File > Import > Paste curl command: a curl command line, read as it is typed.
///
/// A line that cannot be read says why and where ("line 2, column 6"), with the
/// place underlined; the Import button stays disabled and nothing else changes.
/// A line that can be read shows the request it sends (credentials masked, as in
/// the composer), the options that were not used (curl's own output options,
/// "ignored") and the ones RetryLab cannot carry out ("unknown"), and what the
/// --retry flags would change in the policy. The policy changes only when the
/// user ticks the box: pasting a command is mostly about the request.
class CurlImportDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit CurlImportDialog(QWidget *parent = nullptr);
    ~CurlImportDialog() override;

    /// The policy the --retry flags start from in the preview.
    void setPolicy(const Core::BackoffPolicy &policy);
    /// Where relative `@file` paths are read from.
    void setBaseDirectory(const QString &directory);

    void setCommandLine(const QString &text);
    QString commandLine() const;

    /// The request read from the text, or why it cannot be read.
    const Core::Result<Core::ImportedRequest> &parsed() const { return m_parsed; }
    bool canImport() const { return m_parsed.ok(); }
    /// What the --retry flags change, in the order curl's options are applied.
    const QList<Core::CurlCommandLine::PolicyChange> &policyChanges() const { return m_changes; }
    /// The policy with the --retry flags applied.
    const Core::BackoffPolicy &policyAfter() const { return m_policyAfter; }
    /// The user asked for the policy to change too.
    bool appliesPolicy() const;
    void setAppliesPolicy(bool apply);

    /// The texts shown, for tests and screen readers alike.
    QString errorText() const;
    QString requestPreview() const;
    QString optionsText() const;
    QString policyText() const;
    QPlainTextEdit *editor() const { return m_editor; }
    QPushButton *importButton() const;

private:
    void reparse();

    QPlainTextEdit *m_editor;
    FieldMessage *m_error;
    QPlainTextEdit *m_preview;
    QLabel *m_options;
    QLabel *m_policy;
    QCheckBox *m_applyPolicy;
    QDialogButtonBox *m_buttons;

    Core::CurlCommandLine::Options m_parseOptions;
    Core::BackoffPolicy m_policyBefore;
    Core::BackoffPolicy m_policyAfter;
    Core::Result<Core::ImportedRequest> m_parsed;
    QList<Core::CurlCommandLine::PolicyChange> m_changes;
};

} // namespace RetryLab::Ui
