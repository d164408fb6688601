#include "ui/widgets/unitspinbox.h"

#include <QFontMetrics>
#include <QLineEdit>
#include <QStyle>
#include <QStyleOptionSpinBox>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

UnitSpinBox::UnitSpinBox(double scale, const QString &unit, int decimals, QWidget *parent)
    : QDoubleSpinBox(parent), m_scale(scale)
{
    setDecimals(decimals);
    setRange(-typedLimit(), typedLimit());
    if (!unit.isEmpty())
        setSuffix(QLatin1Char(' ') + unit);
    setAccelerated(true);
    setCorrectionMode(QAbstractSpinBox::CorrectToPreviousValue);
    // Shown decimals plus the scale's own: 2 decimals of percent are 4 of a fraction.
    const int storedDecimals = std::max(0, decimals - static_cast<int>(std::lround(std::log10(scale))));
    m_storedPrecision = std::pow(10.0, storedDecimals);
    connect(this, &QDoubleSpinBox::valueChanged, this,
        [this](double shown) { Q_EMIT storedValueChanged(toStored(shown)); });
}

double UnitSpinBox::toStored(double shown) const
{
    return std::round(shown * m_scale * m_storedPrecision) / m_storedPrecision;
}

void UnitSpinBox::setStoredValue(double stored)
{
    setValue(std::isfinite(stored) ? stored / m_scale : 0.0);
}

// Trailing zeros say nothing here: "1.5 s" reads better than "1.500 s".
QString UnitSpinBox::textFromValue(double value) const
{
    QString text = locale().toString(value, 'f', decimals());
    const QChar point = locale().decimalPoint().front();
    if (text.contains(point)) {
        while (text.endsWith(QLatin1Char('0')))
            text.chop(1);
        if (text.endsWith(point))
            text.chop(1);
    }
    if (!isGroupSeparatorShown())
        text.remove(locale().groupSeparator());
    return text;
}

// The default size hint measures the range's extremes (a dozen digits); size
// for a typical value instead and let the layout give more room when there is some.
QSize UnitSpinBox::sizeHint() const
{
    ensurePolished();
    const QFontMetrics metrics(font());
    const QString sample = QStringLiteral("000000.000") + suffix();
    const int textWidth = metrics.horizontalAdvance(sample) + 4;
    QStyleOptionSpinBox option;
    initStyleOption(&option);
    const QSize content(textWidth, lineEdit()->sizeHint().height());
    return style()->sizeFromContents(QStyle::CT_SpinBox, &option, content, this);
}

QSize UnitSpinBox::minimumSizeHint() const
{
    const QSize hint = sizeHint();
    return {hint.width() * 3 / 4, hint.height()};
}

} // namespace RetryLab::Ui
