#include "ui/policy/comparedialog.h"

#include "core/scenario/scenarioreader.h"
#include "core/util/durationtext.h"
#include "core/util/randomsource.h"
#include "ui/policy/comparisontimeline.h"
#include "ui/policy/policystackchooser.h"
#include "ui/widgets/outcomestyle.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace RetryLab::Ui {

namespace {

QString rowMsText(const std::optional<double> &ms)
{
    return ms ? Core::DurationText::format(*ms) : QStringLiteral("-");
}

QString comparedRowLetter(qsizetype row)
{
    return QString(QChar(u'A' + int(row)));
}

QString legendSwatch(Core::AttemptOutcome outcome, const QString &text)
{
    return QStringLiteral("<span style=\"color:%1\">\u25a0</span>&nbsp;%2")
        .arg(outcomeColor(outcome).name(), text.toHtmlEscaped());
}

} // namespace

QString CompareDialog::verdictText(const QList<Core::ComparisonRow> &rows)
{
    if (rows.size() < 2)
        return {};
    const Core::ComparisonRow &a = rows.at(0);
    const Core::ComparisonRow &b = rows.at(1);
    QString attempts;
    if (a.attempts == b.attempts || a.attempts == 0) {
        attempts = b.attempts == a.attempts ? tr("as many attempts as")
                                            : tr("%n attempt(s) against none for", nullptr, b.attempts);
    } else {
        const int percent = int(std::lround(100.0 * std::abs(b.attempts - a.attempts) / a.attempts));
        attempts = b.attempts < a.attempts ? tr("%1 % fewer attempts than").arg(percent)
                                           : tr("%1 % more attempts than").arg(percent);
    }
    const double saved = a.runMs - b.runMs;
    const QString time = std::abs(saved) < 50.0
        ? tr("finished at the same time")
        : (saved > 0.0 ? tr("finished %1 sooner").arg(Core::DurationText::format(saved))
                       : tr("finished %1 later").arg(Core::DurationText::format(-saved)));
    QString text = tr("B (%1) sent %2 A (%3) and %4").arg(b.policy.name, attempts, a.policy.name, time);
    if (a.succeeded == b.succeeded)
        text += tr("; both succeeded %1 of %2.").arg(b.succeeded).arg(b.requests);
    else
        text += tr("; B succeeded %1 of %2, A %3.").arg(b.succeeded).arg(b.requests).arg(a.succeeded);
    return text;
}

namespace { } // namespace

CompareDialog::CompareDialog(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("compareDialog"));
    setWindowTitle(tr("Compare policies"));
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    m_chooser = new PolicyStackChooser({tr("Policy A:"), tr("Policy B:"), tr("Policy C:"), tr("Policy D:")},
        Core::PolicyComparison::minPolicies, this);
    top->addWidget(m_chooser, 3);

    auto *form = new QFormLayout;
    m_scenario = new QComboBox(this);
    m_scenario->setObjectName(QStringLiteral("compareScenario"));
    m_scenario->setFocusPolicy(Qt::StrongFocus);
    for (const QString &path : Core::ScenarioReader::builtInScenarios())
        m_scenario->addItem(QFileInfo(path).completeBaseName(), path);
    auto *browse = new QPushButton(tr("Open\u2026"), this);
    connect(browse, &QPushButton::clicked, this, &CompareDialog::chooseScenarioFile);
    auto *scenarioRow = new QHBoxLayout;
    scenarioRow->addWidget(m_scenario, 1);
    scenarioRow->addWidget(browse);
    form->addRow(tr("Scenario:"), scenarioRow);
    m_seed = new QLineEdit(this);
    m_seed->setObjectName(QStringLiteral("compareSeed"));
    m_seed->setPlaceholderText(tr("fresh for each run"));
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{0,20}")), m_seed));
    m_seed->setToolTip(tr("Every policy draws its jitter from this seed; the server's random faults too."));
    form->addRow(tr("Seed:"), m_seed);
    m_run = new QPushButton(tr("&Run"), this);
    m_run->setObjectName(QStringLiteral("compareRun"));
    m_run->setToolTip(tr("Play the scenario under each policy at once, against the same faults"));
    m_scenario->setToolTip(tr("The requests and the faults they meet: the same for every policy"));
    connect(m_run, &QPushButton::clicked, this, &CompareDialog::run);
    form->addRow(QString(), m_run);
    top->addLayout(form, 2);
    layout->addLayout(top);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    m_verdict = new QLabel(this);
    m_verdict->setObjectName(QStringLiteral("compareVerdict"));
    m_verdict->setWordWrap(true);
    QFont strong = m_verdict->font();
    strong.setBold(true);
    m_verdict->setFont(strong);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setVisible(false);
    layout->addWidget(m_verdict);
    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("compareLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setText(tr("One band per policy (A, B, \u2026), one line per request: %1 %2 %3, and a grey line "
                         "for the wait before a retry.")
                          .arg(legendSwatch(Core::AttemptOutcome::Success, tr("succeeded")),
                              legendSwatch(Core::AttemptOutcome::Retried, tr("failed, then retried")),
                              legendSwatch(Core::AttemptOutcome::Failed, tr("failed for good"))));
    layout->addWidget(m_legend);

    m_timeline = new ComparisonTimeline;
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_timeline);
    scroll->setWidgetResizable(true);
    layout->addWidget(scroll, 3);

    m_summary = new QTableWidget(0, 8, this);
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setHorizontalHeaderLabels({tr("Policy"), tr("Requests"), tr("Succeeded"), tr("Failed"),
        tr("Attempts (load)"), tr("Busiest second"), tr("To success, median"), tr("Slowest success")});
    const QStringList headerTips{tr("The policy, by its letter in the bands above"),
        tr("Requests the scenario sent under this policy"), tr("Requests that ended with a success"),
        tr("Requests that ended failed: the retries ran out or the error was not retryable"),
        tr("Attempts that reached the server: the load this policy put on it"),
        tr("The most attempts that started within one second"),
        tr("From the first attempt to the success, the median of the requests that succeeded"),
        tr("The longest any request took to succeed")};
    for (int column = 0; column < headerTips.size(); ++column)
        m_summary->horizontalHeaderItem(column)->setToolTip(headerTips.at(column));
    m_summary->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_summary->horizontalHeader()->setStretchLastSection(true);
    m_summary->verticalHeader()->hide();
    m_summary->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summary->setMaximumHeight(150);
    layout->addWidget(m_summary, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(1000, 700);
}

CompareDialog::~CompareDialog() = default;

void CompareDialog::setCurrentPolicy(const Core::BackoffPolicy &policy)
{
    m_chooser->setCurrentPolicy(policy);
}

void CompareDialog::setScenarioPath(const QString &path)
{
    int index = m_scenario->findData(path);
    if (index < 0) {
        m_scenario->addItem(QDir::toNativeSeparators(path), path);
        index = m_scenario->count() - 1;
    }
    m_scenario->setCurrentIndex(index);
}

void CompareDialog::setSeed(std::optional<quint64> seed)
{
    m_seed->setText(seed ? QString::number(*seed) : QString());
}

void CompareDialog::chooseScenarioFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Choose a scenario"), QString(), tr("RetryLab scenario (*.json);;All files (*)"));
    if (!path.isEmpty())
        setScenarioPath(path);
}

bool CompareDialog::run()
{
    if (isRunning())
        return false;
    const auto scenario = Core::ScenarioReader::readFile(m_scenario->currentData().toString());
    if (!scenario) {
        m_status->setText(tr("Cannot compare: %1").arg(scenario.error()));
        return false;
    }
    bool seedOk = false;
    const quint64 typed = m_seed->text().toULongLong(&seedOk);
    const quint64 seed = seedOk ? typed : Core::RandomSource::freshSeed();
    m_comparison = std::make_unique<Core::PolicyComparison>();
    m_comparison->setScenario(*scenario);
    m_comparison->setPolicies(m_chooser->policies(), m_chooser->origins());
    m_comparison->setSeed(seed);
    connect(m_comparison.get(), &Core::PolicyComparison::finished, this, &CompareDialog::showResults);
    connect(m_comparison.get(), &Core::PolicyComparison::failed, this, [this](const QString &message) {
        m_status->setText(tr("The comparison failed: %1").arg(message));
        m_run->setEnabled(true);
    });
    m_run->setEnabled(false);
    m_status->setText(
        tr("Running \"%1\" under %n policies with seed %2\u2026", nullptr, int(m_chooser->policies().size()))
            .arg(scenario->name)
            .arg(seed));
    m_comparison->start();
    return true;
}

bool CompareDialog::isRunning() const
{
    return m_comparison && m_comparison->isRunning();
}

const QList<Core::ComparisonRow> &CompareDialog::rows() const
{
    static const QList<Core::ComparisonRow> none;
    return m_comparison ? m_comparison->rows() : none;
}

QString CompareDialog::statusText() const
{
    return m_status->text();
}

void CompareDialog::showResults()
{
    m_run->setEnabled(true);
    const QList<Core::ComparisonRow> &rows = m_comparison->rows();
    m_timeline->setRows(rows, m_comparison->spanMs());
    m_summary->setRowCount(int(rows.size()));
    for (int i = 0; i < rows.size(); ++i) {
        const Core::ComparisonRow &row = rows.at(i);
        const QStringList cells{tr("%1: %2").arg(comparedRowLetter(i), row.policy.name), QString::number(row.requests),
            QString::number(row.succeeded), QString::number(row.failed), QString::number(row.attempts),
            QString::number(row.peakAttemptsPerSecond), rowMsText(row.medianSuccessMs), rowMsText(row.maxSuccessMs)};
        for (int column = 0; column < cells.size(); ++column) {
            auto *item = new QTableWidgetItem(cells.at(column));
            if (column == 0)
                item->setToolTip(row.origin);
            m_summary->setItem(i, column, item);
        }
    }
    m_status->setText(
        tr("Seed %1: every policy met the same faults; only the policy differs.").arg(m_comparison->seed()));
    m_verdict->setText(verdictText(rows));
    m_verdict->setVisible(!m_verdict->text().isEmpty());
    Q_EMIT comparisonFinished();
}

} // namespace RetryLab::Ui
