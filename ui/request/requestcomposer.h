#pragma once

#include "core/collections/requestdraft.h"
#include "core/collections/requesttemplate.h"
#include "core/policy/backoffpolicy.h"
#include "ui/session/run/requestchecks.h"

#include <QElapsedTimer>
#include <QMap>
#include <QWidget>

class QAction;
class QBoxLayout;
class QHBoxLayout;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QSpinBox;
class QTabWidget;
class QTableView;
class QTimer;
class QLineEdit;
class QToolButton;

namespace RetryLab::Ui {

class ChecksForm;
class FieldMessage;
class HeaderTableModel;
class ReadModifyWriteForm;
class AuthForm;
class BodyForm;
class TransportForm;
class UnitSpinBox;

/// The request composer: method, URL (with recent URLs and the embedded server's
/// endpoints), headers, body, idempotency, per-attempt timeout, and the batch and
/// repeat settings. It shows where the next request goes ("sends to"), and when the
/// request cannot be sent it disables Send and says why, beside the URL and in the
/// buttons' tooltips. It does not send anything itself: the window connects its
/// actions to a RequestRunner.
class RequestComposer final : public QWidget
{
    Q_OBJECT

public:
    explicit RequestComposer(QWidget *parent = nullptr);
    ~RequestComposer() override;

    Core::RequestDraft draft() const;
    /// Fills every field; emits no draftChanged().
    void setDraft(const Core::RequestDraft &draft);

    /// The Checks tab: the request's assertions and extract rules that read (rows
    /// that do not are marked there and left out). A send takes them with it.
    RequestChecks checks() const;
    /// Fills the Checks tab (a saved request's); emits no checksChanged().
    void setChecks(const RequestChecks &checks);
    ChecksForm *checksForm() const { return m_checks; }
    /// Shows the Checks tab.
    void showChecks();

    /// Recent URL templates offered in the URL field, newest first.
    void setRecentUrls(const QStringList &templates);
    /// What the placeholders stand for in the preview (and whether {server} can be used).
    void setPreviewContext(const Core::ExpansionContext &context);
    /// The policy's classification rules and timeout, for the idempotency verdict and hints.
    void setPolicy(const Core::BackoffPolicy &policy);
    /// A reason from outside that the request cannot be sent now ("policy", "scenario");
    /// an empty reason lifts it.
    void setBlocker(const QString &source, const QString &reason);
    /// Text shown with the preview, e.g. the scenario the next request gets.
    void setPreviewNote(const QString &note);

    /// Why Send is disabled; empty when it is enabled.
    QString problem() const { return m_problem; }
    bool canSend() const { return m_problem.isEmpty(); }
    /// As narrow as the request line wrapped: the send buttons then take a row of
    /// their own below the URL (see wrapsSendButtons()).
    QSize minimumSizeHint() const override;
    bool wrapsSendButtons() const;
    /// The keyboard's main path through the request line: the URL, Endpoints, then
    /// Send, Send batch, Repeat and Stop (the window continues it into the results).
    QList<QWidget *> mainFlow() const;
    /// The URL the next request goes to, expanded (empty while there is a problem).
    QString previewUrl() const { return m_previewUrl; }
    /// The line under the URL: where the next request goes and with which scenario.
    QString previewText() const { return m_previewText; }
    /// The idempotency verdict shown for the current method and headers.
    QString idempotencyText() const;

    /// Live figures under the URL.
    void setActivity(int inFlight, int running, bool repeating, int repeatCount);
    void setBatchProgress(int finished, int total, int succeeded);
    /// The seed the last send drew; "Replay" puts it in the Seed field.
    void setLastSeed(quint64 seed);

    QAction *sendAction() const { return m_sendAction; }
    QAction *batchAction() const { return m_batchAction; }
    QAction *repeatAction() const { return m_repeatAction; }
    QAction *stopAction() const { return m_stopAction; }
    HeaderTableModel *headerModel() const { return m_headerModel; }
    /// The Connection tab: TLS, proxy and HTTP version.
    TransportForm *transportForm() const { return m_transport; }
    AuthForm *authForm() const { return m_auth; }
    /// Shows the Connection tab.
    void showConnection();
    /// Shows the Auth tab.
    void showAuth();
    /// Shows the Read-modify-write tab.
    void showReadModifyWrite();
    /// Brings the Body part to the front.
    void showBody();

    /// Moves the keyboard focus to the URL field and selects it.
    void focusUrl();
    /// A button for `action` at the end of the line under Send, where what to do with a
    /// run is in sight (the window puts Compare and Replay there).
    QToolButton *addRunAction(QAction *action);

Q_SIGNALS:
    /// The user changed a field.
    void draftChanged();
    /// The user changed the assertions or extract rules.
    void checksChanged();
    /// The hosts whose certificate errors the request ignores changed (by the
    /// user, or by setDraft()).
    void ignoredCertificateHostsChanged(const QStringList &hosts);

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    /// The batch progress bar keeps its text whole in any font.
    void updateProgressWidth();
    void updateWrap();
    QWidget *buildHeadersTab();
    QWidget *buildOptionsTab();
    QWidget *buildBatchTab();
    QWidget *buildFallbacksTab();
    QToolButton *buildEndpointsButton();
    void fillEndpointsMenu();
    void handleEdited();
    void handleAddHeader();
    void handleRemoveHeader();
    void refresh();
    void updateTabTitles();
    void updateButtonTexts();

    // Request line: the URL row and the send buttons, side by side or wrapped.
    QBoxLayout *m_requestLine = nullptr;
    QHBoxLayout *m_urlRow = nullptr;
    QHBoxLayout *m_sendButtons = nullptr;
    QHBoxLayout *m_runButtons = nullptr;
    QComboBox *m_method;
    QComboBox *m_url;
    QToolButton *m_endpoints;
    QLabel *m_preview;
    QLabel *m_activity;
    QProgressBar *m_progress;
    /// The batch's progress as last reported, shown at most every progressIntervalMs.
    struct BatchProgress
    {
        int finished = 0;
        int total = -1;
        int succeeded = 0;
    };
    static constexpr int progressIntervalMs = 100;
    BatchProgress m_batchProgress;
    int m_progressTotalShown = -1;
    QElapsedTimer m_progressShownAt;
    QTimer *m_progressTimer;
    void showBatchProgress();
    FieldMessage *m_message;
    QTabWidget *m_details;
    // Headers.
    HeaderTableModel *m_headerModel;
    QTableView *m_headerView;
    QCheckBox *m_reveal;
    QToolButton *m_removeHeader;
    // Body.
    BodyForm *m_body;
    QPlainTextEdit *m_fallbacks = nullptr; ///< one URL per line
    QLineEdit *m_fallbackOn = nullptr; ///< the faults that lead to a fallback, separated by commas
    FieldMessage *m_fallbackOnMessage = nullptr; ///< what the list means, or what is wrong with it
    ReadModifyWriteForm *m_readModifyWrite = nullptr;
    // Options.
    QCheckBox *m_idempotent;
    FieldMessage *m_idempotency;
    QCheckBox *m_ownTimeout;
    UnitSpinBox *m_timeout;
    QLabel *m_policyTimeout;
    // Batch and repeat.
    QSpinBox *m_batchCount;
    QSpinBox *m_concurrency;
    QComboBox *m_polling = nullptr;
    QDoubleSpinBox *m_interval;
    QLineEdit *m_seed;
    QToolButton *m_replaySeed;
    quint64 m_lastSeed = 0;
    // Connection.
    TransportForm *m_transport;
    AuthForm *m_auth;
    QWidget *m_optionsTab = nullptr;
    QWidget *m_batchTab = nullptr;
    QWidget *m_fallbacksTab = nullptr;
    QWidget *m_readModifyWriteTab = nullptr;
    // Checks.
    ChecksForm *m_checks = nullptr;

    QAction *m_sendAction;
    QAction *m_batchAction;
    QAction *m_repeatAction;
    QAction *m_stopAction;

    Core::ExpansionContext m_context;
    Core::BackoffPolicy m_policy;
    QMap<QString, QString> m_blockers;
    QString m_previewNote;
    QString m_problem;
    QString m_previewUrl;
    QString m_previewText;
    bool m_filling = false;
    bool m_repeating = false;
    QStringList m_ignoredHosts;
};

} // namespace RetryLab::Ui
