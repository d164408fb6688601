#pragma once

#include <QLayout>
#include <QList>

namespace RetryLab::Ui {

/// Lays widgets out left to right and wraps them onto further rows when the width
/// runs out, like words in a paragraph: a row of buttons then never sets the
/// minimum width of a dock or a window, it takes another line instead. Its
/// minimum width is that of its widest item; its height follows the width given.
class FlowLayout final : public QLayout
{
public:
    explicit FlowLayout(QWidget *parent = nullptr, int horizontalSpacing = 4, int verticalSpacing = 4);
    ~FlowLayout() override;

    void addItem(QLayoutItem *item) override;
    int count() const override;
    QLayoutItem *itemAt(int index) const override;
    QLayoutItem *takeAt(int index) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;
    QSize minimumSize() const override;
    QSize sizeHint() const override;
    void setGeometry(const QRect &rect) override;

    /// How many rows the items take at `width` (for tests and for callers that
    /// size around it).
    int rowsAt(int width) const;

private:
    /// Places the items in `rect` (only measures when `place` is false); returns the
    /// height used and, through `rows`, how many rows.
    int arrange(const QRect &rect, bool place, int *rows = nullptr) const;

    QList<QLayoutItem *> m_items;
    int m_horizontalSpacing;
    int m_verticalSpacing;
};

} // namespace RetryLab::Ui
