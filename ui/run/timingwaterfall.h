#pragma once

#include "core/record/attemptrecord.h"

#include <QList>
#include <QWidget>

namespace RetryLab::Ui {

/// The timing of one attempt as a small waterfall, as a browser's network panel draws
/// it: the wait for a free slot before it started, then blocked, connect, send, wait for
/// the first byte and receive, each a bar on one time axis with its duration. Only what
/// Qt reported is drawn: a reused connection has no connect phase, and Qt reports no
/// first byte for some replies.
class TimingWaterfall final : public QWidget
{
    Q_OBJECT

public:
    enum class Kind { Queued, Blocked, Connect, Send, Wait, Receive, Dns };

    struct Phase
    {
        Kind kind = Kind::Wait;
        QString name;
        double startMs = 0.0; ///< from the attempt's start; the queue wait is before 0
        double lengthMs = 0.0;
        QString explanation; ///< the tooltip: what the phase holds
    };

    /// The phases of an attempt, in order; empty for an attempt without a start.
    static QList<Phase> phasesOf(const Core::AttemptRecord &record);

    explicit TimingWaterfall(QWidget *parent = nullptr);

    void setRecord(const Core::AttemptRecord &record);
    const QList<Phase> &phases() const { return m_phases; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    int rowHeight() const;
    int labelWidth() const;
    QRect barRect(int index) const;

    QList<Phase> m_phases;
};

} // namespace RetryLab::Ui
