#include "core/collections/requesttemplate.h"
#include "core/util/englishplurals.h"
#include "ui/request/bodyform.h"
#include "ui/request/formfieldtablemodel.h"
#include "ui/request/requestcomposer.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;
using Core::DraftBody;
using Core::RequestDraft;
using Ui::BodyForm;
using Ui::FormFieldTableModel;

class TestBodyForm final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void modes_switchPages_keepTheTypedText();
    void formRows_addedAndEdited_reachTheDraft();
    void urlEncoded_noteShowsTheEncodedBody_credentialsMasked();
    void addFile_switchesToMultipart_showsSizeOrUnreadable();
    void fileMode_noteSaysSizeOrWhatIsWrong();
    void setFrom_fillsEverything_withoutEdited();
    void composer_bodyModes_roundTripAndTitle();
    void composer_unreadableFile_blocksSendAndNamesIt();
    void composer_restoredMaskedField_blocksSend();

private:
    QString file(const QString &name) const { return m_dir.filePath(name); }
    QComboBox *modeBox() const { return m_form->findChild<QComboBox *>(QStringLiteral("bodyMode")); }
    QLabel *note() const { return m_form->findChild<QLabel *>(QStringLiteral("bodyNote")); }

    QTemporaryDir m_dir;
    BodyForm *m_form = nullptr;
};

void TestBodyForm::initTestCase()
{
    Core::EnglishPlurals::install(); // as the window does: "1 field", "2 fields"
    QVERIFY(m_dir.isValid());
    QFile payload(file(QStringLiteral("payload.bin")));
    QVERIFY(payload.open(QIODevice::WriteOnly));
    payload.write(QByteArray(2048, 'x'));
}

void TestBodyForm::init()
{
    m_form = new BodyForm;
    m_form->resize(700, 300);
    m_form->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_form));
}

void TestBodyForm::cleanup()
{
    delete m_form;
    m_form = nullptr;
}

void TestBodyForm::modes_switchPages_keepTheTypedText()
{
    auto *pages = m_form->findChild<QStackedWidget *>();
    QTest::keyClicks(m_form->textEdit(), QStringLiteral("{\"a\": 1}"));
    QCOMPARE(m_form->title(), QStringLiteral("Body (8 B)"));
    QSignalSpy edited(m_form, &BodyForm::edited);
    modeBox()->setCurrentIndex(modeBox()->findData(int(DraftBody::Mode::UrlEncoded)));
    QCOMPARE(edited.count(), 1);
    QVERIFY(!m_form->textEdit()->isVisible());
    QVERIFY(m_form->findChild<QWidget *>(QStringLiteral("formFields"))->isVisible());
    // "Add file" belongs to the multipart form only.
    QVERIFY(!m_form->findChild<QToolButton *>(QStringLiteral("addFormFile"))->isVisible());
    RequestDraft draft;
    m_form->applyTo(draft);
    QCOMPARE(draft.bodyFrom.mode, DraftBody::Mode::UrlEncoded);
    QCOMPARE(draft.body, QStringLiteral("{\"a\": 1}"));

    modeBox()->setCurrentIndex(modeBox()->findData(int(DraftBody::Mode::Multipart)));
    QVERIFY(m_form->findChild<QToolButton *>(QStringLiteral("addFormFile"))->isVisible());
    modeBox()->setCurrentIndex(modeBox()->findData(int(DraftBody::Mode::File)));
    QVERIFY(m_form->findChild<QLineEdit *>(QStringLiteral("bodyFile"))->isVisible());
    modeBox()->setCurrentIndex(modeBox()->findData(int(DraftBody::Mode::Raw)));
    QCOMPARE(pages->currentWidget(), m_form->textEdit());
    QCOMPARE(m_form->textEdit()->toPlainText(), QStringLiteral("{\"a\": 1}"));
}

void TestBodyForm::formRows_addedAndEdited_reachTheDraft()
{
    FormFieldTableModel *model = m_form->fieldModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_form->setMode(DraftBody::Mode::UrlEncoded);
    QTest::mouseClick(m_form->findChild<QToolButton *>(QStringLiteral("addFormField")), Qt::LeftButton);
    QTest::mouseClick(m_form->findChild<QToolButton *>(QStringLiteral("addFormField")), Qt::LeftButton);
    QCOMPARE(model->rowCount(), 2);
    QVERIFY(model->setData(model->index(0, FormFieldTableModel::Name), QStringLiteral("q")));
    QVERIFY(model->setData(model->index(0, FormFieldTableModel::Value), QStringLiteral("retry storms")));
    QVERIFY(model->setData(model->index(1, FormFieldTableModel::Name), QStringLiteral("page")));
    QVERIFY(model->setData(model->index(1, FormFieldTableModel::Value), QStringLiteral("2")));
    // A text row carries no Content-Type.
    QVERIFY(!(model->flags(model->index(0, FormFieldTableModel::ContentType)) & Qt::ItemIsEditable));
    QCOMPARE(m_form->title(), QStringLiteral("Body (form, 2 fields)"));
    QVERIFY(model->setData(model->index(1, FormFieldTableModel::Enabled), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(m_form->title(), QStringLiteral("Body (form, 1 field)"));

    RequestDraft draft;
    draft.method = QStringLiteral("POST");
    draft.urlTemplate = QStringLiteral("http://127.0.0.1:1/x");
    m_form->applyTo(draft);
    QCOMPARE(draft.bodyFrom.fields.size(), 2);
    QVERIFY(!draft.bodyFrom.fields.at(1).enabled);
    const auto spec = Core::RequestTemplate::build(draft, {});
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->body, QByteArray("q=retry+storms"));

    m_form->findChild<QAbstractItemView *>(QStringLiteral("formFields"))->setCurrentIndex(model->index(0, 1));
    QTest::mouseClick(m_form->findChild<QToolButton *>(QStringLiteral("removeFormField")), Qt::LeftButton);
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->fields().first().name, QStringLiteral("page"));
}

void TestBodyForm::urlEncoded_noteShowsTheEncodedBody_credentialsMasked()
{
    FormFieldTableModel *model = m_form->fieldModel();
    m_form->setMode(DraftBody::Mode::UrlEncoded);
    model->addField();
    model->addField();
    model->setData(model->index(0, FormFieldTableModel::Name), QStringLiteral("user"));
    model->setData(model->index(0, FormFieldTableModel::Value), QStringLiteral("ann b"));
    model->setData(model->index(1, FormFieldTableModel::Name), QStringLiteral("password"));
    model->setData(model->index(1, FormFieldTableModel::Value), QStringLiteral("hunter2"));
    QVERIFY2(note()->text().contains(QLatin1String("user=ann+b&password=REDACTED")), qPrintable(note()->text()));
    QVERIFY(!model->data(model->index(1, FormFieldTableModel::Value)).toString().contains(QLatin1String("hunter2")));
    QCOMPARE(
        model->data(model->index(1, FormFieldTableModel::Value), Qt::EditRole).toString(), QStringLiteral("hunter2"));
    m_form->findChild<QCheckBox *>(QStringLiteral("revealFormValues"))->setChecked(true);
    QCOMPARE(model->data(model->index(1, FormFieldTableModel::Value)).toString(), QStringLiteral("hunter2"));
    QVERIFY2(note()->text().contains(QLatin1String("password=hunter2")), qPrintable(note()->text()));
}

void TestBodyForm::addFile_switchesToMultipart_showsSizeOrUnreadable()
{
    FormFieldTableModel *model = m_form->fieldModel();
    QSignalSpy edited(m_form, &BodyForm::edited);
    m_form->addFile(file(QStringLiteral("payload.bin")));
    QCOMPARE(m_form->mode(), DraftBody::Mode::Multipart);
    QVERIFY(edited.count() >= 1);
    QCOMPARE(model->rowCount(), 1);
    const QString shown = model->data(model->index(0, FormFieldTableModel::Value)).toString();
    QVERIFY2(shown.contains(QLatin1String("payload.bin")) && shown.contains(QLatin1String("KiB")), qPrintable(shown));
    QVERIFY(model->flags(model->index(0, FormFieldTableModel::ContentType)) & Qt::ItemIsEditable);
    QVERIFY(model->setData(model->index(0, FormFieldTableModel::ContentType), QStringLiteral("image/png")));
    // Emptying a file's path does not turn it into a text field.
    QVERIFY(!model->setData(model->index(0, FormFieldTableModel::Value), QString()));
    QVERIFY(model->fields().first().isFile());
    QVERIFY(model->setData(model->index(0, FormFieldTableModel::Value), file(QStringLiteral("gone.bin"))));
    QVERIFY(
        model->data(model->index(0, FormFieldTableModel::Value)).toString().contains(QLatin1String("not readable")));
    QVERIFY(model->data(model->index(0, FormFieldTableModel::Value), Qt::ForegroundRole).isValid());
    model->addField();
    model->setData(model->index(1, FormFieldTableModel::Name), QStringLiteral("title"));
    QCOMPARE(m_form->title(), QStringLiteral("Body (multipart, 2 parts, 1 file)"));
    QVERIFY2(note()->text().contains(QLatin1String("multipart/form-data")), qPrintable(note()->text()));
}

void TestBodyForm::fileMode_noteSaysSizeOrWhatIsWrong()
{
    m_form->setBodyFile(file(QStringLiteral("payload.bin")));
    QCOMPARE(m_form->mode(), DraftBody::Mode::File);
    QCOMPARE(m_form->title(), QStringLiteral("Body (file)"));
    QVERIFY2(note()->text().contains(QLatin1String("2.00 KiB")), qPrintable(note()->text()));
    auto *path = m_form->findChild<QLineEdit *>(QStringLiteral("bodyFile"));
    path->setText(file(QStringLiteral("gone.bin")));
    QVERIFY2(note()->text().contains(QLatin1String("cannot be read")), qPrintable(note()->text()));
    path->clear();
    QVERIFY2(note()->text().contains(QLatin1String("Choose the file")), qPrintable(note()->text()));
}

void TestBodyForm::setFrom_fillsEverything_withoutEdited()
{
    RequestDraft draft;
    draft.body = QStringLiteral("kept");
    draft.bodyFrom.mode = DraftBody::Mode::Multipart;
    draft.bodyFrom.fields = {{QStringLiteral("a"), QStringLiteral("1"), {}, {}, {}, true},
        {QStringLiteral("up"), {}, file(QStringLiteral("payload.bin")), QStringLiteral("p.bin"),
            QStringLiteral("text/plain"), false}};
    draft.bodyFrom.filePath = QStringLiteral("/also/kept");
    QSignalSpy edited(m_form, &BodyForm::edited);
    m_form->setFrom(draft);
    QCOMPARE(edited.count(), 0);
    RequestDraft out;
    m_form->applyTo(out);
    QCOMPARE(out.body, draft.body);
    QCOMPARE(out.bodyFrom, draft.bodyFrom);
}

void TestBodyForm::composer_bodyModes_roundTripAndTitle()
{
    Ui::RequestComposer composer;
    composer.setPreviewContext({QUrl(QStringLiteral("http://127.0.0.1:4711")), {}, QStringLiteral("k-1")});
    RequestDraft draft = composer.draft();
    draft.method = QStringLiteral("POST");
    draft.bodyFrom.mode = DraftBody::Mode::Multipart;
    draft.bodyFrom.fields = {{QStringLiteral("note"), QStringLiteral("{id}"), {}, {}, {}, true},
        {QStringLiteral("up"), {}, file(QStringLiteral("payload.bin")), {}, {}, true}};
    composer.setDraft(draft);
    QCOMPARE(composer.draft(), draft);
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
    auto *tabs = composer.findChild<QTabWidget *>(QStringLiteral("details"));
    auto *bodyTab = composer.findChild<BodyForm *>(QStringLiteral("bodyForm"));
    QCOMPARE(tabs->tabText(tabs->indexOf(bodyTab)), QStringLiteral("Body (multipart, 2 parts, 1 file)"));
}

void TestBodyForm::composer_unreadableFile_blocksSendAndNamesIt()
{
    Ui::RequestComposer composer;
    composer.setPreviewContext({QUrl(QStringLiteral("http://127.0.0.1:4711")), {}, QStringLiteral("k-1")});
    RequestDraft draft = composer.draft();
    draft.method = QStringLiteral("PUT");
    draft.bodyFrom.mode = DraftBody::Mode::File;
    draft.bodyFrom.filePath = file(QStringLiteral("gone.bin"));
    composer.setDraft(draft);
    QVERIFY(!composer.canSend());
    QVERIFY(!composer.sendAction()->isEnabled());
    QVERIFY2(composer.problem().contains(file(QStringLiteral("gone.bin"))), qPrintable(composer.problem()));
    // Chosen again: sendable.
    composer.findChild<BodyForm *>(QStringLiteral("bodyForm"))->setBodyFile(file(QStringLiteral("payload.bin")));
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
}

void TestBodyForm::composer_restoredMaskedField_blocksSend()
{
    Ui::RequestComposer composer;
    composer.setPreviewContext({QUrl(QStringLiteral("http://127.0.0.1:4711")), {}, QStringLiteral("k-1")});
    RequestDraft typed = composer.draft();
    typed.method = QStringLiteral("POST");
    typed.bodyFrom.mode = DraftBody::Mode::UrlEncoded;
    typed.bodyFrom.fields = {{QStringLiteral("client_secret"), QStringLiteral("s3cret"), {}, {}, {}, true}};
    // As a restart restores it from the settings: the secret was not saved.
    const auto restored = RequestDraft::fromJson(typed.toJson());
    QVERIFY2(restored, qPrintable(restored.error()));
    composer.setDraft(*restored);
    QVERIFY(!composer.canSend());
    QVERIFY2(composer.problem().contains(QLatin1String("client_secret")), qPrintable(composer.problem()));
    Ui::FormFieldTableModel *model = composer.findChild<BodyForm *>(QStringLiteral("bodyForm"))->fieldModel();
    model->setData(model->index(0, Ui::FormFieldTableModel::Value), QStringLiteral("typed again"));
    QVERIFY2(composer.canSend(), qPrintable(composer.problem()));
}

QTEST_MAIN(TestBodyForm)
#include "tst_bodyform.moc"
