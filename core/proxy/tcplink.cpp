#include "core/proxy/tcplink.h"

#include "core/runtime/socketcontrol.h"
#include "core/util/clock.h"
#include "core/util/coretr.h"

#include <QJsonArray>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace RetryLab::Core {

namespace {

constexpr qint64 readChunk = 64 * 1024;
// What a queued segment costs besides its bytes, so that a slicer of 1-byte slices
// cannot hold a million allocations within the bytes' bound.
constexpr qint64 segmentOverhead = 64;
// A close that waits for a slow reader to take what is left gives up after this.
constexpr int closeGraceMs = 10'000;

qint64 nowNs()
{
    return SteadyClock::instance().nowNs();
}

// A uniform draw from -range to +range.
qint64 spread(QRandomGenerator64 *random, qint64 range)
{
    if (range <= 0)
        return 0;
    return qint64(random->bounded(quint64(2 * range + 1))) - range;
}

} // namespace

// --- TcpLinkSummary

QString TcpLinkSummary::summary() const
{
    const auto bytes = [](qint64 n) {
        return n < 10'000 ? Tr::tr("%1 B").arg(n) : Tr::tr("%1 KB").arg(double(n) / 1000.0, 0, 'f', 1);
    };
    QString line = Tr::tr("#%1 %2 %3 s, %4 up, %5 down, %6")
                       .arg(id)
                       .arg(client)
                       .arg(durationMs / 1000.0, 0, 'f', 3)
                       .arg(bytes(bytesUpstream), bytes(bytesDownstream), end);
    if (bytesDropped > 0)
        line += Tr::tr(", %1 dropped").arg(bytes(bytesDropped));
    if (!detail.isEmpty())
        line += QStringLiteral(" (%1)").arg(detail);
    if (!toxics.isEmpty())
        line += QStringLiteral(" [%1]").arg(toxics.join(QStringLiteral(", ")));
    return line;
}

QJsonObject TcpLinkSummary::toJson() const
{
    return {
        {QStringLiteral("id"), double(id)},
        {QStringLiteral("proxy"), proxy},
        {QStringLiteral("client"), client},
        {QStringLiteral("started"), started.toString(Qt::ISODateWithMs)},
        {QStringLiteral("durationMs"), durationMs},
        {QStringLiteral("bytesUpstream"), double(bytesUpstream)},
        {QStringLiteral("bytesDownstream"), double(bytesDownstream)},
        {QStringLiteral("bytesDropped"), double(bytesDropped)},
        {QStringLiteral("toxics"), QJsonArray::fromStringList(toxics)},
        {QStringLiteral("end"), end},
        {QStringLiteral("detail"), detail},
    };
}

// --- ToxicPipe

ToxicPipe::ToxicPipe(TcpLink *link, Toxic::Stream stream, QRandomGenerator64 *random)
    : QObject(link), m_link(link), m_stream(stream), m_random(random), m_releaseTimer(new QTimer(this))
{
    m_releaseTimer->setSingleShot(true);
    m_releaseTimer->setTimerType(Qt::PreciseTimer);
    connect(m_releaseTimer, &QTimer::timeout, this, &ToxicPipe::release);
}

void ToxicPipe::setSockets(QTcpSocket *in, QTcpSocket *out)
{
    m_in = in;
    m_out = out;
    connect(in, &QTcpSocket::readyRead, this, &ToxicPipe::readInput);
    connect(out, &QTcpSocket::bytesWritten, this, &ToxicPipe::release);
}

void ToxicPipe::startTimer(Active &active)
{
    delete active.timer;
    active.timer = nullptr;
    if (!active.applies)
        return;
    const Toxic &toxic = active.toxic;
    const bool reset = toxic.type == Toxic::Type::ResetPeer;
    if (!reset && (toxic.type != Toxic::Type::Timeout || toxic.timeoutMs == 0))
        return;
    active.timer = new QTimer(this);
    active.timer->setSingleShot(true);
    active.timer->setTimerType(Qt::PreciseTimer); // a coarse timer may fire a little early
    connect(active.timer, &QTimer::timeout, m_link, [link = m_link, reset, name = toxic.name] {
        link->finish(reset ? QStringLiteral("reset_peer") : QStringLiteral("timeout"), name, reset);
    });
    active.timer->start(int(std::min<qint64>(toxic.timeoutMs, Toxic::maxMs)));
}

void ToxicPipe::setToxics(const ToxicList &toxics)
{
    std::vector<std::unique_ptr<Active>> kept;
    for (const Toxic &toxic : toxics) {
        if (toxic.stream != m_stream)
            continue;
        auto found = std::find_if(m_toxics.begin(), m_toxics.end(),
            [&](const std::unique_ptr<Active> &active) { return active && active->toxic.name == toxic.name; });
        if (found != m_toxics.end()) {
            std::unique_ptr<Active> active = std::move(*found);
            const bool wasApplying = active->applies;
            if (active->toxic.toxicity != toxic.toxicity)
                active->applies = toxic.toxicity >= 1.0 || m_random->generateDouble() < toxic.toxicity;
            // A timer starts when the toxic comes to apply (or its timeout changes) and stops when it no longer does.
            const bool retime = active->toxic.timeoutMs != toxic.timeoutMs || active->applies != wasApplying;
            active->toxic = toxic;
            if (active->applies && !m_applied.contains(toxic.name))
                m_applied << toxic.name;
            if (retime)
                startTimer(*active);
            kept.push_back(std::move(active));
            continue;
        }
        auto active = std::make_unique<Active>();
        active->toxic = toxic;
        active->applies = toxic.toxicity >= 1.0 || m_random->generateDouble() < toxic.toxicity;
        if (active->applies && !m_applied.contains(toxic.name))
            m_applied << toxic.name;
        startTimer(*active);
        kept.push_back(std::move(active));
    }
    for (auto &gone : m_toxics) {
        if (gone)
            delete gone->timer;
    }
    m_toxics = std::move(kept);
    // A timeout toxic taken away lets the data flow again; one put on drops it from now on.
    QTimer::singleShot(0, this, &ToxicPipe::readInput);
}

std::deque<ToxicPipe::Segment> ToxicPipe::transform(QByteArray bytes, qint64 now)
{
    std::deque<Segment> segments;
    segments.push_back({std::move(bytes), now});
    for (auto &activePointer : m_toxics) {
        Active &active = *activePointer;
        if (!active.applies || segments.empty())
            continue;
        const Toxic &toxic = active.toxic;
        switch (toxic.type) {
        case Toxic::Type::Timeout:
            for (const Segment &segment : segments)
                m_dropped += segment.bytes.size();
            segments.clear();
            break;
        case Toxic::Type::Latency:
            for (Segment &segment : segments) {
                const qint64 delayMs = std::max<qint64>(0, toxic.latencyMs + spread(m_random, toxic.jitterMs));
                segment.readyNs += delayMs * 1'000'000;
            }
            break;
        case Toxic::Type::Bandwidth: {
            const double bytesPerNs = double(toxic.rateKBps) * 1000.0 / 1e9;
            const qint64 piece = std::clamp<qint64>(toxic.rateKBps * 1000 / 20, 1, readChunk);
            std::deque<Segment> paced;
            for (Segment &segment : segments) {
                for (qsizetype at = 0; at < segment.bytes.size(); at += piece) {
                    const QByteArray part = segment.bytes.mid(at, piece);
                    const qint64 start = std::max(segment.readyNs, active.nextFreeNs);
                    active.nextFreeNs = start + qint64(std::ceil(double(part.size()) / bytesPerNs));
                    paced.push_back({part, active.nextFreeNs});
                }
            }
            segments = std::move(paced);
            break;
        }
        case Toxic::Type::Slicer: {
            std::deque<Segment> sliced;
            for (Segment &segment : segments) {
                qint64 at = std::max(segment.readyNs, active.nextFreeNs);
                for (qsizetype pos = 0; pos < segment.bytes.size();) {
                    const qint64 size = std::max<qint64>(1, toxic.averageSize + spread(m_random, toxic.sizeVariation));
                    sliced.push_back({segment.bytes.mid(pos, size), at});
                    pos += size;
                    at += toxic.delayUs * 1000;
                }
                active.nextFreeNs = at;
            }
            segments = std::move(sliced);
            break;
        }
        case Toxic::Type::LimitData: {
            std::deque<Segment> limited;
            for (Segment &segment : segments) {
                const qint64 room = toxic.bytes - active.counted;
                if (room <= 0) {
                    m_dropped += segment.bytes.size();
                    continue;
                }
                if (segment.bytes.size() > room) {
                    m_dropped += segment.bytes.size() - room;
                    segment.bytes.truncate(room);
                }
                active.counted += segment.bytes.size();
                limited.push_back(std::move(segment));
            }
            if (active.counted >= toxic.bytes)
                m_closeAfterDrain = true;
            segments = std::move(limited);
            break;
        }
        case Toxic::Type::SlowClose:
        case Toxic::Type::ResetPeer:
            break;
        }
    }
    return segments;
}

void ToxicPipe::enqueue(std::deque<Segment> segments)
{
    for (Segment &segment : segments) {
        // Bytes leave in the order they came, whatever their draws of latency.
        segment.readyNs = std::max(segment.readyNs, m_lastReadyNs);
        m_lastReadyNs = segment.readyNs;
        m_queuedBytes += segment.bytes.size() + segmentOverhead;
        m_queue.push_back(std::move(segment));
    }
}

void ToxicPipe::readInput()
{
    if (!m_in || m_closing)
        return;
    const qint64 limit = m_link->m_settings.maxBufferedBytes;
    bool read = false;
    // What waits in the output socket counts too: a slow reader holds the sender back.
    const auto held = [this] { return m_queuedBytes + (m_out ? m_out->bytesToWrite() : 0); };
    while (m_in->bytesAvailable() > 0 && held() < limit && !m_closeAfterDrain) {
        QByteArray bytes = m_in->read(std::min(m_in->bytesAvailable(), readChunk));
        if (bytes.isEmpty())
            break;
        read = true;
        if (passesStraight()) {
            passOn(bytes);
            continue;
        }
        enqueue(transform(std::move(bytes), nowNs()));
    }
    if (m_closeAfterDrain && m_in->bytesAvailable() > 0) {
        m_dropped += m_in->bytesAvailable();
        m_in->readAll();
    }
    if (read || m_inputEnded || m_closeAfterDrain)
        release();
}

bool ToxicPipe::passesStraight() const
{
    // No toxic acts and nothing waits before these bytes: they go out as they came,
    // without a queue of segments (a deque allocated per read) or a timer.
    return m_queue.empty() && !m_closing && m_out && m_out->state() == QAbstractSocket::ConnectedState
        && m_out->bytesToWrite() == 0
        && std::none_of(m_toxics.cbegin(), m_toxics.cend(), [](const auto &active) { return active->applies; });
}

void ToxicPipe::passOn(const QByteArray &bytes)
{
    // Straight to the kernel (one system call, where QTcpSocket::write() turns a write
    // notifier on and off around a turn of the event loop); what it does not take goes
    // through the socket, whose bytesWritten() releases more as before.
    const qint64 direct = SocketControl::writeNow(m_out, bytes);
    if (direct < bytes.size())
        m_out->write(direct == 0 ? bytes : bytes.sliced(direct));
    m_passed += bytes.size();
}

void ToxicPipe::inject(const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return;
    enqueue(transform(bytes, nowNs()));
    release();
}

void ToxicPipe::release()
{
    if (m_closing || !m_out || m_out->state() != QAbstractSocket::ConnectedState)
        return;
    const qint64 limit = m_link->m_settings.maxBufferedBytes;
    const qint64 now = nowNs();
    while (!m_queue.empty() && m_queue.front().readyNs <= now && m_out->bytesToWrite() < limit) {
        Segment segment = std::move(m_queue.front());
        m_queue.pop_front();
        m_queuedBytes -= segment.bytes.size() + segmentOverhead;
        m_passed += segment.bytes.size();
        m_out->write(segment.bytes);
    }
    if (!m_queue.empty() && m_queue.front().readyNs > now) {
        const qint64 waitMs = (m_queue.front().readyNs - now + 999'999) / 1'000'000;
        m_releaseTimer->start(int(std::min<qint64>(waitMs, Toxic::maxMs)));
    }
    if (!m_queue.empty())
        return;
    if (m_closeAfterDrain) {
        m_link->finish(QStringLiteral("limit_data"), {}, false);
        return;
    }
    if (m_in && m_in->bytesAvailable() > 0) {
        QTimer::singleShot(0, this, &ToxicPipe::readInput);
        return;
    }
    if (m_inputEnded)
        closeOutput();
}

void ToxicPipe::inputEnded()
{
    if (m_inputEnded)
        return;
    m_inputEnded = true;
    readInput();
    if (m_queue.empty())
        release();
}

void ToxicPipe::dropQueued()
{
    m_closing = true;
    m_releaseTimer->stop();
    for (const Segment &segment : m_queue)
        m_dropped += segment.bytes.size();
    m_queue.clear();
    m_queuedBytes = 0;
}

void ToxicPipe::closeOutput()
{
    if (m_closing)
        return;
    m_closing = true;
    qint64 delayMs = 0;
    for (const auto &active : m_toxics) {
        if (active->applies && active->toxic.type == Toxic::Type::SlowClose)
            delayMs = std::max(delayMs, active->toxic.delayMs);
    }
    QTimer::singleShot(int(delayMs), Qt::PreciseTimer, m_link, [link = m_link, out = m_out] {
        if (out)
            link->socketClosing(out);
    });
}

// --- TcpLink

TcpLink::TcpLink(QObject *parent, QTcpSocket *client, const TcpLinkSettings &settings, quint64 id, quint64 seed,
    const ToxicList &toxics)
    : QObject(parent), m_settings(settings), m_id(id), m_random(seed), m_client(client),
      m_upstream(new QTcpSocket(this)), m_up(new ToxicPipe(this, Toxic::Stream::Upstream, &m_random)),
      m_down(new ToxicPipe(this, Toxic::Stream::Downstream, &m_random)), m_connectTimer(new QTimer(this))
{
    client->setParent(this);
    client->disconnect(); // whoever read it before lets go
    m_startNs = nowNs();
    m_summary.id = id;
    m_summary.proxy = settings.proxyName;
    m_summary.started = QDateTime::currentDateTimeUtc();
    m_summary.client = client->peerAddress().toString() + QLatin1Char(':') + QString::number(client->peerPort());
    client->setReadBufferSize(readChunk);
    m_upstream->setReadBufferSize(readChunk);
    // Bytes pass as they come (ToxicPipe::passOn): Nagle's algorithm would hold a small
    // write back until the peer's delayed ACK. toxiproxy and nginx's stream proxy set it too.
    // The upstream's is set once it is connected (upstreamConnected()).
    client->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_up->setSockets(client, m_upstream);
    m_down->setSockets(m_upstream, client);
    setToxics(toxics);

    connect(client, &QTcpSocket::disconnected, this, [this] { socketClosed(m_client); });
    connect(m_upstream, &QTcpSocket::disconnected, this, [this] { socketClosed(m_upstream); });
    connect(client, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error != QAbstractSocket::RemoteHostClosedError && m_summary.detail.isEmpty() && m_client)
            m_summary.detail = m_client->errorString();
    });
    connect(m_upstream, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (!m_connected) {
            const QString why = m_upstream ? m_upstream->errorString() : QString();
            Q_EMIT upstreamFailed(QStringLiteral("upstream-refused"), why);
            finish(QStringLiteral("upstream-refused"), why, false);
            return;
        }
        if (error != QAbstractSocket::RemoteHostClosedError && m_summary.detail.isEmpty() && m_upstream)
            m_summary.detail = m_upstream->errorString();
    });
    connect(m_upstream, &QTcpSocket::connected, this, &TcpLink::upstreamConnected);
    m_connectTimer->setSingleShot(true);
    connect(m_connectTimer, &QTimer::timeout, this, [this] {
        const QString why = QStringLiteral("no connection to %1:%2 within %3 ms")
                                .arg(m_settings.upstreamHost)
                                .arg(m_settings.upstreamPort)
                                .arg(m_settings.connectTimeoutMs);
        Q_EMIT upstreamFailed(QStringLiteral("upstream-timeout"), why);
        finish(QStringLiteral("upstream-timeout"), why);
    });
    m_connectTimer->start(m_settings.connectTimeoutMs);
    m_upstream->connectToHost(m_settings.upstreamHost, m_settings.upstreamPort);
    // Bytes already waiting in the client's socket are taken as they would be on arrival.
    QTimer::singleShot(0, m_up, &ToxicPipe::readInput);
}

void TcpLink::sendUpstreamFirst(const QByteArray &bytes)
{
    m_up->inject(bytes);
}

TcpLink::~TcpLink() = default;

void TcpLink::setToxics(const ToxicList &toxics)
{
    m_up->setToxics(toxics);
    m_down->setToxics(toxics);
}

qint64 TcpLink::bufferedBytes() const
{
    return m_up->bufferedBytes() + m_down->bufferedBytes();
}

void TcpLink::upstreamConnected()
{
    m_connectTimer->stop();
    m_connected = true;
    // Not before: a socket that is not connected has no descriptor, and Qt drops the option.
    m_upstream->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    Q_EMIT upstreamReady();
    m_up->release();
    m_down->readInput();
}

void TcpLink::socketClosing(QTcpSocket *socket)
{
    // The other side's data is out (and a slow close waited): close this side.
    if (socket->state() == QAbstractSocket::ConnectedState) {
        socket->disconnectFromHost();
        if (socket->state() != QAbstractSocket::UnconnectedState) {
            QTimer::singleShot(closeGraceMs, socket, [socket] { socket->abort(); });
            return;
        }
    } else {
        socket->abort();
    }
    socketClosed(socket);
}

void TcpLink::socketClosed(QTcpSocket *socket)
{
    if (!socket)
        return;
    const bool client = socket == m_client;
    bool &closed = client ? m_clientClosed : m_upstreamClosed;
    if (closed)
        return;
    closed = true;
    if (m_summary.end.isEmpty() && !m_finished)
        m_summary.end = client ? QStringLiteral("client-closed") : QStringLiteral("upstream-closed");
    // What this side sent still goes to the other side; what waited for this side is lost.
    ToxicPipe *from = client ? m_up : m_down;
    ToxicPipe *to = client ? m_down : m_up;
    to->dropQueued();
    if (!m_finished)
        from->inputEnded();
    maybeDone();
}

void TcpLink::finish(const QString &end, const QString &detail, bool reset)
{
    if (m_finished)
        return;
    m_finished = true;
    m_connectTimer->stop();
    m_summary.end = end;
    if (!detail.isEmpty())
        m_summary.detail = detail;
    for (QTcpSocket *socket : {m_client.data(), m_upstream.data()}) {
        if (!socket)
            continue;
        if (reset)
            SocketControl::reset(socket);
        socketClosing(socket);
    }
    maybeDone();
}

void TcpLink::abortNow(const QString &end)
{
    if (!m_finished) {
        m_finished = true;
        m_summary.end = end;
    }
    m_connectTimer->stop();
    for (QTcpSocket *socket : {m_client.data(), m_upstream.data()}) {
        if (socket) {
            socket->abort();
            socketClosed(socket);
        }
    }
    maybeDone();
}

void TcpLink::maybeDone()
{
    if (!m_clientClosed || !m_upstreamClosed || m_done)
        return;
    m_done = true;
    m_summary.durationMs = double(nowNs() - m_startNs) / 1e6;
    m_summary.bytesUpstream = m_up->passedBytes();
    m_summary.bytesDownstream = m_down->passedBytes();
    m_summary.bytesDropped = m_up->droppedBytes() + m_down->droppedBytes();
    m_summary.toxics = m_up->appliedNames() + m_down->appliedNames();
    Q_EMIT ended(m_summary);
}

} // namespace RetryLab::Core
