#include "ui/policy/policyeditor.h"

#include "core/http/httpstatuslist.h"
#include "core/policy/policyfields.h"
#include "ui/policy/faultactiondelegate.h"
#include "ui/policy/faultactionmodel.h"
#include "ui/policy/presetbar.h"
#include "ui/widgets/fieldmessage.h"
#include "ui/widgets/unitspinbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QStyle>
#include <QTableView>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

using Core::BackoffAlgorithm;
using Core::BackoffPolicy;
using Core::PolicyIssue;
using Core::RetryBudgetKind;

namespace {

QString algorithmSource(BackoffAlgorithm algorithm)
{
    switch (algorithm) {
    case BackoffAlgorithm::GoogleTruncatedExponential:
        return PolicyEditor::tr("Memorystore for Redis and Cloud Storage: wait min(2^n + random_number_milliseconds, "
                                "maximum_backoff), the random part at most 1000 ms and drawn again for every retry. "
                                "Once the cap is reached the client keeps retrying at that interval, up to the retry "
                                "limit, but never indefinitely.");
    case BackoffAlgorithm::IamTruncatedExponential:
        return PolicyEditor::tr("IAM: wait min(2^n + random-fraction, maximum-backoff) seconds, random-fraction at "
                                "most 1 s and different for every retry; stop retrying after deadline seconds "
                                "(300 s for work that is not time-critical, such as a CI/CD pipeline).");
    case BackoffAlgorithm::Exponential:
        return PolicyEditor::tr("No jitter: clients that failed together retry together, in synchronised waves. "
                                "Useful as the baseline that shows why jitter matters.");
    case BackoffAlgorithm::FullJitter:
        return PolicyEditor::tr("AWS architecture blog, AWS SDK standard mode: a uniform draw between 0 and the "
                                "exponential term; spreads clients out the most.");
    case BackoffAlgorithm::EqualJitter:
        return PolicyEditor::tr("AWS architecture blog: keeps half of the exponential term and draws the other half, "
                                "so no retry comes too early.");
    case BackoffAlgorithm::DecorrelatedJitter:
        return PolicyEditor::tr("AWS architecture blog: each delay is drawn between the base and three times the "
                                "previous delay.");
    case BackoffAlgorithm::ProportionalJitter:
        return PolicyEditor::tr("gRPC (f = 20 %) and cenkalti/backoff: the exponential term times a random factor "
                                "around 1.");
    case BackoffAlgorithm::Constant:
        return PolicyEditor::tr("Polly and the Azure Retry pattern: the same delay before every retry.");
    case BackoffAlgorithm::Linear:
        return PolicyEditor::tr("The Azure Retry pattern's incremental delay: it grows by the base with every retry.");
    case BackoffAlgorithm::Immediate:
        return PolicyEditor::tr("The Azure Retry pattern: for a rare, unusual fault (a corrupted packet), retry at "
                                "once.");
    }
    return {};
}

// A form inside a scroll area, so that a short dock can still reach every field.
// A combo box as narrow as the dock needs: its text elides, the open list shows
// every name whole.
void shrinkable(QComboBox *combo)
{
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12);
    // ...and as wide as there is room for, so that it elides only when it must.
    combo->setSizePolicy(QSizePolicy::Expanding, combo->sizePolicy().verticalPolicy());
}

QFormLayout *newForm(QWidget *parent)
{
    auto *form = new QFormLayout(parent);
    form->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
    // In a narrow dock a field goes below its label rather than past the dock's edge.
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->setLabelAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return form;
}

} // namespace

PolicyEditor::PolicyEditor(Settings *settings, QWidget *parent)
    : QWidget(parent), m_presetBar(new PresetBar(settings, this))
{
    // Filling the combo boxes emits their change signals; none of them is an edit.
    m_updating = true;
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_presetBar);

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_tabs->setUsesScrollButtons(true);
    layout->addWidget(m_tabs, 1);

    m_currentTab = 0;
    addTab(buildBackoffTab(), tr("Backoff"));
    m_currentTab = 1;
    addTab(buildClassificationTab(), tr("What to retry"));
    m_currentTab = 2;
    addTab(buildProtectionTab(), tr("Breaker && budget"));
    m_currentTab = 3;
    addTab(buildDetailsTab(), tr("Details"));

    m_otherIssues = new FieldMessage(this);
    layout->addWidget(m_otherIssues);
    m_summary = new FieldMessage(this);
    m_summary->setObjectName(QStringLiteral("summary"));
    layout->addWidget(m_summary);

    connect(m_presetBar, &PresetBar::presetChosen, this, &PolicyEditor::handlePresetChosen);
    connect(m_presetBar, &PresetBar::policyImported, this, &PolicyEditor::setPolicy);
    m_updating = false;
    refreshFields();
    revalidate();
    m_presetBar->setPolicy(m_policy);
}

PolicyEditor::~PolicyEditor() = default;

QWidget *PolicyEditor::addTab(QWidget *content, const QString &title)
{
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);
    m_tabs->addTab(scroll, title);
    return scroll;
}

QWidget *PolicyEditor::buildBackoffTab()
{
    auto *page = new QWidget;
    auto *column = new QVBoxLayout(page);

    auto *delays = new QGroupBox(tr("Delay before retry n"), page);
    auto *form = newForm(delays);

    m_algorithmCombo = new QComboBox(delays);
    shrinkable(m_algorithmCombo);
    m_algorithmCombo->setObjectName(QStringLiteral("algorithm"));
    for (BackoffAlgorithm algorithm : Core::allAlgorithms()) {
        m_algorithmCombo->addItem(Core::algorithmTitle(algorithm), static_cast<int>(algorithm));
        m_algorithmCombo->setItemData(m_algorithmCombo->count() - 1, algorithmSource(algorithm), Qt::ToolTipRole);
    }
    connect(m_algorithmCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_policy.algorithm = static_cast<BackoffAlgorithm>(m_algorithmCombo->itemData(index).toInt());
        handleFieldEdited();
    });
    addField(form, QStringLiteral("algorithm"), tr("&Algorithm"), m_algorithmCombo,
        tr("How the delay before each retry is computed. n is the retry index: 0 before the first retry."), [this] {
            m_algorithmCombo->setCurrentIndex(m_algorithmCombo->findData(static_cast<int>(m_policy.algorithm)));
        });

    m_formulaLabel = new QLabel(delays);
    m_formulaLabel->setObjectName(QStringLiteral("formula"));
    m_formulaLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_formulaLabel->setWordWrap(true);
    m_formulaLabel->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    form->addRow(tr("Formula"), m_formulaLabel);
    m_algorithmNote = new QLabel(delays);
    m_algorithmNote->setWordWrap(true);
    QFont small = m_algorithmNote->font();
    small.setItalic(true);
    m_algorithmNote->setFont(small);
    form->addRow(m_algorithmNote);

    addNumberField(form, "baseDelayMs", tr("&Base delay"), 1.0, tr("ms"), 3,
        tr("The first delay: \"base\" in the formula. The Google seeds start at 2^0 s = 1 s and double it for every "
           "retry."),
        [](BackoffPolicy &p) -> double & { return p.baseDelayMs; });
    addNumberField(form, "multiplier", tr("&Multiplier"), 1.0, QStringLiteral("×"), 3,
        tr("Growth factor per retry: \"multiplier\" in the formula. The seeds double the delay (2^n), so 2."),
        [](BackoffPolicy &p) -> double & { return p.multiplier; });
    addNumberField(form, "maxBackoffMs", tr("Maximum &backoff (cap)"), 1000.0, tr("s"), 3,
        tr("maximum_backoff: no delay exceeds it, jitter included. The seeds say it is typically 32 or 64 s; once "
           "it is reached the client keeps retrying at that interval, without growing it, until the retry limit."),
        [](BackoffPolicy &p) -> double & { return p.maxBackoffMs; });
    addNumberField(form, "jitterMs", tr("&Jitter (random part)"), 1.0, tr("ms"), 3,
        tr("The random part U[0, jitter] added to the exponential term. Memorystore and Cloud Storage use "
           "random_number_milliseconds of at most 1000 ms, IAM a random fraction of at most 1 s, drawn again for "
           "every retry so that clients that failed together do not retry in synchronised waves."),
        [](BackoffPolicy &p) -> double & { return p.jitterMs; });
    addNumberField(form, "jitterFraction", tr("Jitter &fraction f"), 0.01, tr("%"), 2,
        tr("Proportional jitter: the delay is multiplied by U[1 - f, 1 + f]. gRPC uses f = 20 %."),
        [](BackoffPolicy &p) -> double & { return p.jitterFraction; });
    m_intervalJitterCombo = new QComboBox(delays);
    shrinkable(m_intervalJitterCombo);
    m_intervalJitterCombo->setObjectName(QStringLiteral("intervalJitter"));
    for (const Core::IntervalJitter jitter : Core::allIntervalJitters())
        m_intervalJitterCombo->addItem(Core::intervalJitterTitle(jitter), static_cast<int>(jitter));
    connect(m_intervalJitterCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_policy.intervalJitter = static_cast<Core::IntervalJitter>(m_intervalJitterCombo->itemData(index).toInt());
        handleFieldEdited();
    });
    addField(form, QStringLiteral("intervalJitter"), tr("&Interval jitter"), m_intervalJitterCombo,
        tr("Randomises the constant and linear intervals too (the Retry pattern: so that clients that failed "
           "together do not retry in step). Proportional uses the jitter fraction f."),
        [this] {
            m_intervalJitterCombo->setCurrentIndex(
                m_intervalJitterCombo->findData(static_cast<int>(m_policy.intervalJitter)));
        });
    column->addWidget(delays);

    auto *limits = new QGroupBox(tr("Limits"), page);
    auto *limitsForm = newForm(limits);
    addIntegerField(limitsForm, "maxAttempts", tr("Maximum &attempts (0 = no limit)"),
        tr("Attempts in total, the first included, so there are at most attempts - 1 retries. 0 means no limit and "
           "then needs a total deadline: a policy never retries forever (the seeds: stop clients from retrying "
           "indefinitely)."),
        [](BackoffPolicy &p) -> int & { return p.maxAttempts; });
    addNumberField(limitsForm, "deadlineMs", tr("Total &deadline (0 = none)"), 1000.0, tr("s"), 3,
        tr("Time from the first attempt's start after which no retry starts (0 = none). When the next sleep would "
           "cross it, the client gives up at once instead of sleeping into a certain failure. IAM suggests 300 s "
           "for work that is not time-critical."),
        [](BackoffPolicy &p) -> double & { return p.deadlineMs; });
    addNumberField(limitsForm, "attemptTimeoutMs", tr("&Per-attempt timeout (0 = none)"), 1000.0, tr("s"), 3,
        tr("How long one attempt may take before it is cut and counted as a timeout (0 = none). Separate from the "
           "total deadline."),
        [](BackoffPolicy &p) -> double & { return p.attemptTimeoutMs; });
    m_interactive = new QCheckBox(tr("A person waits (interactive)"), limits);
    m_interactive->setObjectName(QStringLiteral("interactive"));
    m_interactive->setToolTip(tr("A person waits for the answer. Not part of the policy: with it, the editor warns "
                                 "when the policy may keep a person waiting for more than 10 s before it gives up."));
    connect(m_interactive, &QCheckBox::toggled, this, [this](bool on) {
        m_usage.interactive = on;
        revalidate();
    });
    limitsForm->addRow(m_interactive);
    column->addWidget(limits);
    column->addStretch(1);
    return page;
}

QWidget *PolicyEditor::buildClassificationTab()
{
    auto *page = new QWidget;
    auto *column = new QVBoxLayout(page);

    auto *http = new QGroupBox(tr("HTTP responses"), page);
    auto *form = newForm(http);

    m_statusesEdit = new QLineEdit(http);
    m_statusesEdit->setObjectName(QStringLiteral("retryableStatuses"));
    m_statusesEdit->setPlaceholderText(tr("e.g. 429, 500-599"));
    m_statusesEdit->setClearButtonEnabled(true);
    connect(m_statusesEdit, &QLineEdit::textEdited, this, &PolicyEditor::handleStatusesEdited);
    addField(form, QStringLiteral("retryableStatuses"), tr("Retryable &statuses"), m_statusesEdit,
        tr("HTTP statuses retried after a delay. Memorystore and Cloud Storage: 5xx and 429. IAM: 500, 502, 503, "
           "504, and optionally 404 (reads are eventually consistent, so a new resource may not be visible yet). "
           "Write codes, ranges (500-599) or classes (5xx), separated by commas."),
        [this] {
            if (m_statusesError.isEmpty())
                m_statusesEdit->setText(Core::HttpStatusList::format(m_policy.classification.retryableStatuses));
        });

    addCheckField(form, "retryConflictAborted", tr("Retry 409 &ABORTED (restart read-modify-write)"),
        tr("409 with status ABORTED means a concurrent writer changed the resource (IAM). Retrying only the write "
           "keeps failing: the whole read-modify-write sequence (read to get the etag, modify, write with that etag) "
           "starts again after a backoff delay."),
        [](BackoffPolicy &p) -> bool & { return p.classification.retryConflictAborted; });
    addCheckField(form, "retryNonIdempotent", tr("Retry &non-idempotent requests (POST, PATCH)"),
        tr("A POST or PATCH may have been applied although its response was lost; repeating it can apply it twice. "
           "Without this option such requests are retried only when marked idempotent or sent with an "
           "Idempotency-Key."),
        [](BackoffPolicy &p) -> bool & { return p.classification.retryNonIdempotent; });
    addCheckField(form, "honourRetryAfter", tr("Honour &Retry-After"),
        tr("Wait what the server's Retry-After header asks (delta seconds or an HTTP date) instead of the backoff "
           "delay, up to the bound below. A Retry-After beyond the deadline gives up at once."),
        [](BackoffPolicy &p) -> bool & { return p.classification.honourRetryAfter; });
    addNumberField(form, "maxRetryAfterMs", tr("Longest Retry-&After"), 1000.0, tr("s"), 3,
        tr("The longest Retry-After accepted; a longer one is cut to this bound, and the log says so."),
        [](BackoffPolicy &p) -> double & { return p.classification.maxRetryAfterMs; });
    column->addWidget(http);

    auto *network = new QGroupBox(tr("Network faults"), page);
    auto *networkForm = newForm(network);
    auto *intro = new QLabel(tr("The Retry pattern's three answers to a fault: cancel when it is not transient, "
                                "retry immediately when it is rare and unusual, retry after a delay for "
                                "connectivity and busy faults."),
        network);
    intro->setWordWrap(true);
    networkForm->addRow(intro);

    m_faultModel = new FaultActionModel(this);
    m_faultView = new QTableView(network);
    m_faultView->setObjectName(QStringLiteral("networkActions"));
    m_faultView->setModel(m_faultModel);
    m_faultView->setItemDelegateForColumn(FaultActionModel::ActionColumn, new FaultActionDelegate(m_faultView));
    m_faultView->verticalHeader()->hide();
    m_faultView->horizontalHeader()->setSectionResizeMode(FaultActionModel::FaultColumn, QHeaderView::Stretch);
    m_faultView->horizontalHeader()->setSectionResizeMode(FaultActionModel::ActionColumn, QHeaderView::Stretch);
    m_faultView->horizontalHeader()->setSectionResizeMode(
        FaultActionModel::DelayFactorColumn, QHeaderView::ResizeToContents);
    m_faultView->setSelectionMode(QAbstractItemView::NoSelection);
    m_faultView->setEditTriggers(QAbstractItemView::AllEditTriggers);
    m_faultView->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_faultView->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    for (int row = 0; row < m_faultModel->rowCount(); ++row)
        m_faultView->openPersistentEditor(m_faultModel->index(row, FaultActionModel::ActionColumn));
    // Every row holds a combo box; give them all its height instead of guessing per row.
    const int rowHeight = QComboBox().sizeHint().height() + 2;
    m_faultView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_faultView->verticalHeader()->setDefaultSectionSize(rowHeight);
    const int height = m_faultView->horizontalHeader()->sizeHint().height() + 2 * m_faultView->frameWidth()
        + rowHeight * m_faultModel->rowCount();
    m_faultView->setFixedHeight(height);
    connect(m_faultModel, &FaultActionModel::actionsEdited, this, [this] {
        if (m_updating)
            return;
        m_policy.classification.networkActions = m_faultModel->actions();
        m_policy.classification.networkDelayFactors = m_faultModel->delayFactors();
        handleFieldEdited();
    });
    addField(networkForm, QStringLiteral("networkActions"), QString(), m_faultView,
        tr("What the classifier does with each kind of network fault, and how long it waits compared with the "
           "backoff (\u00d7 0.25: a quarter of the delay, for a fault that clears quickly). Hover a row for what "
           "the fault means."),
        [this] {
            m_faultModel->setActions(m_policy.classification.networkActions);
            m_faultModel->setDelayFactors(m_policy.classification.networkDelayFactors);
        });
    column->addWidget(network);
    column->addStretch(1);
    return page;
}

QWidget *PolicyEditor::buildProtectionTab()
{
    auto *page = new QWidget;
    auto *column = new QVBoxLayout(page);

    auto *breaker = new QGroupBox(tr("Circuit breaker (per host)"), page);
    auto *form = newForm(breaker);
    addCheckField(form, "circuitBreaker", tr("&Use a circuit breaker"),
        tr("When faults look long-lasting, stop sending to the host for a while instead of retrying (closed → "
           "open), then let trial requests through (half-open) to learn whether it has recovered. The Retry "
           "pattern recommends it for faults that are not transient."),
        [](BackoffPolicy &p) -> bool & { return p.circuitBreaker.enabled; });
    m_breakerNote = new QLabel(breaker);
    m_breakerNote->setWordWrap(true);
    QFont italic = m_breakerNote->font();
    italic.setItalic(true);
    m_breakerNote->setFont(italic);
    form->addRow(m_breakerNote);
    addIntegerField(form, "circuitBreaker.consecutiveFailures", tr("Open after &failures in a row"),
        tr("Open after this many consecutive failures (0 = not used)."),
        [](BackoffPolicy &p) -> int & { return p.circuitBreaker.consecutiveFailures; });
    addNumberField(form, "circuitBreaker.failureRatio", tr("Or failure &ratio"), 0.01, tr("%"), 2,
        tr("Open when this share of the last \"window\" outcomes failed (0 = not used)."),
        [](BackoffPolicy &p) -> double & { return p.circuitBreaker.failureRatio; });
    addIntegerField(form, "circuitBreaker.window", tr("Ratio &window (outcomes)"),
        tr("How many recent outcomes the failure ratio looks at."),
        [](BackoffPolicy &p) -> int & { return p.circuitBreaker.window; });
    addNumberField(form, "circuitBreaker.openMs", tr("Stay &open for"), 1000.0, tr("s"), 3,
        tr("How long the breaker fails fast before it lets trial requests through."),
        [](BackoffPolicy &p) -> double & { return p.circuitBreaker.openMs; });
    addIntegerField(form, "circuitBreaker.halfOpenTrials", tr("&Half-open trials"),
        tr("Trial requests let through while half-open; their outcome closes or reopens the breaker."),
        [](BackoffPolicy &p) -> int & { return p.circuitBreaker.halfOpenTrials; });
    column->addWidget(breaker);

    auto *budget = new QGroupBox(tr("Retry budget (all requests)"), page);
    auto *budgetForm = newForm(budget);
    m_budgetCombo = new QComboBox(budget);
    shrinkable(m_budgetCombo);
    m_budgetCombo->setObjectName(QStringLiteral("retryBudget.kind"));
    m_budgetCombo->addItem(tr("None"), static_cast<int>(RetryBudgetKind::None));
    m_budgetCombo->addItem(tr("AWS SDK standard mode"), static_cast<int>(RetryBudgetKind::AwsStandard));
    m_budgetCombo->addItem(tr("gRPC retry throttling"), static_cast<int>(RetryBudgetKind::GrpcThrottling));
    connect(m_budgetCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_policy.retryBudget.kind = static_cast<RetryBudgetKind>(m_budgetCombo->itemData(index).toInt());
        handleFieldEdited();
    });
    addField(budgetForm, QStringLiteral("retryBudget.kind"), tr("&Budget"), m_budgetCombo,
        tr("A token bucket shared by all requests, so that retries cannot multiply the load on a struggling "
           "server (retry amplification)."),
        [this] {
            m_budgetCombo->setCurrentIndex(m_budgetCombo->findData(static_cast<int>(m_policy.retryBudget.kind)));
        });
    m_budgetNote = new QLabel(budget);
    m_budgetNote->setWordWrap(true);
    m_budgetNote->setFont(italic);
    budgetForm->addRow(m_budgetNote);
    addNumberField(budgetForm, "retryBudget.awsCapacity", tr("&Capacity (tokens)"), 1.0, QString(), 3,
        tr("AWS SDK standard mode: the bucket starts full with 500 tokens."),
        [](BackoffPolicy &p) -> double & { return p.retryBudget.awsCapacity; });
    addNumberField(budgetForm, "retryBudget.awsRetryCost", tr("&Retry cost (tokens)"), 1.0, QString(), 3,
        tr("Tokens a retry takes (AWS: 5); a retry is refused when the bucket cannot cover it."),
        [](BackoffPolicy &p) -> double & { return p.retryBudget.awsRetryCost; });
    addNumberField(budgetForm, "retryBudget.awsTimeoutCost", tr("&Timeout retry cost (tokens)"), 1.0, QString(), 3,
        tr("Tokens a retry after a timeout takes (AWS: 10)."),
        [](BackoffPolicy &p) -> double & { return p.retryBudget.awsTimeoutCost; });
    addNumberField(budgetForm, "retryBudget.awsSuccessRefund", tr("&Success refund (tokens)"), 1.0, QString(), 3,
        tr("Tokens a success returns (AWS: 1)."),
        [](BackoffPolicy &p) -> double & { return p.retryBudget.awsSuccessRefund; });
    addNumberField(budgetForm, "retryBudget.grpcMaxTokens", tr("&Max tokens"), 1.0, QString(), 3,
        tr("gRPC retryThrottling maxTokens: the bucket starts here, a failure costs 1, and retries stop while the "
           "tokens are at or below half of it."),
        [](BackoffPolicy &p) -> double & { return p.retryBudget.grpcMaxTokens; });
    addNumberField(budgetForm, "retryBudget.grpcTokenRatio", tr("Token &ratio"), 1.0, QString(), 3,
        tr("gRPC retryThrottling tokenRatio: what a success adds back (the gRPC example uses 0.1)."),
        [](BackoffPolicy &p) -> double & { return p.retryBudget.grpcTokenRatio; });
    column->addWidget(budget);
    column->addStretch(1);
    return page;
}

QWidget *PolicyEditor::buildDetailsTab()
{
    auto *page = new QWidget;
    auto *form = newForm(page);

    auto *name = new QLineEdit(page);
    name->setObjectName(QStringLiteral("name"));
    connect(name, &QLineEdit::textEdited, this, [this](const QString &text) {
        m_policy.name = text;
        handleFieldEdited();
    });
    addField(form, QStringLiteral("name"), tr("&Name"), name,
        tr("The name shown in the preset list and written into exported files."),
        [this, name] { name->setText(m_policy.name); });

    auto *source = new QLineEdit(page);
    source->setObjectName(QStringLiteral("source"));
    connect(source, &QLineEdit::textEdited, this, [this](const QString &text) {
        m_policy.source = text;
        handleFieldEdited();
    });
    addField(form, QStringLiteral("source"), tr("&Source"), source, tr("Where the numbers come from."),
        [this, source] { source->setText(m_policy.source); });

    auto *description = new QPlainTextEdit(page);
    description->setObjectName(QStringLiteral("description"));
    description->setTabChangesFocus(true);
    connect(description, &QPlainTextEdit::textChanged, this, [this, description] {
        if (m_updating)
            return;
        m_policy.description = description->toPlainText();
        handleFieldEdited();
    });
    addField(form, QStringLiteral("description"), tr("&Description"), description,
        tr("What the policy is for and what its numbers mean."), [this, description] {
            if (description->toPlainText() != m_policy.description)
                description->setPlainText(m_policy.description);
        });
    return page;
}

void PolicyEditor::addField(QFormLayout *form, const QString &name, const QString &title, QWidget *editor,
    const QString &toolTip, std::function<void()> show)
{
    Field f;
    f.name = name;
    f.title = QString(title).remove(QLatin1Char('&'));
    f.editor = editor;
    f.form = form;
    f.tab = m_currentTab;
    f.toolTip = toolTip;
    f.formulaInToolTip = Core::delayFieldFromName(name).has_value();
    f.show = std::move(show);
    editor->setToolTip(toolTip);
    if (editor->objectName().isEmpty())
        editor->setObjectName(name);

    if (title.isEmpty()) {
        form->addRow(editor);
    } else {
        auto *label = new QLabel(title, editor->parentWidget());
        label->setBuddy(editor);
        label->setToolTip(toolTip);
        label->setWordWrap(false);
        form->addRow(label, editor);
    }
    f.message = new FieldMessage(editor->parentWidget());
    f.message->setObjectName(name + QStringLiteral("Message"));
    form->addRow(static_cast<QWidget *>(nullptr), f.message);
    form->setRowVisible(f.message, false);

    m_fieldIndex.insert(name, m_fields.size());
    m_fields.append(std::move(f));
}

void PolicyEditor::addNumberField(QFormLayout *form, const char *name, const QString &title, double scale,
    const QString &unit, int decimals, const QString &toolTip, double &(*access)(BackoffPolicy &))
{
    auto *spin = new UnitSpinBox(scale, unit, decimals, form->parentWidget());
    connect(spin, &UnitSpinBox::storedValueChanged, this, [this, access](double stored) {
        if (m_updating)
            return;
        access(m_policy) = stored;
        handleFieldEdited();
    });
    addField(form, QString::fromLatin1(name), title, spin, toolTip,
        [this, spin, access] { spin->setStoredValue(access(m_policy)); });
}

void PolicyEditor::addIntegerField(
    QFormLayout *form, const char *name, const QString &title, const QString &toolTip, int &(*access)(BackoffPolicy &))
{
    auto *spin = new UnitSpinBox(1.0, QString(), 0, form->parentWidget());
    connect(spin, &UnitSpinBox::storedValueChanged, this, [this, access](double stored) {
        if (m_updating)
            return;
        // Beyond what an int holds, the field keeps the digits and validation the limit.
        access(m_policy) = static_cast<int>(std::llround(std::clamp(stored, -1e9, 2e9)));
        handleFieldEdited();
    });
    addField(form, QString::fromLatin1(name), title, spin, toolTip,
        [this, spin, access] { spin->setStoredValue(access(m_policy)); });
}

void PolicyEditor::addCheckField(
    QFormLayout *form, const char *name, const QString &text, const QString &toolTip, bool &(*access)(BackoffPolicy &))
{
    auto *check = new QCheckBox(text, form->parentWidget());
    connect(check, &QCheckBox::toggled, this, [this, access](bool on) {
        if (m_updating)
            return;
        access(m_policy) = on;
        handleFieldEdited();
    });
    addField(form, QString::fromLatin1(name), QString(), check, toolTip,
        [this, check, access] { check->setChecked(access(m_policy)); });
}

PolicyEditor::Field *PolicyEditor::field(const QString &name)
{
    const auto it = m_fieldIndex.constFind(name);
    return it == m_fieldIndex.cend() ? nullptr : &m_fields[*it];
}

void PolicyEditor::setPolicy(const BackoffPolicy &policy)
{
    const bool changed = policy != m_policy;
    if (!showPolicy(policy))
        return;
    m_presetBar->setPolicy(m_policy);
    if (changed)
        Q_EMIT policyChanged(m_policy);
}

void PolicyEditor::handlePresetChosen(const BackoffPolicy &policy)
{
    const bool changed = policy != m_policy;
    showPolicy(policy);
    m_presetBar->setEditedPolicy(m_policy);
    if (changed)
        Q_EMIT policyChanged(m_policy);
}

bool PolicyEditor::showPolicy(const BackoffPolicy &policy)
{
    // Unreadable statuses text is replaced too, even when the policy is the same.
    const bool statusesPending = !m_statusesError.isEmpty();
    m_statusesError.clear();
    if (policy == m_policy && !statusesPending)
        return false;
    m_policy = policy;
    refreshFields();
    revalidate();
    return true;
}

void PolicyEditor::refreshFields()
{
    m_updating = true;
    for (const Field &f : std::as_const(m_fields)) {
        if (f.show)
            f.show();
    }
    m_updating = false;
    updateFormula();
}

void PolicyEditor::handleFieldEdited()
{
    updateFormula();
    revalidate();
    m_presetBar->setEditedPolicy(m_policy);
    Q_EMIT policyChanged(m_policy);
}

void PolicyEditor::handleStatusesEdited(const QString &text)
{
    auto parsed = Core::HttpStatusList::parse(text);
    if (!parsed) {
        m_statusesError = parsed.error();
        revalidate();
        return;
    }
    m_statusesError.clear();
    if (*parsed == m_policy.classification.retryableStatuses) {
        revalidate();
        return;
    }
    m_policy.classification.retryableStatuses = *parsed;
    handleFieldEdited();
}

void PolicyEditor::updateFormula()
{
    const BackoffAlgorithm algorithm = m_policy.algorithm;
    m_formulaLabel->setText(QStringLiteral("delay(n) = ") + Core::algorithmFormula(algorithm));
    m_algorithmNote->setText(algorithmSource(algorithm));
    for (Field &f : m_fields) {
        if (!f.formulaInToolTip)
            continue;
        QString tip = f.toolTip + QStringLiteral("\n\n")
            + tr("%1: delay(n) = %2").arg(Core::algorithmTitle(algorithm), Core::algorithmFormula(algorithm));
        const QString reason = Core::unusedFieldReason(m_policy, f.name);
        if (!reason.isEmpty())
            tip += QStringLiteral("\n") + reason;
        f.editor->setToolTip(tip);
    }
}

void PolicyEditor::updateApplicability()
{
    QSet<QString> withIssues;
    for (const PolicyIssue &issue : std::as_const(m_issues))
        withIssues.insert(issue.field);

    for (Field &f : m_fields) {
        const QString reason = Core::unusedFieldReason(m_policy, f.name);
        // A field with an error stays editable, or the error could not be fixed.
        f.editor->setEnabled(reason.isEmpty() || withIssues.contains(f.name));
        if (QWidget *label = f.form->labelForField(f.editor))
            label->setEnabled(f.editor->isEnabled());
    }

    const auto kind = m_policy.retryBudget.kind;
    for (Field &f : m_fields) {
        if (!f.name.startsWith(QLatin1String("retryBudget.")) || f.name == QLatin1String("retryBudget.kind"))
            continue;
        const bool aws = f.name.startsWith(QLatin1String("retryBudget.aws"));
        const bool shown = (aws && kind == RetryBudgetKind::AwsStandard)
            || (!aws && kind == RetryBudgetKind::GrpcThrottling) || withIssues.contains(f.name);
        f.form->setRowVisible(f.editor, shown);
    }
    switch (kind) {
    case RetryBudgetKind::None:
        m_budgetNote->setText(tr("No budget: retries are limited per request only, so a burst of failing requests "
                                 "multiplies the load by the number of attempts."));
        break;
    case RetryBudgetKind::AwsStandard:
        m_budgetNote->setText(tr("AWS SDK standard mode: a shared bucket of tokens pays for retries; successes "
                                 "refill it."));
        break;
    case RetryBudgetKind::GrpcThrottling:
        m_budgetNote->setText(tr("gRPC retry throttling: failures drain the tokens, successes refill them; no "
                                 "retries while at or below half."));
        break;
    }
    m_breakerNote->setText(m_policy.circuitBreaker.enabled
            ? tr("Closed → open after the failures below; open → half-open after the open time.")
            : tr("Off: requests to a failing host keep going out (the fields below are used once it is on)."));
}

void PolicyEditor::setConcurrentClients(int clients)
{
    if (clients == m_usage.concurrentClients)
        return;
    m_usage.concurrentClients = clients;
    revalidate();
}

void PolicyEditor::revalidate()
{
    QList<PolicyIssue> issues;
    if (!m_statusesError.isEmpty())
        issues.append({PolicyIssue::Severity::Error, QStringLiteral("retryableStatuses"), m_statusesError});
    issues.append(Core::validatePolicy(m_policy));
    issues.append(Core::advisePolicy(m_policy, m_usage));
    m_issues = issues;

    QHash<QString, QList<PolicyIssue>> byField;
    QList<PolicyIssue> unplaced;
    for (const PolicyIssue &issue : std::as_const(issues)) {
        if (m_fieldIndex.contains(issue.field))
            byField[issue.field].append(issue);
        else
            unplaced.append(issue);
    }

    QList<int> tabErrors(m_tabs->count(), 0);
    QList<int> tabWarnings(m_tabs->count(), 0);
    int errors = 0;
    int warnings = 0;
    QStringList why;

    updateApplicability();
    for (Field &f : m_fields) {
        const QList<PolicyIssue> fieldIssues = byField.value(f.name);
        bool hasError = false;
        QStringList lines;
        for (const PolicyIssue &issue : fieldIssues) {
            hasError = hasError || issue.isError();
            lines.append(issue.message);
            if (issue.isError()) {
                ++tabErrors[f.tab];
                why.append(tr("%1: %2").arg(f.title.isEmpty() ? f.name : f.title, issue.message));
            } else {
                ++tabWarnings[f.tab];
            }
        }
        FieldMessage::Kind kind = FieldMessage::Kind::None;
        QString text = lines.join(QLatin1Char('\n'));
        if (!fieldIssues.isEmpty()) {
            kind = hasError ? FieldMessage::Kind::Error : FieldMessage::Kind::Warning;
        } else if (const QString reason = Core::unusedFieldReason(m_policy, f.name);
                   !reason.isEmpty() && !f.name.startsWith(QLatin1String("circuitBreaker."))) {
            kind = FieldMessage::Kind::Note;
            text = reason;
        }
        f.message->setMessage(kind, text);
        f.form->setRowVisible(
            f.message, kind != FieldMessage::Kind::None && f.editor->isVisibleTo(f.form->parentWidget()));
    }
    for (const PolicyIssue &issue : std::as_const(issues)) {
        if (issue.isError())
            ++errors;
        else
            ++warnings;
    }

    QStringList other;
    bool otherError = false;
    for (const PolicyIssue &issue : std::as_const(unplaced)) {
        other.append(tr("%1: %2").arg(issue.field, issue.message));
        otherError = otherError || issue.isError();
        if (issue.isError())
            why.append(tr("%1: %2").arg(issue.field, issue.message));
    }
    m_otherIssues->setMessage(
        otherError ? FieldMessage::Kind::Error : FieldMessage::Kind::Warning, other.join(QLatin1Char('\n')));

    for (int tab = 0; tab < m_tabs->count(); ++tab) {
        QIcon icon;
        if (tabErrors.at(tab) > 0)
            icon = style()->standardIcon(QStyle::SP_MessageBoxCritical, nullptr, this);
        else if (tabWarnings.at(tab) > 0)
            icon = style()->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, this);
        m_tabs->setTabIcon(tab, icon);
    }

    const QString errorCount = errors == 1 ? tr("1 error") : tr("%1 errors").arg(errors);
    const QString warningCount = warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings);
    if (errors > 0 && warnings > 0) {
        m_summary->setMessage(FieldMessage::Kind::Error,
            tr("The policy cannot be used: %1 and %2, marked at the fields.").arg(errorCount, warningCount));
    } else if (errors > 0) {
        m_summary->setMessage(
            FieldMessage::Kind::Error, tr("The policy cannot be used: %1, marked at the field.").arg(errorCount));
    } else if (warnings > 0) {
        m_summary->setMessage(
            FieldMessage::Kind::Warning, tr("Usable, with %1 marked at the fields.").arg(warningCount));
    } else {
        m_summary->setMessage(FieldMessage::Kind::Success, tr("The policy is usable."));
    }

    const bool usable = errors == 0;
    const QString reason = why.join(QLatin1Char('\n'));
    m_presetBar->setStatusesError(m_statusesError);
    m_presetBar->setUsable(usable);
    if (usable != m_usable || reason != m_invalidReason) {
        m_usable = usable;
        m_invalidReason = reason;
        Q_EMIT validityChanged(m_usable, m_invalidReason);
    }
}

void PolicyEditor::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::StyleChange && m_tabs)
        revalidate();
}

} // namespace RetryLab::Ui
