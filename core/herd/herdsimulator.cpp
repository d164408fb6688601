// One herd on a virtual clock, as one job: the event loop, the four server
// models (conditional writes, a bounded queue, an outage, slow answers) and the
// clients' backoff and hedging all act on one event queue and one array of client
// states, which the hot loop prefetches; split apart, each piece would reach into
// the others' state for every event.

#include "core/herd/herdsimulator.h"

#include "core/herd/herdeventqueue.h"

#include "core/http/retryafter.h"
#include "core/policy/adaptiveratelimiter.h"
#include "core/policy/backoff.h"
#include "core/policy/classifier.h"
#include "core/util/coretr.h"
#include "core/util/randomsource.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace RetryLab::Core {

namespace {
Q_LOGGING_CATEGORY(lcHerdSimulator, "retrylab.core.herdsimulator", QtInfoMsg)
} // namespace

// The one piece of the simulation that may move a control's progress counters.
struct HerdCellRunner
{
    static void advance(HerdControl &control) { control.advance(); }
    static void settle(HerdControl &control, qint64 clients) { control.settle(clients); }
};

namespace {

using namespace HerdDetail;

enum class Answer : quint8 {
    Ok,
    Stale, ///< OCC: the row changed since the read
    Overloaded, ///< 503/429, possibly with Retry-After
    Down, ///< the server is down: a fast failure without Retry-After
};

// |Normal(mean, sd)| per message, by Marsaglia's polar method on 53-bit uniforms
// taken straight from the run's engine (the standard distribution's
// generate_canonical costs more than all the rest of a simulated message).
class NetworkDelay
{
public:
    NetworkDelay(double meanMs, double sdMs) : m_mean(meanMs), m_sd(sdMs) { }

    double next(std::mt19937_64 &engine)
    {
        if (!(m_sd > 0.0))
            return std::abs(m_mean);
        if (m_hasSpare) {
            m_hasSpare = false;
            return std::abs(m_mean + m_sd * m_spare);
        }
        double u = 0.0;
        double v = 0.0;
        double s = 0.0;
        do {
            u = 2.0 * unit(engine) - 1.0;
            v = 2.0 * unit(engine) - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        const double f = std::sqrt(-2.0 * std::log(s) / s);
        m_spare = v * f;
        m_hasSpare = true;
        return std::abs(m_mean + m_sd * u * f);
    }

private:
    static double unit(std::mt19937_64 &engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

    double m_mean;
    double m_sd;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

// What every run of one (clients, strategy) cell shares.
struct Cell
{
    const HerdParameters *parameters = nullptr;
    HerdStrategy strategy;
    BackoffPolicy policy;
    int clients = 0;
    bool overloadRetried = true;
    std::optional<double> overloadRetryAfterMs;
};

// The overload answer is classified once by the same classifier and Retry-After
// rules the executor uses, so "honour Retry-After, bounded" means the same here.
void classifyOverload(Cell &cell)
{
    const HerdParameters &p = *cell.parameters;
    if (p.model == HerdModel::OptimisticConcurrency)
        return;
    AttemptObservation observation;
    observation.httpStatus = p.overloadStatus;
    observation.receivedAt = QDateTime(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC);
    if (p.retryAfterS)
        observation.responseHeaders.append({"Retry-After", QByteArray::number(*p.retryAfterS)});
    ClassificationRules rules = cell.policy.classification;
    rules.honourRetryAfter = p.honourRetryAfter;
    const Classification c = classify(observation, rules);
    cell.overloadRetried = c.isRetry();
    if (rules.honourRetryAfter && c.retryAfter) {
        const RetryAfterDecision decision = boundRetryAfter(*c.retryAfter, rules.maxRetryAfterMs, -1.0);
        if (decision.action == RetryAfterDecision::Action::Wait)
            cell.overloadRetryAfterMs = decision.delayMs;
    }
}

struct ClientState
{
    explicit ClientState(const BackoffPolicy &policy) : backoff(policy) { }

    Backoff::Sequence backoff;
    double arrivalMs = 0.0;
    double finishMs = -1.0;
    double readMs = 0.0; ///< OCC: when the current attempt's read reached the row
    int attempts = 0;
    quint8 sent = 0; ///< hedging: attempts sent so far
    quint8 outstanding = 0; ///< hedging: attempts sent whose answer has not arrived
    bool done = false;
    bool succeeded = false;
};

class SimulationRun
{
public:
    SimulationRun(const Cell &cell, quint64 seed, HerdControl *control)
        : m_cell(cell), m_p(*cell.parameters), m_random(seed), m_network(m_p.networkMeanMs, m_p.networkSdMs),
          m_control(control)
    { }

    HerdRunOutcome execute();

private:
    void push(double timeMs, EventKind kind, int client, qint32 value = 0)
    {
        const Event e{timeMs, m_order++, client, value, kind};
        if (m_topHandled) {
            m_queue.replaceTop(e);
            m_topHandled = false;
        } else {
            m_queue.push(e);
        }
    }

    double networkDelay() { return m_network.next(m_random.engine()); }

    void countCall(double timeMs)
    {
        const auto bin = static_cast<std::size_t>(timeMs / m_p.binMs);
        if (bin >= m_load.size())
            m_load.resize(bin + 1, 0);
        ++m_load[bin];
        ++m_out.calls;
    }

    // The client sends its request at `timeMs`. In the OCC model that is a read:
    // it reaches the row, the version travels back, and the write goes out at once.
    // A hedging client looks again after the hedging delay.
    void send(int client, double timeMs)
    {
        // A client with a rate limiter waits for its token first (none while the limiter is off).
        if (!m_limiters.empty())
            timeMs += m_limiters[static_cast<std::size_t>(client)].acquireDelayMs(timeMs);
        if (m_cell.strategy.hedging) {
            ClientState &c = m_clients[static_cast<std::size_t>(client)];
            ++c.sent;
            ++c.outstanding;
            if (c.sent < m_p.hedgedAttempts)
                push(timeMs + m_p.hedgingDelayMs, EventKind::HedgeDue, client, c.sent);
        }
        if (m_p.model == HerdModel::OptimisticConcurrency) {
            ClientState &c = m_clients[static_cast<std::size_t>(client)];
            c.readMs = timeMs + networkDelay();
            const double writeSentMs = c.readMs + networkDelay();
            push(writeSentMs + networkDelay(), EventKind::WriteArrives, client);
        } else {
            push(timeMs + networkDelay(), EventKind::RequestArrives, client);
        }
    }

    void answered(int client, double sentMs, Answer answer);
    /// Latency model: a request reaches the server, which answers after a lognormal time.
    void serve(int client, double timeMs);
    /// Latency model: an answer reaches its client; under hedging the first success wins.
    void answerArrives(int client, double timeMs, bool failure);
    void hedgeFailed(int client, double timeMs);
    /// The client's deadline has passed by `timeMs`: it sends no further hedge.
    bool pastDeadline(const ClientState &c, double timeMs) const
    {
        return m_p.deadlineMs > 0.0 && timeMs - c.arrivalMs >= m_p.deadlineMs;
    }
    void finish(int client, double timeMs, bool succeeded);
    void failed(int client, double timeMs, bool overloadAnswer);
    void handle(const Event &e);
    void accept(int client, double timeMs);
    void startService(int client, double timeMs);
    void dropAll(double timeMs);
    void summarise();
    // Counts the clients settled since the last call into the control's progress.
    void reportSettled(qint64 settled)
    {
        if (m_control && settled > m_settledReported) {
            HerdCellRunner::settle(*m_control, settled - m_settledReported);
            m_settledReported = settled;
        }
    }

    const Cell &m_cell;
    const HerdParameters &m_p;
    RandomSource m_random;
    NetworkDelay m_network;
    HerdControl *m_control;
    qint64 m_settledReported = 0; // clients this run has counted into m_control

    EventQueue m_queue;
    quint64 m_order = 0;
    bool m_topHandled = false; // the event being handled still sits on top of m_queue
    std::vector<ClientState> m_clients;
    std::vector<qint64> m_load;
    int m_active = 0;
    HerdRunOutcome m_out;
    double m_latencyMu = 0.0; // latency model: log of the median answer time
    std::vector<AdaptiveRateLimiter> m_limiters; // each client's own, when the parameters ask for one

    // OCC: when the row last changed.
    double m_lastWriteMs = -std::numeric_limits<double>::infinity();

    bool m_down = false;
    bool m_busy = false;
    int m_inService = -1;
    qint32 m_epoch = 0; // bumped when an outage drops the request in service
    std::vector<int> m_waiting; // ring buffer of queued clients
    std::size_t m_waitingHead = 0;
    std::size_t m_waitingSize = 0;
};

HerdRunOutcome SimulationRun::execute()
{
    const int n = m_cell.clients;
    m_out.clients = n;
    m_latencyMu = std::log(std::max(m_p.latencyMedianMs, 1e-9));
    if (m_cell.policy.rateLimiter.kind != RateLimiterKind::None)
        m_limiters.assign(static_cast<std::size_t>(n), AdaptiveRateLimiter(m_cell.policy.rateLimiter));
    m_clients.reserve(static_cast<std::size_t>(n));
    m_waiting.resize(static_cast<std::size_t>(std::max(0, m_p.queueCapacity)));

    double arrival = 0.0;
    for (int i = 0; i < n; ++i) {
        if (m_p.arrivals == ArrivalMode::Poisson)
            arrival += m_random.exponential(m_p.arrivalRatePerSec / 1000.0);
        m_clients.emplace_back(m_cell.policy);
        m_clients.back().arrivalMs = arrival;
        send(i, arrival);
    }
    m_active = n;
    if (m_p.model == HerdModel::Outage) {
        push(m_p.outageStartMs, EventKind::OutageStarts, -1);
        push(m_p.outageEndMs, EventKind::OutageEnds, -1);
    }

    // validate() refuses the parameters known to spin at one instant; this
    // catches whatever else could, instead of looping for ever. Legitimately a
    // client causes a handful of events per instant, or one per allowed attempt.
    const double perClient = m_p.maxAttempts > 0 ? 4.0 * m_p.maxAttempts : 64.0;
    const double instantLimit = 10'000.0 + perClient * n;
    double instantMs = -1.0;
    double instantEvents = 0.0;
    while (m_active > 0 && !m_queue.empty()) {
        const Event e = m_queue.top();
        if (e.timeMs > m_p.horizonMs)
            break;
        if (e.timeMs != instantMs) {
            instantMs = e.timeMs;
            instantEvents = 0.0;
        } else if (++instantEvents > instantLimit) {
            m_out.stalled = true;
            m_out.stalledAtMs = e.timeMs;
            return m_out;
        }
        // A relaxed load every few thousand events keeps cancelling cheap and prompt.
        if ((++m_out.events & 0xFFF) == 0 && m_control) {
            if (m_control->isCancelled()) {
                m_out.cancelled = true;
                return m_out;
            }
            reportSettled(m_out.succeeded + m_out.gaveUp);
        }
        // A million clients' states are far bigger than the caches: the state of
        // each client whose event may come next is fetched while this one is handled.
        m_queue.forEachFollower([this](const Event &next) {
            if (next.client >= 0)
                prefetch(&m_clients[static_cast<std::size_t>(next.client)]);
        });
        m_topHandled = true;
        handle(e);
        if (m_topHandled) {
            m_queue.pop();
            m_topHandled = false;
        }
    }
    summarise();
    reportSettled(n); // the unfinished ones are settled too: the run is over
    return m_out;
}

void SimulationRun::handle(const Event &e)
{
    switch (e.kind) {
    case EventKind::WriteArrives: {
        countCall(e.timeMs);
        ClientState &c = m_clients[static_cast<std::size_t>(e.client)];
        ++c.attempts;
        const bool current = m_lastWriteMs < c.readMs;
        if (current)
            m_lastWriteMs = e.timeMs;
        answered(e.client, e.timeMs, current ? Answer::Ok : Answer::Stale);
        break;
    }
    case EventKind::RequestArrives:
        if (m_p.model == HerdModel::Latency)
            serve(e.client, e.timeMs);
        else
            accept(e.client, e.timeMs);
        break;
    case EventKind::AnswerArrives:
        answerArrives(e.client, e.timeMs, e.value != 0);
        break;
    case EventKind::HedgeDue: {
        // The delay passed and no later attempt went out meanwhile: the next one goes beside the others.
        const ClientState &c = m_clients[static_cast<std::size_t>(e.client)];
        if (!c.done && c.sent == e.value && c.sent < m_p.hedgedAttempts && !pastDeadline(c, e.timeMs))
            send(e.client, e.timeMs);
        break;
    }
    case EventKind::ServiceDone:
        if (e.value != m_epoch)
            break; // dropped by an outage
        answered(e.client, e.timeMs, Answer::Ok);
        m_busy = false;
        m_inService = -1;
        if (m_waitingSize > 0) {
            const int next = m_waiting[m_waitingHead];
            m_waitingHead = (m_waitingHead + 1) % m_waiting.size();
            --m_waitingSize;
            startService(next, e.timeMs);
        }
        break;
    case EventKind::OutageStarts:
        m_down = true;
        dropAll(e.timeMs);
        break;
    case EventKind::OutageEnds:
        m_down = false;
        break;
    }
}

void SimulationRun::accept(int client, double timeMs)
{
    countCall(timeMs);
    ++m_clients[static_cast<std::size_t>(client)].attempts;
    if (m_down) {
        answered(client, timeMs, Answer::Down);
    } else if (!m_busy) {
        startService(client, timeMs);
    } else if (m_waitingSize < m_waiting.size()) {
        m_waiting[(m_waitingHead + m_waitingSize) % m_waiting.size()] = client;
        ++m_waitingSize;
    } else {
        answered(client, timeMs, Answer::Overloaded);
    }
}

void SimulationRun::serve(int client, double timeMs)
{
    countCall(timeMs);
    ++m_clients[static_cast<std::size_t>(client)].attempts;
    const double latency
        = m_p.latencySigma > 0.0 ? m_random.lognormal(m_latencyMu, m_p.latencySigma) : m_p.latencyMedianMs;
    const bool failure = m_p.failureRate > 0.0 && m_random.uniform(0.0, 1.0) < m_p.failureRate;
    push(timeMs + latency + networkDelay(), EventKind::AnswerArrives, client, failure ? 1 : 0);
}

void SimulationRun::answerArrives(int client, double timeMs, bool failure)
{
    ClientState &c = m_clients[static_cast<std::size_t>(client)];
    if (c.done || timeMs > m_p.horizonMs)
        return; // a hedge that lost: its request was cut, its load already counted
    if (!m_limiters.empty())
        m_limiters[static_cast<std::size_t>(client)].onResponse(timeMs, false); // a slow answer is no throttle
    if (!m_cell.strategy.hedging) {
        if (failure)
            failed(client, timeMs, false); // a server fault, not an overload answer: no Retry-After
        else
            finish(client, timeMs, true);
        return;
    }
    --c.outstanding;
    if (failure)
        hedgeFailed(client, timeMs);
    else
        finish(client, timeMs, true);
}

// A failure is not fatal to a hedging client: its next attempt goes at once, or it
// waits for those still out, or, with none out and none left, it gives up.
void SimulationRun::hedgeFailed(int client, double timeMs)
{
    ClientState &c = m_clients[static_cast<std::size_t>(client)];
    if (c.sent < m_p.hedgedAttempts && !pastDeadline(c, timeMs))
        send(client, timeMs);
    else if (c.outstanding == 0)
        finish(client, timeMs, false);
}

void SimulationRun::startService(int client, double timeMs)
{
    m_busy = true;
    m_inService = client;
    push(timeMs + 1000.0 / m_p.serviceRatePerSec, EventKind::ServiceDone, client, m_epoch);
}

// A crashing server loses what it was working on and what waited in its queue;
// each of those clients learns it from a failed answer.
void SimulationRun::dropAll(double timeMs)
{
    ++m_epoch;
    if (m_busy)
        answered(m_inService, timeMs, Answer::Down);
    m_busy = false;
    m_inService = -1;
    for (; m_waitingSize > 0; --m_waitingSize) {
        answered(m_waiting[m_waitingHead], timeMs, Answer::Down);
        m_waitingHead = (m_waitingHead + 1) % m_waiting.size();
    }
}

void SimulationRun::answered(int client, double sentMs, Answer answer)
{
    const double arrivesMs = sentMs + networkDelay();
    if (arrivesMs > m_p.horizonMs)
        return; // the run ends before the client hears back: it stays unfinished
    // The overload answer carries no body: a 429 throttles, a 503 does not.
    if (!m_limiters.empty()) {
        m_limiters[static_cast<std::size_t>(client)].onResponse(
            arrivesMs, answer == Answer::Overloaded && AdaptiveRateLimiter::isThrottling(m_p.overloadStatus, {}));
    }
    if (answer == Answer::Ok)
        finish(client, arrivesMs, true);
    else if (answer == Answer::Overloaded && !m_cell.overloadRetried)
        finish(client, arrivesMs, false);
    else
        failed(client, arrivesMs, answer == Answer::Overloaded);
}

void SimulationRun::finish(int client, double timeMs, bool succeeded)
{
    ClientState &c = m_clients[static_cast<std::size_t>(client)];
    c.done = true;
    c.succeeded = succeeded;
    c.finishMs = timeMs;
    --m_active;
    if (succeeded)
        ++m_out.succeeded;
    else
        ++m_out.gaveUp;
    m_out.completionMs = std::max(m_out.completionMs, timeMs);
}

// The same order of decisions as RetryExecutor: the attempt limit, then the backoff
// delay (replaced by a bounded Retry-After when the answer had one), then the deadline.
void SimulationRun::failed(int client, double timeMs, bool overloadAnswer)
{
    ClientState &c = m_clients[static_cast<std::size_t>(client)];
    // Immediate retries once, at once (the Azure Retry pattern), whatever the attempt limit.
    const bool immediateSpent = m_cell.strategy.algorithm == BackoffAlgorithm::Immediate && c.attempts >= 2;
    if ((m_p.maxAttempts > 0 && c.attempts >= m_p.maxAttempts) || immediateSpent) {
        finish(client, timeMs, false);
        return;
    }
    double waitMs = m_cell.strategy.algorithm ? c.backoff.next(m_random) : 0.0;
    if (overloadAnswer && m_cell.overloadRetryAfterMs)
        waitMs = *m_cell.overloadRetryAfterMs;
    if (m_p.deadlineMs > 0.0) {
        const double remainingMs = m_p.deadlineMs - (timeMs - c.arrivalMs);
        if (waitMs >= remainingMs) {
            finish(client, timeMs, false);
            return;
        }
    }
    send(client, timeMs + waitMs);
}

void SimulationRun::summarise()
{
    std::vector<double> latencies;
    latencies.reserve(m_clients.size());
    for (ClientState &c : m_clients) {
        if (!c.done) {
            ++m_out.unfinished;
            c.finishMs = m_p.horizonMs;
            m_out.completionMs = m_p.horizonMs;
        }
        m_out.attempts.append(c.attempts);
        if (c.done && c.succeeded)
            latencies.push_back(c.finishMs - c.arrivalMs);
    }
    // The percentiles of the clients that succeeded: the tail that hedging trades load for.
    const auto percentile = [&latencies](double q) {
        const auto rank = static_cast<std::size_t>(std::ceil(q * double(latencies.size()))) - 1;
        std::nth_element(latencies.begin(), latencies.begin() + std::ptrdiff_t(rank), latencies.end());
        return latencies[rank];
    };
    if (!latencies.empty()) {
        m_out.latencyP50Ms = percentile(0.5);
        m_out.latencyP99Ms = percentile(0.99);
    }
    const double perSecond = 1000.0 / m_p.binMs;
    m_out.loadPerBin.reserve(static_cast<qsizetype>(m_load.size()));
    qint64 peak = 0;
    for (qint64 count : m_load) {
        m_out.loadPerBin.append(count);
        peak = std::max(peak, count);
    }
    m_out.peakLoadPerSec = static_cast<double>(peak) * perSecond;

    if (m_p.model == HerdModel::Outage) {
        double lastFinishMs = m_p.outageEndMs;
        for (const ClientState &c : m_clients) {
            if (c.arrivalMs < m_p.outageEndMs)
                lastFinishMs = std::max(lastFinishMs, c.finishMs);
        }
        m_out.recoveryMs = lastFinishMs - m_p.outageEndMs;
        const auto first = static_cast<std::size_t>(m_p.outageEndMs / m_p.binMs);
        const auto last = static_cast<std::size_t>(lastFinishMs / m_p.binMs);
        qint64 stormPeak = 0;
        for (std::size_t b = first; b <= last && b < m_load.size(); ++b)
            stormPeak = std::max(stormPeak, m_load[b]);
        m_out.recoveryPeakLoadPerSec = static_cast<double>(stormPeak) * perSecond;
    }
}

quint64 splitMix(quint64 x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

Cell makeCell(const HerdParameters &p, int clients, const HerdStrategy &strategy)
{
    Cell cell;
    cell.parameters = &p;
    cell.strategy = strategy;
    cell.policy = p.policyFor(strategy);
    cell.clients = clients;
    classifyOverload(cell);
    return cell;
}

} // namespace

namespace {

QString stallMessage(const HerdStrategy &strategy, int clients, double atMs)
{
    return Tr::tr("%1 with %2 clients made no progress: the virtual clock stood still at %3 ms while "
                  "clients kept retrying. Zero network delay with zero backoff retries for ever at one "
                  "instant; give the network a delay, the strategy a base delay, or set maxAttempts.")
        .arg(strategy.title())
        .arg(clients)
        .arg(atMs);
}

// Runs every run of one cell in order, so the sums round the same way on any thread.
HerdCellResult runCell(const HerdParameters &p, int clients, const HerdStrategy &strategy, HerdControl *control,
    qint64 *events, bool *cancelled, QString *stall)
{
    const Cell cell = makeCell(p, clients, strategy);
    HerdCellResult result;
    result.clients = clients;
    result.strategy = strategy;
    result.runs = p.runs;
    result.binMs = p.binMs;

    QList<double> calls;
    QList<double> completion;
    QList<double> share;
    QList<double> peak;
    QList<double> recovery;
    QList<double> stormPeak;
    QList<double> latencyP50;
    QList<double> latencyP99;
    std::vector<qint64> loadSums;
    for (int run = 0; run < p.runs; ++run) {
        if (control && control->isCancelled()) {
            *cancelled = true;
            return result;
        }
        SimulationRun simulation(cell, HerdSimulator::runSeed(p.seed, clients, run), control);
        const HerdRunOutcome out = simulation.execute();
        *events += out.events;
        if (out.cancelled) {
            *cancelled = true;
            return result;
        }
        if (out.stalled) {
            *stall = stallMessage(strategy, clients, out.stalledAtMs);
            return result;
        }
        calls.append(static_cast<double>(out.calls));
        completion.append(out.completionMs);
        share.append(static_cast<double>(out.succeeded) / static_cast<double>(clients));
        peak.append(out.peakLoadPerSec);
        recovery.append(out.recoveryMs);
        stormPeak.append(out.recoveryPeakLoadPerSec);
        latencyP50.append(out.latencyP50Ms);
        latencyP99.append(out.latencyP99Ms);
        result.gaveUp += out.gaveUp;
        result.unfinished += out.unfinished;
        for (int a : out.attempts) {
            if (a >= result.attemptHistogram.size())
                result.attemptHistogram.resize(a + 1, 0);
            ++result.attemptHistogram[a];
        }
        if (static_cast<std::size_t>(out.loadPerBin.size()) > loadSums.size())
            loadSums.resize(static_cast<std::size_t>(out.loadPerBin.size()), 0);
        for (qsizetype b = 0; b < out.loadPerBin.size(); ++b)
            loadSums[static_cast<std::size_t>(b)] += out.loadPerBin[b];
        if (control)
            HerdCellRunner::advance(*control);
    }
    result.calls = HerdStatistic::of(calls);
    result.completionMs = HerdStatistic::of(completion);
    result.succeededShare = HerdStatistic::of(share);
    result.peakLoadPerSec = HerdStatistic::of(peak);
    result.recoveryMs = HerdStatistic::of(recovery);
    result.recoveryPeakLoadPerSec = HerdStatistic::of(stormPeak);
    result.latencyP50Ms = HerdStatistic::of(latencyP50);
    result.latencyP99Ms = HerdStatistic::of(latencyP99);
    result.meanLoadPerBin.reserve(static_cast<qsizetype>(loadSums.size()));
    for (qint64 sum : loadSums)
        result.meanLoadPerBin.append(static_cast<double>(sum) / p.runs);
    return result;
}

} // namespace

void HerdControl::setProgressCallback(std::function<void(qint64, qint64)> callback)
{
    const std::lock_guard lock(m_callbackMutex);
    m_callback = std::move(callback);
}

void HerdControl::begin(qint64 totalRuns, qint64 totalClients)
{
    m_done.store(0, std::memory_order_relaxed);
    m_total.store(totalRuns, std::memory_order_relaxed);
    m_clientsDone.store(0, std::memory_order_relaxed);
    m_clientsTotal.store(totalClients, std::memory_order_relaxed);
}

double HerdControl::fractionDone() const
{
    const qint64 total = clientsTotal();
    return total > 0 ? std::clamp(static_cast<double>(clientsDone()) / static_cast<double>(total), 0.0, 1.0) : 0.0;
}

void HerdControl::advance()
{
    const qint64 done = m_done.fetch_add(1, std::memory_order_relaxed) + 1;
    const std::lock_guard lock(m_callbackMutex);
    if (m_callback)
        m_callback(done, m_total.load(std::memory_order_relaxed));
}

quint64 HerdSimulator::runSeed(quint64 seed, int clients, int runIndex)
{
    // Not the strategy: every strategy of a (clients, run) pair starts from the same
    // stream (common random numbers), which sharpens the comparison between them.
    quint64 h = splitMix(seed);
    h = splitMix(h ^ static_cast<quint64>(clients));
    return splitMix(h ^ (static_cast<quint64>(runIndex) << 32));
}

Result<HerdRunOutcome> HerdSimulator::runOnce(
    const HerdParameters &parameters, int clients, const HerdStrategy &strategy, int runIndex)
{
    if (runIndex < 0)
        return Result<HerdRunOutcome>::failure(Tr::tr("run: %1 is below the minimum of 0.").arg(runIndex));
    HerdParameters p = parameters;
    p.clientCounts = {clients};
    p.strategies = {strategy};
    p.runs = 1;
    const QStringList problems = p.validate();
    if (!problems.isEmpty())
        return Result<HerdRunOutcome>::failure(problems.join(QLatin1Char('\n')));
    const Cell cell = makeCell(p, clients, strategy);
    SimulationRun simulation(cell, runSeed(p.seed, clients, runIndex), nullptr);
    HerdRunOutcome out = simulation.execute();
    if (out.stalled)
        return Result<HerdRunOutcome>::failure(stallMessage(strategy, clients, out.stalledAtMs));
    return out;
}

Result<HerdReport> HerdSimulator::run(const HerdParameters &parameters, HerdControl *control)
{
    const QStringList problems = parameters.validate();
    if (!problems.isEmpty())
        return Result<HerdReport>::failure(problems.join(QLatin1Char('\n')));

    struct Task
    {
        int clients = 0;
        HerdStrategy strategy;
    };
    std::vector<Task> tasks;
    for (int clients : parameters.clientCounts) {
        for (const HerdStrategy &strategy : parameters.strategies)
            tasks.push_back({clients, strategy});
    }
    const qint64 totalRuns = static_cast<qint64>(tasks.size()) * parameters.runs;
    qint64 totalClients = 0;
    for (const Task &task : tasks)
        totalClients += static_cast<qint64>(task.clients) * parameters.runs;
    if (control)
        control->begin(totalRuns, totalClients);

    // The largest cells go first, so that no thread is left with a big one at the end.
    std::vector<std::size_t> order(tasks.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
        [&tasks](std::size_t a, std::size_t b) { return tasks[a].clients > tasks[b].clients; });

    std::vector<HerdCellResult> results(tasks.size());
    std::vector<qint64> events(tasks.size(), 0);
    std::atomic<std::size_t> next{0};
    std::atomic<bool> cancelled{false};
    std::vector<QString> stalls(tasks.size());
    auto work = [&] {
        for (;;) {
            const std::size_t k = next.fetch_add(1);
            if (k >= order.size() || cancelled.load())
                return;
            const std::size_t i = order[k];
            bool cellCancelled = false;
            results[i] = runCell(
                parameters, tasks[i].clients, tasks[i].strategy, control, &events[i], &cellCancelled, &stalls[i]);
            // A stalled cell voids the grid: stop the other threads as a cancel would.
            if (cellCancelled || !stalls[i].isEmpty())
                cancelled.store(true);
        }
    };

    int threads = parameters.threads > 0 ? parameters.threads : QThread::idealThreadCount();
    threads = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(1, tasks.size())));
    qCDebug(lcHerdSimulator).noquote() << QStringLiteral("%1 model: %2 cells x %3 runs on %4 thread(s)")
                                              .arg(herdModelName(parameters.model))
                                              .arg(tasks.size())
                                              .arg(parameters.runs)
                                              .arg(threads);
    {
        std::vector<std::jthread> pool;
        for (int t = 1; t < threads; ++t)
            pool.emplace_back(work);
        work();
    }

    for (const QString &stall : stalls) {
        if (!stall.isEmpty())
            return Result<HerdReport>::failure(stall);
    }
    if (cancelled.load() || (control && control->isCancelled()))
        return Result<HerdReport>::failure(Tr::tr("The simulation was cancelled."));

    HerdReport report;
    report.parameters = parameters;
    report.cells.reserve(static_cast<qsizetype>(results.size()));
    for (std::size_t i = 0; i < results.size(); ++i) {
        report.cells.append(std::move(results[i]));
        report.events += events[i];
    }
    return report;
}

} // namespace RetryLab::Core
