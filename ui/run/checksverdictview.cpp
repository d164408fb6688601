#include "ui/run/checksverdictview.h"

#include "ui/widgets/outcomestyle.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace RetryLab::Ui {

ChecksVerdictView::ChecksVerdictView(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel), m_table(new QTableWidget(0, ColumnCount)), m_variables(new QLabel)
{
    m_summary->setObjectName(QStringLiteral("checksVerdictSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setObjectName(QStringLiteral("checksVerdicts"));
    m_table->setHorizontalHeaderLabels({tr("Result"), tr("Check"), tr("What came")});
    m_table->horizontalHeader()->setSectionResizeMode(Result, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Name, QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(Name, fontMetrics().horizontalAdvance(QStringLiteral("x")) * 24);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->setTabKeyNavigation(false);
    m_variables->setObjectName(QStringLiteral("checksVariables"));
    m_variables->setWordWrap(true);
    m_variables->setTextFormat(Qt::PlainText);
    m_variables->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_variables);
    clear();
}

void ChecksVerdictView::clear()
{
    m_titleText = tr("Checks");
    m_summary->setText(tr("This request carries no checks."));
    m_table->setRowCount(0);
    m_variables->clear();
    m_variables->hide();
}

void ChecksVerdictView::setVerdict(const RequestChecks &checks, const ChecksVerdict *verdict)
{
    m_table->setRowCount(0);
    if (!verdict) {
        m_titleText = tr("Checks \u2026");
        m_summary->setText(tr("Checks run when the request ends, on its last attempt (%1 of them).")
                               .arg(checks.assertions.size() + checks.extract.size()));
        m_variables->hide();
        return;
    }
    if (!verdict->error.isEmpty()) {
        m_titleText = tr("Checks \u2717");
        m_summary->setText(tr("Nothing was checked: %1").arg(verdict->error));
        m_variables->hide();
        return;
    }
    const int total = static_cast<int>(verdict->results.size());
    const int failed = verdict->failedCount();
    const QString attempt = tr("attempt %1, the request's last").arg(verdict->attemptIndex + 1);
    if (total == 0) {
        m_titleText = tr("Checks");
        m_summary->setText(tr("No assertions; the extract rules ran on %1.").arg(attempt));
    } else if (failed == 0) {
        m_titleText = tr("Checks \u2713 %1/%2").arg(total).arg(total);
        m_summary->setText(total == 1 ? tr("\u2713 The assertion passed on %1.").arg(attempt)
                                      : tr("\u2713 All %1 assertions passed on %2.").arg(total).arg(attempt));
    } else {
        m_titleText = tr("Checks \u2717 %1/%2").arg(total - failed).arg(total);
        m_summary->setText(tr("\u2717 %1 of %2 assertions FAILED on %3.").arg(failed).arg(total).arg(attempt));
    }
    const QColor background = palette().color(QPalette::Base);
    for (const Core::AssertionResult &result : verdict->results) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto *mark = new QTableWidgetItem(result.passed ? tr("\u2713 passed") : tr("\u2717 FAILED"));
        mark->setForeground(readableOn(
            outcomeColor(result.passed ? Core::AttemptOutcome::Success : Core::AttemptOutcome::Failed), background));
        m_table->setItem(row, Result, mark);
        m_table->setItem(row, Name, new QTableWidgetItem(result.name));
        auto *message = new QTableWidgetItem(result.message);
        message->setToolTip(result.message);
        m_table->setItem(row, Message, message);
    }
    QStringList lines;
    for (const auto &[name, value] : verdict->values)
        lines.append(tr("%1 = %2").arg(name, value));
    for (const QString &problem : verdict->problems)
        lines.append(tr("\u26a0 not set: %1").arg(problem));
    if (!lines.isEmpty()) {
        m_variables->setText(tr("Variables for the next requests:\n%1").arg(lines.join(QLatin1Char('\n'))));
        m_variables->show();
    } else {
        m_variables->hide();
    }
}

QString ChecksVerdictView::text() const
{
    QStringList lines{m_summary->text()};
    for (int row = 0; row < m_table->rowCount(); ++row) {
        lines.append(QStringLiteral("%1  %2: %3")
                         .arg(m_table->item(row, Result)->text(), m_table->item(row, Name)->text(),
                             m_table->item(row, Message)->text()));
    }
    if (!m_variables->isHidden())
        lines.append(m_variables->text());
    return lines.join(QLatin1Char('\n'));
}

} // namespace RetryLab::Ui
