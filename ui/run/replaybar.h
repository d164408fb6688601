#pragma once

#include "ui/session/run/runreplay.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace RetryLab::Ui {

/// The controls of a replay (RunReplay): play and pause, the speed (0.1x to 10x), the
/// playhead as a slider that can be dragged, and where it is ("1.25 s of 5 s").
class ReplayBar final : public QWidget
{
    Q_OBJECT

public:
    /// The speeds offered; 1x is chosen at first.
    static QList<double> speeds();

    explicit ReplayBar(QWidget *parent = nullptr);

    /// Not owned; null disables the controls.
    void setReplay(RunReplay *replay);
    RunReplay *replay() const { return m_replay; }

    QToolButton *playButton() const { return m_play; }
    QComboBox *speedBox() const { return m_speed; }
    QSlider *positionSlider() const { return m_position; }
    QString positionText() const;

private:
    void updatePosition(double ms);
    void updatePlaying(bool playing);

    QPointer<RunReplay> m_replay;
    QToolButton *m_play;
    QComboBox *m_speed;
    QSlider *m_position;
    QLabel *m_time;
    bool m_syncing = false;
};

} // namespace RetryLab::Ui
