#pragma once

#include <QDoubleSpinBox>

namespace RetryLab::Ui {

/// A number field that stores one unit and shows another: a policy keeps
/// milliseconds and fractions, a person reads seconds and percent. The range is
/// deliberately wide so that a mistyped value reaches validation and gets a
/// message there, instead of being silently clamped by the widget.
class UnitSpinBox final : public QDoubleSpinBox
{
    Q_OBJECT

public:
    /// `scale` is how many stored units one shown unit is (1000 for ms shown
    /// as s, 0.01 for a fraction shown as percent).
    UnitSpinBox(double scale, const QString &unit, int decimals, QWidget *parent = nullptr);

    /// The widget's own range, ±1e300 unless a caller narrows it: digits typed
    /// beyond a sensible value are kept, so that validation names the value, rather
    /// than dropped by the widget without a word.
    static constexpr double typedLimit() { return 1e300; }

    double scale() const { return m_scale; }
    /// The value in stored units (e.g. milliseconds), to the precision shown:
    /// 35 % is 0.35, not 0.35000000000000003.
    double storedValue() const { return toStored(value()); }
    void setStoredValue(double stored);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    /// Emitted when the shown value changes, in stored units.
    void storedValueChanged(double stored);

protected:
    QString textFromValue(double value) const override;

private:
    double toStored(double shown) const;

    double m_scale = 1.0;
    double m_storedPrecision = 1.0; ///< 10^(decimals that the stored value can have)
};

} // namespace RetryLab::Ui
