#pragma once

#include "core/export/exportoptions.h"
#include "core/util/result.h"

#include <QFileDialog>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QAction;
class QMenu;

namespace RetryLab::Ui {

class ErrorLogView;
class MessageBar;
class RunSession;
class Settings;

/// Writes the window's run to a file: the format by the chosen filter or the
/// file's extension, the error log's shown rows or the whole run, and a message
/// above the tabs that says what was written (or why not, with the run kept).
/// It also asks for file names, through a chooser that tests replace. It owns the
/// File menu's export actions and the "Redact credentials" toggle that every export
/// and copy of the window follows (options()).
class ExportController final : public QObject
{
    Q_OBJECT

public:
    enum class Format { Json, Csv, Har };
    Q_ENUM(Format)

    struct FormatInfo
    {
        Format format;
        QString filter; ///< "CSV, one row per attempt (*.csv)"
        QString suffix; ///< "csv"
        QString title; ///< "CSV"
    };
    static QList<FormatInfo> formats();
    static FormatInfo formatInfo(Format format);

    /// Asks for a file name (tests answer without a dialog). `mode` says whether
    /// the file is read or written; an empty result means "cancelled".
    using FileChooser = std::function<QString(QFileDialog::AcceptMode mode, const QString &title,
        const QString &suggestion, const QString &filters, QString *selectedFilter)>;

    /// None is owned; `dialogParent` parents the file dialogs.
    ExportController(
        RunSession *session, ErrorLogView *errorLog, Settings *settings, MessageBar *messages, QWidget *dialogParent);

    void setFileChooser(FileChooser chooser) { m_fileChooser = std::move(chooser); }
    /// The values of secret environment variables, masked in every export
    /// (SecretMask), whether credentials are redacted or not.
    using SecretSource = std::function<QStringList()>;
    void setSecretSource(SecretSource secrets) { m_secrets = std::move(secrets); }
    /// The run exported: the live one, or a run opened from a report.
    void setSession(RunSession *session) { m_session = session; }
    QString chooseFile(QFileDialog::AcceptMode mode, const QString &title, const QString &suggestion,
        const QString &filters, QString *selectedFilter = nullptr) const;

    /// Adds "Export run…" (Ctrl+E) and "Export run as" to the File menu.
    void addExportActions(QMenu *file);
    /// Adds the "Redact credentials in exports" toggle, on at every start.
    void addRedactAction(QMenu *file);
    /// What the window's exports and copies follow now: credentials redacted or not.
    Core::ExportOptions options() const;

    /// The folder exports are suggested in: the last one written to, or Documents.
    QString exportFolder() const;
    /// Remembers the folder of `path` as the next exports' (and pictures').
    void rememberExportFolder(const QString &path);

    /// Asks for a file (in the last export folder), then writes it.
    void exportAs(Format preferred, bool onlyVisibleRows, const Core::ExportOptions &options);
    /// Writes the run (or the error log's shown rows) to `path`; the outcome is
    /// also shown above the tabs.
    Core::Result<qint64> exportRun(
        const QString &path, Format format, bool onlyVisibleRows, const Core::ExportOptions &options);

private:
    RunSession *m_session;
    ErrorLogView *m_errorLog;
    Settings *m_settings;
    MessageBar *m_messages;
    QWidget *m_dialogParent;
    FileChooser m_fileChooser;
    SecretSource m_secrets;
    QAction *m_redactAction = nullptr;
};

} // namespace RetryLab::Ui
