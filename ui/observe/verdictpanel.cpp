#include "ui/observe/verdictpanel.h"

#include "core/record/runstatistics.h"
#include "core/util/durationtext.h"
#include "ui/widgets/outcomestyle.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace RetryLab::Ui {

namespace {

QTableWidget *table(const QStringList &headers, const char *name)
{
    auto *t = new QTableWidget(0, int(headers.size()));
    t->setObjectName(QLatin1String(name));
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setWordWrap(false);
    t->setTextElideMode(Qt::ElideRight);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setSectionResizeMode(int(headers.size()) - 1, QHeaderView::Stretch);
    t->horizontalHeader()->setMinimumSectionSize(40);
    t->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return t;
}

void addRow(QTableWidget *t, const QStringList &cells, const QString &tooltip = {})
{
    const int row = t->rowCount();
    t->insertRow(row);
    for (qsizetype c = 0; c < cells.size(); ++c) {
        auto *item = new QTableWidgetItem(cells[c]);
        item->setToolTip(tooltip.isEmpty() ? cells[c] : tooltip);
        t->setItem(row, int(c), item);
    }
}

QString confidenceText(double value)
{
    return QStringLiteral("%1 %").arg(qRound(value * 100));
}

QString optionalMs(std::optional<double> value)
{
    return value ? Core::DurationText::format(*value) : VerdictPanel::tr("unknown");
}

QString findingText(const Core::Finding &f)
{
    if (!f.value)
        return VerdictPanel::tr("not seen");
    return *f.value ? VerdictPanel::tr("yes") : VerdictPanel::tr("no");
}

} // namespace

VerdictPanel::VerdictPanel(QWidget *parent)
    : QWidget(parent), m_title(new QLabel), m_summary(new QLabel),
      m_policy(table({tr("Inferred"), tr("Value"), tr("Confidence"), tr("Evidence")}, "inferredPolicy")),
      m_verdicts(table({tr("Verdict"), tr("Rule and evidence")}, "verdicts")), m_presetTitle(new QLabel),
      m_preset(table({tr("Field"), tr("This client"), tr("Preset"), tr("Same")}, "closestPreset")),
      m_makePolicy(new QPushButton(tr("Make a policy like this client")))
{
    setMinimumWidth(240);
    m_title->setObjectName(QStringLiteral("verdictTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_makePolicy->setObjectName(QStringLiteral("makePolicy"));
    m_verdicts->setWordWrap(true);
    m_makePolicy->setToolTip(tr("Open the inferred policy in the policy dock, to run it in the executor and the herd "
                                "simulator"));
    connect(m_makePolicy, &QPushButton::clicked, this, [this] { Q_EMIT policyRequested(m_inferred); });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_summary);
    layout->addWidget(m_verdicts, 3);
    layout->addWidget(m_policy, 3);
    layout->addWidget(m_presetTitle);
    layout->addWidget(m_preset, 2);
    layout->addWidget(m_makePolicy, 0, Qt::AlignLeft);
    showNothing(tr("Select a client to see how it retries."));
}

void VerdictPanel::showNothing(const QString &why)
{
    m_title->setText(tr("No client selected"));
    m_summary->setText(why);
    for (QTableWidget *t : {m_policy, m_verdicts, m_preset})
        t->setRowCount(0);
    m_presetTitle->setText(tr("Closest preset"));
    m_makePolicy->setEnabled(false);
}

void VerdictPanel::show(const QString &clientName, const Core::InferredPolicy &p, const QList<Core::Verdict> &verdicts)
{
    m_title->setText(clientName);
    m_summary->setText(p.summary());

    m_verdicts->setRowCount(0);
    for (const Core::Verdict &v : verdicts) {
        addRow(m_verdicts,
            {v.outcome == Core::Verdict::Outcome::Pass          ? tr("pass")
                    : v.outcome == Core::Verdict::Outcome::Fail ? tr("fail")
                                                                : tr("not observed"),
                v.title + QLatin1Char('\n') + v.evidence},
            tr("%1\nsource: %2\n%3").arg(v.title, v.source, v.evidence));
        QTableWidgetItem *outcome = m_verdicts->item(m_verdicts->rowCount() - 1, 0);
        if (v.outcome != Core::Verdict::Outcome::NotObserved) {
            const QColor colour
                = outcomeColor(v.outcome == Core::Verdict::Outcome::Pass ? Core::AttemptOutcome::Success
                                                                         : Core::AttemptOutcome::Failed);
            outcome->setForeground(readableOn(colour, palette().color(QPalette::Base)));
            QFont bold = outcome->font();
            bold.setBold(true);
            outcome->setFont(bold);
        }
    }

    // Two lines a row: the rule, then its evidence (all of it in the tooltip).
    for (int row = 0; row < m_verdicts->rowCount(); ++row)
        m_verdicts->setRowHeight(row, m_verdicts->fontMetrics().height() * 2 + 8);

    m_policy->setRowCount(0);
    const auto algorithm = p.algorithm();
    addRow(m_policy,
        {tr("algorithm"), algorithm ? Core::algorithmName(*algorithm) : tr("unknown"),
            confidenceText(std::min(p.growthConfidence.value, p.jitterConfidence.value)), p.summary()});
    addRow(m_policy,
        {tr("growth"), Core::PolicyInference::growthName(p.growth), confidenceText(p.growthConfidence.value),
            p.growthConfidence.evidence});
    addRow(m_policy,
        {tr("base"), optionalMs(p.baseMs), confidenceText(p.baseConfidence.value), p.baseConfidence.evidence});
    addRow(m_policy,
        {tr("multiplier"), p.multiplier ? QString::number(*p.multiplier, 'f', 2) : tr("unknown"),
            confidenceText(p.multiplierConfidence.value), p.multiplierConfidence.evidence});
    addRow(m_policy,
        {tr("cap"), p.capMs ? optionalMs(p.capMs) : tr("not reached"), confidenceText(p.capConfidence.value),
            p.capConfidence.evidence});
    addRow(m_policy,
        {tr("jitter"), Core::PolicyInference::jitterName(p.jitter), confidenceText(p.jitterConfidence.value),
            p.jitterConfidence.evidence});
    addRow(m_policy,
        {tr("attempts"),
            p.maxAttempts      ? QString::number(*p.maxAttempts)
                : p.deadlineMs ? tr("deadline %1").arg(optionalMs(p.deadlineMs))
                               : tr("unknown"),
            confidenceText(p.maxAttemptsConfidence.value), p.maxAttemptsConfidence.evidence});
    const auto finding = [this](const QString &name, const Core::Finding &f) {
        addRow(m_policy, {name, findingText(f), confidenceText(f.confidence.value), f.evidence});
    };
    finding(tr("honours Retry-After"), p.honoursRetryAfter);
    finding(tr("retries POST/PATCH without a key"), p.retriesNonIdempotent);
    finding(tr("retries permanent errors"), p.retriesPermanentErrors);
    finding(tr("retries after a reset"), p.retriesAfterReset);
    finding(tr("retries after a stall"), p.retriesAfterStall);
    finding(tr("retries in waves"), p.waves);

    m_preset->setRowCount(0);
    const auto closest = Core::Judge::closestPreset(p);
    if (closest) {
        m_presetTitle->setText(tr("Closest preset: %1").arg(closest->preset.name));
        for (const Core::PresetComparison::Row &row : closest->rows)
            addRow(m_preset, {row.field, row.observed, row.preset, row.matches ? tr("yes") : tr("no")});
    } else {
        m_presetTitle->setText(tr("Closest preset: none until the retries show a policy"));
    }
    m_inferred = p.toPolicy(clientName);
    m_makePolicy->setEnabled(p.retriedLogicalRequests > 0);
}

} // namespace RetryLab::Ui
