#include "ui/runactions.h"

#include "core/collections/requesttemplate.h"
#include "core/executor/threadedexecutor.h"
#include "core/export/curlcommand.h"
#include "core/export/harexport.h"
#include "core/faultserver/faultserver.h" // complete for RequestRunner::server()
#include "core/policy/pollingpolicy.h"
#include "core/record/secretmask.h"
#include "ui/request/requestcomposer.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/run/runsession.h"
#include "ui/session/settings/settings.h"
#include "ui/statusbarpresenter.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QJsonDocument>
#include <QJsonObject>

namespace RetryLab::Ui {

using Core::RequestDraft;
namespace RequestTemplate = Core::RequestTemplate;
namespace SecretMask = Core::SecretMask;

RunActions::RunActions(const Parts &parts, QObject *parent)
    : QObject(parent), m_parts(parts), m_clearAction(new QAction(tr("C&lear run"), this)),
      m_copyCurlAction(new QAction(tr("&Copy as curl"), this)),
      m_copyHarAction(new QAction(tr("Copy as &HAR entry"), this))
{
    m_clearAction->setObjectName(QStringLiteral("clearRun"));
    m_clearAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backspace));
    m_clearAction->setToolTip(tr("Cancel what is running and forget the run's attempts"));
    m_copyCurlAction->setObjectName(QStringLiteral("copyAsCurl"));
    m_copyCurlAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copyHarAction->setObjectName(QStringLiteral("copyAsHarEntry"));
    connect(m_clearAction, &QAction::triggered, this, &RunActions::clearRun);
    connect(m_copyCurlAction, &QAction::triggered, this, &RunActions::copyAsCurl);
    connect(m_copyHarAction, &QAction::triggered, this, &RunActions::copyAsHarEntry);

    RequestComposer *composer = m_parts.composer;
    connect(composer->sendAction(), &QAction::triggered, this, &RunActions::send);
    connect(composer->batchAction(), &QAction::triggered, this, &RunActions::sendBatch);
    connect(composer->repeatAction(), &QAction::triggered, this, &RunActions::startRepeat);
    connect(composer->stopAction(), &QAction::triggered, this, &RunActions::stop);
    connect(m_parts.runner, &RequestRunner::sent, this, [this] { ++m_sentCount; });
}

bool RunActions::refuseWhenBlocked(const QString &what)
{
    // The actions are disabled then; this catches calls from elsewhere (and keeps a
    // script that is being edited from going out as its last valid version).
    if (m_parts.composer->canSend())
        return false;
    showProblem(tr("%1: %2").arg(what, m_parts.composer->problem()));
    return true;
}

void RunActions::startRunIfEmpty()
{
    // Time 0 of the views is the first send, not the moment the window opened or the run was cleared.
    if (m_parts.session->laneCount() == 0 && !m_parts.session->hasActivity())
        m_parts.session->clear();
}

// The three ways of sending share the refusal while the composer cannot send, time 0
// at the first send, and the URL remembered once per action; `go` hands the draft
// to the runner and says what went wrong, if anything. False when refused.
bool RunActions::sendWith(const QString &refusal, RequestHistory::Kind kind,
    const std::function<std::optional<QString>(const RequestDraft &)> &go)
{
    if (refuseWhenBlocked(refusal))
        return false;
    startRunIfEmpty();
    const RequestDraft draft = m_parts.composer->draft();
    // Each request of this send, batch or repeat carries the Checks tab as it is now.
    m_parts.runner->setChecks(m_parts.composer->checks());
    const quint64 sentBefore = m_sentCount;
    const std::optional<QString> problem = go(draft);
    rememberSent(draft, kind, sentBefore);
    if (problem)
        showProblem(*problem);
    return true;
}

void RunActions::send()
{
    sendWith(tr("Not sent"), RequestHistory::Kind::Send, [this](const RequestDraft &draft) -> std::optional<QString> {
        if (!draft.pollingPreset.isEmpty()) {
            // A long-running operation: its start, then its polls until done.
            const auto policy = Core::PollingPolicy::preset(draft.pollingPreset);
            if (!policy)
                return tr("Not sent: no polling policy \"%1\"").arg(draft.pollingPreset);
            const auto started = m_parts.runner->startOperation(draft, *policy);
            if (started)
                return std::nullopt;
            return tr("Not sent: %1").arg(started.error());
        }
        const auto id = m_parts.runner->send(draft);
        if (id)
            return std::nullopt;
        return tr("Not sent: %1").arg(id.error());
    });
}

void RunActions::sendBatch()
{
    sendWith(tr("Not sent"), RequestHistory::Kind::Batch, [this](const RequestDraft &draft) -> std::optional<QString> {
        const auto started = m_parts.runner->startBatch(draft);
        if (started)
            return std::nullopt;
        return started.error();
    });
}

void RunActions::startRepeat()
{
    const bool asked = sendWith(
        tr("Not repeating"), RequestHistory::Kind::Repeat, [this](const RequestDraft &draft) -> std::optional<QString> {
            const auto started = m_parts.runner->startRepeat(draft);
            if (started)
                return std::nullopt;
            return tr("Not repeating: %1").arg(started.error());
        });
    if (asked)
        m_parts.status->scheduleUpdate();
}

void RunActions::stop()
{
    m_parts.runner->stop();
    m_parts.status->update();
}

void RunActions::clearRun()
{
    m_parts.runner->stop();
    m_parts.session->clear();
    m_parts.runner->resetBatch();
    Q_EMIT runCleared();
    m_parts.status->update();
}

// Once per action rather than per request: a batch of 10,000 is one entry in the
// history, and the URL recorded is the one of the draft that went out.
void RunActions::rememberSent(const RequestDraft &draft, RequestHistory::Kind kind, quint64 sentBefore)
{
    if (m_sentCount <= sentBefore)
        return;
    m_parts.settings->addRecentUrlTemplate(draft.urlTemplate);
    // The history's list is laid out again: once a batch's first attempts are out.
    m_parts.executor->whenSubmissionsArrived(
        this, [this, draft, kind, sentAt = QDateTime::currentDateTimeUtc()] { Q_EMIT draftSent(draft, kind, sentAt); });
}

void RunActions::showProblem(const QString &text)
{
    m_parts.messages->showMessage(FieldMessage::Kind::Error, text);
}

void RunActions::copyAsCurl()
{
    auto spec = RequestTemplate::build(m_parts.composer->draft(), m_parts.runner->nextContext());
    if (!spec) {
        showProblem(tr("Nothing copied: %1").arg(spec.error()));
        return;
    }
    SecretMask::apply(&spec.value(), m_parts.secrets());
    const Core::ExportOptions options = m_parts.exportOptions();
    const auto command = Core::CurlCommand::build(*spec, options, m_parts.executor->policy());
    QApplication::clipboard()->setText(command.commandLine);

    // One short line; what the command does differently is behind "Details", one note per line.
    QStringList notes = command.notes;
    if (m_parts.runner->scenario().isActive())
        notes.prepend(tr("The server scenario is not part of it: it needs an X-Retry-Test-Id of its own."));
    QString message = tr("Copied a curl command to the clipboard.");
    if (command.credentialsRedacted)
        message = tr("Copied a curl command to the clipboard, credentials redacted.");
    else if (!options.redactCredentials)
        message = tr("Copied a curl command to the clipboard, WITH credentials.");
    m_parts.messages->showMessage(FieldMessage::Kind::Success, message, notes.join(QLatin1Char('\n')));
}

void RunActions::copyAsHarEntry()
{
    const auto spec = RequestTemplate::build(m_parts.composer->draft(), m_parts.runner->nextContext());
    if (!spec) {
        showProblem(tr("Nothing copied: %1").arg(spec.error()));
        return;
    }
    const Core::ExportOptions options = m_parts.exportOptions();
    const QJsonObject entry = Core::HarExport::requestEntry(*spec, options);
    QApplication::clipboard()->setText(QString::fromUtf8(QJsonDocument(entry).toJson(QJsonDocument::Indented)));
    m_parts.messages->showMessage(FieldMessage::Kind::Success,
        options.redactCredentials ? tr("Copied a HAR entry to the clipboard (credentials redacted).")
                                  : tr("Copied a HAR entry to the clipboard, WITH credentials."));
}

} // namespace RetryLab::Ui
