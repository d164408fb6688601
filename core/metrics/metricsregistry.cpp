#include "core/metrics/metricsregistry.h"

#include "core/metrics/prometheustext.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>
#include <QMutexLocker>
#include <QSet>

#include <cmath>

Q_LOGGING_CATEGORY(lcMetricsRegistry, "retrylab.core.metricsregistry")

namespace RetryLab::Core {

namespace {

const char *typeName(MetricsRegistry::Type type)
{
    switch (type) {
    case MetricsRegistry::Type::Counter:
        return "counter";
    case MetricsRegistry::Type::Gauge:
        return "gauge";
    case MetricsRegistry::Type::Histogram:
        return "histogram";
    }
    return "untyped";
}

/// `{a="x",b="y"` without the closing brace, so that a histogram's bucket can
/// add its le label; empty when there are no labels.
QByteArray openLabels(const QStringList &names, const QStringList &values)
{
    QByteArray out;
    for (qsizetype i = 0; i < names.size(); ++i) {
        out += i == 0 ? '{' : ',';
        out += names.at(i).toUtf8();
        out += "=\"";
        out += PrometheusText::labelValue(values.at(i));
        out += '"';
    }
    return out;
}

QByteArray closedLabels(const QStringList &names, const QStringList &values)
{
    QByteArray out = openLabels(names, values);
    if (!out.isEmpty())
        out += '}';
    return out;
}

} // namespace

bool MetricsRegistry::LabelValuesLess::operator()(const QStringList &a, const QStringList &b) const
{
    return std::lexicographical_compare(a.cbegin(), a.cend(), b.cbegin(), b.cend());
}

Result<void> MetricsRegistry::addCounter(const QString &name, const QString &help, const QStringList &labelNames)
{
    return add(Type::Counter, name, help, labelNames, {});
}

Result<void> MetricsRegistry::addGauge(const QString &name, const QString &help, const QStringList &labelNames)
{
    return add(Type::Gauge, name, help, labelNames, {});
}

Result<void> MetricsRegistry::addHistogram(
    const QString &name, const QString &help, const QStringList &labelNames, const QList<double> &bucketBounds)
{
    return add(Type::Histogram, name, help, labelNames, bucketBounds);
}

Result<void> MetricsRegistry::add(
    Type type, const QString &name, const QString &help, const QStringList &labelNames, const QList<double> &bounds)
{
    using Added = Result<void>;
    if (!PrometheusText::isMetricName(name))
        return Added::failure(name, Tr::tr("not a valid metric name: use letters, digits, '_' and ':'"));
    QSet<QString> seen;
    for (const QString &label : labelNames) {
        if (!PrometheusText::isLabelName(label)) {
            return Added::failure(name,
                Tr::tr("\"%1\" is not a valid label name: use letters, digits and '_', not starting with \"__\"")
                    .arg(label));
        }
        if (seen.contains(label))
            return Added::failure(name, Tr::tr("the label \"%1\" is named twice").arg(label));
        seen.insert(label);
    }
    if (type == Type::Histogram) {
        if (seen.contains(QStringLiteral("le")))
            return Added::failure(name, Tr::tr("a histogram cannot have a label named \"le\": its buckets use it"));
        for (qsizetype i = 0; i < bounds.size(); ++i) {
            if (!std::isfinite(bounds.at(i)) || (i > 0 && bounds.at(i) <= bounds.at(i - 1))) {
                return Added::failure(
                    name, Tr::tr("bucket bounds must be finite and strictly increasing (the +Inf bucket is implied)"));
            }
        }
    }

    const QMutexLocker lock(&m_mutex);
    if (m_families.count(name) != 0)
        return Added::failure(name, Tr::tr("this metric is declared already"));
    Family family;
    family.type = type;
    family.help = help;
    family.labelNames = labelNames;
    if (type == Type::Histogram)
        family.bounds = bounds;
    if (labelNames.isEmpty()) {
        Series &only = family.series[QStringList()];
        if (type == Type::Histogram)
            only.buckets.fill(0, bounds.size() + 1);
    }
    m_families.emplace(name, std::move(family));
    return {};
}

MetricsRegistry::Series *MetricsRegistry::seriesFor(const QString &name, Type type, const QStringList &labelValues)
{
    const auto it = m_families.find(name);
    if (it == m_families.end()) {
        qCWarning(lcMetricsRegistry) << "no metric" << name << "is declared";
        return nullptr;
    }
    Family &family = it->second;
    if (family.type != type) {
        qCWarning(lcMetricsRegistry) << name << "is a" << typeName(family.type) << "not a" << typeName(type);
        return nullptr;
    }
    if (labelValues.size() != family.labelNames.size()) {
        qCWarning(lcMetricsRegistry) << name << "takes the labels" << family.labelNames << "but got" << labelValues;
        return nullptr;
    }
    const auto [series, inserted] = family.series.try_emplace(labelValues);
    if (inserted && type == Type::Histogram)
        series->second.buckets.fill(0, family.bounds.size() + 1);
    return &series->second;
}

bool MetricsRegistry::increment(const QString &name, const QStringList &labelValues, double by)
{
    if (!(by >= 0) || std::isinf(by)) {
        qCWarning(lcMetricsRegistry) << "a counter only goes up by a finite amount; not by" << by << "for" << name;
        return false;
    }
    const QMutexLocker lock(&m_mutex);
    Series *series = seriesFor(name, Type::Counter, labelValues);
    if (!series)
        return false;
    series->value += by;
    return true;
}

bool MetricsRegistry::set(const QString &name, const QStringList &labelValues, double value)
{
    const QMutexLocker lock(&m_mutex);
    Series *series = seriesFor(name, Type::Gauge, labelValues);
    if (!series)
        return false;
    series->value = value;
    return true;
}

bool MetricsRegistry::observe(const QString &name, const QStringList &labelValues, double value)
{
    if (std::isnan(value)) {
        qCWarning(lcMetricsRegistry) << "a NaN observation for" << name << "is dropped";
        return false;
    }
    const QMutexLocker lock(&m_mutex);
    Series *series = seriesFor(name, Type::Histogram, labelValues);
    if (!series)
        return false;
    const QList<double> &bounds = m_families.at(name).bounds;
    // The first bucket whose bound is at least the value; past the last, +Inf's.
    const auto bucket = std::lower_bound(bounds.cbegin(), bounds.cend(), value) - bounds.cbegin();
    ++series->buckets[bucket];
    series->sum += value;
    ++series->count;
    return true;
}

bool MetricsRegistry::removeSeries(const QString &name, const QStringList &labelValues)
{
    const QMutexLocker lock(&m_mutex);
    const auto it = m_families.find(name);
    if (it == m_families.end() || it->second.labelNames.isEmpty())
        return false;
    return it->second.series.erase(labelValues) > 0;
}

int MetricsRegistry::removeSeriesWith(const QString &labelName, const QString &labelValue)
{
    const QMutexLocker lock(&m_mutex);
    int removed = 0;
    for (auto &[name, family] : m_families) {
        const qsizetype index = family.labelNames.indexOf(labelName);
        if (index < 0)
            continue;
        removed += int(
            std::erase_if(family.series, [&](const auto &entry) { return entry.first.at(index) == labelValue; }));
    }
    return removed;
}

std::optional<double> MetricsRegistry::value(const QString &name, const QStringList &labelValues) const
{
    const QMutexLocker lock(&m_mutex);
    const auto family = m_families.find(name);
    if (family == m_families.end() || family->second.type == Type::Histogram)
        return std::nullopt;
    const auto series = family->second.series.find(labelValues);
    if (series == family->second.series.end())
        return std::nullopt;
    return series->second.value;
}

int MetricsRegistry::seriesCount(const QString &name) const
{
    const QMutexLocker lock(&m_mutex);
    const auto family = m_families.find(name);
    return family == m_families.end() ? 0 : int(family->second.series.size());
}

QByteArray MetricsRegistry::exposition() const
{
    QByteArray out;
    const QMutexLocker lock(&m_mutex);
    for (const auto &[name, family] : m_families) {
        if (!family.series.empty())
            render(out, name, family);
    }
    return out;
}

void MetricsRegistry::render(QByteArray &out, const QString &name, const Family &family)
{
    const QByteArray metric = name.toUtf8();
    out += "# HELP " + metric + ' ' + PrometheusText::help(family.help) + '\n';
    out += "# TYPE " + metric + ' ' + typeName(family.type) + '\n';
    for (const auto &[labelValues, series] : family.series) {
        if (family.type != Type::Histogram) {
            out += metric + closedLabels(family.labelNames, labelValues) + ' ' + PrometheusText::number(series.value)
                + '\n';
            continue;
        }
        const QByteArray labels = openLabels(family.labelNames, labelValues);
        const QByteArray bucketPrefix
            = metric + "_bucket" + (labels.isEmpty() ? QByteArray("{") : QByteArray(labels + ','));
        quint64 cumulative = 0;
        for (qsizetype i = 0; i < series.buckets.size(); ++i) {
            cumulative += series.buckets.at(i);
            const QByteArray bound
                = i < family.bounds.size() ? PrometheusText::number(family.bounds.at(i)) : QByteArray("+Inf");
            out += bucketPrefix + "le=\"" + bound + "\"} " + QByteArray::number(cumulative) + '\n';
        }
        const QByteArray closed = labels.isEmpty() ? QByteArray() : QByteArray(labels + '}');
        out += metric + "_sum" + closed + ' ' + PrometheusText::number(series.sum) + '\n';
        out += metric + "_count" + closed + ' ' + QByteArray::number(series.count) + '\n';
    }
}

} // namespace RetryLab::Core
