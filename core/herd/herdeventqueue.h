#pragma once

#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

// The herd simulator's events and the queue that orders them (herdsimulator.cpp's
// own; a header of its own so that the simulation reads on its own).
namespace RetryLab::Core::HerdDetail {

// Only what changes or reads shared state at a given instant needs an event: a write
// reaching the row, a request reaching the server, the server finishing a request,
// the outage. A message reaching a client is handled when it is sent (it arrives at
// send time + its network delay), because a client's reaction depends on its own
// state only. A read needs no event either: a write succeeds exactly when no other
// write succeeded between the moment its read reached the row and the moment it
// arrives itself, which the row's last successful write time answers.
enum class EventKind : quint8 {
    WriteArrives, ///< OCC: a conditional write reaches the row
    RequestArrives, ///< server models: a request reaches the server
    ServiceDone, ///< server models: the request in service is done (value: server epoch)
    OutageStarts,
    OutageEnds,
    AnswerArrives, ///< latency model: an answer reaches its client (value: 1 for a failure)
    HedgeDue, ///< latency model: a hedging client's delay passed (value: attempts it had sent then)
};

struct Event
{
    double timeMs = 0.0;
    quint64 order = 0;
    qint32 client = 0;
    qint32 value = 0;
    EventKind kind = EventKind::WriteArrives;
};

inline void prefetch(const void *address)
{
#if defined(__GNUC__)
    __builtin_prefetch(address, 1);
#else
    Q_UNUSED(address);
#endif
}

// Earlier time first; equal times in insertion order, so a run never depends on
// how the heap happens to break ties.
inline bool earlier(const Event &a, const Event &b)
{
    return a.timeMs < b.timeMs || (a.timeMs == b.timeMs && a.order < b.order);
}

// A binary min-heap with replaceTop(): handling an event usually schedules exactly
// one more, and replacing the top costs one sift instead of a pop and a push.
class EventHeap
{
public:
    bool empty() const { return m_heap.empty(); }
    std::size_t size() const { return m_heap.size(); }
    const Event &top() const { return m_heap.front(); }
    /// The element at `i` of the heap's array: 1 and 2 are the candidates to follow the top.
    const Event &at(std::size_t i) const { return m_heap[i]; }

    void push(const Event &e)
    {
        std::size_t i = m_heap.size();
        m_heap.push_back(e);
        while (i > 0) {
            const std::size_t parent = (i - 1) / 2;
            if (!earlier(e, m_heap[parent]))
                break;
            m_heap[i] = m_heap[parent];
            i = parent;
        }
        m_heap[i] = e;
    }

    void pop()
    {
        const Event last = m_heap.back();
        m_heap.pop_back();
        if (!m_heap.empty())
            siftDown(0, last);
    }

    void replaceTop(const Event &e) { siftDown(0, e); }

    /// Copies `events` in (the heap must be empty) and orders them into a heap.
    void assign(const std::vector<Event> &events)
    {
        m_heap.assign(events.cbegin(), events.cend());
        for (std::size_t i = m_heap.size() / 2; i-- > 0;)
            siftDown(i, m_heap[i]);
    }

private:
    // Places `e` at `i` and lets it sink to its place.
    void siftDown(std::size_t i, const Event e)
    {
        const std::size_t n = m_heap.size();
        for (;;) {
            std::size_t child = 2 * i + 1;
            if (child >= n)
                break;
            if (child + 1 < n && earlier(m_heap[child + 1], m_heap[child]))
                ++child;
            if (!earlier(m_heap[child], e))
                break;
            m_heap[i] = m_heap[child];
            i = child;
        }
        m_heap[i] = e;
    }

    std::vector<Event> m_heap;
};

// The events in the order of (time, insertion), exactly as one heap of them would
// give them, at a near-constant cost per event however many are pending: a run of
// a million clients keeps a million events queued, and one heap that large costs
// some twenty cache misses per event. Future events wait unsorted in buckets of
// bucketMs each; only the bucket whose turn it is makes a heap. Events beyond the
// buckets' span wait in a far list and are spread over the buckets when the span
// moves on to them. A bucket's index is monotonic in time, so every event of a
// bucket comes before every event of a later one.
class EventQueue
{
public:
    static constexpr double bucketMs = 1.0;
    static constexpr std::size_t bucketCount = 1U << 16;
    static constexpr std::size_t maxKeptPerBucket = 64;

    EventQueue() : m_buckets(bucketCount) { }

    bool empty() const { return m_size == 0; }

    /// The earliest event; the queue must not be empty.
    const Event &top()
    {
        while (m_heap.empty())
            advance();
        return m_heap.top();
    }

    void push(const Event &e)
    {
        ++m_size;
        place(e);
    }

    /// Calls `f` with the events that may come right after top() (and the ones
    /// after those), so that the caller can fetch early what it will need for them.
    template<typename F>
    void forEachFollower(F f) const
    {
        for (std::size_t i = 1; i <= 6 && i < m_heap.size(); ++i)
            f(m_heap.at(i));
    }

    /// Removes top() (which must have been called since the last change).
    void pop()
    {
        --m_size;
        m_heap.pop();
    }

    /// pop() then push(e), in one sift when `e` falls in the current bucket.
    void replaceTop(const Event &e)
    {
        if (index(e.timeMs) <= m_current) {
            m_heap.replaceTop(e);
        } else {
            m_heap.pop();
            place(e);
        }
    }

private:
    // The bucket of a time: monotonic, and bucketCount beyond the span (infinity
    // and NaN included, so that a bucket holds only finite times).
    std::size_t index(double timeMs) const
    {
        const double q = (timeMs - m_baseMs) / bucketMs;
        if (!(q < static_cast<double>(bucketCount)))
            return bucketCount;
        return q > 0.0 ? static_cast<std::size_t>(q) : 0;
    }

    void place(const Event &e)
    {
        const std::size_t k = index(e.timeMs);
        if (k <= m_current)
            m_heap.push(e); // the current bucket (or earlier, which time never goes back to)
        else if (k < bucketCount)
            m_buckets[k].push_back(e);
        else
            m_far.push_back(e);
    }

    // The current bucket is done: the next one that holds events makes the heap;
    // past the last bucket, the span starts again at the earliest far event.
    void advance()
    {
        while (++m_current < bucketCount) {
            std::vector<Event> &bucket = m_buckets[m_current];
            if (bucket.empty())
                continue;
            m_heap.assign(bucket);
            // A bucket keeps a little room for next time, not a herd's worth.
            if (bucket.capacity() > maxKeptPerBucket)
                std::vector<Event>().swap(bucket);
            else
                bucket.clear();
            return;
        }
        double earliest = std::numeric_limits<double>::infinity();
        for (const Event &e : m_far)
            earliest = std::min(earliest, e.timeMs);
        std::vector<Event> far;
        far.swap(m_far);
        if (!std::isfinite(earliest)) {
            // Only events at no finite time are left: the heap takes them as they are.
            for (const Event &e : far)
                m_heap.push(e);
            return;
        }
        m_baseMs = earliest;
        m_current = 0;
        for (const Event &e : far)
            place(e);
    }

    EventHeap m_heap; // the current bucket
    std::vector<std::vector<Event>> m_buckets;
    std::vector<Event> m_far;
    double m_baseMs = 0.0;
    std::size_t m_current = 0;
    std::size_t m_size = 0;
};

} // namespace RetryLab::Core::HerdDetail
