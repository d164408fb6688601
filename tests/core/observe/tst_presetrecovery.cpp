// RetryLab's own executor under each preset, watched by the observer as any
// client would be: the inference must recover the preset (algorithm, base and
// multiplier within 10 %, cap, jitter kind, attempt limit) from 30 logical
// requests (60 for full and equal jitter). The presets are scaled to a base of
// 100 ms, or less (not below 40 ms) where the whole schedule would take longer than
// eight seconds (the cap, the jitter and the deadline alike), so that they take
// seconds, not minutes,
// and all of them run at once, each with a User-Agent of its own. The server
// and the observer have a thread of their own, as in the window, so that the
// arrival times they take are not held up by the executors' work.

#include "core/executor/retryexecutor.h"
#include "core/faultserver/faultserver.h"
#include "core/observe/observer.h"
#include "core/policy/backoff.h"
#include "core/policy/presets.h"

#include <QEventLoop>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <memory>

using namespace RetryLab::Core;

namespace {

// Thirty; sixty where the level is the top of a band drawn at random (full and
// equal jitter), which is estimated from the largest of the delays seen: the
// largest of 60 uniform draws falls 15 % short of the top with a chance of
// 0.85^60 = 6e-5. Not sixty for all: more requests at once load the server's
// thread, and the spread that adds to delays without jitter looks like jitter.
constexpr int logicalRequests = 30;
constexpr int logicalRequestsDrawn = 60;

bool drawsItsTop(const BackoffPolicy &p)
{
    return p.algorithm == BackoffAlgorithm::FullJitter || p.algorithm == BackoffAlgorithm::EqualJitter;
}

/// The longest a logical request can take under the policy: its deadline, or its retries at their longest.
double scheduleMs(const BackoffPolicy &p)
{
    if (p.maxAttempts == 0)
        return p.deadlineMs;
    double total = 0.0;
    for (int n = 0; n + 1 < p.maxAttempts; ++n)
        total += Backoff::delayRange(p, n).maxMs;
    return total;
}

BackoffPolicy scaled(BackoffPolicy p)
{
    // A base of 100 ms keeps the client's own overhead (a millisecond or two per
    // retry, several under the sanitizers with sixty requests at once) small
    // against the delays; long schedules go down to 40 ms.
    const double at100 = 100.0 / p.baseDelayMs;
    BackoffPolicy trial = p;
    trial.baseDelayMs *= at100;
    trial.maxBackoffMs *= at100;
    trial.jitterMs *= at100;
    trial.deadlineMs *= at100;
    const double baseMs = std::clamp(100.0 * 8000.0 / std::max(1.0, scheduleMs(trial)), 40.0, 100.0);
    const double scale = baseMs / p.baseDelayMs;
    p.baseDelayMs *= scale;
    p.maxBackoffMs *= scale;
    p.jitterMs *= scale;
    p.deadlineMs *= scale;
    p.attemptTimeoutMs = 10'000;
    // The retry budget and the circuit breaker would stop retries of thirty
    // failing requests early: they shape how much is retried, not when.
    p.retryBudget.kind = RetryBudgetKind::None;
    p.circuitBreaker.enabled = false;
    return p;
}

bool within(double actual, double expected, double fraction)
{
    return std::abs(actual - expected) <= std::abs(expected) * fraction;
}

} // namespace

class TestPresetRecovery : public QObject
{
    Q_OBJECT

private:
    QThread m_thread;
    FaultServer *m_server = nullptr; // lives in m_thread
    Observer *m_observer = nullptr; // lives in m_thread
    double m_overheadMs = 0.0;
    double m_noiseMs = 0.0;

    template<typename F>
    void onServerThread(F function)
    {
        QMetaObject::invokeMethod(m_server, function, Qt::BlockingQueuedConnection);
    }

    /// Thirty logical requests of one preset, until all gave up; returns them.
    QList<LogicalRequest> run(const Presets::Preset &preset, bool scale = true)
    {
        const int count = drawsItsTop(preset.policy) ? logicalRequestsDrawn : logicalRequests;
        // Qt opens at most six connections to one host and queues the rest,
        // which would add the queueing to the delays: six requests per executor
        // (each has a manager of its own), five or ten executors. The requests start
        // 10 ms apart, so that the retries of a policy without jitter do not all
        // arrive in the same instant and wait for each other.
        constexpr int perExecutor = 6;
        constexpr int staggerMs = 10;
        std::vector<std::unique_ptr<RetryExecutor>> executors;
        for (int first = 0; first < count; first += perExecutor) {
            auto executor = std::make_unique<RetryExecutor>();
            executor->setPolicy(scale ? scaled(preset.policy) : preset.policy);
            executor->setSeed(7 + first);
            executor->setConcurrencyLimit(perExecutor);
            for (int i = first; i < first + perExecutor; ++i) {
                RequestSpec spec;
                spec.url = m_server->baseUrl().resolved(QUrl(QStringLiteral("/%1/%2").arg(preset.id).arg(i)));
                spec.headers = {{"User-Agent", "preset-" + preset.id.toLatin1()}};
                QTimer::singleShot(i * staggerMs, Qt::PreciseTimer, executor.get(),
                    [executor = executor.get(), spec] { executor->submit(spec); });
            }
            executors.push_back(std::move(executor));
        }
        // An event loop, not QTest::qWaitFor, which sleeps 10 ms between its
        // looks and so holds up the executors' replies and timers by as much.
        QEventLoop loop;
        QTimer poll;
        poll.setInterval(50);
        int started = 0;
        QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
            ++started;
            const bool done = std::all_of(executors.cbegin(), executors.cend(),
                [](const auto &executor) { return executor->activeCount() == 0; });
            if ((done && started * 50 > count * staggerMs) || started * 50 > 60'000)
                loop.quit();
        });
        poll.start();
        loop.exec();
        // The last answers are recorded on the server's thread: wait until every attempt has one.
        QList<LogicalRequest> requests;
        const auto answered = [&] {
            bool all = true;
            onServerThread([&] {
                m_observer->finish();
                requests = m_observer->allLogicalRequests();
            });
            for (const LogicalRequest &r : requests) {
                for (const ObservedAttempt &a : r.attempts)
                    all = all && a.complete;
            }
            return all;
        };
        if (!QTest::qWaitFor(answered, 10'000))
            return {};
        onServerThread([&] { m_observer->clear(); });
        return requests;
    }

    /// What the client itself adds to every delay (reading the answer, deciding,
    /// sending again): retries without any wait. Slow builds (the sanitizers) add
    /// more; the tolerances grow by it. Measured again after a miss, when the
    /// machine may have grown busier than it was at the start: the larger figures stay.
    bool measureNoise()
    {
        BackoffPolicy immediate;
        immediate.name = QStringLiteral("immediate");
        immediate.algorithm = BackoffAlgorithm::Immediate;
        immediate.maxAttempts = 3;
        const QList<LogicalRequest> requests = run(Presets::Preset{QStringLiteral("overhead"), immediate}, false);
        QList<double> delays;
        for (const LogicalRequest &r : requests) {
            for (const ObservedAttempt &a : r.attempts) {
                if (a.delayMs)
                    delays.append(*a.delayMs);
            }
        }
        if (delays.isEmpty()) {
            qWarning() << "no waitless retry was seen; the timing noise stays" << m_noiseMs << "ms";
            return false;
        }
        std::sort(delays.begin(), delays.end());
        m_overheadMs = std::max(m_overheadMs, delays[delays.size() / 2]);
        // How far scheduling moves one delay here: the spread of these waitless retries
        // (10th to 90th percentile), which the inference must not take for jitter.
        m_noiseMs = std::max(m_noiseMs, delays[delays.size() * 9 / 10] - delays[delays.size() / 10]);
        qInfo() << "the client's own time per retry:" << m_overheadMs << "ms (median of" << delays.size() << "), spread"
                << m_noiseMs << "ms";
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_server = new FaultServer;
        m_observer = new Observer;
        m_server->moveToThread(&m_thread);
        m_observer->moveToThread(&m_thread);
        m_thread.start();
        bool listening = false;
        onServerThread([&] {
            listening = m_server->listen();
            m_observer->attach(m_server);
            m_observer->setPlan(*ObservationPlan::load(QStringLiteral("always-503")));
        });
        QVERIFY2(listening, qPrintable(m_server->errorString()));

        QVERIFY2(measureNoise(), "no waitless retry was seen");
    }

    void cleanupTestCase()
    {
        onServerThread([&] {
            delete m_observer;
            delete m_server;
        });
        m_thread.quit();
        m_thread.wait();
    }

    void recovered_data()
    {
        QTest::addColumn<QString>("id");
        for (const Presets::Preset &preset : Presets::all())
            QTest::newRow(qPrintable(preset.id)) << preset.id;
    }

    void recovered()
    {
        // The inference reads arrival times on a shared machine, where another
        // process may hold up the server's thread for tens of milliseconds: a
        // trial that misses gets another, with the noise measured again, and the
        // preset fails only when three miss.
        QFETCH(QString, id);
        QString missed = mismatch(id);
        for (int trial = 2; trial <= 3 && !missed.isEmpty(); ++trial) {
            qWarning().noquote() << id << "missed on trial" << trial - 1 << "- trying again:" << missed;
            measureNoise();
            missed = mismatch(id);
        }
        QVERIFY2(missed.isEmpty(), qPrintable(missed));
    }

private:
    /// Runs the preset and infers its policy: empty when the inference recovers it, else what differs.
    QString mismatch(const QString &id)
    {
        const BackoffPolicy preset = scaled(*Presets::find(id));
        const QList<LogicalRequest> requests = run(Presets::Preset{id, *Presets::find(id)});
        const int expected = drawsItsTop(preset) ? logicalRequestsDrawn : logicalRequests;
        if (requests.size() != expected)
            return QStringLiteral("%1 logical requests observed, not %2").arg(requests.size()).arg(expected);
        if (requests.first().rule != GroupingRule::RetryRequestId)
            return QStringLiteral("grouped by another rule than the request id header");
        const InferredPolicy p = PolicyInference::infer(requests, m_noiseMs);
        const QString why = p.summary() + QStringLiteral(" | ") + p.growthConfidence.evidence + QStringLiteral(" | ")
            + p.jitterConfidence.evidence + QStringLiteral(" | ") + p.maxAttemptsConfidence.evidence;
        qInfo().noquote() << id << "->" << why;

        const auto algorithm = p.algorithm();
        if (!algorithm)
            return QStringLiteral("no algorithm: ") + why;
        if (preset.hedging.enabled) {
            // Against a server that fails at once, a hedge sends its next attempt at once after each
            // failure (tst_executorhedging shows it racing slow answers): immediate retries, up to
            // the hedging policy's attempts; or, where the client's own work per attempt stands out
            // (a sanitizer build), a constant wait no longer than that work.
            const bool atOnce = *algorithm == BackoffAlgorithm::Immediate
                || (*algorithm == BackoffAlgorithm::Constant && p.baseMs
                    && *p.baseMs <= 3.0 * m_overheadMs + 2.0 * m_noiseMs + 1.0);
            if (!atOnce)
                return algorithmName(*algorithm) + QStringLiteral(" instead of immediate: ") + why;
            if (p.maxAttempts != preset.hedging.maxAttempts)
                return QStringLiteral("attempt limit not %1: ").arg(preset.hedging.maxAttempts) + why;
            return {};
        }
        const bool sameFormula = *algorithm == preset.algorithm
            || (*algorithm == BackoffAlgorithm::GoogleTruncatedExponential
                && preset.algorithm == BackoffAlgorithm::IamTruncatedExponential);
        if (!sameFormula)
            return algorithmName(*algorithm) + QStringLiteral(": ") + why;
        // Within 10 %, and the client's own time per retry on top. Where the
        // level is the top of a band drawn at random (full and equal jitter),
        // 15 %: the top is seen only through the largest draw of each index.
        // On a loaded machine each delay moves by this machine's timing noise, measured at the
        // start (twice it: the band's edges move both ways).
        const double slack = (m_overheadMs + 2.0 * m_noiseMs) / preset.baseDelayMs + (drawsItsTop(preset) ? 0.05 : 0.0);
        if (!p.baseMs || !within(*p.baseMs, preset.baseDelayMs, 0.10 + slack))
            return QStringLiteral("base not %1 ms: ").arg(preset.baseDelayMs) + why;
        if (preset.algorithm != BackoffAlgorithm::Constant
            && (!p.multiplier || !within(*p.multiplier, preset.multiplier, 0.10 + slack)))
            return QStringLiteral("multiplier not %1: ").arg(preset.multiplier) + why;
        const int retries = preset.maxAttempts > 0 ? preset.maxAttempts - 1 : 12;
        // The cap shows only when a delay reaches it before the attempts or the deadline run out
        // (the Cloud Storage client's 120 s deadline ends a request before its 60 s cap).
        bool capReached = false;
        double elapsedMs = 0.0;
        for (int n = 0; preset.algorithm != BackoffAlgorithm::Constant && n <= retries - 2; ++n) {
            const double level = preset.baseDelayMs * std::pow(preset.multiplier, n);
            if (preset.deadlineMs > 0.0 && elapsedMs + std::min(level, preset.maxBackoffMs) > preset.deadlineMs)
                break;
            if (level >= preset.maxBackoffMs) {
                capReached = true;
                break;
            }
            elapsedMs += level;
        }
        if (capReached && (!p.capMs || !within(*p.capMs, preset.maxBackoffMs, 0.10)))
            return QStringLiteral("cap not %1 ms: ").arg(preset.maxBackoffMs) + why;
        if (preset.maxAttempts > 0 && p.maxAttempts != preset.maxAttempts)
            return QStringLiteral("attempt limit not %1: ").arg(preset.maxAttempts) + why;
        if (preset.maxAttempts <= 0 && !p.maxAttempts && !p.deadlineMs)
            return QStringLiteral("neither an attempt limit nor a deadline: ") + why;
        return {};
    }
};

QTEST_GUILESS_MAIN(TestPresetRecovery)
#include "tst_presetrecovery.moc"
