#include "ui/run/errorlogview.h"

#include "ui/session/run/runsession.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

// Long enough to skip the rows in between while someone types, short enough to feel live.
constexpr int filterDelayMs = 200;

} // namespace

ErrorLogView::ErrorLogView(QWidget *parent)
    : QWidget(parent), m_model(new AttemptLogModel(this)), m_table(new QTableView(this)),
      m_outcome(new QComboBox(this)), m_filter(new QLineEdit(this)), m_filterDelay(new QTimer(this)),
      m_count(new QLabel(this)), m_follow(new QCheckBox(tr("Follow newest"), this)),
      m_exportButton(new QToolButton(this))
{
    m_outcome->setObjectName(QStringLiteral("outcomeFilter"));
    m_outcome->addItem(tr("All attempts"), int(AttemptLogModel::ShowAll));
    m_outcome->addItem(tr("Failures"), int(AttemptLogModel::ShowFailures));
    m_outcome->addItem(tr("Final failures"), int(AttemptLogModel::ShowFailed));
    m_outcome->addItem(tr("Retried failures"), int(AttemptLogModel::ShowRetried));
    m_outcome->addItem(tr("Successes"), int(AttemptLogModel::ShowSuccess));
    m_outcome->addItem(tr("Cancelled"), int(AttemptLogModel::ShowCancelled));
    m_outcome->setToolTip(tr("Show only attempts with this outcome"));

    m_filter->setObjectName(QStringLiteral("textFilter"));
    m_filter->setPlaceholderText(tr("Filter: status, cause, reason, URL, label, or #request"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(tr("Case-insensitive text in any column; \"#12\" shows request 12 only"));
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(filterDelayMs);

    m_count->setObjectName(QStringLiteral("rowCount"));
    m_count->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Scroll to the newest attempt as attempts arrive"));

    m_exportButton->setText(tr("Export"));
    m_exportButton->setToolTip(tr("Export the log as CSV or JSON"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    m_exportButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *exportMenu = new QMenu(m_exportButton);
    m_exportButton->setMenu(exportMenu);
    exportMenu->addAction(addExportAction(tr("All rows as CSV…"), ExportFormat::Csv, false));
    exportMenu->addAction(addExportAction(tr("Shown rows as CSV…"), ExportFormat::Csv, true));
    exportMenu->addSeparator();
    exportMenu->addAction(addExportAction(tr("All rows as JSON…"), ExportFormat::Json, false));
    exportMenu->addAction(addExportAction(tr("Shown rows as JSON…"), ExportFormat::Json, true));

    m_table->setObjectName(QStringLiteral("attemptTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    // Arrows move between cells; Tab leaves the table, as everywhere else.
    m_table->setTabKeyNavigation(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    // A million rows stay cheap only if no row is ever measured.
    QHeaderView *rows = m_table->verticalHeader();
    rows->setSectionResizeMode(QHeaderView::Fixed);
    rows->setDefaultSectionSize(fontMetrics().height() + 6);
    rows->hide();
    QHeaderView *columns = m_table->horizontalHeader();
    columns->setSectionResizeMode(QHeaderView::Interactive);
    columns->setSectionResizeMode(AttemptLogModel::Reason, QHeaderView::Stretch);
    columns->setHighlightSections(false);
    // Wide enough for typical content and for the header, measured in this font.
    m_table->setIconSize(QSize(10, 10));
    const QFontMetrics fm = fontMetrics();
    const QList<QPair<int, QString>> samples{
        {AttemptLogModel::Time, QStringLiteral("88:88:88.888")},
        {AttemptLogModel::Request, QStringLiteral("#8888 batch 88/88")},
        {AttemptLogModel::Attempt, QStringLiteral("8 (write)")},
        {AttemptLogModel::Status, QStringLiteral("503 Service Unavailable")},
        {AttemptLogModel::Outcome, QStringLiteral("Failed, retried") + QStringLiteral("MM")},
        {AttemptLogModel::Ending, QStringLiteral("Gave up: attempt limit") + QStringLiteral("MM")},
        {AttemptLogModel::Cause, QStringLiteral("connection-refused")},
        {AttemptLogModel::NextDelay, QStringLiteral("88888 ms")},
        {AttemptLogModel::Duration, QStringLiteral("88888 ms")},
    };
    for (const auto &[column, sample] : samples) {
        const QString header = m_model->headerData(column, Qt::Horizontal).toString();
        m_table->setColumnWidth(column, std::max(fm.horizontalAdvance(sample), fm.horizontalAdvance(header)) + 24);
    }
    // Start in the order attempts finished; a third click on a header returns to it.
    columns->setSortIndicator(-1, Qt::AscendingOrder);
    columns->setSortIndicatorClearable(true);
    m_table->setSortingEnabled(true);

    auto *find = new QAction(this);
    find->setShortcut(QKeySequence::Find);
    find->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(find);
    connect(find, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 4, 4, 0); // the menu arrow of Export must not touch the frame
    bar->addWidget(m_outcome);
    bar->addWidget(m_filter, 1);
    bar->addWidget(m_count);
    bar->addWidget(m_follow);
    bar->addWidget(m_exportButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);

    connect(m_outcome, &QComboBox::currentIndexChanged, this, &ErrorLogView::handleOutcomeChosen);
    connect(m_filter, &QLineEdit::textEdited, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        // The clear button does not "edit": apply that at once.
        if (text.isEmpty())
            applyTextFilter();
    });
    connect(m_filter, &QLineEdit::returnPressed, this, &ErrorLogView::applyTextFilter);
    connect(m_filterDelay, &QTimer::timeout, this, &ErrorLogView::applyTextFilter);
    connect(m_model, &AttemptLogModel::countsChanged, this, &ErrorLogView::updateCount);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ErrorLogView::handleRowsInserted);
    connect(m_table, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        Q_EMIT attemptActivated(index.data(AttemptLogModel::SessionRowRole).toLongLong());
    });
    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
            if (current.isValid())
                Q_EMIT attemptSelected(current.data(AttemptLogModel::SessionRowRole).toLongLong());
        });
    updateCount();
}

QAction *ErrorLogView::addExportAction(const QString &text, ExportFormat format, bool onlyVisible)
{
    auto *action = new QAction(text, this);
    action->setData(onlyVisible);
    connect(action, &QAction::triggered, this,
        [this, format, onlyVisible] { Q_EMIT exportRequested(format, onlyVisible); });
    m_exportActions.append(action);
    return action;
}

void ErrorLogView::setSession(RunSession *session)
{
    m_model->setSession(session);
}

QList<qsizetype> ErrorLogView::selectedFinishedIndexes() const
{
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QList<qsizetype> list;
    list.reserve(rows.size());
    for (const QModelIndex &index : std::as_const(rows))
        list.append(m_model->finishedIndexAt(index.row()));
    return list;
}

void ErrorLogView::setFollowNewest(bool follow)
{
    m_follow->setChecked(follow);
}

bool ErrorLogView::followNewest() const
{
    return m_follow->isChecked();
}

void ErrorLogView::applyTextFilter()
{
    m_filterDelay->stop();
    m_model->setTextFilter(m_filter->text());
}

bool ErrorLogView::showAttempt(qsizetype sessionRow)
{
    const RunSession *s = m_model->session();
    if (!s)
        return false;
    const int row = m_model->rowOfFinishedIndex(s->finishedIndexOfRow(sessionRow));
    if (row < 0)
        return false;
    const QModelIndex index = m_model->index(row, AttemptLogModel::Time);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index, QAbstractItemView::PositionAtCenter);
    return true;
}

void ErrorLogView::handleOutcomeChosen(int index)
{
    m_model->setOutcomeFilter(AttemptLogModel::OutcomeFilter(m_outcome->itemData(index).toInt()));
}

void ErrorLogView::handleRowsInserted()
{
    if (m_follow->isChecked())
        m_table->scrollToBottom();
}

void ErrorLogView::updateCount()
{
    const QLocale locale;
    const qsizetype shown = m_model->rowCount();
    const qsizetype total = m_model->totalCount();
    if (m_model->isFiltered())
        m_count->setText(tr("%1 of %Ln attempt(s)", nullptr, int(total)).arg(locale.toString(shown)));
    else
        m_count->setText(tr("%Ln attempt(s)", nullptr, int(total)));
    for (QAction *action : std::as_const(m_exportActions))
        action->setEnabled(action->data().toBool() ? shown > 0 : total > 0);
    m_exportButton->setEnabled(total > 0);
}

} // namespace RetryLab::Ui
