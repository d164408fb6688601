#include "ui/run/attemptinspector.h"

#include "core/executor/retryplanner.h"
#include "core/export/curlcommand.h"
#include "core/http/ratelimitheaders.h"
#include "core/http/redactor.h"
#include "core/http/retryheaders.h"
#include "core/record/attemptphases.h"
#include "core/record/runstatistics.h"
#include "core/util/durationtext.h"
#include "ui/run/checksverdictview.h"
#include "ui/run/timingwaterfall.h"
#include "ui/session/run/runsession.h"
#include "ui/widgets/bodyview.h"
#include "ui/widgets/credentialmask.h"
#include "ui/widgets/flowlayout.h"
#include "ui/widgets/outcomestyle.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

// One job: showing one attempt: its summary, request, response and timing pages, and
// what the copy buttons copy (text, the exchange, curl). Every page and copy shows the
// same attempt with the same credential masking, which a split would have to share.

namespace RetryLab::Ui {

using namespace RetryLab::Core;

namespace {

// How long "Copied ..." stays beside the buttons.
constexpr int copyNoteMs = 4000;

QString html(const QString &text)
{
    return text.toHtmlEscaped();
}

// Rows of name and value as a two-column rich-text table; a value's lines stay lines.
QString tableHtml(const QList<std::pair<QString, QString>> &rows)
{
    QString out = QStringLiteral("<table>");
    for (const auto &[name, value] : rows) {
        out += QStringLiteral("<tr><td style=\"padding-right:12px\" valign=\"top\"><b>%1</b></td><td>%2</td></tr>")
                   .arg(html(name), html(value).replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    }
    return out + QStringLiteral("</table>");
}

// The same rows as "Name: value" lines, continued lines indented.
QString plainText(const QList<std::pair<QString, QString>> &rows)
{
    QString out;
    for (const auto &[name, value] : rows) {
        QString shown = value;
        out += name + QStringLiteral(": ") + shown.replace(QLatin1Char('\n'), QStringLiteral("\n    "))
            + QLatin1Char('\n');
    }
    return out;
}

QString decisionTitle(Classification::Decision decision)
{
    switch (decision) {
    case Classification::Decision::Success:
        return AttemptInspector::tr("success");
    case Classification::Decision::RetryAfterDelay:
        return AttemptInspector::tr("transient: retry after a delay");
    case Classification::Decision::RetryImmediately:
        return AttemptInspector::tr("transient: retry at once");
    case Classification::Decision::GiveUp:
        break;
    }
    return AttemptInspector::tr("give up: not worth retrying");
}

QTableWidget *headerTable(const QString &objectName)
{
    auto *table = new QTableWidget(0, 2);
    table->setObjectName(objectName);
    table->setHorizontalHeaderLabels({AttemptInspector::tr("Name"), AttemptInspector::tr("Value")});
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(false);
    table->setAlternatingRowColors(true);
    return table;
}

QLabel *richLabel(const QString &objectName)
{
    auto *label = new QLabel;
    label->setObjectName(objectName);
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

// A body as an HTTP message carries it: text as text, anything else said, not pasted.
QString bodyAsText(const QByteArray &body, const HeaderList &headers)
{
    if (body.isEmpty())
        return {};
    const QByteArray type = headerValue(headers, "Content-Type").value_or(QByteArray());
    const BodyView::Kind kind = BodyView::detect(body, type);
    if (kind == BodyView::Kind::Json || kind == BodyView::Kind::Text)
        return BodyView::decode(body, BodyView::charsetOf(type));
    return AttemptInspector::tr("[%1 body, %2]")
        .arg(kind == BodyView::Kind::Image ? AttemptInspector::tr("image") : AttemptInspector::tr("binary"),
            BodyView::sizeText(body.size()));
}

} // namespace

AttemptInspector::AttemptInspector(QWidget *parent)
    : QWidget(parent), m_previous(new QAction(this)), m_next(new QAction(this)), m_title(new QLabel),
      m_banner(new QLabel), m_reveal(new QCheckBox(tr("Show credentials"))), m_copyNote(new QLabel),
      m_copyNoteTimer(new QTimer(this)), m_pages(new QTabWidget), m_checks(new ChecksVerdictView)
{
    setObjectName(QStringLiteral("attemptInspector"));

    m_previous->setObjectName(QStringLiteral("previousAttempt"));
    m_previous->setText(tr("Previous attempt"));
    m_previous->setIcon(style()->standardIcon(QStyle::SP_ArrowUp));
    m_previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketLeft));
    m_previous->setToolTip(tr("The previous attempt of the same request (Ctrl+[)"));
    m_next->setObjectName(QStringLiteral("nextAttempt"));
    m_next->setText(tr("Next attempt"));
    m_next->setIcon(style()->standardIcon(QStyle::SP_ArrowDown));
    m_next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_BracketRight));
    m_next->setToolTip(tr("The next attempt of the same request (Ctrl+])"));
    // Window-wide: stepping through a request's attempts works from the timeline or the log too.
    for (QAction *action : {m_previous, m_next}) {
        action->setShortcutContext(Qt::WindowShortcut);
        addAction(action);
    }
    connect(m_previous, &QAction::triggered, this, &AttemptInspector::showPrevious);
    connect(m_next, &QAction::triggered, this, &AttemptInspector::showNext);

    auto *previousButton = new QToolButton;
    previousButton->setDefaultAction(m_previous);
    previousButton->setAutoRaise(true);
    auto *nextButton = new QToolButton;
    nextButton->setDefaultAction(m_next);
    nextButton->setAutoRaise(true);

    m_title->setObjectName(QStringLiteral("inspectorTitle"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    // Wraps rather than widen the dock (and the window) to a long URL.
    m_title->setWordWrap(true);
    m_banner->setObjectName(QStringLiteral("inspectorStatus"));
    m_banner->setTextFormat(Qt::RichText);
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_reveal->setObjectName(QStringLiteral("revealCredentials"));
    m_reveal->setToolTip(tr("Show the values of Authorization, cookies, API keys and tokens, and the secrets in URLs "
                            "and bodies, on screen and in what the copy buttons copy. Exports stay redacted."));
    connect(m_reveal, &QCheckBox::toggled, this, &AttemptInspector::refresh);

    m_copyNote->setObjectName(QStringLiteral("copyNote"));
    m_copyNote->setForegroundRole(QPalette::PlaceholderText);
    m_copyNoteTimer->setSingleShot(true);
    m_copyNoteTimer->setInterval(copyNoteMs);
    connect(m_copyNoteTimer, &QTimer::timeout, m_copyNote, &QLabel::clear);

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(previousButton);
    top->addWidget(nextButton);
    top->addWidget(m_title, 1);
    // Takes a second row in a narrow dock instead of widening it.
    auto *actions = new FlowLayout(nullptr, 6, 2);
    actions->setContentsMargins(0, 0, 0, 0);
    actions->addWidget(m_reveal);
    actions->addWidget(copyButton(QStringLiteral("copyExchange"), tr("Copy exchange"),
        tr("the request and the response"), [this] { return exchangeText(); }));
    actions->addWidget(copyButton(
        QStringLiteral("copyCurl"), tr("Copy as curl"), tr("a curl command"), [this] { return curlText(); }));
    actions->addWidget(m_copyNote);

    m_pages->setObjectName(QStringLiteral("inspectorPages"));
    m_pages->setDocumentMode(true);
    m_pages->addTab(buildSummaryPage(), tr("Summary"));
    m_pages->addTab(buildMessagePage(false), tr("Request"));
    m_pages->addTab(buildMessagePage(true), tr("Response"));
    m_pages->addTab(buildTimingPage(), tr("Timing"));
    m_pages->addTab(m_checks, tr("Checks"));
    m_pages->setTabVisible(int(Page::Checks), false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->addLayout(top);
    layout->addWidget(m_banner);
    layout->addLayout(actions);
    layout->addWidget(m_pages, 1);

    showNothing(tr("Select an attempt in the timeline or the error log to see what it sent and what came back."));
}

AttemptInspector::~AttemptInspector() = default;

QToolButton *AttemptInspector::copyButton(
    const QString &objectName, const QString &text, const QString &what, const std::function<QString()> &content)
{
    auto *button = new QToolButton;
    button->setObjectName(objectName);
    button->setText(text);
    button->setToolTip(tr("Copy %1 to the clipboard (redacted unless credentials are shown)").arg(what));
    connect(button, &QToolButton::clicked, this, [this, what, content] {
        QApplication::clipboard()->setText(content());
        noteCopied(what);
    });
    m_needsRecord.append(button);
    return button;
}

QWidget *AttemptInspector::buildSummaryPage()
{
    m_summary = richLabel(QStringLiteral("inspectorSummary"));
    auto *inner = new QWidget;
    auto *innerLayout = new QVBoxLayout(inner);
    innerLayout->addWidget(m_summary);
    innerLayout->addStretch(1);
    auto *area = new QScrollArea;
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(inner);

    auto *page = new QWidget;
    auto *bar = new QHBoxLayout;
    bar->addStretch(1);
    bar->addWidget(copyButton(
        QStringLiteral("copySummary"), tr("Copy summary"), tr("the summary"), [this] { return summaryText(); }));
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(area, 1);
    return page;
}

QWidget *AttemptInspector::buildMessagePage(bool response)
{
    QLabel *line = richLabel(response ? QStringLiteral("statusLine") : QStringLiteral("requestLine"));
    line->setTextFormat(Qt::PlainText);
    line->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    QTableWidget *table = headerTable(response ? QStringLiteral("responseHeaders") : QStringLiteral("requestHeaders"));
    auto *body = new BodyView;
    body->setObjectName(response ? QStringLiteral("responseBody") : QStringLiteral("requestBody"));
    connect(body, &BodyView::copied, this,
        [this, response] { noteCopied(response ? tr("the response body") : tr("the request body")); });
    (response ? m_statusLine : m_requestLine) = line;
    (response ? m_responseHeaders : m_requestHeaders) = table;
    (response ? m_responseBody : m_requestBody) = body;

    auto *headersBox = new QWidget;
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    auto *caption = new QLabel(tr("Headers"));
    bar->addWidget(caption, 1);
    bar->addWidget(copyButton(response ? QStringLiteral("copyResponseHeaders") : QStringLiteral("copyRequestHeaders"),
        tr("Copy headers"), response ? tr("the response headers") : tr("the request headers"),
        [this, response] { return response ? responseHeadersText() : requestHeadersText(); }));
    auto *headersLayout = new QVBoxLayout(headersBox);
    headersLayout->setContentsMargins(0, 0, 0, 0);
    headersLayout->addLayout(bar);
    headersLayout->addWidget(table, 1);

    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(headersBox);
    splitter->addWidget(body);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({200, 300}); // proportions until it is laid out

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(line);
    layout->addWidget(splitter, 1);
    return page;
}

QWidget *AttemptInspector::buildTimingPage()
{
    m_waterfall = new TimingWaterfall;
    m_timingTable = richLabel(QStringLiteral("timingTable"));
    auto *page = new QWidget;
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("What the client could measure")), 1);
    bar->addWidget(copyButton(
        QStringLiteral("copyTiming"), tr("Copy timings"), tr("the timings"), [this] { return timingText(); }));
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_waterfall);
    layout->addWidget(m_timingTable);
    layout->addStretch(1);
    return page;
}

void AttemptInspector::setSession(RunSession *session)
{
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    m_session = session;
    if (session) {
        connect(session, &RunSession::updated, this, &AttemptInspector::handleSessionUpdated);
        connect(session, &RunSession::cleared, this, &AttemptInspector::handleSessionCleared);
        connect(session, &RunSession::checksEvaluated, this, &AttemptInspector::handleChecksEvaluated);
    }
    showAttempt(-1);
}

void AttemptInspector::handleSessionUpdated()
{
    // An attempt in flight gets its record when it ends; a finished one does not change,
    // but its request may have made more attempts since.
    if (m_row >= 0 && !m_hasRecord) {
        refresh();
    } else if (m_row >= 0) {
        updateTitle();
        updateNavigation();
    }
}

void AttemptInspector::handleSessionCleared()
{
    showAttempt(-1);
}

void AttemptInspector::handleChecksEvaluated(quint64 requestId)
{
    if (m_session && m_row >= 0 && m_session->lane(m_session->attemptRow(m_row).lane).requestId == requestId)
        updateChecks();
}

bool AttemptInspector::hasChecks() const
{
    return m_pages->isTabVisible(int(Page::Checks));
}

// The Checks page belongs to the request: every attempt of it shows the same verdict,
// that of its last attempt, so that stepping through the retries keeps it in view.
void AttemptInspector::updateChecks()
{
    const RequestChecks *checks = nullptr;
    quint64 requestId = 0;
    if (m_session && m_row >= 0) {
        requestId = m_session->lane(m_session->attemptRow(m_row).lane).requestId;
        checks = m_session->checks(requestId);
    }
    if (!checks) {
        if (page() == Page::Checks)
            setPage(Page::Summary);
        m_pages->setTabVisible(int(Page::Checks), false);
        m_checks->clear();
        return;
    }
    m_checks->setVerdict(*checks, m_session->checkVerdict(requestId));
    m_pages->setTabText(int(Page::Checks), m_checks->titleText());
    m_pages->setTabVisible(int(Page::Checks), true);
}

void AttemptInspector::showAttempt(qsizetype sessionRow)
{
    if (!m_session || sessionRow < 0 || sessionRow >= m_session->attemptRowCount())
        sessionRow = -1;
    m_row = sessionRow;
    refresh();
}

void AttemptInspector::showPrevious()
{
    if (const qsizetype row = previousRow(); row >= 0) {
        showAttempt(row);
        Q_EMIT attemptShown(row);
    }
}

void AttemptInspector::showNext()
{
    if (const qsizetype row = nextRow(); row >= 0) {
        showAttempt(row);
        Q_EMIT attemptShown(row);
    }
}

qsizetype AttemptInspector::previousRow() const
{
    if (!m_session || m_row < 0)
        return -1;
    const RunSession::Lane &lane = m_session->lane(m_session->attemptRow(m_row).lane);
    qsizetype previous = -1;
    for (quint32 r = lane.firstRow; r != RunSession::noRow && qsizetype(r) != m_row;
         r = m_session->attemptRow(r).nextInLane)
        previous = r;
    return previous;
}

qsizetype AttemptInspector::nextRow() const
{
    if (!m_session || m_row < 0)
        return -1;
    const quint32 next = m_session->attemptRow(m_row).nextInLane;
    return next == RunSession::noRow ? -1 : qsizetype(next);
}

void AttemptInspector::setPage(Page page)
{
    m_pages->setCurrentIndex(int(page));
}

AttemptInspector::Page AttemptInspector::page() const
{
    return Page(m_pages->currentIndex());
}

void AttemptInspector::setCredentialsRevealed(bool revealed)
{
    m_reveal->setChecked(revealed);
}

bool AttemptInspector::credentialsRevealed() const
{
    return m_reveal->isChecked();
}

QString AttemptInspector::copyMessage() const
{
    return m_copyNote->text();
}

void AttemptInspector::noteCopied(const QString &what)
{
    m_copyNote->setText(tr("Copied %1.").arg(what));
    m_copyNoteTimer->start();
}

QString AttemptInspector::shownUrl(const QUrl &url) const
{
    return credentialsRevealed() ? url.toString(QUrl::FullyEncoded) : Redactor().urlString(url);
}

QString AttemptInspector::shownText(const QString &text) const
{
    return credentialsRevealed() ? text : Redactor().text(text);
}

QByteArray AttemptInspector::shownBody(const QByteArray &body, const HeaderList &headers) const
{
    return credentialsRevealed() ? body : Redactor().body(body, headers);
}

QString AttemptInspector::headersText(const HeaderList &headers) const
{
    const HeaderList shown = credentialsRevealed() ? headers : Redactor().headers(headers);
    QString text;
    for (const auto &[name, value] : shown)
        text += QString::fromLatin1(name) + QStringLiteral(": ") + QString::fromUtf8(value) + QLatin1Char('\n');
    return text;
}

void AttemptInspector::showNothing(const QString &why)
{
    m_hasRecord = false;
    m_record = AttemptRecord{};
    m_title->setText(tr("No attempt selected"));
    m_banner->setText(html(why));
    updateChecks();
    m_summaryRows.clear();
    m_timingRows.clear();
    m_summary->clear();
    m_requestLine->clear();
    m_statusLine->clear();
    m_requestHeaders->setRowCount(0);
    m_responseHeaders->setRowCount(0);
    m_requestBody->setBody({});
    m_responseBody->setBody({});
    m_waterfall->setRecord(AttemptRecord{});
    m_timingTable->clear();
    for (QWidget *button : std::as_const(m_needsRecord))
        button->setEnabled(false);
    updateNavigation();
}

void AttemptInspector::refresh()
{
    if (!m_session || m_row < 0) {
        showNothing(tr("Select an attempt in the timeline or the error log to see what it sent and what came back."));
        return;
    }
    const RunSession::AttemptRow &row = m_session->attemptRow(m_row);
    const RequestSpec *spec = m_session->spec(row.lane);
    m_hasSpec = spec != nullptr;
    m_spec = spec ? *spec : RequestSpec{};
    updateTitle();
    updateChecks();

    if (row.inFlight()) {
        showNothing(tr("In flight for %1: what came back shows when the attempt ends.")
                        .arg(Core::DurationText::format((m_session->nowNs() - row.startNs) / 1e6)));
        updateTitle();
        return;
    }
    m_record = m_session->attemptRecord(m_session->finishedIndexOfRow(m_row));
    m_hasRecord = true;
    for (QWidget *button : std::as_const(m_needsRecord))
        button->setEnabled(true);
    const AttemptRecord &a = m_record;

    const AttemptOutcome outcome = attemptOutcomeOf(a);
    const QColor colour = readableOn(outcomeColor(outcome), palette().color(QPalette::Window));
    QString status = m_session->statusText(row);
    if (a.nextDelayMs >= 0.0)
        status += tr(", retried after %1").arg(Core::DurationText::format(a.nextDelayMs));
    m_banner->setText(QStringLiteral("<span style=\"color:%1\">\u25a0</span> <b>%2</b> \u2014 %3")
                          .arg(colour.name(), html(attemptOutcomeTitle(outcome)), html(shownText(status))));

    // Summary, as plain lines: the label shows them as a table, Copy as text.
    QList<Row> &rows = m_summaryRows;
    rows.clear();
    rows.append({tr("Outcome"), attemptOutcomeTitle(outcome)});
    rows.append({tr("Classification"),
        (a.cause.isEmpty() ? tr("none") : a.cause) + QStringLiteral(" \u2014 ") + decisionTitle(a.decision)});
    rows.append({tr("Reason"), shownText(a.reason)});
    if (!a.errorString.isEmpty()) {
        rows.append({tr("Error"),
            shownText(a.errorString)
                + (a.networkError != QNetworkReply::NoError
                        ? QStringLiteral(" (%1)").arg(networkErrorName(a.networkError))
                        : QString())});
    }
    rows.append({tr("Ended by"), attemptEndName(a.end)});
    if (a.attemptIndex > 0) {
        const double late = a.actualDelayMs - a.plannedDelayMs;
        rows.append({tr("Delay before it"),
            tr("planned %1, actual %2 (%3%4)")
                .arg(Core::DurationText::format(a.plannedDelayMs), Core::DurationText::format(a.actualDelayMs),
                    late >= 0.0 ? QStringLiteral("+") : QString(), Core::DurationText::format(late))});
    } else {
        rows.append({tr("Delay before it"), tr("none: the first attempt")});
    }
    rows.append({tr("Delay after it"),
        a.nextDelayMs >= 0.0 ? Core::DurationText::format(a.nextDelayMs) : tr("none: no retry followed")});
    if (!a.retryAfterRaw.isEmpty()) {
        rows.append({tr("Retry-After"),
            QString::fromLatin1(a.retryAfterRaw)
                + (a.retryAfterMs ? tr(" (honoured: %1)").arg(Core::DurationText::format(*a.retryAfterMs))
                                  : QString())});
    }
    // What the server said of the client's rate limit, in whichever style it used.
    if (const Core::RateLimitHeaders limit = Core::RateLimitHeaders::parse(
            a.responseHeaders, a.startWall.isValid() ? a.startWall : QDateTime::currentDateTimeUtc());
        limit.isPresent()) {
        QString text = limit.describe();
        if (!limit.resetReading.isEmpty())
            text += tr("; the reset read as %1").arg(limit.resetReading);
        for (const QString &problem : limit.problems)
            text += QLatin1Char('\n') + tr("not used: %1").arg(shownText(problem));
        rows.append({tr("Rate limit"), text});
    }
    if (!a.step.isEmpty())
        rows.append({tr("Read-modify-write"), tr("%1 step, round %2").arg(a.step).arg(a.sequenceRound + 1)});
    QStringList hops;
    QStringList authHops;
    for (const RedirectHop &hop : a.redirects) {
        if (hop.kind == RedirectHop::Kind::Token) {
            const QString took = hop.finishedNs >= 0 && hop.startNs >= 0
                ? tr(", %1 ms").arg((hop.finishedNs - hop.startNs) / 1e6, 0, 'f', 1)
                : QString();
            authHops.append(hop.followed
                    ? tr("access token from %1 (%2%3)").arg(shownUrl(hop.from)).arg(hop.status).arg(took)
                    : tr("no token from %1 (%2): %3").arg(shownUrl(hop.from)).arg(hop.status).arg(hop.note));
            continue;
        }
        if (hop.kind == RedirectHop::Kind::Challenge) {
            authHops.append(tr("%1 challenge answered").arg(hop.status));
            continue;
        }
        QString line = QStringLiteral("%1 %2 \u2192 %3").arg(hop.status).arg(shownUrl(hop.from), shownUrl(hop.to));
        if (!hop.droppedHeaders.isEmpty()) {
            QStringList names;
            for (const QByteArray &name : hop.droppedHeaders)
                names.append(QString::fromLatin1(name));
            line += tr(" (left out: %1)").arg(names.join(QStringLiteral(", ")));
        }
        if (!hop.followed)
            line += tr(" (not followed: %1)").arg(hop.note);
        hops.append(line);
    }
    if (!authHops.isEmpty())
        rows.append({tr("Auth"), authHops.join(QLatin1Char('\n'))});
    rows.append({tr("Redirects"), hops.isEmpty() ? tr("none") : hops.join(QLatin1Char('\n'))});
    rows.append({tr("Protocol"), a.protocol.isEmpty() ? tr("not reported") : a.protocol});
    if (!a.tls.isEmpty()) {
        QStringList tls{QStringLiteral("%1, %2").arg(a.tls.protocol, a.tls.cipher)};
        if (!a.tls.peerSubject.isEmpty())
            tls.append(tr("subject: %1").arg(a.tls.peerSubject));
        if (!a.tls.peerIssuer.isEmpty())
            tls.append(tr("issuer: %1").arg(a.tls.peerIssuer));
        if (!a.tls.peerNotBefore.isEmpty() || !a.tls.peerNotAfter.isEmpty())
            tls.append(tr("valid from %1 to %2").arg(a.tls.peerNotBefore, a.tls.peerNotAfter));
        for (const QString &error : a.tls.errors) {
            tls.append(
                a.tls.errorsIgnored ? tr("error (ignored for this host): %1").arg(error) : tr("error: %1").arg(error));
        }
        rows.append({tr("TLS"), tls.join(QLatin1Char('\n'))});
    } else {
        rows.append(
            {tr("TLS"), a.url.scheme() == QLatin1String("https") ? tr("not recorded") : tr("none (plain HTTP)")});
    }
    rows.append({tr("Received"),
        a.expectedBytes >= 0
            ? tr("%1 of %2 announced").arg(BodyView::sizeText(a.bytesReceived), BodyView::sizeText(a.expectedBytes))
            : BodyView::sizeText(a.bytesReceived)});
    m_summary->setText(tableHtml(rows));

    // Request and response.
    m_requestLine->setText(QString::fromLatin1(a.method) + QLatin1Char(' ') + shownUrl(a.url));
    m_statusLine->setText(statusLineText());
    fillHeaders(m_requestHeaders, a.requestHeaders);
    fillHeaders(m_responseHeaders, a.responseHeaders);
    fillBodies();

    // Timing.
    m_waterfall->setRecord(a);
    const auto point = [&a](qint64 ns) {
        return ns >= 0 && a.startNs >= 0 ? QStringLiteral("+") + Core::DurationText::format((ns - a.startNs) / 1e6)
                                         : tr("not reported");
    };
    QList<Row> &times = m_timingRows;
    times.clear();
    times.append({tr("Queued"),
        a.queuedNs > 0 ? tr("%1 before the start").arg(Core::DurationText::format(a.queuedNs / 1e6))
                       : tr("not at all")});
    times.append({tr("Started"),
        tr("%1 into the run (%2 UTC)")
            .arg(Core::DurationText::format(m_session->toRunMs(a.startNs)),
                a.startWall.toUTC().toString(QStringLiteral("HH:mm:ss.zzz")))});
    times.append({tr("Connection started"),
        a.connectionStartedNs >= 0 ? point(a.connectionStartedNs) : tr("not reported (a reused connection)")});
    times.append({tr("Request sent"), point(a.requestSentNs)});
    times.append({tr("First byte"), point(a.firstByteNs)});
    times.append({tr("Finished"), point(a.finishedNs >= 0 ? a.finishedNs : a.endNs)});
    times.append({tr("Duration"), Core::DurationText::format(a.durationMs())});
    // Where the time of the last exchange went, as curl -w splits it; unknown phases say so.
    const Core::AttemptPhases phases = Core::AttemptPhases::of(a);
    const auto phase = [&phases](const std::optional<double> &ms) {
        if (ms)
            return Core::DurationText::format(*ms);
        return phases.reusedConnection ? tr("none (a reused connection)") : tr("not reported");
    };
    if (!a.connectAddress.isEmpty())
        times.append({tr("Connected to"), a.connectAddress});
    times.append({tr("DNS lookup"), phase(phases.dnsMs)});
    if (phases.connectTlsMs) {
        // Qt reports the end of the handshake, not the end of the TCP connect before it.
        times.append({tr("Connect + TLS"), phase(phases.connectTlsMs)});
    } else {
        times.append({tr("Connect"), phase(phases.connectMs)});
    }
    times.append({tr("Sending"), phase(phases.sendMs)});
    times.append({tr("Waiting (first byte)"), phase(phases.firstByteMs)});
    times.append({tr("Download"), phase(phases.downloadMs)});
    if (a.connectTimedOut)
        times.append({tr("Connect timeout"), tr("the connection was not ready in time")});
    m_timingTable->setText(tableHtml(times));
    updateNavigation();
}

QString AttemptInspector::statusLineText() const
{
    const AttemptRecord &a = m_record;
    const bool cut
        = a.end == AttemptEnd::AttemptTimeout || a.end == AttemptEnd::Deadline || a.end == AttemptEnd::Cancelled;
    if (!a.httpStatus)
        return tr("No response: %1").arg(shownText(a.errorString.isEmpty() ? attemptEndName(a.end) : a.errorString));
    QString line = (a.protocol.isEmpty() ? QString() : a.protocol + QLatin1Char(' ')) + QString::number(*a.httpStatus);
    if (!a.reasonPhrase.isEmpty())
        line += QLatin1Char(' ') + QString::fromLatin1(a.reasonPhrase);
    if (cut || a.end == AttemptEnd::NetworkError)
        line += tr("  (then: %1)").arg(shownText(a.errorString.isEmpty() ? attemptEndName(a.end) : a.errorString));
    return line;
}

void AttemptInspector::fillHeaders(QTableWidget *table, const HeaderList &headers) const
{
    table->setRowCount(int(headers.size()));
    for (int i = 0; i < headers.size(); ++i) {
        const QString name = QString::fromLatin1(headers.at(i).first);
        const QString value = QString::fromUtf8(headers.at(i).second);
        const bool masked = !credentialsRevealed() && CredentialMask::isCredentialHeader(name);
        auto *nameItem = new QTableWidgetItem(name);
        auto *valueItem = new QTableWidgetItem(masked ? CredentialMask::masked(value) : shownText(value));
        if (masked)
            valueItem->setToolTip(CredentialMask::maskedToolTip());
        else
            valueItem->setToolTip(value.size() > 60 ? shownText(value) : QString());
        table->setItem(i, 0, nameItem);
        table->setItem(i, 1, valueItem);
    }
}

void AttemptInspector::fillBodies()
{
    const AttemptRecord &a = m_record;
    BodyView::Body request;
    request.bytes = shownBody(a.requestBody, a.requestHeaders);
    request.contentType = headerValue(a.requestHeaders, "Content-Type").value_or(QByteArray());
    request.totalBytes = a.requestBody.size();
    request.dropped = a.requestBodyDropped;
    request.absentNote = a.step == QLatin1String("read") || a.method == "GET" || a.method == "HEAD"
        ? tr("No body: a %1 sends none").arg(QString::fromLatin1(a.method))
        : tr("No body");
    m_requestBody->setBody(request);

    BodyView::Body response;
    response.bytes = shownBody(a.responseBody, a.responseHeaders);
    response.contentType = headerValue(a.responseHeaders, "Content-Type").value_or(QByteArray());
    response.totalBytes = a.bytesReceived;
    response.truncated = a.responseBodyTruncated;
    response.dropped = a.responseBodyDropped;
    response.absentNote = !a.httpStatus ? tr("No response") : a.bytesReceived == 0 ? tr("Empty body") : tr("No body");
    m_responseBody->setBody(response);
}

void AttemptInspector::updateTitle()
{
    if (!m_session || m_row < 0)
        return;
    const RunSession::AttemptRow &row = m_session->attemptRow(m_row);
    const RunSession::Lane &lane = m_session->lane(row.lane);
    // "of N" once the request has finished; while it runs more attempts may follow.
    m_title->setText(lane.finished
            ? tr("%1 \u00b7 attempt %2 of %3")
                  .arg(m_session->laneTitle(row.lane))
                  .arg(row.attemptIndex + 1)
                  .arg(lane.attempts)
            : tr("%1 \u00b7 attempt %2").arg(m_session->laneTitle(row.lane)).arg(row.attemptIndex + 1));
    if (row.fallback > 0) {
        const Core::RequestSpec *spec = m_session->spec(row.lane);
        m_title->setText(tr("%1 \u00b7 at %2")
                             .arg(m_title->text(),
                                 spec ? Core::RetryPlanner::fallbackName(*spec, row.fallback)
                                      : tr("fallback %1").arg(row.fallback)));
    }
    // A hedged request's attempts overlap: say which one the request kept, and which went out beside another.
    if (row.hedgeWinner())
        m_title->setText(tr("%1 \u00b7 the answer kept (hedging)").arg(m_title->text()));
    else if (row.hedged())
        m_title->setText(tr("%1 \u00b7 hedged").arg(m_title->text()));
    m_title->setToolTip(m_title->text());
}

void AttemptInspector::updateNavigation()
{
    m_previous->setEnabled(previousRow() >= 0);
    m_next->setEnabled(nextRow() >= 0);
}

QString AttemptInspector::summaryText() const
{
    if (!m_hasRecord)
        return {};
    return m_title->text() + QLatin1Char('\n') + plainText(m_summaryRows);
}

QString AttemptInspector::requestHeadersText() const
{
    return m_hasRecord ? headersText(m_record.requestHeaders) : QString();
}

QString AttemptInspector::responseHeadersText() const
{
    return m_hasRecord ? headersText(m_record.responseHeaders) : QString();
}

QString AttemptInspector::exchangeText() const
{
    if (!m_hasRecord)
        return {};
    const AttemptRecord &a = m_record;
    QString text = QString::fromLatin1(a.method) + QLatin1Char(' ') + shownUrl(a.url);
    if (!a.protocol.isEmpty())
        text += QLatin1Char(' ') + a.protocol;
    text += QLatin1Char('\n') + headersText(a.requestHeaders);
    if (!a.requestBody.isEmpty())
        text += QLatin1Char('\n') + bodyAsText(shownBody(a.requestBody, a.requestHeaders), a.requestHeaders)
            + QLatin1Char('\n');
    else if (a.requestBodyDropped)
        text += QLatin1Char('\n') + tr("[body dropped to bound memory]") + QLatin1Char('\n');
    text += QLatin1Char('\n') + statusLineText() + QLatin1Char('\n');
    if (a.httpStatus) {
        text += headersText(a.responseHeaders);
        if (!a.responseBody.isEmpty()) {
            text += QLatin1Char('\n') + bodyAsText(shownBody(a.responseBody, a.responseHeaders), a.responseHeaders);
            if (a.transferEnded)
                text += QLatin1Char('\n')
                    + tr("[the first %1; the transfer was ended after %2, the rest never read]")
                          .arg(BodyView::sizeText(a.responseBody.size()), BodyView::sizeText(a.bytesReceived));
            else if (a.responseBodyTruncated)
                text += QLatin1Char('\n')
                    + tr("[the first %1 of %2]")
                          .arg(BodyView::sizeText(a.responseBody.size()), BodyView::sizeText(a.bytesReceived));
            text += QLatin1Char('\n');
        } else if (a.responseBodyDropped) {
            text += QLatin1Char('\n') + tr("[body dropped to bound memory]") + QLatin1Char('\n');
        }
    }
    return text;
}

QString AttemptInspector::curlText() const
{
    if (!m_hasRecord)
        return {};
    // The attempt as sent, as a new request: the executor's attempt headers would tell
    // the fault server it is the same attempt again.
    RequestSpec spec;
    spec.method = m_record.method;
    spec.url = m_record.url;
    spec.headers = m_record.requestHeaders;
    spec.headers.removeIf([](const auto &h) {
        return h.first.compare(RetryHeaders::requestId, Qt::CaseInsensitive) == 0
            || h.first.compare(RetryHeaders::attempt, Qt::CaseInsensitive) == 0;
    });
    spec.body = m_record.requestBody;
    if (m_hasSpec)
        spec.transport = m_spec.transport;
    ExportOptions options;
    options.redactCredentials = !credentialsRevealed();
    return CurlCommand::build(spec, options).commandLine;
}

QString AttemptInspector::timingText() const
{
    if (!m_hasRecord)
        return {};
    QString text = m_title->text() + QLatin1Char('\n');
    for (const TimingWaterfall::Phase &phase : m_waterfall->phases())
        text += QStringLiteral("%1: %2 (from %3)\n")
                    .arg(phase.name, Core::DurationText::format(phase.lengthMs),
                        Core::DurationText::format(phase.startMs));
    return text + plainText(m_timingRows);
}

} // namespace RetryLab::Ui
