#include "ui/statusbarpresenter.h"

#include "core/executor/threadedexecutor.h"
#include "core/policy/circuitbreaker.h"
#include "ui/session/run/runsession.h"

#include <QLabel>
#include <QLocale>
#include <QStatusBar>
#include <QTimer>

namespace RetryLab::Ui {

namespace {

constexpr int updateIntervalMs = 100;
constexpr int breakerPollMs = 250;
constexpr int maxHostsInStatus = 3;

QString breakerStateText(Core::CircuitBreaker::State state)
{
    switch (state) {
    case Core::CircuitBreaker::State::Closed:
        return StatusBarPresenter::tr("closed");
    case Core::CircuitBreaker::State::Open:
        return StatusBarPresenter::tr("OPEN");
    case Core::CircuitBreaker::State::HalfOpen:
        return StatusBarPresenter::tr("half-open");
    }
    return {};
}

QLabel *field(QStatusBar *bar, const char *name, const QString &tip)
{
    auto *label = new QLabel(bar);
    label->setObjectName(QLatin1String(name));
    label->setToolTip(tip);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

StatusBarPresenter::StatusBarPresenter(QStatusBar *bar, RunSession *session, QObject *parent)
    : QObject(parent), m_session(session),
      m_breakerStatus(field(bar, "breakerStatus", tr("The circuit breaker of each host the requests went to"))),
      m_budgetStatus(field(bar, "budgetStatus", tr("Tokens left in the retry budget shared by all requests"))),
      m_activityStatus(field(bar, "activityStatus", tr("Attempts on the wire now, and logical requests not finished"))),
      m_serverStatus(field(bar, "serverStatus", tr("The embedded fault server; {server} in a URL stands for it"))),
      m_seedStatus(field(bar, "seedStatus", {})), m_updateTimer(new QTimer(this)), m_breakerPoll(new QTimer(this))
{
    // The first field gives way when the window is narrow; its tooltip has all of it.
    m_breakerStatus->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bar->addWidget(m_breakerStatus, 1);
    bar->addPermanentWidget(m_budgetStatus);
    bar->addPermanentWidget(m_activityStatus);
    bar->addPermanentWidget(m_seedStatus);
    bar->addPermanentWidget(m_serverStatus);
    m_seedStatus->hide();

    m_updateTimer->setSingleShot(true);
    m_updateTimer->setInterval(updateIntervalMs);
    connect(m_updateTimer, &QTimer::timeout, this, &StatusBarPresenter::update);
    m_breakerPoll->setInterval(breakerPollMs);
    connect(m_breakerPoll, &QTimer::timeout, this, &StatusBarPresenter::update);
}

void StatusBarPresenter::scheduleUpdate()
{
    if (!m_updateTimer->isActive())
        m_updateTimer->start();
}

void StatusBarPresenter::setServer(const QString &text, const QString &toolTip)
{
    m_serverStatus->setText(text);
    if (!toolTip.isEmpty())
        m_serverStatus->setToolTip(toolTip);
}

void StatusBarPresenter::setSeed(quint64 seed, bool drawn)
{
    m_seedStatus->setText(tr("Seed %1").arg(seed));
    m_seedStatus->setToolTip(drawn
            ? tr("The last send drew its jitter from the fresh seed %1. To replay it, put %1 in "
                 "the composer's Seed field (Batch tab, Replay last).")
                  .arg(seed)
            : tr("The last send drew its jitter from the seed %1 given in the composer.").arg(seed));
    m_seedStatus->show();
}

void StatusBarPresenter::update()
{
    m_updateTimer->stop();
    const Core::ThreadedExecutor *executor = m_session->executor();
    const int inFlight = executor ? executor->inFlightCount() : 0;
    const int running = executor ? executor->activeCount() : 0;
    m_activityStatus->setText(tr("In flight: %1 · running: %2").arg(inFlight).arg(running));

    const Core::BackoffPolicy policy = executor ? executor->policy() : Core::BackoffPolicy{};
    bool anyOpen = false;
    if (!policy.circuitBreaker.enabled) {
        m_breakerStatus->setText(tr("Circuit breaker: off"));
    } else {
        const QHash<QString, Core::CircuitBreaker::State> states = m_session->circuitStates();
        QStringList hosts = states.keys();
        hosts.sort();
        QStringList parts;
        QStringList all;
        for (const QString &host : std::as_const(hosts)) {
            const auto state = states.value(host);
            anyOpen = anyOpen || state != Core::CircuitBreaker::State::Closed;
            const QString part = tr("%1 %2").arg(host, breakerStateText(state));
            all.append(part);
            if (parts.size() < maxHostsInStatus)
                parts.append(part);
        }
        QString text = parts.isEmpty() ? tr("Circuit breakers: no host yet")
                                       : tr("Circuit breakers: %1").arg(parts.join(QStringLiteral(", ")));
        if (all.size() > parts.size())
            text += tr(" (+%1 more hosts)").arg(all.size() - parts.size());
        m_breakerStatus->setText(text);
        m_breakerStatus->setToolTip(
            all.isEmpty() ? tr("The circuit breaker of each host the requests went to") : all.join(QLatin1Char('\n')));
    }
    if (anyOpen && !m_breakerPoll->isActive())
        m_breakerPoll->start();
    else if (!anyOpen)
        m_breakerPoll->stop();

    if (policy.retryBudget.kind == Core::RetryBudgetKind::None) {
        m_budgetStatus->setText(tr("Retry budget: off"));
    } else {
        m_budgetStatus->setText(tr("Retry budget: %1 / %2 tokens")
                                    .arg(QLocale().toString(m_session->budgetTokens(), 'f', 1),
                                        QLocale().toString(m_session->budgetCapacity(), 'f', 0)));
    }
    Q_EMIT updated(inFlight, running);
}

} // namespace RetryLab::Ui
