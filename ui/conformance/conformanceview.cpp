#include "ui/conformance/conformanceview.h"

#include "ui/conformance/conformancemodel.h"
#include "ui/conformance/storageconformanceview.h"

#include "core/http/redactor.h"
#include "core/policy/presets.h"
#include "core/scenario/conformancerunner.h"
#include "core/util/durationtext.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLoggingCategory>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace {
Q_LOGGING_CATEGORY(lcConformanceView, "retrylab.ui.conformanceview")
} // namespace

namespace RetryLab::Ui {

namespace {

// The policy box's item data: the index into Presets::all(), or this for the edited policy.
constexpr int editedPolicyItem = -1;

} // namespace

ConformanceView::ConformanceView(QWidget *parent)
    : QWidget(parent), m_runner(new Core::ConformanceRunner(this)), m_model(new ConformanceModel(this))
{
    m_policyBox = new QComboBox(this);
    m_policyBox->setObjectName(QStringLiteral("policyBox"));
    m_policyBox->setToolTip(tr("The policy whose retry rules the matrix checks"));
    // Long preset names are elided rather than widening the window (1024 px at the least).
    m_policyBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_policyBox->setMinimumContentsLength(16);
    const QList<Core::Presets::Preset> &presets = Core::Presets::all();
    for (int i = 0; i < presets.size(); ++i)
        m_policyBox->addItem(tr("Preset: %1").arg(presets[i].policy.name), i);
    const int storage = m_policyBox->findText(tr("Preset: %1").arg(QStringLiteral("Google Cloud Storage")));
    m_policyBox->setCurrentIndex(std::max(0, storage));

    m_runButton = new QPushButton(tr("Run"), this);
    m_runButton->setObjectName(QStringLiteral("runButton"));
    m_runButton->setToolTip(tr("Run every cell against the embedded fault server (a few seconds)"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_cancelButton->setEnabled(false);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("statusLabel"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A wrapped label asks for a height per width, and then the tab's scroll area sizes the
    // page by every part's preferred height (not its least) and scrolls the last rows away.
    QSizePolicy statusPolicy = m_status->sizePolicy();
    statusPolicy.setHeightForWidth(false);
    m_status->setSizePolicy(statusPolicy);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("matrix"));
    m_table->setModel(m_model);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setSelectionBehavior(QAbstractItemView::SelectItems);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    // Two lines a row: sized to contents, rows were measured before the columns stretched and came out tall.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    // One line per cell ("gave up (1)"): the thirteen rows fit at 1366x768.
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().lineSpacing() + 4);
    // Long sequence names are elided (the tooltip has them whole) so that the cells keep
    // room for their outcome.
    m_table->verticalHeader()->setMaximumWidth(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 17);
    m_table->verticalHeader()->setTextElideMode(Qt::ElideRight);
    m_table->installEventFilter(this);
    // Column titles in two lines ("always idempotent" over "(GET)"): whole in a narrow column.
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);

    m_details = new QPlainTextEdit(this);
    m_details->setObjectName(QStringLiteral("details"));
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Select a cell to see why it is expected to end as it does, and what happened."));
    m_details->setMaximumHeight(fontMetrics().lineSpacing() * 5);
    // Shown for a selected cell only: until then the matrix keeps the room, every row in view
    // at the window's default 1286x691.
    m_details->setVisible(false);
    m_table->setToolTip(tr("Select a cell to see why it is expected to end as it does, and what happened."));

    auto *controls = new QHBoxLayout;
    auto *policyLabel = new QLabel(tr("&Policy:"), this);
    policyLabel->setBuddy(m_policyBox);
    controls->addWidget(policyLabel);
    controls->addWidget(m_policyBox, 1);
    controls->addWidget(m_runButton);
    controls->addWidget(m_cancelButton);

    // Two suites under the one policy: RetryLab's matrix, and Google's Cloud Storage cases,
    // chosen in the controls' row so that the matrix keeps every row in view at 1366x768.
    auto *matrixPage = new QWidget(this);
    auto *matrixLayout = new QVBoxLayout(matrixPage);
    matrixLayout->setContentsMargins(0, 0, 0, 0);
    matrixLayout->addWidget(m_status);
    matrixLayout->addWidget(m_table, 1);
    matrixLayout->addWidget(m_details);
    m_storage = new StorageConformanceView(this);
    m_storage->setObjectName(QStringLiteral("storageCases"));
    // One suite at a time; the other is hidden rather than stacked, so that it adds nothing
    // to the page's size (the Cloud Storage page's wrapped texts made the tab's scroll area
    // size the page by preferred heights and scroll the matrix's last rows away).
    m_storage->hide();
    auto *suiteBox = new QComboBox(this);
    suiteBox->setObjectName(QStringLiteral("conformanceSuites"));
    // Elided rather than widening the window: the names are whole in the list.
    suiteBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    suiteBox->setMinimumContentsLength(14);
    suiteBox->addItem(tr("Fault sequences \u00d7 idempotency"));
    suiteBox->addItem(tr("Cloud Storage cases (Google's)"));
    suiteBox->setToolTip(tr("Which suite the tab shows: RetryLab's matrix, or Google's retry conformance cases for "
                            "Cloud Storage client libraries"));
    controls->insertWidget(2, suiteBox);
    connect(suiteBox, &QComboBox::currentIndexChanged, this, [this, matrixPage](int index) {
        matrixPage->setVisible(index == 0);
        m_storage->setVisible(index == 1);
        // The Cloud Storage cases have buttons of their own.
        m_runButton->setVisible(index == 0);
        m_cancelButton->setVisible(index == 0);
    });
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(matrixPage, 1);
    layout->addWidget(m_storage, 1);

    connect(m_policyBox, &QComboBox::currentIndexChanged, this, &ConformanceView::handlePolicyChosen);
    // A preset the user picked stays picked while the policy dock is edited or saved.
    connect(m_policyBox, &QComboBox::activated, this,
        [this](int index) { m_presetPinned = m_policyBox->itemData(index).toInt() != editedPolicyItem; });
    connect(m_runButton, &QPushButton::clicked, this, &ConformanceView::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &ConformanceView::cancel);
    connect(m_runner, &Core::ConformanceRunner::cellFinished, this, &ConformanceView::handleCellFinished);
    connect(m_runner, &Core::ConformanceRunner::finished, this, &ConformanceView::handleFinished);
    connect(m_runner, &Core::ConformanceRunner::failed, this, &ConformanceView::handleFailed);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentChanged, this,
        &ConformanceView::handleSelectionChanged);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ConformanceView::handleSelectionChanged);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ConformanceView::handleSelectionChanged);

    handlePolicyChosen();
}

ConformanceView::~ConformanceView() = default;

void ConformanceView::setPolicy(const Core::BackoffPolicy &policy)
{
    if (m_runner->isRunning()) {
        // The running suite's results belong to the policy it started with; relabelling
        // them would claim the new policy passed cells it never ran.
        m_pendingPolicy = policy;
        m_status->setText(runningText());
        return;
    }
    m_pendingPolicy.reset();
    applyEditedPolicy(policy, true);
}

void ConformanceView::applyEditedPolicy(const Core::BackoffPolicy &policy, bool showItsPlan)
{
    m_editedPolicy = policy;
    const QString text = tr("Edited policy: %1").arg(policy.name);
    const QSignalBlocker blocker(m_policyBox);
    if (m_policyBox->itemData(0).toInt() == editedPolicyItem)
        m_policyBox->setItemText(0, text);
    else
        m_policyBox->insertItem(0, text, editedPolicyItem);
    if (!m_presetPinned)
        m_policyBox->setCurrentIndex(0);
    if (showItsPlan && m_policyBox->currentData().toInt() == editedPolicyItem)
        handlePolicyChosen();
}

Core::BackoffPolicy ConformanceView::policy() const
{
    const int item = m_policyBox->currentData().toInt();
    if (item == editedPolicyItem && m_editedPolicy)
        return *m_editedPolicy;
    const QList<Core::Presets::Preset> &presets = Core::Presets::all();
    if (item >= 0 && item < presets.size())
        return presets[item].policy;
    return Core::BackoffPolicy{};
}

QString ConformanceView::policyChoice() const
{
    const int item = m_policyBox->currentData().toInt();
    if (item == editedPolicyItem)
        return editedChoice();
    const QList<Core::Presets::Preset> &presets = Core::Presets::all();
    return item >= 0 && item < presets.size() ? presets[item].id : QString();
}

bool ConformanceView::setPolicyChoice(const QString &choice)
{
    if (m_runner->isRunning())
        return false;
    int item = -2;
    if (choice == editedChoice()) {
        if (!m_editedPolicy)
            return false;
        item = editedPolicyItem;
    } else {
        const QList<Core::Presets::Preset> &presets = Core::Presets::all();
        for (int i = 0; i < presets.size(); ++i) {
            if (presets[i].id == choice)
                item = i;
        }
    }
    const int index = m_policyBox->findData(item);
    if (index < 0)
        return false;
    m_presetPinned = item != editedPolicyItem;
    m_policyBox->setCurrentIndex(index);
    return true;
}

void ConformanceView::setFaultServer(Core::FaultServer *server)
{
    m_runner->setFaultServer(server);
}

bool ConformanceView::isRunning() const
{
    return m_runner->isRunning();
}

void ConformanceView::run()
{
    if (m_runner->isRunning())
        return;
    m_runner->setPolicy(policy());
    m_runner->start();
    if (!m_runner->isRunning())
        return; // failed() follows
    m_model->setCells(m_runner->cells());
    setRunning(true);
    m_status->setText(runningText());
    Q_EMIT started();
}

void ConformanceView::cancel()
{
    m_runner->cancel();
}

void ConformanceView::handlePolicyChosen()
{
    if (m_runner->isRunning())
        return;
    m_runner->setPolicy(policy());
    showPlan();
    Q_EMIT policyChoiceChanged(policyChoice());
}

void ConformanceView::showPlan()
{
    m_storage->setPolicy(m_runner->policy());
    m_model->setRunning(false);
    m_model->setCells(m_runner->cells());
    const Core::BackoffPolicy run = m_runner->runPolicy();
    const QList<Core::PolicyIssue> issues = Core::validatePolicy(m_runner->policy());
    const bool usable = Core::isUsable(m_runner->policy());
    m_runButton->setEnabled(usable);
    if (!usable) {
        m_status->setText(tr("This policy cannot run: %1").arg(Core::describeIssues(issues)));
        return;
    }
    m_status->setText(
        tr("Each cell shows what the policy's rules expect. The run compresses the waits (base %1, cap %2%3) "
           "so that the matrix takes a few seconds; what is retried, and how often, stays as the policy says.")
            .arg(Core::DurationText::format(run.baseDelayMs), Core::DurationText::format(run.maxBackoffMs),
                run.deadlineMs > 0.0 ? tr(", deadline %1").arg(Core::DurationText::format(run.deadlineMs))
                                     : QString()));
}

QString ConformanceView::runningText() const
{
    const QString progress = m_runner->finishedCount() == 0
        ? tr("Running %n cell(s) for \u201c%1\u201d against the embedded fault server...", nullptr,
            m_runner->playedCount())
              .arg(m_runner->policy().name)
        : tr("%1 of %2 cells done for \u201c%3\u201d...")
              .arg(m_runner->finishedCount())
              .arg(m_runner->playedCount())
              .arg(m_runner->policy().name);
    return progress + pendingText();
}

QString ConformanceView::pendingText() const
{
    if (!m_pendingPolicy)
        return {};
    return QLatin1Char(' ')
        + tr("The edited policy changed to \u201c%1\u201d; the next run uses it.").arg(m_pendingPolicy->name);
}

void ConformanceView::handleCellFinished(int index)
{
    if (index >= 0 && index < m_runner->cells().size())
        m_model->updateCell(index, m_runner->cells().at(index));
    m_status->setText(runningText());
}

void ConformanceView::handleFinished()
{
    setRunning(false);
    m_model->setRunning(false);
    const int passed = m_runner->passedCount();
    const int total = m_runner->playedCount();
    const QString ran = m_runner->policy().name;
    const QString pending = pendingText();
    if (m_pendingPolicy) {
        // Offered for the next run; the matrix keeps the finished run's results.
        applyEditedPolicy(*std::exchange(m_pendingPolicy, std::nullopt), false);
    }
    m_status->setText(
        (passed == total ? tr("All %1 cells behave as the rules of \u201c%2\u201d say.").arg(total).arg(ran)
                         : tr("%1 of %2 cells pass for \u201c%3\u201d; select a red cell to see what differs.")
                               .arg(passed)
                               .arg(total)
                               .arg(ran))
        + pending);
    qCDebug(lcConformanceView) << passed << "of" << total << "cells passed";
    Q_EMIT finished(passed, total);
}

void ConformanceView::handleFailed(const QString &message)
{
    setRunning(false);
    m_model->setRunning(false);
    const QString pending = pendingText();
    if (m_pendingPolicy) {
        applyEditedPolicy(*std::exchange(m_pendingPolicy, std::nullopt), false);
    }
    m_status->setText(tr("The matrix could not run: %1").arg(Core::Redactor::logLine(message)) + pending);
    Q_EMIT failed(message);
}

void ConformanceView::handleSelectionChanged()
{
    const Core::ConformanceCellResult *cell = m_model->cellAt(m_table->currentIndex());
    if (!cell) {
        m_details->clear();
        m_details->setVisible(false);
        return;
    }
    m_details->setVisible(true);
    m_details->setPlainText(
        tr("%1\n%2").arg(cell->cell.name(), m_model->data(m_table->currentIndex(), Qt::ToolTipRole).toString()));
}

bool ConformanceView::eventFilter(QObject *watched, QEvent *event)
{
    // The table's own size, once the layout has given it: the labels get what its columns spare.
    if (watched == m_table && event->type() == QEvent::Resize)
        fitRowLabels();
    return QWidget::eventFilter(watched, event);
}

void ConformanceView::fitRowLabels()
{
    const QFontMetrics metrics = m_table->fontMetrics();
    // A cell needs its icon and "succeeded (5)"; the labels may take the rest.
    const int cell = metrics.horizontalAdvance(tr("succeeded (5)")) + metrics.height() + 16;
    const int frame = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width();
    const int spare = m_table->width() - frame - cell * std::max(1, m_model->columnCount());
    int widest = 0;
    for (int row = 0; row < m_model->rowCount(); ++row)
        widest = std::max(widest, metrics.horizontalAdvance(m_model->headerData(row, Qt::Vertical).toString()));
    const int least = fontMetrics().horizontalAdvance(QLatin1Char('M')) * 17;
    m_table->verticalHeader()->setMaximumWidth(std::max(least, std::min(spare, widest + 16)));
}

void ConformanceView::setRunning(bool running)
{
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    m_policyBox->setEnabled(!running);
}

} // namespace RetryLab::Ui
