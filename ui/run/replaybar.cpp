#include "ui/run/replaybar.h"

#include "core/util/durationtext.h"
#include "ui/session/run/runreplay.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSlider>
#include <QStyle>
#include <QToolButton>

#include <cmath>

namespace RetryLab::Ui {

namespace {

constexpr int sliderSteps = 1000;

} // namespace

QList<double> ReplayBar::speeds()
{
    return {0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0};
}

ReplayBar::ReplayBar(QWidget *parent)
    : QWidget(parent), m_play(new QToolButton(this)), m_speed(new QComboBox(this)),
      m_position(new QSlider(Qt::Horizontal, this)), m_time(new QLabel(this))
{
    setObjectName(QStringLiteral("replayBar"));
    m_play->setObjectName(QStringLiteral("replayPlay"));
    m_play->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_play->setFocusPolicy(Qt::StrongFocus);
    m_speed->setObjectName(QStringLiteral("replaySpeed"));
    m_speed->setToolTip(tr("How fast the run plays back: 0.1\u00d7 narrates a five-second run in fifty"));
    for (double speed : speeds())
        m_speed->addItem(tr("%1\u00d7").arg(QLocale().toString(speed)), speed);
    m_speed->setCurrentIndex(int(speeds().indexOf(1.0)));
    m_position->setObjectName(QStringLiteral("replayPosition"));
    m_position->setRange(0, sliderSteps);
    m_position->setToolTip(tr("Where the replay is; drag to show the run as it was at that moment"));
    m_time->setObjectName(QStringLiteral("replayTime"));
    m_time->setToolTip(tr("Run time at the playhead. Stretches of more than a second where no request was running "
                          "are not played: the replay jumps to just before the next attempt."));
    auto *speedLabel = new QLabel(tr("Spee&d:"), this);
    speedLabel->setBuddy(m_speed);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_play);
    layout->addWidget(speedLabel);
    layout->addWidget(m_speed);
    layout->addWidget(m_position, 1);
    layout->addWidget(m_time);

    connect(m_play, &QToolButton::clicked, this, [this] {
        if (!m_replay)
            return;
        if (m_replay->isPlaying())
            m_replay->pause();
        else
            m_replay->play();
    });
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this] {
        if (m_replay)
            m_replay->setSpeed(m_speed->currentData().toDouble());
    });
    connect(m_position, &QSlider::valueChanged, this, [this](int value) {
        if (m_syncing || !m_replay)
            return;
        m_replay->seek(m_replay->durationMs() * value / sliderSteps);
    });
    setReplay(nullptr);
}

void ReplayBar::setReplay(RunReplay *replay)
{
    if (m_replay)
        disconnect(m_replay, nullptr, this, nullptr);
    m_replay = replay;
    setEnabled(replay != nullptr);
    if (replay) {
        replay->setSpeed(m_speed->currentData().toDouble());
        connect(replay, &RunReplay::positionChanged, this, &ReplayBar::updatePosition);
        connect(replay, &RunReplay::playingChanged, this, &ReplayBar::updatePlaying);
    }
    updatePosition(replay ? replay->positionMs() : 0.0);
    updatePlaying(replay && replay->isPlaying());
}

QString ReplayBar::positionText() const
{
    return m_time->text();
}

void ReplayBar::updatePosition(double ms)
{
    const double duration = m_replay ? m_replay->durationMs() : 0.0;
    m_syncing = true;
    m_position->setValue(duration > 0.0 ? int(std::lround(ms / duration * sliderSteps)) : sliderSteps);
    m_syncing = false;
    QString text = tr("%1 of %2").arg(Core::DurationText::format(ms), Core::DurationText::format(duration));
    // Idle stretches are not played (RunReplay): say how much was left out.
    if (m_replay && m_replay->idleSkippedMs() > 0.0)
        text += tr(", %1 idle skipped").arg(Core::DurationText::format(m_replay->idleSkippedMs()));
    m_time->setText(text);
}

void ReplayBar::updatePlaying(bool playing)
{
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setText(playing ? tr("Pa&use") : tr("&Play"));
    m_play->setToolTip(playing ? tr("Pause the replay")
                               : tr("Play the run again at the chosen speed, from where the slider is (from the start "
                                    "when it is at the end)"));
}

} // namespace RetryLab::Ui
