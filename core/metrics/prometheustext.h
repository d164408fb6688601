#pragma once

#include <QByteArray>
#include <QString>
#include <QStringView>

namespace RetryLab::Core::PrometheusText {

/// The Content-Type of Prometheus's text exposition format, version 0.0.4.
inline constexpr char contentType[] = "text/plain; version=0.0.4; charset=utf-8";

/// A sample value or a bucket bound as Prometheus reads it (Go's ParseFloat):
/// "NaN", "+Inf", "-Inf", whole numbers up to 2^53 without a fraction or an
/// exponent ("1798761600"), the rest in the shortest text that reads back to
/// the same double ("0.005", "1.5e-07").
QByteArray number(double value);

/// A label value between its double quotes: UTF-8, with backslash, double
/// quote and line feed escaped (\\, \", \n).
QByteArray labelValue(QStringView value);

/// A HELP text: UTF-8, with backslash and line feed escaped (\\, \n).
QByteArray help(QStringView text);

/// Whether `name` is a valid metric name: [a-zA-Z_:][a-zA-Z0-9_:]*.
bool isMetricName(QStringView name);

/// Whether `name` is a valid label name: [a-zA-Z_][a-zA-Z0-9_]*, and not one
/// Prometheus reserves for itself (starting with "__").
bool isLabelName(QStringView name);

} // namespace RetryLab::Core::PrometheusText
