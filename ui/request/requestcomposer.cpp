#include "ui/request/requestcomposer.h"

#include "core/executor/requestcheck.h"
#include "core/policy/classifier.h"
#include "core/policy/fallbacktriggers.h"
#include "core/policy/pollingpolicy.h"
#include "core/util/durationtext.h"
#include "ui/request/authform.h"
#include "ui/request/bodyform.h"
#include "ui/request/checksform.h"
#include "ui/request/headertablemodel.h"
#include "ui/request/readmodifywriteform.h"
#include "ui/request/transportform.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/unitspinbox.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QRegularExpressionValidator>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

// One job: the form that edits one request draft. Its tabs (headers, body, options,
// fallbacks, batch) are built, filled from a draft and read back into one, and every
// edit refreshes the same blocker, tab titles and button texts; split by tab, each
// piece would need the whole draft and that refresh.

namespace RetryLab::Ui {

namespace {

// Edits a credential in a password field, so that changing a token does not show it.
class HeaderValueDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QWidget *editor = QStyledItemDelegate::createEditor(parent, option, index);
        if (auto *line = qobject_cast<QLineEdit *>(editor); line && index.data(HeaderTableModel::MaskedRole).toBool())
            line->setEchoMode(QLineEdit::Password);
        return editor;
    }
};

// Shows as much of a long line as fits, ending in "…", with all of it in the tooltip.
class ElidedLabel final : public QLabel
{
public:
    using QLabel::QLabel;

    void setFullText(const QString &text)
    {
        m_full = text;
        updateText();
    }
    QString fullText() const { return m_full; }

    QSize minimumSizeHint() const override { return {0, QLabel::minimumSizeHint().height()}; }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QLabel::resizeEvent(event);
        updateText();
    }

private:
    void updateText()
    {
        setText(fontMetrics().elidedText(m_full, Qt::ElideRight, std::max(0, contentsRect().width())));
    }

    QString m_full;
};

struct Endpoint
{
    QString urlTemplate;
    QString description;
};

// The examples' descriptions follow the policy: a 404 is retried under IAM's 404 option.
QList<Endpoint> endpointExamples(const Core::BackoffPolicy &policy)
{
    const bool retries404 = policy.classification.retryableStatuses.contains(404);
    return {
        {QStringLiteral("{server}/fail/3?key={id}"), RequestComposer::tr("503 three times, then 200 (the default)")},
        {QStringLiteral("{server}/fail/2?code=429&retry_after=1&key={id}"),
            RequestComposer::tr("429 with Retry-After: 1 s twice, then 200")},
        {QStringLiteral("{server}/fail/5?p=0.3&key={id}"),
            RequestComposer::tr("flaky: each answer is 503 with probability 30 % (at most 5 times)")},
        {QStringLiteral("{server}/status/200"), RequestComposer::tr("always 200")},
        {QStringLiteral("{server}/status/500"), RequestComposer::tr("always 500: fails for good")},
        {QStringLiteral("{server}/status/404"),
            retries404 ? RequestComposer::tr("404: retried by this policy (eventual consistency), always 404")
                       : RequestComposer::tr("404: not transient, never retried")},
        {QStringLiteral("{server}/eventual/{id}"),
            RequestComposer::tr("eventually consistent: PUT creates it, then GET answers 404 for 1 s")},
        {QStringLiteral("{server}/delay/1500"),
            RequestComposer::tr("200 after 1.5 s (try a short per-attempt timeout)")},
        {QStringLiteral("{server}/fault/reset"),
            RequestComposer::tr("connection reset before the answer (Qt resends once on its own)")},
        {QStringLiteral("{server}/fault/broken"), RequestComposer::tr("the body stops halfway")},
        {QStringLiteral("{server}/fault/stall"), RequestComposer::tr("never answers: the per-attempt timeout decides")},
        {QStringLiteral("{server}/ratelimit?rps=2&burst=2&key=shared"),
            RequestComposer::tr("rate limit: beyond 2 per second, 429 with Retry-After")},
    };
}

// An interval or timeout of zero means there is none.
QString intervalText(double ms)
{
    return ms <= 0.0 ? RequestComposer::tr("none") : Core::DurationText::format(ms);
}

} // namespace

RequestComposer::RequestComposer(QWidget *parent)
    : QWidget(parent), m_method(new QComboBox(this)), m_url(new QComboBox(this)), m_endpoints(buildEndpointsButton()),
      m_preview(new ElidedLabel(this)), m_activity(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_progressTimer(new QTimer(this)), m_message(new FieldMessage(this)), m_details(new QTabWidget(this)),
      m_headerModel(new HeaderTableModel(this)), m_headerView(new QTableView),
      m_reveal(new QCheckBox(tr("Show credentials"))), m_removeHeader(new QToolButton), m_body(new BodyForm),
      m_idempotent(new QCheckBox(tr("Safe to repeat (idempotent)"))), m_idempotency(new FieldMessage),
      m_ownTimeout(new QCheckBox(tr("Own per-attempt timeout:"))), m_timeout(new UnitSpinBox(1000.0, tr("s"), 3)),
      m_policyTimeout(new QLabel), m_batchCount(new QSpinBox), m_concurrency(new QSpinBox),
      m_interval(new QDoubleSpinBox), m_seed(new QLineEdit), m_replaySeed(new QToolButton),
      m_transport(new TransportForm), m_auth(new AuthForm), m_sendAction(new QAction(tr("&Send"), this)),
      m_batchAction(new QAction(tr("Send &batch"), this)), m_repeatAction(new QAction(tr("&Repeat"), this)),
      m_stopAction(new QAction(tr("S&top"), this))
{
    fillEndpointsMenu();
    m_method->setObjectName(QStringLiteral("method"));
    m_method->setEditable(true);
    m_method->setInsertPolicy(QComboBox::NoInsert);
    m_method->addItems({QStringLiteral("GET"), QStringLiteral("HEAD"), QStringLiteral("POST"), QStringLiteral("PUT"),
        QStringLiteral("PATCH"), QStringLiteral("DELETE"), QStringLiteral("OPTIONS")});
    m_method->setToolTip(tr("The HTTP method. POST and PATCH are not retried unless marked idempotent (Options) or "
                            "sent with an Idempotency-Key header."));
    m_method->setMinimumContentsLength(7);
    m_method->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);

    m_url->setObjectName(QStringLiteral("url"));
    m_url->setEditable(true);
    m_url->setInsertPolicy(QComboBox::NoInsert);
    m_url->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_url->setMinimumContentsLength(8);
    m_url->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_url->lineEdit()->setPlaceholderText(tr("{server}/status/200 or https://example.org/path"));
    m_url->lineEdit()->setClearButtonEnabled(true);
    m_url->setToolTip(tr("<p>The URL; the list holds recent ones.</p>"
                         "<p><b>{server}</b> is the embedded fault server (its port changes at every start), "
                         "<b>{id}</b> a new key for every request, so that <tt>/fail/3?key={id}</tt> fails three "
                         "times for each request sent. Both also work in header values and the body.</p>"));

    m_sendAction->setObjectName(QStringLiteral("send"));
    m_sendAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_batchAction->setObjectName(QStringLiteral("sendBatch"));
    m_batchAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
    m_repeatAction->setObjectName(QStringLiteral("repeat"));
    m_repeatAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_stopAction->setObjectName(QStringLiteral("stop"));
    m_stopAction->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stopAction->setToolTip(tr("Stop repeating and cancel every request (Esc)"));
    m_stopAction->setEnabled(false);

    const auto button = [this](QAction *action) {
        auto *b = new QToolButton(this);
        b->setDefaultAction(action);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        b->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
        return b;
    };
    QToolButton *sendButton = button(m_sendAction);
    sendButton->setObjectName(QStringLiteral("sendButton"));
    QFont bold = sendButton->font();
    bold.setBold(true);
    sendButton->setFont(bold);

    m_urlRow = new QHBoxLayout;
    m_urlRow->setSpacing(4);
    m_urlRow->addWidget(m_method);
    m_urlRow->addWidget(m_url, 1);
    m_urlRow->addWidget(m_endpoints);
    m_sendButtons = new QHBoxLayout;
    m_sendButtons->setSpacing(4);
    m_sendButtons->addWidget(sendButton);
    m_sendButtons->addWidget(button(m_batchAction));
    m_sendButtons->addWidget(button(m_repeatAction));
    m_sendButtons->addWidget(button(m_stopAction));
    m_sendButtons->addStretch(0);
    m_requestLine = new QBoxLayout(QBoxLayout::LeftToRight);
    m_requestLine->setSpacing(10);
    m_requestLine->addLayout(m_urlRow, 1);
    m_requestLine->addLayout(m_sendButtons);

    m_preview->setObjectName(QStringLiteral("preview"));
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview->setTextFormat(Qt::PlainText);
    m_preview->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_activity->setObjectName(QStringLiteral("activity"));
    m_progress->setObjectName(QStringLiteral("batchProgress"));
    m_progressTimer->setSingleShot(true);
    connect(m_progressTimer, &QTimer::timeout, this, &RequestComposer::showBatchProgress);
    updateProgressWidth();
    m_progress->setTextVisible(true);
    m_progress->setVisible(false);
    auto *status = new QHBoxLayout;
    status->addWidget(m_preview, 1);
    status->addWidget(m_progress);
    status->addWidget(m_activity);
    m_runButtons = new QHBoxLayout;
    m_runButtons->setSpacing(4);
    status->addLayout(m_runButtons);

    m_message->setObjectName(QStringLiteral("sendProblem"));

    m_details->setObjectName(QStringLiteral("details"));
    m_details->setDocumentMode(true);
    m_details->addTab(buildHeadersTab(), QString());
    // As the connection form, it scrolls rather than make the dock taller.
    auto *auth = new QScrollArea;
    auth->setObjectName(QStringLiteral("authScroll"));
    auth->setFrameShape(QFrame::NoFrame);
    auth->setWidgetResizable(true);
    auth->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_auth->setObjectName(QStringLiteral("auth"));
    auth->setWidget(m_auth);
    m_details->addTab(auth, QString());
    m_body->setObjectName(QStringLiteral("bodyForm"));
    m_details->addTab(m_body, QString());
    m_optionsTab = buildOptionsTab();
    m_details->addTab(m_optionsTab, QString());
    m_batchTab = buildBatchTab();
    m_details->addTab(m_batchTab, QString());
    // The dock is short: the connection form scrolls rather than make it taller.
    auto *connection = new QScrollArea;
    connection->setObjectName(QStringLiteral("connectionScroll"));
    connection->setFrameShape(QFrame::NoFrame);
    connection->setWidgetResizable(true);
    connection->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_transport->setObjectName(QStringLiteral("connection"));
    connection->setWidget(m_transport);
    m_details->addTab(connection, QString());
    m_fallbacksTab = buildFallbacksTab();
    m_details->addTab(m_fallbacksTab, QString());
    // As the connection form, it scrolls rather than make the dock taller.
    m_readModifyWrite = new ReadModifyWriteForm;
    auto *readModifyWrite = new QScrollArea;
    readModifyWrite->setObjectName(QStringLiteral("readModifyWriteScroll"));
    readModifyWrite->setFrameShape(QFrame::NoFrame);
    readModifyWrite->setWidgetResizable(true);
    readModifyWrite->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    readModifyWrite->setWidget(m_readModifyWrite);
    m_details->addTab(readModifyWrite, QString());
    m_readModifyWriteTab = readModifyWrite;
    m_checks = new ChecksForm;
    m_checks->setObjectName(QStringLiteral("checks"));
    m_details->addTab(m_checks, QString());

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    layout->setSpacing(4);
    layout->addLayout(m_requestLine);
    layout->addLayout(status);
    layout->addWidget(m_message);
    layout->addWidget(m_details, 1);

    connect(m_method, &QComboBox::currentTextChanged, this, &RequestComposer::handleEdited);
    connect(m_url, &QComboBox::currentTextChanged, this, &RequestComposer::handleEdited);
    connect(m_headerModel, &HeaderTableModel::headersChanged, this, &RequestComposer::handleEdited);
    connect(m_body, &BodyForm::edited, this, &RequestComposer::handleEdited);
    connect(m_fallbacks, &QPlainTextEdit::textChanged, this, &RequestComposer::handleEdited);
    connect(m_fallbackOn, &QLineEdit::textChanged, this, &RequestComposer::handleEdited);
    connect(m_readModifyWrite, &ReadModifyWriteForm::changed, this, &RequestComposer::handleEdited);
    connect(m_idempotent, &QCheckBox::toggled, this, &RequestComposer::handleEdited);
    connect(m_ownTimeout, &QCheckBox::toggled, this, &RequestComposer::handleEdited);
    connect(m_timeout, &UnitSpinBox::storedValueChanged, this, &RequestComposer::handleEdited);
    connect(m_batchCount, &QSpinBox::valueChanged, this, &RequestComposer::handleEdited);
    connect(m_concurrency, &QSpinBox::valueChanged, this, &RequestComposer::handleEdited);
    connect(m_interval, &QDoubleSpinBox::valueChanged, this, &RequestComposer::handleEdited);
    connect(m_seed, &QLineEdit::textChanged, this, &RequestComposer::handleEdited);
    connect(m_transport, &TransportForm::transportChanged, this, &RequestComposer::handleEdited);
    connect(m_transport, &TransportForm::transportChanged, this,
        [this] { m_auth->setTransport(m_transport->transport()); });
    connect(m_auth, &AuthForm::authChanged, this, &RequestComposer::handleEdited);
    connect(m_checks, &ChecksForm::checksChanged, this, [this] {
        updateTabTitles();
        if (!m_filling)
            Q_EMIT checksChanged();
    });

    setDraft(Core::RequestDraft{});
}

RequestComposer::~RequestComposer() = default;

QToolButton *RequestComposer::addRunAction(QAction *action)
{
    auto *button = new QToolButton(this);
    button->setObjectName(action->objectName() + QStringLiteral("Button"));
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
    m_runButtons->addWidget(button);
    return button;
}

QList<QWidget *> RequestComposer::mainFlow() const
{
    QList<QWidget *> flow{m_url->lineEdit(), m_endpoints};
    for (QAction *action : {m_sendAction, m_batchAction, m_repeatAction, m_stopAction}) {
        for (QToolButton *button : findChildren<QToolButton *>()) {
            if (button->defaultAction() == action)
                flow.append(button);
        }
    }
    return flow;
}

bool RequestComposer::wrapsSendButtons() const
{
    return m_requestLine->direction() == QBoxLayout::TopToBottom;
}

QSize RequestComposer::minimumSizeHint() const
{
    QSize hint = QWidget::minimumSizeHint();
    if (!wrapsSendButtons()) {
        // Side by side, the line asks for both rows' widths; wrapped, for the wider.
        const int joined
            = m_urlRow->minimumSize().width() + m_requestLine->spacing() + m_sendButtons->minimumSize().width();
        const int wrapped = std::max(m_urlRow->minimumSize().width(), m_sendButtons->minimumSize().width());
        const QMargins margins = layout()->contentsMargins();
        const int others = std::max({m_details->minimumSizeHint().width(), m_message->minimumSizeHint().width(),
                               m_activity->minimumSizeHint().width()})
            + margins.left() + margins.right();
        if (hint.width() >= joined + margins.left() + margins.right())
            hint.setWidth(std::max(others, wrapped + margins.left() + margins.right()));
    }
    return hint;
}

void RequestComposer::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateWrap();
}

void RequestComposer::updateWrap()
{
    const QMargins margins = layout()->contentsMargins();
    // Side by side only while the URL keeps room for a real URL: below that, the Send buttons
    // take a row of their own and the URL the free width.
    const int roomyUrl = std::max(m_url->minimumSizeHint().width(), fontMetrics().averageCharWidth() * 48);
    const int joined = m_urlRow->minimumSize().width() - m_url->minimumSizeHint().width() + roomyUrl
        + m_requestLine->spacing() + m_sendButtons->sizeHint().width() + margins.left() + margins.right();
    const auto direction = width() >= joined ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (direction != m_requestLine->direction())
        m_requestLine->setDirection(direction);
}

QToolButton *RequestComposer::buildEndpointsButton()
{
    auto *b = new QToolButton(this);
    b->setObjectName(QStringLiteral("endpoints"));
    b->setText(tr("Endpoints"));
    b->setToolTip(tr("URLs of the embedded fault server that fail in different ways"));
    b->setPopupMode(QToolButton::InstantPopup);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setMenu(new QMenu(b));
    return b;
}

void RequestComposer::fillEndpointsMenu()
{
    QMenu *menu = m_endpoints->menu();
    menu->clear();
    for (const Endpoint &endpoint : endpointExamples(m_policy)) {
        // A URL's '&' is a character of the URL, not the mark of a shortcut letter.
        QString text = QStringLiteral("%1    \u2014 %2").arg(endpoint.urlTemplate, endpoint.description);
        QAction *action = menu->addAction(text.replace(QLatin1Char('&'), QLatin1String("&&")));
        connect(action, &QAction::triggered, this, [this, t = endpoint.urlTemplate] {
            m_url->setCurrentText(t);
            m_url->lineEdit()->setFocus(Qt::OtherFocusReason);
        });
    }
}

QWidget *RequestComposer::buildHeadersTab()
{
    auto *page = new QWidget;
    m_headerView->setObjectName(QStringLiteral("headers"));
    m_headerView->setModel(m_headerModel);
    m_headerView->setItemDelegateForColumn(HeaderTableModel::Value, new HeaderValueDelegate(m_headerView));
    m_headerView->verticalHeader()->hide();
    m_headerView->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_headerView->horizontalHeader()->setSectionResizeMode(HeaderTableModel::Enabled, QHeaderView::ResizeToContents);
    m_headerView->horizontalHeader()->setSectionResizeMode(HeaderTableModel::Name, QHeaderView::Interactive);
    m_headerView->horizontalHeader()->setSectionResizeMode(HeaderTableModel::Value, QHeaderView::Stretch);
    m_headerView->setColumnWidth(
        HeaderTableModel::Name, fontMetrics().horizontalAdvance(QStringLiteral("Idempotency-Key")) + 30);
    m_headerView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_headerView->setEditTriggers(QAbstractItemView::AllEditTriggers);

    auto *add = new QToolButton;
    add->setObjectName(QStringLiteral("addHeader"));
    add->setText(tr("Add"));
    add->setToolTip(tr("Add a header row"));
    m_removeHeader->setObjectName(QStringLiteral("removeHeader"));
    m_removeHeader->setText(tr("Remove"));
    m_removeHeader->setToolTip(tr("Remove the selected header rows"));
    m_reveal->setObjectName(QStringLiteral("revealCredentials"));
    m_reveal->setToolTip(tr("Show the values of Authorization, cookies, API keys and tokens on screen. They are "
                            "still redacted in exports and are never saved in the settings."));
    connect(add, &QToolButton::clicked, this, &RequestComposer::handleAddHeader);
    connect(m_removeHeader, &QToolButton::clicked, this, &RequestComposer::handleRemoveHeader);
    connect(m_reveal, &QCheckBox::toggled, m_headerModel, &HeaderTableModel::setRevealed);

    auto *buttons = new QVBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(m_removeHeader);
    buttons->addStretch();
    buttons->addWidget(m_reveal);
    auto *layout = new QHBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_headerView, 1);
    layout->addLayout(buttons);
    return page;
}

QWidget *RequestComposer::buildOptionsTab()
{
    m_idempotent->setObjectName(QStringLiteral("idempotent"));
    m_idempotent->setToolTip(tr("You vouch that sending this request twice does no harm. Without it, POST and PATCH "
                                "are not retried: the first attempt may have been applied although its answer was "
                                "lost."));
    m_idempotency->setObjectName(QStringLiteral("idempotencyVerdict"));
    m_ownTimeout->setObjectName(QStringLiteral("ownTimeout"));
    m_ownTimeout->setToolTip(tr("Cut each attempt after this long, instead of the policy's per-attempt timeout. "
                                "Separate from the policy's total deadline."));
    m_timeout->setObjectName(QStringLiteral("attemptTimeout"));
    m_timeout->setRange(0.0, 7 * 24 * 3600.0);
    m_timeout->setStoredValue(5000.0);
    m_policyTimeout->setObjectName(QStringLiteral("policyTimeout"));

    // Side by side: the verdict wraps over a few lines and the dock is short.
    auto *page = new QWidget;
    auto *left = new QVBoxLayout;
    left->addWidget(m_idempotent);
    auto *timeoutRow = new QHBoxLayout;
    timeoutRow->addWidget(m_ownTimeout);
    timeoutRow->addWidget(m_timeout);
    left->addLayout(timeoutRow);
    left->addWidget(m_policyTimeout);
    left->addStretch();
    auto *layout = new QHBoxLayout(page);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addLayout(left);
    layout->addSpacing(12);
    layout->addWidget(m_idempotency, 1, Qt::AlignTop);
    return page;
}

QWidget *RequestComposer::buildFallbacksTab()
{
    m_fallbacks = new QPlainTextEdit;
    m_fallbacks->setObjectName(QStringLiteral("fallbacks"));
    m_fallbacks->setPlaceholderText(tr("One URL per line, e.g. {server}/status/200"));
    m_fallbacks->setTabChangesFocus(true);
    m_fallbacks->setLineWrapMode(QPlainTextEdit::NoWrap);
    auto *note = new QLabel(tr("Alternative services, tried in order once the policy gives up on the URL (its "
                               "attempts used up, its deadline passed, a fault it does not retry, the circuit open, "
                               "the retry budget spent): one attempt each, at once, until one succeeds. Their "
                               "attempts show on the request's lane, marked as fallbacks. At most %1.")
                                .arg(Core::maxFallbacks));
    note->setObjectName(QStringLiteral("fallbacksNote"));
    note->setWordWrap(true);
    note->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    // The request's own list of the faults that lead to a fallback, in place of the policy's transient ones.
    m_fallbackOn = new QLineEdit;
    m_fallbackOn->setObjectName(QStringLiteral("fallbackOn"));
    m_fallbackOn->setPlaceholderText(tr("the faults the policy retries; or e.g. 503, 5xx, timeout"));
    m_fallbackOn->setToolTip(tr("Which faults send the request to its fallbacks: HTTP statuses (503), classes of them "
                                "(5xx) or network faults (%1), separated by commas. Empty: the faults the policy "
                                "retries. A request that may not be repeated never goes to a fallback.")
                                 .arg(Core::FallbackTriggers::faultNames().join(QStringLiteral(", "))));
    auto *fallbackOnLabel = new QLabel(tr("Fall back on:"));
    fallbackOnLabel->setBuddy(m_fallbackOn);
    m_fallbackOnMessage = new FieldMessage;
    m_fallbackOnMessage->setObjectName(QStringLiteral("fallbackOnMessage"));
    auto *fallbackOnRow = new QHBoxLayout;
    fallbackOnRow->addWidget(fallbackOnLabel);
    fallbackOnRow->addWidget(m_fallbackOn, 1);

    auto *page = new QWidget;
    auto *left = new QVBoxLayout;
    left->addWidget(m_fallbacks, 1);
    left->addLayout(fallbackOnRow);
    left->addWidget(m_fallbackOnMessage);
    auto *layout = new QHBoxLayout(page);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addLayout(left, 3);
    layout->addWidget(note, 2);
    return page;
}

QWidget *RequestComposer::buildBatchTab()
{
    m_batchCount->setObjectName(QStringLiteral("batchCount"));
    m_batchCount->setRange(1, Core::RequestDraft::maxBatchCount);
    m_batchCount->setSuffix(tr(" requests"));
    m_batchCount->setToolTip(tr("Logical requests sent by Send batch (Ctrl+Shift+Return)"));
    m_concurrency->setObjectName(QStringLiteral("concurrency"));
    m_concurrency->setRange(1, Core::RequestDraft::maxConcurrency);
    m_concurrency->setSuffix(tr(" at once"));
    m_concurrency->setToolTip(tr("Attempts on the wire at once, for every send; the others wait in a queue (the wait "
                                 "is recorded). A request sleeping before its next retry holds no slot."));
    m_interval->setObjectName(QStringLiteral("repeatInterval"));
    m_interval->setRange(
        Core::RequestDraft::minRepeatIntervalMs / 1000.0, Core::RequestDraft::maxRepeatIntervalMs / 1000.0);
    m_interval->setDecimals(2);
    m_interval->setSuffix(tr(" s"));
    m_interval->setToolTip(tr("Repeat (Ctrl+R) sends one request now and one more every this long, until Stop (Esc)."));

    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setPlaceholderText(tr("fresh for each send"));
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{0,20}")), m_seed));
    m_seed->setClearButtonEnabled(true);
    m_seed->setToolTip(tr("The seed of the jitter. Empty: every send, batch or repeat draws a fresh one, shown in the "
                          "status bar and the exports. A number: the sends draw exactly the delays of the run that "
                          "had this seed, to replay it."));
    m_replaySeed->setObjectName(QStringLiteral("replaySeed"));
    m_replaySeed->setText(tr("Replay last"));
    m_replaySeed->setEnabled(false);
    m_replaySeed->setToolTip(tr("Put the seed of the last send here, so that the next send draws the same delays."));
    connect(m_replaySeed, &QToolButton::clicked, this, [this] { m_seed->setText(QString::number(m_lastSeed)); });
    // The seed shares the repeat's row, so that the tab is no taller than the others.
    auto *repeatRow = new QHBoxLayout;
    repeatRow->addWidget(m_interval);
    repeatRow->addSpacing(12);
    auto *seedLabel = new QLabel(tr("Seed:"));
    seedLabel->setBuddy(m_seed);
    repeatRow->addWidget(seedLabel);
    repeatRow->addWidget(m_seed, 1);
    repeatRow->addWidget(m_replaySeed);

    auto *page = new QWidget;
    auto *form = new QFormLayout(page);
    form->setContentsMargins(0, 6, 0, 0);
    form->addRow(tr("Batch size:"), m_batchCount);
    // Send polls a long-running operation until done, each poll a lane of its own.
    m_polling = new QComboBox(page);
    m_polling->setObjectName(QStringLiteral("polling"));
    m_polling->addItem(tr("Send one request"), QString());
    for (const QString &id : Core::PollingPolicy::presetIds())
        m_polling->addItem(tr("Poll until done (%1)").arg(id), id);
    m_polling->setToolTip(tr("Send starts or reads a long-running operation and asks again after each wait of the "
                             "polling policy until its answer says \"done\": true (Google's operations.get, 1 s "
                             "x1.5 up to 45 s). Each poll is a lane of its own, its retries inside it."));
    connect(m_polling, &QComboBox::currentIndexChanged, this, &RequestComposer::handleEdited);
    auto *concurrencyRow = new QHBoxLayout;
    concurrencyRow->addWidget(m_concurrency);
    concurrencyRow->addSpacing(12);
    concurrencyRow->addWidget(m_polling, 1);
    form->addRow(tr("Concurrency:"), concurrencyRow);
    form->addRow(tr("Repeat every:"), repeatRow);
    return page;
}

Core::RequestDraft RequestComposer::draft() const
{
    Core::RequestDraft d;
    d.method = m_method->currentText().trimmed();
    d.urlTemplate = m_url->currentText().trimmed();
    d.headers = m_headerModel->headers();
    d.attemptHeaders = m_headerModel->attemptHeaders();
    m_body->applyTo(d);
    m_readModifyWrite->applyTo(d);
    for (const QString &line : m_fallbacks->toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            d.fallbackTemplates.append(line.trimmed());
    }
    d.fallbackOn = Core::FallbackTriggers::split(m_fallbackOn->text());
    d.idempotent = m_idempotent->isChecked();
    if (m_ownTimeout->isChecked())
        d.attemptTimeoutMs = m_timeout->storedValue();
    d.batchCount = m_batchCount->value();
    d.concurrency = m_concurrency->value();
    d.pollingPreset = m_polling->currentData().toString();
    d.repeatIntervalMs = static_cast<int>(std::lround(m_interval->value() * 1000.0));
    bool seedOk = false;
    const quint64 seed = m_seed->text().toULongLong(&seedOk);
    if (seedOk)
        d.seed = seed;
    d.transport = m_transport->transport();
    d.auth = m_auth->auth();
    return d;
}

void RequestComposer::setDraft(const Core::RequestDraft &draft)
{
    m_filling = true;
    m_method->setCurrentText(draft.method);
    m_url->setCurrentText(draft.urlTemplate);
    m_headerModel->setHeaders(draft.headers);
    m_headerModel->setAttemptHeaders(draft.attemptHeaders);
    m_body->setFrom(draft);
    m_readModifyWrite->setFrom(draft);
    if (const QString fallbacks = draft.fallbackTemplates.join(QLatin1Char('\n'));
        m_fallbacks->toPlainText() != fallbacks)
        m_fallbacks->setPlainText(fallbacks);
    if (const QString fallbackOn = draft.fallbackOn.join(QStringLiteral(", ")); m_fallbackOn->text() != fallbackOn)
        m_fallbackOn->setText(fallbackOn);
    m_idempotent->setChecked(draft.idempotent);
    m_ownTimeout->setChecked(draft.attemptTimeoutMs.has_value());
    if (draft.attemptTimeoutMs)
        m_timeout->setStoredValue(*draft.attemptTimeoutMs);
    m_batchCount->setValue(draft.batchCount);
    m_concurrency->setValue(draft.concurrency);
    m_polling->setCurrentIndex(std::max(0, m_polling->findData(draft.pollingPreset)));
    m_interval->setValue(draft.repeatIntervalMs / 1000.0);
    m_seed->setText(draft.seed ? QString::number(*draft.seed) : QString());
    m_transport->setTransport(draft.transport);
    m_auth->setTransport(m_transport->transport());
    m_auth->setAuth(draft.auth);
    m_filling = false;
    refresh();
}

RequestChecks RequestComposer::checks() const
{
    return m_checks->checks();
}

void RequestComposer::setChecks(const RequestChecks &checks)
{
    const bool wasFilling = m_filling;
    m_filling = true;
    m_checks->setChecks(checks);
    m_filling = wasFilling;
    updateTabTitles();
}

void RequestComposer::showChecks()
{
    m_details->setCurrentIndex(m_details->indexOf(m_checks));
}

void RequestComposer::setRecentUrls(const QStringList &templates)
{
    QStringList items;
    for (int i = 0; i < m_url->count(); ++i)
        items.append(m_url->itemText(i));
    if (items == templates)
        return;
    // Rebuilding the list resets the line edit; whoever is typing keeps text, cursor and selection.
    QLineEdit *edit = m_url->lineEdit();
    const QString current = edit->text();
    const int cursor = edit->cursorPosition();
    const int selectionStart = edit->selectionStart();
    const int selectionLength = edit->selectionLength();
    const bool wasFilling = m_filling;
    m_filling = true;
    {
        const QSignalBlocker blocker(m_url);
        m_url->clear();
        m_url->addItems(templates);
        m_url->setCurrentIndex(-1);
        edit->setText(current);
    }
    if (selectionStart >= 0 && selectionLength > 0) {
        // setSelection() leaves the cursor at its end; put it back where it was.
        if (cursor == selectionStart)
            edit->setSelection(selectionStart + selectionLength, -selectionLength);
        else
            edit->setSelection(selectionStart, selectionLength);
    } else {
        edit->setCursorPosition(cursor);
    }
    m_filling = wasFilling;
}

void RequestComposer::setPreviewContext(const Core::ExpansionContext &context)
{
    m_context = context;
    refresh();
}

void RequestComposer::setPolicy(const Core::BackoffPolicy &policy)
{
    m_policy = policy;
    fillEndpointsMenu();
    refresh();
}

void RequestComposer::setBlocker(const QString &source, const QString &reason)
{
    if (reason.isEmpty())
        m_blockers.remove(source);
    else
        m_blockers.insert(source, reason);
    refresh();
}

void RequestComposer::setPreviewNote(const QString &note)
{
    m_previewNote = note;
    refresh();
}

void RequestComposer::focusUrl()
{
    m_url->lineEdit()->setFocus(Qt::ShortcutFocusReason);
    m_url->lineEdit()->selectAll();
}

QString RequestComposer::idempotencyText() const
{
    return m_idempotency->text();
}

void RequestComposer::setActivity(int inFlight, int running, bool repeating, int repeatCount)
{
    m_repeating = repeating;
    QString text = tr("In flight: %1 · running: %2").arg(inFlight).arg(running);
    if (repeating)
        text += tr(" · repeating, sent: %1").arg(repeatCount);
    m_activity->setText(text);
    m_stopAction->setEnabled(running > 0 || repeating);
    refresh();
}

void RequestComposer::setLastSeed(quint64 seed)
{
    m_lastSeed = seed;
    m_replaySeed->setEnabled(true);
    m_replaySeed->setToolTip(
        tr("Put the seed of the last send (%1) here, so that the next send draws the same delays.").arg(seed));
}

void RequestComposer::setBatchProgress(int finished, int total, int succeeded)
{
    // QProgressBar::setValue() repaints at once, and with it every update pending in the
    // window (the timeline's coalesced frame too): a batch of 1,000 finishing would paint
    // the window a thousand times while its retries wait for this thread. A new batch and
    // its end are shown at once, the counts between at most every progressIntervalMs.
    m_batchProgress = {finished, total, succeeded};
    const bool now = total != m_progressTotalShown || finished >= total || !m_progressShownAt.isValid()
        || m_progressShownAt.elapsed() >= progressIntervalMs;
    if (now) {
        m_progressTimer->stop();
        showBatchProgress();
    } else if (!m_progressTimer->isActive()) {
        m_progressTimer->start(int(std::max<qint64>(0, progressIntervalMs - m_progressShownAt.elapsed())));
    }
}

void RequestComposer::showBatchProgress()
{
    const auto [finished, total, succeeded] = m_batchProgress;
    m_progressTotalShown = total;
    m_progressShownAt.start();
    m_progress->setVisible(total > 0);
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(finished);
    m_progress->setFormat(tr("batch %1/%2").arg(finished).arg(total));
    m_progress->setToolTip(
        tr("%1 of %2 requests of the batch finished, %3 of them succeeded").arg(finished).arg(total).arg(succeeded));
}

void RequestComposer::handleEdited()
{
    if (m_filling)
        return;
    refresh();
    Q_EMIT draftChanged();
}

void RequestComposer::handleAddHeader()
{
    const int row = m_headerModel->headerCount(); // before RetryLab's own rows
    if (!m_headerModel->insertRows(row, 1))
        return;
    const QModelIndex name = m_headerModel->index(row, HeaderTableModel::Name);
    m_headerView->setCurrentIndex(name);
    m_headerView->edit(name);
}

void RequestComposer::handleRemoveHeader()
{
    QList<int> rows;
    for (const QModelIndex &index : m_headerView->selectionModel()->selectedRows())
        rows.append(index.row());
    if (rows.isEmpty() && m_headerView->currentIndex().isValid())
        rows.append(m_headerView->currentIndex().row());
    std::sort(rows.begin(), rows.end(), std::greater<>());
    for (int row : std::as_const(rows))
        m_headerModel->removeRows(row, 1);
}

void RequestComposer::showConnection()
{
    m_details->setCurrentIndex(m_details->indexOf(m_transport->parentWidget()->parentWidget()));
}

void RequestComposer::showAuth()
{
    m_details->setCurrentIndex(m_details->indexOf(m_auth->parentWidget()->parentWidget()));
}

void RequestComposer::showReadModifyWrite()
{
    m_details->setCurrentIndex(m_details->indexOf(m_readModifyWriteTab));
}

void RequestComposer::showBody()
{
    m_details->setCurrentIndex(m_details->indexOf(m_body));
}

void RequestComposer::refresh()
{
    // The exemption from certificate checks belongs to the URL's host: tell the form first.
    const auto target = Core::RequestTemplate::url(m_url->currentText().trimmed(), m_context);
    m_transport->setHost(target ? target->host() : QString());
    const Core::RequestDraft d = draft();
    const auto spec = Core::RequestTemplate::build(d, m_context);
    if (d.transport.insecureHosts != m_ignoredHosts) {
        m_ignoredHosts = d.transport.insecureHosts;
        Q_EMIT ignoredCertificateHostsChanged(m_ignoredHosts);
    }

    QString problem = spec ? QString() : spec.error();
    if (problem.isEmpty() && !m_transport->problem().isEmpty())
        problem = tr("Connection: %1").arg(m_transport->problem());
    if (const QStringList masked = d.maskedCredentialHeaders(); problem.isEmpty() && !masked.isEmpty()) {
        problem = tr("re-enter the value of %1: it was not saved and reads REDACTED (or untick the header).")
                      .arg(QLocale().createSeparatedList(masked));
    }
    if (const QStringList masked = m_body->maskedFields(); problem.isEmpty() && !masked.isEmpty()) {
        problem = tr("Body: re-enter the value of %1: it was not saved and reads REDACTED.")
                      .arg(QLocale().createSeparatedList(masked));
    }
    if (problem.isEmpty()) {
        const QList<QString> secrets = d.auth.secrets();
        if (std::any_of(secrets.cbegin(), secrets.cend(), &Core::RequestDraft::holdsMaskedCredential))
            problem = tr("Auth: re-enter the secrets that read REDACTED: they were not saved.");
    }
    if (problem.isEmpty() && d.attemptTimeoutMs && !(*d.attemptTimeoutMs > 0.0))
        problem = tr("The per-attempt timeout must be longer than 0 s.");
    if (problem.isEmpty() && !m_blockers.isEmpty())
        problem = m_blockers.first();
    m_problem = problem;
    m_previewUrl = problem.isEmpty() ? spec->url.toString() : QString();

    // Idempotency: what the classifier will say about a failed attempt of this request.
    Core::AttemptObservation observation;
    observation.method = d.method.toUpper().toLatin1();
    observation.markedIdempotent = d.idempotent;
    if (spec) {
        observation.requestHeaders = spec->headers;
        observation.url = spec->url;
    }
    const Core::IdempotencyVerdict verdict = Core::idempotencyOf(observation, m_policy.classification);
    if (!verdict.retryable)
        m_idempotency->setMessage(FieldMessage::Kind::Warning, tr("Not retried: %1.").arg(verdict.reason));
    else
        m_idempotency->setMessage(FieldMessage::Kind::Note, tr("Retried as the policy says: %1.").arg(verdict.reason));

    // The fallback list, checked where it is typed.
    if (const auto triggers = Core::FallbackTriggers::normalized(d.fallbackOn); !triggers) {
        m_fallbackOnMessage->setMessage(FieldMessage::Kind::Error, triggers.error());
    } else if (!triggers->isEmpty() && d.fallbackTemplates.isEmpty()) {
        m_fallbackOnMessage->setMessage(
            FieldMessage::Kind::Note, tr("The list applies once there is a fallback URL above."));
    } else if (!triggers->isEmpty()) {
        m_fallbackOnMessage->setMessage(FieldMessage::Kind::Note,
            tr("Falls back after %1 only, in place of the faults the policy retries; a request that may not be "
               "repeated still never does.")
                .arg(QLocale().createSeparatedList(*triggers)));
    } else {
        m_fallbackOnMessage->clear();
    }

    if (!problem.isEmpty())
        m_message->setMessage(FieldMessage::Kind::Error, tr("Cannot send: %1").arg(problem));
    else if (!verdict.retryable)
        m_message->setMessage(FieldMessage::Kind::Warning,
            tr("%1 will not be retried unless it is marked safe to repeat or carries an Idempotency-Key (see "
               "Options).")
                .arg(d.method.toUpper()));
    else
        m_message->clear();

    if (problem.isEmpty()) {
        QString preview = tr("Sends to %1").arg(m_previewUrl);
        if (!m_previewNote.isEmpty())
            preview += QStringLiteral("  \u2014  ") + m_previewNote;
        m_previewText = preview;
        static_cast<ElidedLabel *>(m_preview)->setFullText(preview);
        m_preview->setToolTip(
            tr("%1\n\nThe next request, with {server} and {id} filled in; every request gets a new {id}.")
                .arg(preview));
    } else {
        m_previewText = tr("Nothing can be sent yet.");
        static_cast<ElidedLabel *>(m_preview)->setFullText(m_previewText);
        m_preview->setToolTip(problem);
    }

    const bool usable = problem.isEmpty();
    for (QAction *action : {m_sendAction, m_batchAction, m_repeatAction})
        action->setEnabled(usable);
    if (m_repeating)
        m_repeatAction->setEnabled(false);
    const QString why = usable ? QString() : tr("\n\nCannot send: %1").arg(problem);
    m_sendAction->setToolTip(tr("Send one request (Ctrl+Return)") + why);
    m_batchAction->setToolTip(
        tr("Send a batch of %1 requests, at most %2 attempts on the wire at once (Ctrl+Shift+Return)")
            .arg(d.batchCount)
            .arg(d.concurrency)
        + why);
    m_repeatAction->setToolTip(
        tr("Send one request every %1 until Stop (Ctrl+R)").arg(intervalText(d.repeatIntervalMs)) + why);

    m_removeHeader->setEnabled(m_headerModel->headerCount() > 0);
    m_policyTimeout->setText(tr("Otherwise the policy's: %1").arg(intervalText(m_policy.attemptTimeoutMs)));
    m_timeout->setEnabled(m_ownTimeout->isChecked());
    updateTabTitles();
    updateButtonTexts();
}

void RequestComposer::updateTabTitles()
{
    // Only a title that changed: each setTabText() lays the tab bar out again, and
    // this runs on every edit and every request sent.
    const auto setTitle = [this](int index, const QString &text) {
        if (m_details->tabText(index) != text)
            m_details->setTabText(index, text);
    };
    const int headers
        = static_cast<int>(std::count_if(m_headerModel->headers().cbegin(), m_headerModel->headers().cend(),
            [](const Core::DraftHeader &h) { return h.enabled && !h.name.trimmed().isEmpty(); }));
    setTitle(0, headers > 0 ? tr("Headers (%1)").arg(headers) : tr("Headers"));
    setTitle(m_details->indexOf(m_auth->parentWidget()->parentWidget()),
        m_auth->problem().isEmpty() ? m_auth->title() : tr("%1 \u26a0").arg(m_auth->title()));
    setTitle(m_details->indexOf(m_body), m_body->title());
    setTitle(m_details->indexOf(m_optionsTab), tr("Options"));
    setTitle(m_details->indexOf(m_batchTab), tr("Batch && repeat"));
    setTitle(m_details->indexOf(m_transport->parentWidget()->parentWidget()),
        m_transport->ignoresCertificateErrors() ? tr("Connection ⚠ insecure")
            : m_transport->problem().isEmpty()  ? tr("Connection")
                                                : tr("Connection ⚠"));
    const qsizetype fallbacks = draft().fallbackTemplates.size();
    const QString fallbacksTab = fallbacks > 0 ? tr("Fallbacks (%1)").arg(fallbacks) : tr("Fallbacks");
    setTitle(m_details->indexOf(m_fallbacksTab),
        m_fallbackOnMessage->kind() == FieldMessage::Kind::Error ? tr("%1 \u26a0").arg(fallbacksTab) : fallbacksTab);
    setTitle(m_details->indexOf(m_readModifyWriteTab),
        m_readModifyWrite->isOn() ? tr("Read-modify-write \u2713") : tr("Read-modify-write"));
    const RequestChecks checks = m_checks->checks();
    const int checkCount = static_cast<int>(checks.assertions.size() + checks.extract.size());
    QString checksTab = checkCount > 0 ? tr("Checks (%1)").arg(checkCount) : tr("Checks");
    if (const int invalid = m_checks->invalidCount(); invalid > 0)
        checksTab += tr(" \u26a0 %1 not used").arg(invalid);
    setTitle(m_details->indexOf(m_checks), checksTab);
    // A read-modify-write sends its own methods: the method field has no say.
    m_method->setEnabled(!m_readModifyWrite->isOn());
    m_method->setToolTip(m_readModifyWrite->isOn() ? tr("The Read-modify-write tab sets the methods of its read and "
                                                        "write.")
                                                   : QString());
}

void RequestComposer::updateButtonTexts()
{
    m_batchAction->setText(tr("Batch \u00d7%1").arg(m_batchCount->value()));
    m_repeatAction->setText(
        m_repeating ? tr("Repeating\u2026") : tr("Repeat every %1").arg(intervalText(m_interval->value() * 1000.0)));
}

void RequestComposer::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) {
        m_headerView->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
        updateProgressWidth();
    }
}

void RequestComposer::updateProgressWidth()
{
    // Room for the longest text it shows ("batch 10000/10000") in the font of the moment: a fixed
    // 170 px cut it in presentation mode's larger font.
    const int text = m_progress->fontMetrics().horizontalAdvance(
        tr("batch %1/%2").arg(Core::RequestDraft::maxBatchCount).arg(Core::RequestDraft::maxBatchCount));
    m_progress->setMaximumWidth(text + 3 * m_progress->fontMetrics().averageCharWidth() + 16);
    m_progress->setMinimumWidth(m_progress->maximumWidth());
}

} // namespace RetryLab::Ui
