#pragma once

#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>

namespace RetryLab::Core {

/// Counters, gauges and histograms in families, as Prometheus groups them: a
/// family has a name, a HELP text, a type and label names; each set of label
/// values is one series of it. exposition() renders them all in the text
/// exposition format, version 0.0.4.
///
/// Thread-safe: the monitor engine updates it from its thread while the
/// metrics server renders it on another; every call takes one mutex.
///
/// Label values are given in the order of the family's label names, so that a
/// label added later (say "agent") is one more name at declaration and one more
/// value at each update. A series comes into being at its first update; a
/// family without labels has its one series from the start (at 0). Families
/// render sorted by name and series by their label values, so that the text is
/// the same for the same figures; a family with labels and no series yet is
/// left out (there is nothing to say about it).
///
/// Updates that do not fit the family (unknown name, another type, the wrong
/// number of label values, a negative or NaN counter increment, a NaN
/// observation) change nothing and return false: they are the caller's bug,
/// and a warning in retrylab.core.metricsregistry names it.
class MetricsRegistry final
{
public:
    enum class Type { Counter, Gauge, Histogram };

    MetricsRegistry() = default;
    MetricsRegistry(const MetricsRegistry &) = delete;
    MetricsRegistry &operator=(const MetricsRegistry &) = delete;

    /// Declares a family. Fails on an invalid metric or label name, a name
    /// declared already, a label named twice, and for histograms on a label
    /// named "le" or bucket bounds that are not finite and strictly
    /// increasing (the +Inf bucket is always there and is not given).
    Result<void> addCounter(const QString &name, const QString &help, const QStringList &labelNames = {});
    Result<void> addGauge(const QString &name, const QString &help, const QStringList &labelNames = {});
    Result<void> addHistogram(
        const QString &name, const QString &help, const QStringList &labelNames, const QList<double> &bucketBounds);

    /// Adds `by` (0 or more; 0 only makes the series exist) to a counter.
    bool increment(const QString &name, const QStringList &labelValues, double by = 1.0);
    /// Sets a gauge (any value, NaN and infinities included).
    bool set(const QString &name, const QStringList &labelValues, double value);
    /// Adds one observation to a histogram.
    bool observe(const QString &name, const QStringList &labelValues, double value);

    /// Forgets one series; false when there was none. The one series of a
    /// family without labels stays.
    bool removeSeries(const QString &name, const QStringList &labelValues);
    /// Forgets, in every family, each series whose label `labelName` has the
    /// value `labelValue` (a monitor deleted: labelName "monitor"); how many.
    int removeSeriesWith(const QString &labelName, const QString &labelValue);

    /// A counter's or gauge's value; nothing for an unknown series or a histogram.
    std::optional<double> value(const QString &name, const QStringList &labelValues) const;
    /// How many series the family holds (0 for an unknown name).
    int seriesCount(const QString &name) const;

    /// Every family in the text exposition format, version 0.0.4
    /// (PrometheusText::contentType).
    QByteArray exposition() const;

private:
    struct Series
    {
        double value = 0; ///< counter or gauge
        QList<quint64> buckets; ///< histogram: observations per bucket, not cumulative; the last is +Inf's
        double sum = 0;
        quint64 count = 0;
    };
    struct LabelValuesLess
    {
        bool operator()(const QStringList &a, const QStringList &b) const;
    };
    struct Family
    {
        Type type = Type::Counter;
        QString help;
        QStringList labelNames;
        QList<double> bounds; ///< histogram bucket upper bounds, +Inf left out
        std::map<QStringList, Series, LabelValuesLess> series;
    };

    Result<void> add(Type type, const QString &name, const QString &help, const QStringList &labelNames,
        const QList<double> &bounds);
    /// The series an update goes to, made when new; nullptr (with a warning)
    /// when the update does not fit.
    Series *seriesFor(const QString &name, Type type, const QStringList &labelValues);
    static void render(QByteArray &out, const QString &name, const Family &family);

    mutable QMutex m_mutex;
    std::map<QString, Family> m_families; ///< sorted by name: the order of the exposition
};

} // namespace RetryLab::Core
