#pragma once

#include "core/proxy/tcplinksummary.h"
#include "core/proxy/toxic.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QRandomGenerator64>

#include <deque>
#include <memory>

QT_BEGIN_NAMESPACE
class QTcpSocket;
class QTimer;
QT_END_NAMESPACE

namespace RetryLab::Core {

class TcpLink;

/// Where a TcpLink connects and what it may hold.
struct TcpLinkSettings
{
    QString proxyName; ///< for its summary
    QString upstreamHost;
    quint16 upstreamPort = 0;
    /// Bytes one direction holds before it stops reading from its sender.
    qint64 maxBufferedBytes = 1024 * 1024;
    int connectTimeoutMs = 10'000;
};

/// One direction of a TcpLink: reads from one socket, puts the bytes through
/// the toxics of its stream, and writes them to the other socket when their
/// time comes, in order.
class ToxicPipe final : public QObject
{
    Q_OBJECT

public:
    ToxicPipe(TcpLink *link, Toxic::Stream stream, QRandomGenerator64 *random);

    void setSockets(QTcpSocket *in, QTcpSocket *out);
    /// Keeps the state of toxics that stay, draws whether new ones apply, drops removed ones.
    void setToxics(const ToxicList &toxics);
    /// Reads what the input has, while there is room.
    void readInput();
    /// Takes bytes as if read from the input.
    void inject(const QByteArray &bytes);
    /// Writes what is due; schedules the rest.
    void release();
    /// The input closed: pass on what is queued, then close the output (after a slow close).
    void inputEnded();
    qint64 bufferedBytes() const { return m_queuedBytes; }
    qint64 passedBytes() const { return m_passed; }
    qint64 droppedBytes() const { return m_dropped; }
    /// Names of the toxics that applied to this direction at some point.
    const QStringList &appliedNames() const { return m_applied; }
    bool isDrained() const { return m_queue.empty(); }
    /// The output is gone: what waited for it is dropped, and nothing more is read.
    void dropQueued();

private:
    struct Segment
    {
        QByteArray bytes;
        qint64 readyNs = 0;
    };
    struct Active
    {
        Toxic toxic;
        bool applies = false;
        qint64 counted = 0; ///< limit_data: bytes passed since it applied
        qint64 nextFreeNs = 0; ///< bandwidth: when the link is free again
        QTimer *timer = nullptr; ///< timeout, reset_peer
    };
    void startTimer(Active &active);
    std::deque<Segment> transform(QByteArray bytes, qint64 nowNs);
    void enqueue(std::deque<Segment> segments);
    /// No toxic applies and nothing is queued: bytes may skip the queue.
    bool passesStraight() const;
    void passOn(const QByteArray &bytes);
    void closeOutput();

    TcpLink *m_link;
    Toxic::Stream m_stream;
    QRandomGenerator64 *m_random;
    QPointer<QTcpSocket> m_in;
    QPointer<QTcpSocket> m_out;
    std::vector<std::unique_ptr<Active>> m_toxics;
    std::deque<Segment> m_queue;
    qint64 m_queuedBytes = 0;
    qint64 m_lastReadyNs = 0;
    qint64 m_passed = 0;
    qint64 m_dropped = 0;
    QTimer *m_releaseTimer;
    bool m_inputEnded = false;
    bool m_closeAfterDrain = false; ///< limit_data reached: the link closes once the queue is out
    bool m_closing = false;
    QStringList m_applied;
};

/// One connection through a TcpProxy (or a CONNECT tunnel of the forward
/// proxy): the client's socket, which it takes over, the upstream's, and a
/// ToxicPipe each way. It reports its end once (ended()); its owner deletes it.
class TcpLink final : public QObject
{
    Q_OBJECT

public:
    TcpLink(QObject *parent, QTcpSocket *client, const TcpLinkSettings &settings, quint64 id, quint64 seed,
        const ToxicList &toxics);
    ~TcpLink() override;

    /// Bytes the client sent before the link took it over, to go upstream first.
    void sendUpstreamFirst(const QByteArray &bytes);
    const TcpLinkSettings &settings() const { return m_settings; }

    void setToxics(const ToxicList &toxics);
    /// Ends the connection: both sides closed (FIN), or reset (RST).
    void finish(const QString &end, const QString &detail = {}, bool reset = false);
    /// Drops both sockets at once and reports the link ended (the proxy is closing).
    void abortNow(const QString &end);
    qint64 bufferedBytes() const;
    quint64 id() const { return m_id; }

Q_SIGNALS:
    /// The upstream accepted the connection; bytes flow from now on.
    void upstreamReady();
    /// The upstream could not be reached (`end` "upstream-refused" or
    /// "upstream-timeout"), before the client's side is closed.
    void upstreamFailed(const QString &end, const QString &detail);
    void ended(const RetryLab::Core::TcpLinkSummary &summary);

private:
    friend class ToxicPipe;
    void upstreamConnected();
    /// Closes one side once what was due to it is out (after a slow close).
    void socketClosing(QTcpSocket *socket);
    void socketClosed(QTcpSocket *socket);
    void maybeDone();

    TcpLinkSettings m_settings;
    quint64 m_id;
    QRandomGenerator64 m_random;
    QPointer<QTcpSocket> m_client;
    QPointer<QTcpSocket> m_upstream;
    ToxicPipe *m_up;
    ToxicPipe *m_down;
    QTimer *m_connectTimer;
    TcpLinkSummary m_summary;
    qint64 m_startNs = 0;
    bool m_finished = false;
    bool m_connected = false;
    bool m_clientClosed = false;
    bool m_upstreamClosed = false;
    bool m_done = false;
};

} // namespace RetryLab::Core
