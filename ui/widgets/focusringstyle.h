#pragma once

#include <QProxyStyle>

class QPalette;

namespace RetryLab::Ui {

/// The application's style with a focus ring that can be seen: a two-pixel ring in
/// the palette's highlight colour around the widget that has the keyboard focus,
/// where the plain style draws a faint one-pixel tint or nothing (tool buttons).
///
/// Line edits, spin boxes, combo boxes, buttons and tool buttons get the ring when
/// the focus came from the keyboard (Tab, Backtab, a shortcut: what
/// QStyle::State_KeyboardFocusChange says), so that a click does not leave a ring
/// behind; so does the focus rectangle of check boxes, radio buttons, tabs and the
/// current cell of a table (the plain one after a click).
class FocusRingStyle final : public QProxyStyle
{
    Q_OBJECT

public:
    static constexpr int ringWidth = 2;

    /// Wraps `base` (owned; the application's kind of style when null).
    explicit FocusRingStyle(QStyle *base = nullptr);

    /// Makes the application's style a FocusRingStyle around the current one
    /// (further calls do nothing). A mouse press in a window then clears its
    /// Qt::WA_KeyboardFocusChange, which Qt sets on Tab and never clears itself.
    static void install();
    /// Whether `option` describes a widget that has the focus from the keyboard.
    static bool wantsRing(const QStyleOption *option);
    /// The ring inside `rect`.
    static void drawRing(QPainter *painter, const QRect &rect, const QPalette &palette);

    void drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter,
        const QWidget *widget = nullptr) const override;
    void drawComplexControl(ComplexControl control, const QStyleOptionComplex *option, QPainter *painter,
        const QWidget *widget = nullptr) const override;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
};

} // namespace RetryLab::Ui
