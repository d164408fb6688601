#pragma once

#include "core/record/attemptrecord.h"

#include <QFrame>
#include <QStringList>

class QLabel;

namespace RetryLab::Ui {

/// The red line across the window while certificate errors are ignored: for
/// which hosts the request ignores them now, and how many attempts of the run
/// were let through despite certificate errors. It cannot be closed: it goes
/// when the option is off and the run is cleared. Said in words with a warning
/// sign, not by colour alone.
class InsecureBanner final : public QFrame
{
    Q_OBJECT

public:
    explicit InsecureBanner(QWidget *parent = nullptr);

    /// The hosts whose certificate errors the request ignores now.
    void setIgnoredHosts(const QStringList &hosts);
    QStringList ignoredHosts() const { return m_hosts; }
    /// Counts the attempt when its certificate errors were ignored.
    void noteAttempt(const Core::AttemptRecord &record);
    /// Attempts of the run whose certificate errors were ignored.
    int ignoredAttempts() const { return m_attempts; }
    /// Forgets the run's attempts (Clear run).
    void clearRun();

    QString text() const;

private:
    void refresh();

    QLabel *m_label;
    QStringList m_hosts;
    QStringList m_runHosts;
    int m_attempts = 0;
};

} // namespace RetryLab::Ui
