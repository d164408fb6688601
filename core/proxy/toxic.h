#pragma once

#include "core/util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace RetryLab::Core {

/// A byte-level fault of a TCP proxy (TcpProxy), in the manner of toxiproxy's
/// toxics and with their names, JSON shape and units, so that a test suite
/// written against toxiproxy drives RetryLab unchanged:
///
///     {"name": "latency_downstream", "type": "latency", "stream": "downstream",
///      "toxicity": 1.0, "attributes": {"latency": 1000, "jitter": 100}}
///
/// Types and their attributes:
///   latency      latency (ms), jitter (ms): each chunk waits latency +- jitter
///   bandwidth    rate (KB/s): bytes pass at this rate at most
///   slow_close   delay (ms): the close waits this long after the data
///   timeout      timeout (ms): no data passes; the connection closes after
///                this long (0: it never closes, the data is dropped)
///   reset_peer   timeout (ms): the connection is reset (RST) after this long
///   slicer       average_size, size_variation (bytes), delay (microseconds):
///                data goes out in small writes with a delay between them
///   limit_data   bytes: the connection closes once this many have passed
/// `stream` is the direction: "upstream" (client to server) or "downstream"
/// (server to client, the default). `toxicity` is the probability (0-1) that
/// the toxic applies to a connection, drawn once per connection.
///
/// On the command line the same toxic is one line, the type first:
///     latency latency=1000 jitter=100 stream=downstream toxicity=0.5 name=slow
struct Toxic
{
    enum class Type { Latency, Bandwidth, SlowClose, Timeout, ResetPeer, Slicer, LimitData };
    enum class Stream { Upstream, Downstream };

    QString name; ///< unique within a proxy; "<type>_<stream>" when not given
    Type type = Type::Latency;
    Stream stream = Stream::Downstream;
    double toxicity = 1.0;

    qint64 latencyMs = 0; ///< latency
    qint64 jitterMs = 0; ///< latency
    qint64 rateKBps = 0; ///< bandwidth, KB (1000 bytes) per second as toxiproxy counts
    qint64 delayMs = 0; ///< slow_close
    qint64 timeoutMs = 0; ///< timeout, reset_peer
    qint64 averageSize = 0; ///< slicer
    qint64 sizeVariation = 0; ///< slicer
    qint64 delayUs = 0; ///< slicer
    qint64 bytes = 0; ///< limit_data

    /// Longest wait any attribute may ask for: a day.
    static constexpr qint64 maxMs = 86'400'000;

    /// "latency", "slow_close", ... as toxiproxy spells them.
    static QString typeName(Type type);
    static QString streamName(Stream stream);
    static QStringList typeNames();

    /// The toxic in words: "1000 ms +- 100 ms latency downstream, to 50 % of connections".
    QString describe() const;

    /// toxiproxy's JSON shape.
    QJsonObject toJson() const;
    /// Reads a toxic as toxiproxy's API takes it: type required, the rest
    /// defaulted (name "<type>_<stream>", stream downstream, toxicity 1);
    /// unknown attributes are refused, naming them. Errors name the field.
    static Result<Toxic> fromJson(const QJsonObject &object);
    /// Changes what an update (POST /proxies/{p}/toxics/{t}) names: toxicity,
    /// stream and attributes; the type and name stay.
    Result<void> update(const QJsonObject &object);
    /// Reads a command-line toxic: "latency latency=1000 jitter=100 stream=up".
    static Result<Toxic> parse(const QString &spec);

    bool operator==(const Toxic &) const = default;
};

using ToxicList = QList<Toxic>;

} // namespace RetryLab::Core
