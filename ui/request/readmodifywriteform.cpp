#include "ui/request/readmodifywriteform.h"

#include "core/collections/requestdraft.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

enum VersionFrom { EtagHeader, BodyField };

QComboBox *methodBox(const QStringList &methods, const QString &name)
{
    auto *box = new QComboBox;
    box->setObjectName(name);
    box->setEditable(true);
    box->setInsertPolicy(QComboBox::NoInsert);
    box->addItems(methods);
    return box;
}

} // namespace

ReadModifyWriteForm::ReadModifyWriteForm(QWidget *parent)
    : QWidget(parent), m_on(new QCheckBox(tr("Read, modify and write the resource (optimistic concurrency)"))),
      m_increment(new QSpinBox), m_valuePointer(new QLineEdit), m_versionFrom(new QComboBox),
      m_etagPointer(new QLineEdit),
      m_readMethod(methodBox({QStringLiteral("GET"), QStringLiteral("POST")}, QStringLiteral("rmwReadMethod"))),
      m_writeMethod(methodBox(
          {QStringLiteral("PUT"), QStringLiteral("POST"), QStringLiteral("PATCH")}, QStringLiteral("rmwWriteMethod"))),
      m_writeUrl(new QLineEdit), m_envelope(new QLineEdit)
{
    m_on->setObjectName(QStringLiteral("readModifyWrite"));
    m_on->setToolTip(tr("Instead of the method and body: read the resource, add the increment to an integer in it "
                        "and write it back under the version read. When another writer got there first (409 "
                        "ABORTED, or 412 on a stale If-Match) the whole sequence starts again after the policy's "
                        "delay, as Cloud IAM asks of its get/set policy calls."));
    m_increment->setObjectName(QStringLiteral("rmwIncrement"));
    m_increment->setRange(-1'000'000'000, 1'000'000'000);
    m_increment->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed); // a number, not a line of text
    m_valuePointer->setObjectName(QStringLiteral("rmwValuePointer"));
    m_valuePointer->setPlaceholderText(QStringLiteral("/value"));
    m_valuePointer->setToolTip(tr("A JSON pointer to the integer in the document read: /value, /spec/replicas, "
                                  "/items/0/count."));
    m_versionFrom->setObjectName(QStringLiteral("rmwVersionFrom"));
    m_versionFrom->insertItem(EtagHeader, tr("ETag header, sent back as If-Match"));
    m_versionFrom->insertItem(BodyField, tr("a field of the body, sent back in it:"));
    m_etagPointer->setObjectName(QStringLiteral("rmwEtagPointer"));
    m_etagPointer->setPlaceholderText(QStringLiteral("/etag"));
    m_writeUrl->setObjectName(QStringLiteral("rmwWriteUrl"));
    m_writeUrl->setPlaceholderText(tr("the request's URL"));
    m_writeUrl->setToolTip(tr("Where the write goes, when not to the URL read: {server} and {id} are expanded."));
    m_envelope->setObjectName(QStringLiteral("rmwEnvelope"));
    m_envelope->setPlaceholderText(tr("none: the document itself"));
    m_envelope->setToolTip(
        tr("A member name: the write sends {\"policy\": document}, as IAM's setIamPolicy takes it."));

    auto *occ = new QToolButton;
    occ->setObjectName(QStringLiteral("rmwLikeOcc"));
    occ->setText(tr("Like /occ"));
    occ->setToolTip(tr("GET {\"value\": n} and its ETag, PUT with If-Match: RetryLab's own /occ/{name} endpoint."));
    auto *iam = new QToolButton;
    iam->setObjectName(QStringLiteral("rmwLikeIam"));
    iam->setText(tr("Like an IAM policy"));
    iam->setToolTip(tr("IAM's shape: the read is a POST to the request's URL (...:getIamPolicy), the version is the "
                       "document's \"etag\", the write is a POST of {\"policy\": document} (give its URL, "
                       "...:setIamPolicy); a stale etag is answered 409 ABORTED and the whole sequence restarts."));
    connect(occ, &QToolButton::clicked, this, &ReadModifyWriteForm::fillOcc);
    connect(iam, &QToolButton::clicked, this, &ReadModifyWriteForm::fillIam);

    auto *version = new QHBoxLayout;
    version->addWidget(m_versionFrom, 2);
    version->addWidget(m_etagPointer, 1);
    auto *write = new QHBoxLayout;
    write->addWidget(m_writeMethod);
    write->addWidget(m_writeUrl, 1);
    auto *fill = new QHBoxLayout;
    fill->addWidget(new QLabel(tr("Fill in:")));
    fill->addWidget(occ);
    fill->addWidget(iam);
    fill->addStretch();

    auto *form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Add to the value:"), m_increment);
    form->addRow(tr("Value at:"), m_valuePointer);
    form->addRow(tr("Version:"), version);
    form->addRow(tr("Read with:"), m_readMethod);
    form->addRow(tr("Write with:"), write);
    form->addRow(tr("Envelope:"), m_envelope);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addWidget(m_on);
    layout->addLayout(form);
    layout->addLayout(fill);
    layout->addStretch();

    for (QLineEdit *edit : {m_valuePointer, m_etagPointer, m_writeUrl, m_envelope})
        connect(edit, &QLineEdit::textChanged, this, [this] {
            if (!m_filling)
                Q_EMIT changed();
        });
    for (QComboBox *box : {m_versionFrom, m_readMethod, m_writeMethod})
        connect(box, &QComboBox::currentTextChanged, this, [this] {
            updateEnabled();
            if (!m_filling)
                Q_EMIT changed();
        });
    connect(m_increment, &QSpinBox::valueChanged, this, [this] {
        if (!m_filling)
            Q_EMIT changed();
    });
    connect(m_on, &QCheckBox::toggled, this, [this] {
        updateEnabled();
        if (!m_filling)
            Q_EMIT changed();
    });
    setFrom(Core::RequestDraft{});
}

bool ReadModifyWriteForm::isOn() const
{
    return m_on->isChecked();
}

void ReadModifyWriteForm::applyTo(Core::RequestDraft &draft) const
{
    draft.readModifyWrite = m_on->isChecked();
    draft.increment = m_increment->value();
    draft.shape = Core::ReadModifyWriteShape{};
    draft.shape.readMethod = m_readMethod->currentText().trimmed().toUpper().toLatin1();
    draft.shape.writeMethod = m_writeMethod->currentText().trimmed().toUpper().toLatin1();
    const QString value = m_valuePointer->text().trimmed();
    draft.shape.valuePointer = value.isEmpty() ? m_valuePointer->placeholderText() : value;
    if (m_versionFrom->currentIndex() == BodyField) {
        const QString etag = m_etagPointer->text().trimmed();
        draft.shape.etagPointer = etag.isEmpty() ? m_etagPointer->placeholderText() : etag;
    }
    draft.shape.writeEnvelope = m_envelope->text().trimmed();
    draft.writeUrlTemplate = m_writeUrl->text().trimmed();
}

void ReadModifyWriteForm::setFrom(const Core::RequestDraft &draft)
{
    m_filling = true;
    m_on->setChecked(draft.readModifyWrite);
    m_increment->setValue(int(std::clamp<qint64>(draft.increment, m_increment->minimum(), m_increment->maximum())));
    m_valuePointer->setText(draft.shape.valuePointer);
    m_versionFrom->setCurrentIndex(draft.shape.etagPointer.isEmpty() ? EtagHeader : BodyField);
    m_etagPointer->setText(draft.shape.etagPointer);
    m_readMethod->setCurrentText(QString::fromLatin1(draft.shape.readMethod));
    m_writeMethod->setCurrentText(QString::fromLatin1(draft.shape.writeMethod));
    m_writeUrl->setText(draft.writeUrlTemplate);
    m_envelope->setText(draft.shape.writeEnvelope);
    m_filling = false;
    updateEnabled();
}

void ReadModifyWriteForm::fillOcc()
{
    Core::RequestDraft draft;
    draft.readModifyWrite = true;
    draft.increment = m_increment->value();
    setFrom(draft);
    Q_EMIT changed();
}

void ReadModifyWriteForm::fillIam()
{
    Core::RequestDraft draft;
    draft.readModifyWrite = true;
    draft.increment = m_increment->value();
    // IAM reads with POST ...:getIamPolicy and writes with POST ...:setIamPolicy.
    draft.shape.readMethod = "POST";
    draft.shape.writeMethod = "POST";
    draft.shape.etagPointer = QStringLiteral("/etag");
    draft.shape.writeEnvelope = QStringLiteral("policy");
    draft.writeUrlTemplate = m_writeUrl->text();
    setFrom(draft);
    Q_EMIT changed();
}

void ReadModifyWriteForm::updateEnabled()
{
    const bool on = m_on->isChecked();
    for (QWidget *field : std::initializer_list<QWidget *>{
             m_increment, m_valuePointer, m_versionFrom, m_readMethod, m_writeMethod, m_writeUrl, m_envelope})
        field->setEnabled(on);
    m_etagPointer->setEnabled(on && m_versionFrom->currentIndex() == BodyField);
}

} // namespace RetryLab::Ui
