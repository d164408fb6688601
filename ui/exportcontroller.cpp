#include "ui/exportcontroller.h"

#include "core/export/csvexport.h"
#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "core/record/secretmask.h"
#include "ui/run/errorlogview.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QStandardPaths>

namespace RetryLab::Ui {

QList<ExportController::FormatInfo> ExportController::formats()
{
    return {
        {Format::Json, tr("JSON report (*.json)"), QStringLiteral("json"), tr("JSON report")},
        {Format::Csv, tr("CSV, one row per attempt (*.csv)"), QStringLiteral("csv"), tr("CSV")},
        {Format::Har, tr("HAR 1.2, for browsers' network panels (*.har)"), QStringLiteral("har"), tr("HAR")},
    };
}

ExportController::FormatInfo ExportController::formatInfo(Format format)
{
    for (const FormatInfo &info : formats()) {
        if (info.format == format)
            return info;
    }
    return formats().constFirst();
}

ExportController::ExportController(
    RunSession *session, ErrorLogView *errorLog, Settings *settings, MessageBar *messages, QWidget *dialogParent)
    : QObject(dialogParent), m_session(session), m_errorLog(errorLog), m_settings(settings), m_messages(messages),
      m_dialogParent(dialogParent)
{
    if (!m_errorLog)
        return;
    connect(m_errorLog, &ErrorLogView::exportRequested, this, [this](ErrorLogView::ExportFormat format, bool visible) {
        exportAs(format == ErrorLogView::ExportFormat::Csv ? Format::Csv : Format::Json, visible, options());
    });
}

void ExportController::addExportActions(QMenu *file)
{
    QAction *exportRun
        = file->addAction(tr("&Export run\u2026"), this, [this] { exportAs(Format::Json, false, options()); });
    exportRun->setObjectName(QStringLiteral("exportRun"));
    exportRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportRun->setToolTip(tr("Save every attempt as a JSON report, CSV or HAR (Ctrl+E)"));
    QMenu *exportMenu = file->addMenu(tr("Export run &as"));
    for (const FormatInfo &info : formats()) {
        exportMenu->addAction(
            tr("%1\u2026").arg(info.title), this, [this, f = info.format] { exportAs(f, false, options()); });
    }
}

void ExportController::addRedactAction(QMenu *file)
{
    m_redactAction = file->addAction(tr("&Redact credentials in exports"));
    m_redactAction->setObjectName(QStringLiteral("redactExports"));
    m_redactAction->setCheckable(true);
    m_redactAction->setChecked(true);
    m_redactAction->setToolTip(tr("Authorization, cookies, API keys, tokens and passwords are replaced by REDACTED in "
                                  "exports and in \"Copy as curl\". Turned on at every start."));
}

Core::ExportOptions ExportController::options() const
{
    Core::ExportOptions options;
    // Without the toggle (a controller made alone), exports redact: the safe default.
    options.redactCredentials = !m_redactAction || m_redactAction->isChecked();
    return options;
}

QString ExportController::chooseFile(QFileDialog::AcceptMode mode, const QString &title, const QString &suggestion,
    const QString &filters, QString *selectedFilter) const
{
    if (m_fileChooser)
        return m_fileChooser(mode, title, suggestion, filters, selectedFilter);
    if (mode == QFileDialog::AcceptSave)
        return QFileDialog::getSaveFileName(m_dialogParent, title, suggestion, filters, selectedFilter);
    return QFileDialog::getOpenFileName(m_dialogParent, title, suggestion, filters, selectedFilter);
}

QString ExportController::exportFolder() const
{
    const QString directory = m_settings->exportDirectory();
    if (!directory.isEmpty() && QFileInfo(directory).isDir())
        return directory;
    // Documents, where there is one; else home, not wherever the program was started.
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

void ExportController::rememberExportFolder(const QString &path)
{
    m_settings->setExportDirectory(QFileInfo(path).absolutePath());
}

void ExportController::exportAs(Format preferred, bool onlyVisibleRows, const Core::ExportOptions &options)
{
    const QString directory = exportFolder();
    const FormatInfo preferredInfo = formatInfo(preferred);
    const QString name
        = QStringLiteral("retrylab-run-%1.%2")
              .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")), preferredInfo.suffix);
    QStringList filters;
    for (const FormatInfo &info : formats())
        filters.append(info.filter);
    QString selected = preferredInfo.filter;
    const QString title = onlyVisibleRows ? tr("Export the shown rows") : tr("Export the run");
    QString path = chooseFile(
        QFileDialog::AcceptSave, title, QDir(directory).filePath(name), filters.join(QStringLiteral(";;")), &selected);
    if (path.isEmpty())
        return;

    // The extension decides when it names a format; otherwise the chosen filter, and the extension is added.
    const QString suffix = QFileInfo(path).suffix().toLower();
    Format format = preferred;
    bool bySuffix = false;
    for (const FormatInfo &info : formats()) {
        if (info.suffix == suffix) {
            format = info.format;
            bySuffix = true;
        }
    }
    if (!bySuffix) {
        for (const FormatInfo &info : formats()) {
            if (info.filter == selected)
                format = info.format;
        }
        path += QLatin1Char('.') + formatInfo(format).suffix;
    }
    rememberExportFolder(path);
    exportRun(path, format, onlyVisibleRows, options);
}

Core::Result<qint64> ExportController::exportRun(
    const QString &path, Format format, bool onlyVisibleRows, const Core::ExportOptions &options)
{
    using R = Core::Result<qint64>;
    if (m_session->finishedCount() == 0 && m_session->resultCount() == 0) {
        const QString message = tr("Nothing to export yet: send a request first.");
        m_messages->showMessage(FieldMessage::Kind::Note, message);
        return R::failure(message);
    }
    Core::RunRecord record
        = onlyVisibleRows ? m_session->runRecord(m_errorLog->visibleFinishedIndexes()) : m_session->runRecord();
    if (m_secrets)
        Core::SecretMask::apply(&record, m_secrets());

    R written = R::failure(QString());
    switch (format) {
    case Format::Json:
        written = Core::ReportJson::writeFile(path, record, options);
        break;
    case Format::Csv:
        written = Core::CsvExport::writeFile(path, record, options);
        break;
    case Format::Har:
        written = Core::HarExport::writeFile(path, record, options);
        break;
    }
    if (!written) {
        m_messages->showMessage(FieldMessage::Kind::Error,
            tr("The export was not written: %1. Nothing in the run was lost; try another place.").arg(written.error()));
        return written;
    }

    QString message = tr("Exported to %1 (%2, %3): attempts %4, requests %5.")
                          .arg(QDir::toNativeSeparators(path), formatInfo(format).title,
                              options.redactCredentials ? tr("credentials redacted")
                                                        : tr("NOT redacted: the file contains credentials"))
                          .arg(record.attempts.size())
                          .arg(record.requests.size());
    if (m_session->runningRequestCount() > 0) {
        message += QLatin1Char(' ')
            + tr("Requests still running: %1; their attempts so far are included.")
                  .arg(m_session->runningRequestCount());
    }
    if (!m_session->isRecordComplete()) {
        message += QLatin1Char(' ')
            + tr("Older attempts were rebuilt from the log: their response headers and bodies are not included.");
    }
    if (m_session->droppedBodyCount() > 0) {
        message += QLatin1Char(' ')
            + tr("To bound memory only the newest request and response bodies are kept (%1 MiB); older bodies "
                 "dropped: %2 (empty in the file). Attempts and statistics are complete.")
                  .arg(QString::number(double(m_session->bodyBudget()) / (1024.0 * 1024.0), 'g', 3))
                  .arg(m_session->droppedBodyCount());
    }
    m_messages->showMessage(
        options.redactCredentials ? FieldMessage::Kind::Success : FieldMessage::Kind::Warning, message);
    return written;
}

} // namespace RetryLab::Ui
