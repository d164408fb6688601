#include "ui/policy/policyeditor.h"

#include "core/http/httpstatuslist.h"
#include "core/policy/policyfields.h"
#include "core/policy/responseconditions.h"
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
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

// One job: the form for one BackoffPolicy: the tabs of fields built from
// Core::policyFields(), each edit written into the policy, and the policy's checks
// shown under each field. Building, editing and checking go through the same field
// widgets, so each tab's builder stays next to the handlers that read it.

namespace RetryLab::Ui {

using Core::BackoffAlgorithm;
using Core::BackoffPolicy;
using Core::PolicyIssue;
using Core::RateLimiterKind;
using Core::RetryBudgetKind;
using Id = Core::PolicyFieldId;
using Section = Core::PolicyField::Section;

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

// validatePolicy() names a condition on a response by its place in the file,
// "retryOnResponse[2].header"; the editor shows it at the conditions' field, by its line.
PolicyIssue placedAtItsField(PolicyIssue issue)
{
    const QString conditions = Core::policyFieldName(Id::RetryOnResponse);
    if (!issue.field.startsWith(conditions + QLatin1Char('[')))
        return issue;
    const qsizetype close = issue.field.indexOf(QLatin1Char(']'));
    bool ok = false;
    const int index = issue.field.mid(conditions.size() + 1, close - conditions.size() - 1).toInt(&ok);
    issue.field = conditions;
    if (ok)
        issue.message = PolicyEditor::tr("condition %1: %2").arg(index + 1).arg(issue.message);
    return issue;
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
    addField(form, Core::policyField(Id::Algorithm), m_algorithmCombo, [this] {
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

    addTableFields(form, Section::Delay);
    m_intervalJitterCombo = new QComboBox(delays);
    shrinkable(m_intervalJitterCombo);
    for (const Core::IntervalJitter jitter : Core::allIntervalJitters())
        m_intervalJitterCombo->addItem(Core::intervalJitterTitle(jitter), static_cast<int>(jitter));
    connect(m_intervalJitterCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_policy.intervalJitter = static_cast<Core::IntervalJitter>(m_intervalJitterCombo->itemData(index).toInt());
        handleFieldEdited();
    });
    addField(form, Core::policyField(Id::IntervalJitter), m_intervalJitterCombo, [this] {
        m_intervalJitterCombo->setCurrentIndex(
            m_intervalJitterCombo->findData(static_cast<int>(m_policy.intervalJitter)));
    });
    column->addWidget(delays);

    auto *limits = new QGroupBox(tr("Limits"), page);
    auto *limitsForm = newForm(limits);
    addTableFields(limitsForm, Section::Limits);
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
    m_statusesEdit->setPlaceholderText(tr("e.g. 429, 500-599"));
    m_statusesEdit->setClearButtonEnabled(true);
    connect(m_statusesEdit, &QLineEdit::textEdited, this, &PolicyEditor::handleStatusesEdited);
    addField(form, Core::policyField(Id::RetryableStatuses), m_statusesEdit, [this] {
        if (m_statusesError.isEmpty())
            m_statusesEdit->setText(Core::HttpStatusList::format(m_policy.classification.retryableStatuses));
    });
    addTableFields(form, Section::Responses);
    m_statusFactorsEdit = new QLineEdit(http);
    m_statusFactorsEdit->setObjectName(QStringLiteral("statusDelayFactors"));
    m_statusFactorsEdit->setPlaceholderText(tr("none, e.g. 429=2"));
    m_statusFactorsEdit->setClearButtonEnabled(true);
    connect(m_statusFactorsEdit, &QLineEdit::textEdited, this, &PolicyEditor::handleStatusFactorsEdited);
    addField(form, Core::policyField(Id::StatusDelayFactors), m_statusFactorsEdit, [this] {
        if (m_statusFactorsError.isEmpty())
            m_statusFactorsEdit->setText(
                Core::HttpStatusList::formatFactors(m_policy.classification.statusDelayFactors));
    });
    // One condition a line, as the statuses are one text: typed, read, and refused with the line at fault.
    m_conditionsEdit = new QPlainTextEdit(http);
    m_conditionsEdit->setPlaceholderText(tr("none; one a line, e.g.\n"
                                            "json /status = \"PENDING\"\n"
                                            "header X-Retry = yes\n"
                                            "body try again"));
    m_conditionsEdit->setTabChangesFocus(true);
    m_conditionsEdit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_conditionsEdit->setFixedHeight(m_conditionsEdit->fontMetrics().lineSpacing() * 5
        + 2 * (m_conditionsEdit->frameWidth() + int(m_conditionsEdit->document()->documentMargin())));
    connect(m_conditionsEdit, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_updating)
            handleConditionsEdited();
    });
    addField(form, Core::policyField(Id::RetryOnResponse), m_conditionsEdit, [this] {
        if (!m_conditionsError.isEmpty())
            return;
        const QString text = Core::ResponseConditions::format(m_policy.classification.retryOnResponse);
        // Text that reads as the policy's conditions stays as typed (comments, spacing).
        const auto shown = Core::ResponseConditions::parse(m_conditionsEdit->toPlainText());
        if (!shown || *shown != m_policy.classification.retryOnResponse)
            m_conditionsEdit->setPlainText(text);
    });
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
    // One table edits the actions and the delay factors; the group box names it.
    addField(
        networkForm, Core::policyField(Id::NetworkActions), m_faultView,
        [this] {
            m_faultModel->setActions(m_policy.classification.networkActions);
            m_faultModel->setDelayFactors(m_policy.classification.networkDelayFactors);
        },
        QString());
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
    m_breakerNote = new QLabel(breaker);
    m_breakerNote->setWordWrap(true);
    QFont italic = m_breakerNote->font();
    italic.setItalic(true);
    m_breakerNote->setFont(italic);
    addTableFields(form, Section::CircuitBreaker, m_breakerNote);
    column->addWidget(breaker);

    auto *budget = new QGroupBox(tr("Retry budget (all requests)"), page);
    auto *budgetForm = newForm(budget);
    m_budgetCombo = new QComboBox(budget);
    shrinkable(m_budgetCombo);
    m_budgetCombo->addItem(tr("None"), static_cast<int>(RetryBudgetKind::None));
    m_budgetCombo->addItem(tr("AWS SDK standard mode"), static_cast<int>(RetryBudgetKind::AwsStandard));
    m_budgetCombo->addItem(tr("gRPC retry throttling"), static_cast<int>(RetryBudgetKind::GrpcThrottling));
    connect(m_budgetCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_policy.retryBudget.kind = static_cast<RetryBudgetKind>(m_budgetCombo->itemData(index).toInt());
        handleFieldEdited();
    });
    addField(budgetForm, Core::policyField(Id::BudgetKind), m_budgetCombo, [this] {
        m_budgetCombo->setCurrentIndex(m_budgetCombo->findData(static_cast<int>(m_policy.retryBudget.kind)));
    });
    m_budgetNote = new QLabel(budget);
    m_budgetNote->setWordWrap(true);
    m_budgetNote->setFont(italic);
    budgetForm->addRow(m_budgetNote);
    addTableFields(budgetForm, Section::RetryBudget);
    column->addWidget(budget);

    auto *limiter = new QGroupBox(tr("Rate limiter (this client)"), page);
    auto *limiterForm = newForm(limiter);
    m_limiterCombo = new QComboBox(limiter);
    shrinkable(m_limiterCombo);
    m_limiterCombo->addItem(tr("None"), static_cast<int>(RateLimiterKind::None));
    m_limiterCombo->addItem(tr("AWS SDK adaptive mode"), static_cast<int>(RateLimiterKind::AwsAdaptive));
    connect(m_limiterCombo, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_policy.rateLimiter.kind = static_cast<RateLimiterKind>(m_limiterCombo->itemData(index).toInt());
        handleFieldEdited();
    });
    addField(limiterForm, Core::policyField(Id::LimiterKind), m_limiterCombo, [this] {
        m_limiterCombo->setCurrentIndex(m_limiterCombo->findData(static_cast<int>(m_policy.rateLimiter.kind)));
    });
    addTableFields(limiterForm, Section::RateLimiter);
    column->addWidget(limiter);

    auto *hedging = new QGroupBox(tr("Hedging (parallel attempts)"), page);
    addTableFields(newForm(hedging), Section::Hedging);
    column->addWidget(hedging);
    column->addStretch(1);
    return page;
}

QWidget *PolicyEditor::buildDetailsTab()
{
    auto *page = new QWidget;
    auto *form = newForm(page);

    // Name and source are lines; the description may take several.
    for (const Id id : {Id::Name, Id::Source}) {
        const Core::PolicyField &field = Core::policyField(id);
        auto *edit = new QLineEdit(page);
        connect(edit, &QLineEdit::textEdited, this, [this, &field](const QString &text) {
            field.setText(m_policy, text);
            handleFieldEdited();
        });
        addField(form, field, edit, [this, edit, &field] { edit->setText(field.text(m_policy)); });
    }

    const Core::PolicyField &descriptionField = Core::policyField(Id::Description);
    auto *description = new QPlainTextEdit(page);
    description->setTabChangesFocus(true);
    connect(description, &QPlainTextEdit::textChanged, this, [this, description, &descriptionField] {
        if (m_updating)
            return;
        descriptionField.setText(m_policy, description->toPlainText());
        handleFieldEdited();
    });
    addField(form, descriptionField, description, [this, description, &descriptionField] {
        const QString text = descriptionField.text(m_policy);
        if (description->toPlainText() != text)
            description->setPlainText(text);
    });
    return page;
}

void PolicyEditor::addTableFields(QFormLayout *form, Section section, QWidget *afterSwitch)
{
    for (const Core::PolicyField &field : Core::policyFields()) {
        if (field.section != section)
            continue;
        switch (field.type) {
        case Core::PolicyField::Type::Number:
        case Core::PolicyField::Type::WholeNumber:
            addNumberField(form, field);
            break;
        case Core::PolicyField::Type::Switch:
            addCheckField(form, field);
            if (afterSwitch)
                form->addRow(afterSwitch);
            break;
        case Core::PolicyField::Type::Text:
        case Core::PolicyField::Type::Choice:
        case Core::PolicyField::Type::Collection:
            break; // widgets of their own, made by the tab
        }
    }
}

void PolicyEditor::addField(QFormLayout *form, const Core::PolicyField &field, QWidget *editor,
    std::function<void()> show, std::optional<QString> title)
{
    addField(form, field.name(), title.value_or(field.title()), editor, field.toolTip(), std::move(show));
    m_fields.last().descriptor = &field;
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

void PolicyEditor::addNumberField(QFormLayout *form, const Core::PolicyField &field)
{
    auto *spin = new UnitSpinBox(field.displayScale, field.unitText(), field.decimals(), form->parentWidget());
    connect(spin, &UnitSpinBox::storedValueChanged, this, [this, &field](double stored) {
        if (m_updating)
            return;
        field.setNumber(m_policy, stored);
        handleFieldEdited();
    });
    addField(form, field, spin, [this, spin, &field] { spin->setStoredValue(field.number(m_policy)); });
}

void PolicyEditor::addCheckField(QFormLayout *form, const Core::PolicyField &field)
{
    auto *check = new QCheckBox(field.title(), form->parentWidget());
    connect(check, &QCheckBox::toggled, this, [this, &field](bool on) {
        if (m_updating)
            return;
        field.setFlag(m_policy, on);
        handleFieldEdited();
    });
    // The breaker's switch carries the messages about the whole breaker
    // (validatePolicy() names them "circuitBreaker"), and stays enabled while
    // the breaker's numbers are not used.
    const bool wholeBreaker = field.id == Id::BreakerEnabled;
    addField(form, wholeBreaker ? field.object() : field.name(), QString(), check, field.toolTip(),
        [this, check, &field] { check->setChecked(field.flag(m_policy)); });
    m_fields.last().descriptor = &field;
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
    const bool statusesPending
        = !m_statusesError.isEmpty() || !m_statusFactorsError.isEmpty() || !m_conditionsError.isEmpty();
    m_statusesError.clear();
    m_statusFactorsError.clear();
    m_conditionsError.clear();
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

void PolicyEditor::handleStatusFactorsEdited(const QString &text)
{
    auto parsed = Core::HttpStatusList::parseFactors(text);
    if (!parsed) {
        m_statusFactorsError = parsed.error();
        revalidate();
        return;
    }
    m_statusFactorsError.clear();
    if (*parsed == m_policy.classification.statusDelayFactors) {
        revalidate();
        return;
    }
    m_policy.classification.statusDelayFactors = *parsed;
    handleFieldEdited();
}

void PolicyEditor::handleConditionsEdited()
{
    auto parsed = Core::ResponseConditions::parse(m_conditionsEdit->toPlainText());
    if (!parsed) {
        m_conditionsError = parsed.error();
        revalidate();
        return;
    }
    m_conditionsError.clear();
    if (*parsed == m_policy.classification.retryOnResponse) {
        revalidate();
        return;
    }
    m_policy.classification.retryOnResponse = *parsed;
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

    // A budget's and a limiter's numbers are shown for their kind only.
    for (Field &f : m_fields) {
        if (!f.descriptor || !f.descriptor->checkedWhen
            || (f.descriptor->section != Section::RetryBudget && f.descriptor->section != Section::RateLimiter))
            continue;
        f.form->setRowVisible(f.editor, f.descriptor->checkedWhen(m_policy) || withIssues.contains(f.name));
    }
    switch (m_policy.retryBudget.kind) {
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
        issues.append({PolicyIssue::Severity::Error, Core::policyFieldName(Id::RetryableStatuses), m_statusesError});
    if (!m_statusFactorsError.isEmpty()) {
        issues.append(
            {PolicyIssue::Severity::Error, Core::policyFieldName(Id::StatusDelayFactors), m_statusFactorsError});
    }
    if (!m_conditionsError.isEmpty())
        issues.append({PolicyIssue::Severity::Error, Core::policyFieldName(Id::RetryOnResponse), m_conditionsError});
    for (const PolicyIssue &issue : Core::validatePolicy(m_policy))
        issues.append(placedAtItsField(issue));
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
                   !reason.isEmpty() && !(f.descriptor && f.descriptor->section == Section::CircuitBreaker)) {
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
