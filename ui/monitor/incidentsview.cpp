#include "ui/monitor/incidentsview.h"
#include "ui/monitor/incidentfilter.h"
#include "ui/monitor/incidentlistmodel.h"
#include "ui/widgets/fieldmessage.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QPushButton>
#include <QSaveFile>
#include <QTableView>
#include <QVBoxLayout>

Q_LOGGING_CATEGORY(lcIncidentsView, "retrylab.ui.monitor.incidentsview")

namespace RetryLab::Ui {

IncidentsView::IncidentsView(QWidget *parent)
    : QWidget(parent), m_model(new IncidentListModel(this)), m_filter(new IncidentFilter(this)), m_text(new QLineEdit),
      m_monitor(new QComboBox), m_hiddenOnly(new QCheckBox(tr("&Hidden only"))),
      m_unacknowledgedOnly(new QCheckBox(tr("&Unacknowledged only"))), m_export(new QPushButton(tr("E&xport\u2026"))),
      m_table(new QTableView), m_message(new FieldMessage)
{
    m_chooseSave = [this](const QString &suggested) {
        return QFileDialog::getSaveFileName(
            this, tr("Export incidents"), suggested, tr("CSV files (*.csv);;All files (*)"));
    };
    m_filter->setSourceModel(m_model);

    m_text->setObjectName(QStringLiteral("incidentFilterText"));
    m_text->setPlaceholderText(tr("Filter by monitor, agent or error"));
    m_text->setClearButtonEnabled(true);
    auto *findLabel = new QLabel(tr("&Find:"));
    findLabel->setBuddy(m_text);
    m_monitor->setObjectName(QStringLiteral("incidentMonitor"));
    m_monitor->setAccessibleName(tr("Monitor"));
    m_monitor->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_monitor->addItem(tr("All monitors"), QString());
    m_hiddenOnly->setToolTip(tr("Only the incidents retries hid: every check succeeded after failed attempts"));
    m_export->setToolTip(tr("Save the incidents shown as CSV"));

    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(IncidentListModel::StartColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTabKeyNavigation(false);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setSectionResizeMode(IncidentListModel::LastErrorColumn, QHeaderView::Stretch);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *open = new QAction(tr("Show in history"), m_table);
    auto *acknowledge = new QAction(tr("Toggle acknowledged"), m_table);
    acknowledge->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    acknowledge->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_table->addAction(open);
    m_table->addAction(acknowledge);

    auto *bar = new QHBoxLayout;
    bar->addWidget(findLabel);
    bar->addWidget(m_text, 1);
    bar->addWidget(m_monitor);
    bar->addWidget(m_hiddenOnly);
    bar->addWidget(m_unacknowledgedOnly);
    bar->addWidget(m_export);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_message);
    layout->addWidget(m_table, 1);
    m_message->clear();

    setTabOrder(m_text, m_monitor);
    setTabOrder(m_monitor, m_hiddenOnly);
    setTabOrder(m_hiddenOnly, m_unacknowledgedOnly);
    setTabOrder(m_unacknowledgedOnly, m_export);
    setTabOrder(m_export, m_table);

    connect(m_text, &QLineEdit::textChanged, m_filter, &IncidentFilter::setText);
    connect(m_monitor, &QComboBox::currentIndexChanged, this,
        [this] { m_filter->setMonitor(m_monitor->currentData().toString()); });
    connect(m_hiddenOnly, &QCheckBox::toggled, m_filter, &IncidentFilter::setHiddenOnly);
    connect(m_unacknowledgedOnly, &QCheckBox::toggled, m_filter, &IncidentFilter::setUnacknowledgedOnly);
    connect(m_export, &QPushButton::clicked, this, &IncidentsView::handleExport);
    connect(m_table, &QTableView::activated, this, &IncidentsView::handleActivated);
    connect(open, &QAction::triggered, this, [this] { handleActivated(m_table->currentIndex()); });
    connect(acknowledge, &QAction::triggered, this, &IncidentsView::toggleCurrentAcknowledgement);
    connect(m_model, &IncidentListModel::acknowledgementChanged, this, &IncidentsView::acknowledgementChanged);
}

void IncidentsView::setIncidents(QList<Core::Incident> incidents)
{
    const bool first = m_model->rowCount() == 0;
    m_model->setIncidents(std::move(incidents));
    refillMonitors();
    if (!first || m_model->rowCount() == 0)
        return;
    // Sized once, when the first incidents come; then the widths are the person's.
    // An error text is long: its columns stop at a width that leaves the kind
    // and the acknowledgement in view (the whole text is the cell's tooltip).
    m_table->resizeColumnsToContents();
    const int errorWidth = fontMetrics().averageCharWidth() * 32;
    for (const int column : {IncidentListModel::FirstErrorColumn, IncidentListModel::LastErrorColumn})
        m_table->setColumnWidth(column, std::min(m_table->columnWidth(column), errorWidth));
}

void IncidentsView::setAcknowledged(QSet<QString> keys)
{
    m_model->setAcknowledged(std::move(keys));
}

QSet<QString> IncidentsView::acknowledged() const
{
    return m_model->acknowledged();
}

void IncidentsView::refillMonitors()
{
    // The monitor chosen stays chosen while it still has incidents.
    const QString chosen = m_monitor->currentData().toString();
    QStringList monitors;
    for (const Core::Incident &incident : m_model->incidents()) {
        if (!monitors.contains(incident.monitor))
            monitors.append(incident.monitor);
    }
    monitors.sort(Qt::CaseInsensitive);
    const QSignalBlocker blocker(m_monitor);
    m_monitor->clear();
    m_monitor->addItem(tr("All monitors"), QString());
    for (const QString &monitor : std::as_const(monitors))
        m_monitor->addItem(monitor, monitor);
    const int index = m_monitor->findData(chosen);
    m_monitor->setCurrentIndex(std::max(0, index));
    m_filter->setMonitor(m_monitor->currentData().toString());
}

QList<Core::Incident> IncidentsView::shownIncidents() const
{
    QList<Core::Incident> shown;
    shown.reserve(m_filter->rowCount());
    for (int row = 0; row < m_filter->rowCount(); ++row)
        shown.append(m_model->incidents().at(m_filter->mapToSource(m_filter->index(row, 0)).row()));
    return shown;
}

Core::Result<qint64> IncidentsView::exportCsv(const QString &path) const
{
    const QByteArray csv = IncidentListModel::toCsv(shownIncidents(), m_model->acknowledged());
    const QString shown = QDir::toNativeSeparators(path);
    // Written beside the file first: a failed write leaves an earlier export whole.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Core::Error{QString(), tr("%1 cannot be written: %2").arg(shown, file.errorString())};
    if (file.write(csv) != csv.size() || !file.commit())
        return Core::Error{QString(), tr("%1 cannot be written: %2").arg(shown, file.errorString())};
    return qint64(csv.size());
}

void IncidentsView::handleExport()
{
    const QString path = m_chooseSave(QDir::home().filePath(QStringLiteral("incidents.csv")));
    if (path.isEmpty())
        return;
    const Core::Result<qint64> written = exportCsv(path);
    if (!written) {
        qCWarning(lcIncidentsView) << "incident export failed:" << written.error();
        m_message->setMessage(FieldMessage::Kind::Error, written.error());
        return;
    }
    m_message->setMessage(FieldMessage::Kind::Success,
        tr("%n incident(s) written to %1", nullptr, int(shownIncidents().size())).arg(QDir::toNativeSeparators(path)));
}

void IncidentsView::handleActivated(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    const QModelIndex source = m_filter->mapToSource(index);
    Q_EMIT incidentActivated(m_model->incidents().at(source.row()));
}

void IncidentsView::toggleCurrentAcknowledgement()
{
    const QModelIndex current = m_table->currentIndex();
    if (!current.isValid())
        return;
    const QModelIndex cell = m_filter->mapToSource(current).siblingAtColumn(IncidentListModel::AcknowledgedColumn);
    const bool on = cell.data(IncidentListModel::AcknowledgedRole).toBool();
    m_model->setData(cell, on ? Qt::Unchecked : Qt::Checked, Qt::CheckStateRole);
}

} // namespace RetryLab::Ui
