#pragma once

#include "core/record/attemptrecord.h"

#include <QPointer>
#include <QWidget>

#include <functional>

class QAction;
class QCheckBox;
class QLabel;
class QTabWidget;
class QTableWidget;
class QTimer;
class QToolButton;

namespace RetryLab::Ui {

class BodyView;
class ChecksVerdictView;
class RunSession;
class TimingWaterfall;

/// What one attempt sent and what came back, in the manner of a browser's network
/// panel: the request as sent (method, URL, headers, body), the response (status
/// line, headers, body), how the attempt was classified and why, the delay planned
/// and the delay that passed before it, the redirects it followed, its protocol and
/// TLS, and the timings the client could measure.
///
/// It reads a RunSession, live or loaded from a report, and shows the attempt of a
/// session row; Ctrl+[ and Ctrl+] (or the arrows) go to the previous and next
/// attempt of the same request. Credentials are masked as in the request composer's
/// header table (header values as bullets, secrets in the URL and bodies redacted)
/// until "Show credentials" is chosen; each part has a copy button, and what it copies
/// is what is shown (redacted unless revealed).
class AttemptInspector final : public QWidget
{
    Q_OBJECT

public:
    /// Checks is shown only for a request that carries checks (sent from the composer with some).
    enum class Page { Summary, Request, Response, Timing, Checks };
    Q_ENUM(Page)

    explicit AttemptInspector(QWidget *parent = nullptr);
    ~AttemptInspector() override;

    /// Not owned.
    void setSession(RunSession *session);
    RunSession *session() const { return m_session; }

    /// Shows the attempt of a session row, finished or in flight; -1 shows nothing.
    void showAttempt(qsizetype sessionRow);
    qsizetype currentRow() const { return m_row; }
    /// True when a finished attempt's record is shown.
    bool hasRecord() const { return m_hasRecord; }
    const Core::AttemptRecord &record() const { return m_record; }

    void setPage(Page page);
    Page page() const;

    void setCredentialsRevealed(bool revealed);
    bool credentialsRevealed() const;

    /// The rows of the attempts before and after the shown one in the same request; -1 when none.
    qsizetype previousRow() const;
    qsizetype nextRow() const;

    // What the copy buttons put on the clipboard.
    QString summaryText() const;
    QString requestHeadersText() const;
    QString responseHeadersText() const;
    /// The request and the response as HTTP messages, bodies included.
    QString exchangeText() const;
    /// The request as a curl command line (core/export/curlcommand).
    QString curlText() const;
    QString timingText() const;

    // The parts, for the window and the tests.
    QLabel *titleLabel() const { return m_title; }
    QLabel *statusLabel() const { return m_banner; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *requestLineLabel() const { return m_requestLine; }
    QLabel *statusLineLabel() const { return m_statusLine; }
    QTableWidget *requestHeaderTable() const { return m_requestHeaders; }
    QTableWidget *responseHeaderTable() const { return m_responseHeaders; }
    BodyView *requestBodyView() const { return m_requestBody; }
    BodyView *responseBodyView() const { return m_responseBody; }
    TimingWaterfall *waterfall() const { return m_waterfall; }
    /// The verdicts of the shown attempt's request on its checks.
    ChecksVerdictView *checksView() const { return m_checks; }
    /// True when the shown attempt's request carries checks (the Checks page is there).
    bool hasChecks() const;
    QAction *previousAction() const { return m_previous; }
    QAction *nextAction() const { return m_next; }
    /// The last "Copied ..." message.
    QString copyMessage() const;

public Q_SLOTS:
    void showPrevious();
    void showNext();

Q_SIGNALS:
    /// The inspector went to another attempt by itself (previous or next), so that
    /// the timeline and the log can follow.
    void attemptShown(qsizetype sessionRow);

private:
    QWidget *buildSummaryPage();
    QWidget *buildMessagePage(bool response);
    QWidget *buildTimingPage();
    QToolButton *copyButton(
        const QString &objectName, const QString &text, const QString &what, const std::function<QString()> &content);
    void handleSessionUpdated();
    void handleSessionCleared();
    void handleChecksEvaluated(quint64 requestId);
    void updateChecks();
    void refresh();
    void showNothing(const QString &why);
    void fillHeaders(QTableWidget *table, const Core::HeaderList &headers) const;
    void fillBodies();
    void updateTitle();
    void updateNavigation();
    void noteCopied(const QString &what);

    QString shownUrl(const QUrl &url) const;
    QString shownText(const QString &text) const;
    QByteArray shownBody(const QByteArray &body, const Core::HeaderList &headers) const;
    QString headersText(const Core::HeaderList &headers) const;
    QString statusLineText() const;

    using Row = std::pair<QString, QString>;
    QList<Row> m_summaryRows; ///< what the summary shows, as plain text
    QList<Row> m_timingRows;

    QPointer<RunSession> m_session;
    qsizetype m_row = -1;
    bool m_hasRecord = false;
    Core::AttemptRecord m_record;
    Core::RequestSpec m_spec;
    bool m_hasSpec = false;

    QAction *m_previous;
    QAction *m_next;
    QLabel *m_title;
    QLabel *m_banner;
    QCheckBox *m_reveal;
    QLabel *m_copyNote;
    QTimer *m_copyNoteTimer;
    QTabWidget *m_pages;
    QLabel *m_summary;
    QLabel *m_requestLine;
    QTableWidget *m_requestHeaders;
    BodyView *m_requestBody;
    QLabel *m_statusLine;
    QTableWidget *m_responseHeaders;
    BodyView *m_responseBody;
    TimingWaterfall *m_waterfall;
    QLabel *m_timingTable;
    ChecksVerdictView *m_checks;
    QList<QWidget *> m_needsRecord; ///< copy buttons that have nothing to copy without a record
};

} // namespace RetryLab::Ui
