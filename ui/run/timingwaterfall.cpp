#include "ui/run/timingwaterfall.h"

#include "core/export/harexport.h"
#include "core/util/durationtext.h"
#include "ui/widgets/outcomestyle.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace RetryLab::Ui {

namespace {

// One hue per phase, made readable on the palette's background when painted.
QColor phaseColor(TimingWaterfall::Kind kind)
{
    static const QColor colours[] = {
        QColor(0x9e, 0x9e, 0x9e), // queued
        QColor(0x8d, 0x9d, 0xb5), // blocked
        QColor(0xf0, 0x9a, 0x2e), // connect
        QColor(0x4c, 0xaf, 0x50), // send
        QColor(0x42, 0x8b, 0xe6), // wait
        QColor(0x26, 0xa6, 0x9a), // receive
        QColor(0xab, 0x6f, 0xc9), // dns
    };
    return colours[std::clamp(int(kind), 0, 6)];
}

} // namespace

QList<TimingWaterfall::Phase> TimingWaterfall::phasesOf(const Core::AttemptRecord &record)
{
    QList<Phase> phases;
    if (record.startNs < 0)
        return phases;
    if (record.queuedNs > 0) {
        const double queued = double(record.queuedNs) / 1e6;
        phases.append({Kind::Queued, tr("Queued"), -queued, queued,
            tr("Waiting for a free slot (the concurrency limit) before the attempt started")});
    }
    // The same phases a HAR export writes, so that the two never disagree.
    const Core::HarExport::Timings t = Core::HarExport::timingsOf(record);
    double at = 0.0;
    const auto add = [&](Kind kind, const QString &name, double length, const QString &explanation) {
        if (length < 0.0)
            return; // not reported
        if (length > 0.0)
            phases.append({kind, name, at, length, explanation});
        at += length;
    };
    // RetryLab looks the name up before Qt gets the request: the lookup comes first.
    add(Kind::Dns, tr("DNS"), t.dns, tr("The name lookup RetryLab made before handing the request to Qt"));
    add(Kind::Blocked, tr("Blocked"), t.blocked, tr("Until the socket started to connect (Qt's own queue)"));
    add(Kind::Connect, tr("Connect"), t.connect,
        tr("Connecting: TCP, and the TLS handshake over HTTPS (Qt reports no instant in between); in a "
           "record without the lookup's times, the lookup and the sending too"));
    add(Kind::Send, tr("Send"), t.send, tr("Sending the request on a connection that was already open"));
    add(Kind::Wait, tr("Wait"), t.wait, tr("Waiting for the response's first byte"));
    add(Kind::Receive, tr("Receive"), t.receive, tr("From the first byte to the end of the attempt"));
    return phases;
}

TimingWaterfall::TimingWaterfall(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("timingWaterfall"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void TimingWaterfall::setRecord(const Core::AttemptRecord &record)
{
    m_phases = phasesOf(record);
    updateGeometry();
    update();
}

int TimingWaterfall::rowHeight() const
{
    return fontMetrics().height() + 6;
}

int TimingWaterfall::labelWidth() const
{
    return fontMetrics().horizontalAdvance(tr("Receive")) + 16;
}

QSize TimingWaterfall::sizeHint() const
{
    return {fontMetrics().horizontalAdvance(QLatin1Char('x')) * 60,
        rowHeight() * int(std::max<qsizetype>(1, m_phases.size())) + 4};
}

QSize TimingWaterfall::minimumSizeHint() const
{
    return {labelWidth() + fontMetrics().horizontalAdvance(QStringLiteral("888.8 ms")) * 2, sizeHint().height()};
}

QRect TimingWaterfall::barRect(int index) const
{
    if (index < 0 || index >= m_phases.size())
        return {};
    const double first = m_phases.constFirst().startMs;
    double last = first;
    for (const Phase &p : m_phases)
        last = std::max(last, p.startMs + p.lengthMs);
    const double span = std::max(last - first, 1e-3);
    const int valueWidth = fontMetrics().horizontalAdvance(QStringLiteral("8888.88 ms")) + 8;
    const int left = labelWidth();
    const int width = std::max(20, this->width() - left - valueWidth);
    const Phase &p = m_phases.at(index);
    const int x0 = left + int(std::floor((p.startMs - first) / span * width));
    const int x1 = left + int(std::ceil((p.startMs + p.lengthMs - first) / span * width));
    const int y = 2 + index * rowHeight();
    return QRect(x0, y + 3, std::max(2, x1 - x0), rowHeight() - 6);
}

void TimingWaterfall::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QColor background = palette().color(QPalette::Base);
    if (m_phases.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignLeft | Qt::AlignVCenter, tr("No timing: the attempt never started"));
        return;
    }
    for (int i = 0; i < m_phases.size(); ++i) {
        const Phase &phase = m_phases.at(i);
        const int y = 2 + i * rowHeight();
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(0, y, labelWidth() - 8, rowHeight()), Qt::AlignLeft | Qt::AlignVCenter, phase.name);
        const QRect bar = barRect(i);
        p.fillRect(bar, readableOn(phaseColor(phase.kind), background, 2.0));
        p.drawText(QRect(bar.right() + 6, y, width() - bar.right() - 6, rowHeight()), Qt::AlignLeft | Qt::AlignVCenter,
            Core::DurationText::format(phase.lengthMs));
    }
}

bool TimingWaterfall::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const int row = (help->pos().y() - 2) / rowHeight();
        if (row >= 0 && row < m_phases.size()) {
            const Phase &phase = m_phases.at(row);
            QToolTip::showText(help->globalPos(),
                tr("%1: %2 (from %3 to %4 ms of the attempt)\n%5")
                    .arg(phase.name, Core::DurationText::format(phase.lengthMs))
                    .arg(phase.startMs, 0, 'f', 2)
                    .arg(phase.startMs + phase.lengthMs, 0, 'f', 2)
                    .arg(phase.explanation),
                this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace RetryLab::Ui
