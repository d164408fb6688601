#include "ui/collections/collectionrunpanel.h"

#include "core/runner/collectionrunreport.h"
#include "core/util/durationtext.h"
#include "ui/collections/collectionrunmodel.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLoggingCategory>
#include <QMenu>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

Q_LOGGING_CATEGORY(lcCollectionRunPanel, "retrylab.ui.collectionrunpanel")

/// "Failed only": the requests that failed, and in them the verdicts that failed.
class FailedRunRowsFilter final : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setFailedOnly(bool failedOnly)
    {
        if (failedOnly == m_failedOnly)
            return;
        m_failedOnly = failedOnly;
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override
    {
        if (!m_failedOnly)
            return true;
        const QModelIndex index = sourceModel()->index(row, 0, parent);
        return index.data(CollectionRunModel::VerdictRole).toInt() == int(CollectionRunModel::Verdict::Failed);
    }

private:
    bool m_failedOnly = false;
};

} // namespace

CollectionRunPanel::CollectionRunPanel(QWidget *parent)
    : QWidget(parent), m_model(new CollectionRunModel(this)), m_filter(new FailedRunRowsFilter(this)),
      m_view(new QTreeView), m_title(new QLabel), m_progress(new QLabel), m_counts(new QLabel), m_note(new QLabel),
      m_failedOnly(new QCheckBox(tr("Failed o&nly"))), m_stopButton(new QToolButton)
{
    setObjectName(QStringLiteral("collectionRunPanel"));
    m_filter->setSourceModel(m_model);

    m_openAttempts = new QAction(tr("&Open attempts"), this);
    m_openAttempts->setObjectName(QStringLiteral("openRunAttempts"));
    m_openAttempts->setToolTip(tr("Show the attempts of the selected request in the timeline and the inspector "
                                  "(Enter)"));
    m_export = new QAction(tr("E&xport…"), this);
    m_export->setObjectName(QStringLiteral("exportCollectionRun"));
    m_export->setToolTip(tr("Write the run as a JSON report, JUnit XML or HAR"));
    m_stop = new QAction(tr("S&top"), this);
    m_stop->setObjectName(QStringLiteral("stopCollectionRun"));
    m_stop->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stop->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_stop->setToolTip(tr("Stop the run after cancelling the request in flight (Esc)"));
    addAction(m_stop);
    connect(m_openAttempts, &QAction::triggered, this, &CollectionRunPanel::openAttempts);
    connect(m_export, &QAction::triggered, this, &CollectionRunPanel::exportRun);
    connect(m_stop, &QAction::triggered, this, [this] {
        if (m_running)
            Q_EMIT stopRequested();
    });

    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setObjectName(QStringLiteral("collectionRunTitle"));
    m_title->setText(tr("No collection has run yet"));
    // A long name gives way to the counts.
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_title->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 8);
    m_progress->setObjectName(QStringLiteral("collectionRunProgress"));
    m_counts->setObjectName(QStringLiteral("collectionRunCounts"));
    m_stopButton->setDefaultAction(m_stop);
    m_stopButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_stopButton->setVisible(false);
    auto *header = new QHBoxLayout;
    header->setContentsMargins(0, 0, 0, 0);
    header->addWidget(m_title, 1);
    header->addWidget(m_progress);
    header->addWidget(m_counts);
    header->addWidget(m_stopButton);

    m_failedOnly->setObjectName(QStringLiteral("collectionRunFailedOnly"));
    m_failedOnly->setToolTip(tr("Show only the requests that failed, with their failed assertions, tests and errors"));
    auto *open = new QToolButton;
    open->setDefaultAction(m_openAttempts);
    open->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *save = new QToolButton;
    save->setDefaultAction(m_export);
    save->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *tools = new QHBoxLayout;
    tools->setContentsMargins(0, 0, 0, 0);
    tools->addWidget(m_failedOnly);
    tools->addStretch();
    tools->addWidget(open);
    tools->addWidget(save);

    m_view->setObjectName(QStringLiteral("collectionRunTree"));
    m_view->setModel(m_filter);
    m_view->setUniformRowHeights(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setAllColumnsShowFocus(true);
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(CollectionRunModel::StatusColumn, QHeaderView::Stretch);
    m_view->header()->setSectionResizeMode(CollectionRunModel::TimeColumn, QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(CollectionRunModel::VerdictColumn, QHeaderView::ResizeToContents);
    m_view->setColumnWidth(CollectionRunModel::RequestColumn, em * 18);

    m_note->setObjectName(QStringLiteral("collectionRunNote"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(header);
    layout->addLayout(tools);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_note);
    setTabOrder(m_view, m_failedOnly);
    setTabOrder(m_failedOnly, open);
    setTabOrder(open, save);
    setTabOrder(save, m_stopButton);

    connect(m_failedOnly, &QCheckBox::toggled, this, &CollectionRunPanel::setFailedOnly);
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &index) {
        // Enter (or a double click) on a request opens its attempts; on a verdict it shows its message.
        if (index.isValid() && !index.parent().isValid())
            openAttempts();
    });
    connect(m_view, &QTreeView::customContextMenuRequested, this, &CollectionRunPanel::handleContextMenu);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &CollectionRunPanel::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &CollectionRunPanel::updateActions);
    updateHeader();
    updateActions();
}

CollectionRunPanel::~CollectionRunPanel()
{
    disconnect(m_view->selectionModel(), nullptr, this, nullptr);
    disconnect(m_model, nullptr, this, nullptr);
}

void CollectionRunPanel::runStarted(const QString &collectionName, int plannedRequests, int iterations)
{
    m_running = true;
    m_planned = plannedRequests;
    m_result = Core::CollectionRunResult{};
    m_result.collectionName = collectionName;
    m_result.iterations = iterations;
    m_model->clear(iterations);
    m_title->setText(collectionName);
    m_title->setToolTip(collectionName);
    m_note->clear();
    updateHeader();
    updateActions();
}

void CollectionRunPanel::requestStarted(int index, const QString &path, int iteration)
{
    m_model->addStarted(index, path, iteration);
    if (!m_view->currentIndex().isValid())
        selectRequest(index);
    updateHeader();
}

void CollectionRunPanel::requestFinished(const Core::CollectionRequestRun &run)
{
    m_result.requests.append(run);
    m_model->addFinished(run);
    if (run.failed()) {
        const QModelIndex shown = m_filter->mapFromSource(m_model->indexOfRequest(run.index));
        if (shown.isValid())
            m_view->expand(shown);
    }
    updateHeader();
    updateActions();
}

void CollectionRunPanel::runFinished(const Core::CollectionRunResult &result)
{
    m_running = false;
    const bool same = m_model->rowCount() == result.requests.size();
    m_result = result;
    if (!same) {
        m_model->setResult(result);
        for (const Core::CollectionRequestRun &run : result.requests) {
            if (run.failed())
                m_view->expand(m_filter->mapFromSource(m_model->indexOfRequest(run.index)));
        }
    }
    QString note
        = tr("Requests run: %1, in %2.").arg(result.requests.size()).arg(Core::DurationText::format(result.durationMs));
    if (!result.stoppedEarly.isEmpty())
        note += QLatin1Char(' ') + tr("Stopped early: %1.").arg(result.stoppedEarly);
    if (!result.ignored.isEmpty())
        note += QLatin1Char(' ') + tr("Not used: %1").arg(result.ignored.join(QStringLiteral("; ")));
    m_note->setText(note);
    updateHeader();
    updateActions();
}

QString CollectionRunPanel::progressText() const
{
    const int done = int(m_result.requests.size());
    return QStringLiteral("%1/%2").arg(done).arg(std::max(done, m_planned));
}

QString CollectionRunPanel::countsText() const
{
    int passed = 0;
    int failed = 0;
    int retried = 0;
    for (const Core::CollectionRequestRun &run : m_result.requests) {
        switch (CollectionRunModel::verdictOf(run)) {
        case CollectionRunModel::Verdict::Failed:
            ++failed;
            break;
        case CollectionRunModel::Verdict::Retried:
            ++retried;
            break;
        case CollectionRunModel::Verdict::Passed:
            ++passed;
            break;
        case CollectionRunModel::Verdict::Skipped:
        case CollectionRunModel::Verdict::Running:
            break;
        }
    }
    return tr("%1 passed · %2 failed · %3 retried").arg(passed).arg(failed).arg(retried);
}

void CollectionRunPanel::updateHeader()
{
    m_progress->setText(progressText());
    m_progress->setToolTip(
        m_running ? tr("Requests done out of those the run will send") : tr("Requests the run sent"));
    m_counts->setText(countsText());
    m_counts->setToolTip(tr("Retried: passed only after more than one attempt, what a runner without retries "
                            "would have failed"));
    m_stopButton->setVisible(m_running);
}

void CollectionRunPanel::updateActions()
{
    m_openAttempts->setEnabled(m_model->requestAt(currentSourceIndex()) != nullptr);
    m_export->setEnabled(!m_running && !m_result.requests.isEmpty());
    m_stop->setEnabled(m_running);
}

void CollectionRunPanel::setFailedOnly(bool failedOnly)
{
    if (m_failedOnly->isChecked() != failedOnly)
        m_failedOnly->setChecked(failedOnly);
    static_cast<FailedRunRowsFilter *>(m_filter)->setFailedOnly(failedOnly);
    m_view->expandAll();
    updateActions();
}

bool CollectionRunPanel::selectRequest(int runIndex)
{
    const QModelIndex shown = m_filter->mapFromSource(m_model->indexOfRequest(runIndex));
    if (!shown.isValid())
        return false;
    m_view->setCurrentIndex(shown);
    m_view->scrollTo(shown);
    return true;
}

QModelIndex CollectionRunPanel::currentSourceIndex() const
{
    return m_filter->mapToSource(m_view->currentIndex());
}

void CollectionRunPanel::openAttempts()
{
    const Core::CollectionRequestRun *run = m_model->requestAt(currentSourceIndex());
    if (!run)
        return;
    QString title
        = m_result.iterations > 1 ? tr("%1 (iteration %2)").arg(run->path).arg(run->iteration + 1) : run->path;
    if (!m_result.collectionName.isEmpty())
        title = tr("%1 in %2").arg(title, m_result.collectionName);
    Q_EMIT openRecord(Core::CollectionRunReport::recordOf(m_result, *run), title);
}

Core::Result<qint64> CollectionRunPanel::exportTo(const QString &path) const
{
    if (m_running)
        return Core::Result<qint64>::failure(tr("The run goes on; export it once it has ended."));
    return Core::CollectionRunReport::write(path, m_result);
}

void CollectionRunPanel::exportRun()
{
    if (m_running || m_result.requests.isEmpty())
        return;
    const QString report = tr("RetryLab JSON report (*.json)");
    const QString junit = tr("JUnit XML (*.xml)");
    const QString har = tr("HAR (*.har)");
    QString filter = report;
    QString base = m_result.collectionName.isEmpty() ? QStringLiteral("collection-run") : m_result.collectionName;
    base.replace(QRegularExpression(QStringLiteral(R"([\\/:*?"<>|])")), QStringLiteral("-"));
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QString path = QFileDialog::getSaveFileName(this, tr("Export the run"),
        QDir(folder).filePath(base + QStringLiteral(".json")),
        QStringList{report, junit, har}.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter == junit ? QStringLiteral(".xml")
            : filter == har     ? QStringLiteral(".har")
                                : QStringLiteral(".json");
    const auto written = exportTo(path);
    if (!written) {
        qCWarning(lcCollectionRunPanel).noquote() << "export failed:" << written.error();
        m_note->setText(tr("The run was not exported: %1").arg(written.error()));
        return;
    }
    m_note->setText(tr("Exported to %1.").arg(QDir::toNativeSeparators(path)));
}

void CollectionRunPanel::handleContextMenu(const QPoint &position)
{
    QMenu menu(this);
    menu.addAction(m_openAttempts);
    menu.addAction(m_export);
    menu.addSeparator();
    QAction *failedOnly = menu.addAction(tr("Failed only"));
    failedOnly->setCheckable(true);
    failedOnly->setChecked(m_failedOnly->isChecked());
    connect(failedOnly, &QAction::toggled, this, &CollectionRunPanel::setFailedOnly);
    menu.addAction(tr("Expand all"), m_view, &QTreeView::expandAll);
    menu.addAction(tr("Collapse all"), m_view, &QTreeView::collapseAll);
    if (m_running) {
        menu.addSeparator();
        menu.addAction(m_stop);
    }
    menu.exec(m_view->viewport()->mapToGlobal(position));
}

} // namespace RetryLab::Ui
