#pragma once

#include "core/collections/requestdraft.h"
#include "core/util/result.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>
#include <QTimer>

namespace RetryLab::Ui {

/// What the composer sent, newest first, kept across restarts in one JSON file of the
/// data folder (request-history.json), so that a request tried an hour or a day ago can
/// be found and sent again. One entry per action: a Send, a batch of 10,000 or a repeat
/// is one entry each. Entries are kept as the settings keep a draft
/// (RequestDraft::toJson): credentials typed into the request are written as REDACTED,
/// so the file never holds a secret, and an entry re-opened shows REDACTED where a
/// credential was (the composer then asks for it again). The history is bounded: the
/// newest maxEntries, and a body larger than maxBodyBytes is not kept (the entry says so).
/// The file is written saveDelayMs after a change (many sends write it once, and a
/// batch's first attempts go out before it is written) and when the history is destroyed.
class RequestHistory final : public QObject
{
    Q_OBJECT

public:
    static constexpr int maxEntries = 200;
    static constexpr qsizetype maxBodyBytes = 64 * 1024;
    static constexpr int formatVersion = 1;
    static constexpr int saveDelayMs = 1000;

    enum class Kind { Send, Batch, Repeat };

    struct Entry
    {
        QDateTime sentAt;
        Kind kind = Kind::Send;
        /// As it is on disk: credentials redacted.
        Core::RequestDraft draft;
        /// The body was larger than maxBodyBytes and is not kept.
        bool bodyDropped = false;
    };

    /// `filePath` empty: the history lives in memory only.
    explicit RequestHistory(const QString &filePath, QObject *parent = nullptr);
    /// Writes what is not written yet.
    ~RequestHistory() override;

    QString filePath() const { return m_filePath; }
    /// Reads the file, in place of the entries held (and a change of them not written yet);
    /// a missing file is an empty history. Entries that cannot be read are
    /// left out; the error says how many when some were.
    Core::Result<void> load();

    /// Keeps what was sent (redacted); the file is written saveDelayMs later.
    void add(const Core::RequestDraft &draft, Kind kind, const QDateTime &sentAt = QDateTime::currentDateTimeUtc());
    void clear();
    const QList<Entry> &entries() const { return m_entries; }
    /// Whether a change waits to be written.
    bool isSavePending() const { return m_saveTimer.isActive(); }

    static QString kindName(Kind kind);

Q_SIGNALS:
    /// The entries changed (added, cleared, loaded).
    void changed();
    /// The file could not be written; the history stays in memory.
    void saveFailed(const QString &message);

private:
    /// Writes the file; `report`: a failure is told by saveFailed().
    void save(bool report = true);

    QString m_filePath;
    QList<Entry> m_entries;
    QTimer m_saveTimer;
};

} // namespace RetryLab::Ui
