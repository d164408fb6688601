#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace RetryLab::Core {
struct RequestDraft;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// The Read-modify-write part of a request: instead of sending its method and
/// body, read the resource, change an integer in it and write it back under the
/// version read, the whole sequence restarted when another writer got there
/// first (409 ABORTED, or 412 on a stale If-Match), as Cloud IAM asks of its
/// get/set policy calls.
///
/// The shape is the user's: where the integer sits (a JSON pointer), where the
/// version comes from (the ETag header, sent back as If-Match, or a field of the
/// body, sent back in it, as an IAM policy's "etag"), the read's and the write's
/// methods, the write's URL and an envelope around the written document
/// ({"policy": ...}). Two buttons fill the shape of RetryLab's /occ endpoint and
/// of an IAM policy.
class ReadModifyWriteForm final : public QWidget
{
    Q_OBJECT

public:
    explicit ReadModifyWriteForm(QWidget *parent = nullptr);

    /// The form's fields into `draft` (readModifyWrite, increment, shape, writeUrlTemplate).
    void applyTo(Core::RequestDraft &draft) const;
    /// Fills the fields from `draft`; emits no changed().
    void setFrom(const Core::RequestDraft &draft);
    bool isOn() const;

Q_SIGNALS:
    void changed();

private:
    void fillOcc();
    void fillIam();
    void updateEnabled();

    QCheckBox *m_on;
    QSpinBox *m_increment;
    QLineEdit *m_valuePointer;
    QComboBox *m_versionFrom;
    QLineEdit *m_etagPointer;
    QComboBox *m_readMethod;
    QComboBox *m_writeMethod;
    QLineEdit *m_writeUrl;
    QLineEdit *m_envelope;
    bool m_filling = false;
};

} // namespace RetryLab::Ui
