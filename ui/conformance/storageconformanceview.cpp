#include "ui/conformance/storageconformanceview.h"

#include "core/faultserver/storageretrytests.h"

#include <QBrush>
#include <QColor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

using Core::StorageConformanceRun;

// --- StorageConformanceModel

StorageConformanceModel::StorageConformanceModel(QObject *parent)
    : QAbstractTableModel(parent), m_methods(Core::StorageOperations::served())
{ }

void StorageConformanceModel::setRuns(const QList<StorageConformanceRun> &runs)
{
    beginResetModel();
    m_runs = runs;
    m_rows.clear();
    m_cells.clear();
    for (int i = 0; i < m_runs.size(); ++i) {
        const StorageConformanceRun &run = m_runs.at(i);
        auto row = std::find_if(m_rows.cbegin(), m_rows.cend(),
            [&](const Row &r) { return r.caseId == run.caseId && r.listIndex == run.listIndex; });
        int rowIndex = int(row - m_rows.cbegin());
        if (row == m_rows.cend()) {
            m_rows.append({run.caseId, run.listIndex});
            rowIndex = int(m_rows.size()) - 1;
        }
        m_cells.insert({rowIndex, int(m_methods.indexOf(run.method))}, i);
    }
    endResetModel();
}

void StorageConformanceModel::updateRun(int index, const StorageConformanceRun &run)
{
    if (index < 0 || index >= m_runs.size())
        return;
    m_runs[index] = run;
    for (auto it = m_cells.cbegin(); it != m_cells.cend(); ++it) {
        if (it.value() == index) {
            const QModelIndex cell = this->index(it.key().first, it.key().second);
            Q_EMIT dataChanged(cell, cell);
        }
    }
}

int StorageConformanceModel::runAt(const QModelIndex &index) const
{
    return m_cells.value({index.row(), index.column()}, -1);
}

int StorageConformanceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int StorageConformanceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_methods.size());
}

QVariant StorageConformanceModel::data(const QModelIndex &index, int role) const
{
    const int runIndex = runAt(index);
    if (runIndex < 0) {
        if (role == Qt::DisplayRole)
            return QStringLiteral("\u2014");
        if (role == Qt::ToolTipRole)
            return tr("This case does not name %1").arg(m_methods.value(index.column()));
        if (role == Qt::TextAlignmentRole)
            return Qt::AlignCenter;
        return {};
    }
    const StorageConformanceRun &run = m_runs.at(runIndex);
    const QString expected = run.expectSuccess ? tr("success") : tr("failure");
    switch (role) {
    case Qt::DisplayRole:
        switch (run.state) {
        case StorageConformanceRun::State::Planned:
            return tr("expect %1").arg(expected);
        case StorageConformanceRun::State::Running:
            return tr("running\u2026");
        case StorageConformanceRun::State::Passed:
            return tr("\u2713 pass, %1 (%n attempt(s))", nullptr, run.attempts).arg(expected);
        case StorageConformanceRun::State::Failed:
            return tr("\u2717 FAIL (%n attempt(s))", nullptr, run.attempts);
        case StorageConformanceRun::State::Cancelled:
            return tr("cancelled");
        }
        return {};
    case Qt::ToolTipRole:
        return run.detail.isEmpty() ? run.name() : run.name() + QLatin1Char('\n') + run.detail;
    case Qt::BackgroundRole:
        if (run.state == StorageConformanceRun::State::Passed)
            return QBrush(QColor(0xd5, 0xf0, 0xdc));
        if (run.state == StorageConformanceRun::State::Failed)
            return QBrush(QColor(0xf8, 0xd7, 0xd4));
        return {};
    case Qt::TextAlignmentRole:
        return Qt::AlignCenter;
    default:
        return {};
    }
}

QVariant StorageConformanceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal) {
        if (role == Qt::DisplayRole)
            return m_methods.value(section).section(QLatin1Char('.'), 1); // "objects.get"
        if (role == Qt::ToolTipRole)
            return m_methods.value(section);
        return {};
    }
    if (section < 0 || section >= m_rows.size())
        return {};
    const Row row = m_rows.at(section);
    const auto first = std::find_if(m_runs.cbegin(), m_runs.cend(),
        [&](const StorageConformanceRun &r) { return r.caseId == row.caseId && r.listIndex == row.listIndex; });
    if (first == m_runs.cend())
        return {};
    if (role == Qt::DisplayRole)
        return tr("%1: %2").arg(row.caseId).arg(first->instructions.join(QStringLiteral(", ")));
    if (role == Qt::ToolTipRole) {
        return tr("Case %1, %2\nInstructions: %3\nPrecondition provided: %4; expected: %5")
            .arg(row.caseId)
            .arg(first->description, first->instructions.join(QStringLiteral(", ")),
                first->precondition ? tr("yes") : tr("no"), first->expectSuccess ? tr("success") : tr("failure"));
    }
    return {};
}

// --- StorageConformanceView

StorageConformanceView::StorageConformanceView(QWidget *parent)
    : QWidget(parent), m_runner(new Core::StorageConformanceRunner(this)), m_model(new StorageConformanceModel(this)),
      m_status(new QLabel(this)), m_notPlayed(new QLabel(this)), m_runButton(new QPushButton(tr("Run cases"), this)),
      m_cancelButton(new QPushButton(tr("Cancel"), this)), m_table(new QTableView(this)),
      m_details(new QPlainTextEdit(this))
{
    m_status->setObjectName(QStringLiteral("storageStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notPlayed->setObjectName(QStringLiteral("storageNotPlayed"));
    m_notPlayed->setWordWrap(true);
    m_runButton->setObjectName(QStringLiteral("storageRun"));
    m_runButton->setToolTip(tr("Play every case against a fault server of its own (about half a minute: some "
                               "cases stall for 10 s)"));
    m_cancelButton->setObjectName(QStringLiteral("storageCancel"));
    m_cancelButton->setEnabled(false);
    m_table->setObjectName(QStringLiteral("storageMatrix"));
    m_table->setModel(m_model);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().lineSpacing() + 4);
    m_table->verticalHeader()->setMaximumWidth(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 22);
    m_table->verticalHeader()->setTextElideMode(Qt::ElideRight);
    m_details->setObjectName(QStringLiteral("storageDetails"));
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Select a cell to see the case, its instructions and what happened."));
    m_details->setMaximumHeight(fontMetrics().lineSpacing() * 5);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_status, 1);
    controls->addWidget(m_runButton, 0, Qt::AlignTop);
    controls->addWidget(m_cancelButton, 0, Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_notPlayed);
    layout->addWidget(m_details);

    const auto suite = Core::StorageConformanceSuite::bundled();
    if (suite) {
        m_runner->setSuite(*suite);
        m_model->setRuns(suite->runs);
        QStringList methods = suite->notPlayed.keys();
        std::sort(methods.begin(), methods.end());
        QStringList lines;
        for (const QString &method : std::as_const(methods))
            lines << QStringLiteral("%1: %2").arg(method, suite->notPlayed.value(method));
        m_notPlayed->setText(tr("%n method(s) of the file are not played: the fault server does not serve them "
                                "(hover for why).",
            nullptr, int(methods.size())));
        m_notPlayed->setToolTip(lines.join(QLatin1Char('\n')));
    } else {
        m_loadError = suite.error();
        m_runButton->setEnabled(false);
    }
    connect(m_runButton, &QPushButton::clicked, this, &StorageConformanceView::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &StorageConformanceView::cancel);
    connect(m_runner, &Core::StorageConformanceRunner::runFinished, this,
        [this](int index) { m_model->updateRun(index, m_runner->suite().runs.at(index)); });
    connect(m_runner, &Core::StorageConformanceRunner::finished, this, [this](int passed, int total) {
        m_runButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
        updateStatus();
        Q_EMIT finished(passed, total);
    });
    connect(m_runner, &Core::StorageConformanceRunner::failed, this, [this](const QString &message) {
        m_runButton->setEnabled(true);
        m_cancelButton->setEnabled(false);
        m_status->setText(tr("Not run: %1").arg(message));
    });
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentChanged, this, &StorageConformanceView::showSelected);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &StorageConformanceView::showSelected);
    updateStatus();
}

StorageConformanceView::~StorageConformanceView() = default;

void StorageConformanceView::setPolicy(const Core::BackoffPolicy &policy)
{
    m_policy = policy;
    if (!m_runner->isRunning())
        updateStatus();
}

void StorageConformanceView::run()
{
    if (m_runner->isRunning() || !m_loadError.isEmpty())
        return;
    m_runner->setPolicy(m_policy);
    m_runner->start();
    if (!m_runner->isRunning())
        return; // failed() said why
    m_model->setRuns(m_runner->suite().runs);
    m_runButton->setEnabled(false);
    m_cancelButton->setEnabled(true);
    updateStatus();
}

void StorageConformanceView::cancel()
{
    m_runner->cancel();
}

void StorageConformanceView::updateStatus()
{
    if (!m_loadError.isEmpty()) {
        m_status->setText(tr("The cases cannot be read: %1").arg(m_loadError));
        return;
    }
    const int total = int(m_runner->suite().runs.size());
    const QString source = Core::StorageConformanceSuite::source();
    if (m_runner->isRunning()) {
        m_status->setText(
            tr("Playing %1 runs of Google's Cloud Storage retry cases under %2\u2026").arg(total).arg(m_policy.name));
        return;
    }
    const bool ran = std::any_of(m_model->runs().cbegin(), m_model->runs().cend(),
        [](const StorageConformanceRun &r) { return r.state != StorageConformanceRun::State::Planned; });
    if (ran) {
        m_status->setText(tr("%1 of %2 runs as the cases expect, under %3 (waits compressed, timeouts as the policy "
                             "says). Cases: %4.")
                              .arg(m_runner->passedCount())
                              .arg(total)
                              .arg(m_runner->suite().runs.isEmpty() ? QString() : m_policy.name, source));
        return;
    }
    m_status->setText(
        tr("%1 runs of Google's Cloud Storage retry cases (%2), each instruction list against each method "
           "the fault server serves, with and without preconditions as the case says. Run them under "
           "%3.")
            .arg(total)
            .arg(source, m_policy.name));
}

void StorageConformanceView::showSelected()
{
    const int index = m_model->runAt(m_table->currentIndex());
    if (index < 0) {
        m_details->clear();
        return;
    }
    const StorageConformanceRun &run = m_model->runs().at(index);
    QString text
        = run.name() + QLatin1Char('\n') + tr("Expected: %1.").arg(run.expectSuccess ? tr("success") : tr("failure"));
    if (!run.detail.isEmpty())
        text += QLatin1Char(' ') + run.detail;
    m_details->setPlainText(text);
}

} // namespace RetryLab::Ui
