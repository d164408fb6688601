#pragma once

#include "core/export/exportoptions.h"
#include "ui/session/request/requesthistory.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QAction;

namespace RetryLab::Core {
class ThreadedExecutor;
struct RequestDraft;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

class MessageBar;
class RequestComposer;
class RequestRunner;
class RunSession;
class Settings;
class StatusBarPresenter;

/// What the Request menu does with the composer's request: Send, Send batch,
/// Repeat and Stop (the composer's own actions), Clear run, and Copy as curl or
/// as a HAR entry (the actions made here).
///
/// While the composer cannot send, a send is refused with its reason above the
/// tabs, even when asked for from elsewhere than the disabled actions. The URL of
/// what went out joins the recent URLs once per action, so a batch of 10,000 is
/// one entry. A run's time 0 is its first send, not the moment it was cleared.
class RunActions final : public QObject
{
    Q_OBJECT

public:
    struct Parts
    {
        RequestComposer *composer = nullptr;
        RequestRunner *runner = nullptr;
        RunSession *session = nullptr;
        Settings *settings = nullptr;
        Core::ThreadedExecutor *executor = nullptr;
        StatusBarPresenter *status = nullptr;
        MessageBar *messages = nullptr;
        /// The options of exports, which the copies follow (credentials redacted or not).
        std::function<Core::ExportOptions()> exportOptions;
        /// The values of secret environment variables, masked in a copied curl command.
        std::function<QStringList()> secrets;
    };

    /// None of the parts is owned; each must outlive this.
    explicit RunActions(const Parts &parts, QObject *parent = nullptr);

    QAction *clearAction() const { return m_clearAction; }
    QAction *copyCurlAction() const { return m_copyCurlAction; }
    QAction *copyHarAction() const { return m_copyHarAction; }

public Q_SLOTS:
    void send();
    void sendBatch();
    void startRepeat();
    void stop();
    /// Cancels what runs and forgets the run's attempts.
    void clearRun();
    /// The request as a curl command, with the policy's --retry options.
    void copyAsCurl();
    /// The request as one HAR entry (JSON), credentials redacted as in "Copy as curl".
    void copyAsHarEntry();

Q_SIGNALS:
    /// After Clear run, once the attempts are gone.
    void runCleared();
    /// A send, batch or repeat put at least one request on the wire (once per action;
    /// from the event loop, once its first attempts have gone to the executor).
    void draftSent(
        const RetryLab::Core::RequestDraft &draft, RetryLab::Ui::RequestHistory::Kind kind, const QDateTime &sentAt);

private:
    bool sendWith(const QString &refusal, RequestHistory::Kind kind,
        const std::function<std::optional<QString>(const Core::RequestDraft &)> &go);
    bool refuseWhenBlocked(const QString &what);
    void startRunIfEmpty();
    void rememberSent(const Core::RequestDraft &draft, RequestHistory::Kind kind, quint64 sentBefore);
    void showProblem(const QString &text);

    Parts m_parts;
    QAction *m_clearAction;
    QAction *m_copyCurlAction;
    QAction *m_copyHarAction;
    quint64 m_sentCount = 0; ///< requests handed to the executor, for once-per-action bookkeeping
};

} // namespace RetryLab::Ui
