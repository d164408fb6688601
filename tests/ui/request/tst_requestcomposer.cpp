#include "core/collections/requesttemplate.h"
#include "core/policy/presets.h"
#include "ui/request/headertablemodel.h"
#include "ui/request/requestcomposer.h"
#include "ui/widgets/fieldmessage.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>

using namespace RetryLab;
using Core::RequestDraft;
using Ui::FieldMessage;
using Ui::HeaderTableModel;
using Ui::RequestComposer;

class TestRequestComposer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void validRequest_enablesSendAndPreviewsTheUrl();
    void batchProgress_keepsItsTextWhole_inALargerFont();
    void invalidUrl_disablesSendAndSaysWhy_data();
    void invalidUrl_disablesSendAndSaysWhy();
    void blocker_disablesSendUntilLifted();
    void serverNotRunning_disablesServerUrlsOnly();
    void nonIdempotentPost_saysWhyItIsNotRetried();
    void draft_roundTripsThroughTheFields();
    void typing_emitsDraftChanged();
    void credentialHeaders_areMaskedUntilRevealed();
    void headerRows_addAndRemove();
    void batchProgress_andActivity_areShown();
    void batchProgress_aThousandReports_paintTheBarAFewTimes();
    void seed_emptyIsFresh_replayFillsTheLastOne();
    void endpointsMenu_showsUrlsWithTheirAmpersands();
    void endpointsMenu_404SaysWhatThePolicyDoes();
    void restoredMaskedCredential_blocksSendUntilTypedOrUnticked();
    void narrow_sendButtonsWrapBelowTheUrl();
    void retryHeaders_shownGreyed_switchOffPerRequest();
    void fallbacks_typedOnePerLine_checkedAndCounted();
    void fallbackOn_typedList_checkedWhereTyped_keptInTheDraft();
    void readModifyWrite_tabSetsKindAndShape();

private:
    RequestComposer *m_composer = nullptr;
    static Core::ExpansionContext context()
    {
        return {QUrl(QStringLiteral("http://127.0.0.1:4711")), {}, QStringLiteral("abcd-1")};
    }
    QComboBox *url() const { return m_composer->findChild<QComboBox *>(QStringLiteral("url")); }
    FieldMessage *message() const { return m_composer->findChild<FieldMessage *>(QStringLiteral("sendProblem")); }
};

void TestRequestComposer::init()
{
    m_composer = new RequestComposer;
    m_composer->setPreviewContext(context());
    m_composer->resize(900, 300);
    m_composer->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_composer));
}

void TestRequestComposer::cleanup()
{
    delete m_composer;
    m_composer = nullptr;
}

void TestRequestComposer::validRequest_enablesSendAndPreviewsTheUrl()
{
    QVERIFY(m_composer->canSend());
    QVERIFY(m_composer->sendAction()->isEnabled());
    QVERIFY(m_composer->batchAction()->isEnabled());
    QVERIFY(m_composer->repeatAction()->isEnabled());
    QVERIFY(!m_composer->stopAction()->isEnabled()); // nothing runs
    QCOMPARE(m_composer->previewUrl(), QStringLiteral("http://127.0.0.1:4711/fail/3?key=abcd-1"));
    QVERIFY(m_composer->previewText().contains(QLatin1String("http://127.0.0.1:4711/fail/3?key=abcd-1")));
    const auto *preview = m_composer->findChild<QLabel *>(QStringLiteral("preview"));
    QVERIFY(preview->toolTip().contains(m_composer->previewText()));
    QVERIFY(!message()->isVisible());
}

void TestRequestComposer::invalidUrl_disablesSendAndSaysWhy_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");
    QTest::addRow("empty") << QString() << QStringLiteral("Enter a URL");
    QTest::addRow("no scheme") << QStringLiteral("example.org/x") << QStringLiteral("http://");
    QTest::addRow("other scheme") << QStringLiteral("file:///etc/passwd") << QStringLiteral("Only http and https");
    QTest::addRow("unknown placeholder") << QStringLiteral("{srever}/x") << QStringLiteral("{srever}");
    QTest::addRow("bad port") << QStringLiteral("http://127.0.0.1:70000/") << QStringLiteral("not valid");
}

void TestRequestComposer::invalidUrl_disablesSendAndSaysWhy()
{
    QFETCH(QString, text);
    QFETCH(QString, reason);
    url()->lineEdit()->selectAll();
    if (text.isEmpty())
        QTest::keyClick(url()->lineEdit(), Qt::Key_Delete);
    else
        QTest::keyClicks(url()->lineEdit(), text);
    QCOMPARE(url()->currentText(), text);

    QVERIFY(!m_composer->canSend());
    QVERIFY2(m_composer->problem().contains(reason), qPrintable(m_composer->problem()));
    for (QAction *action : {m_composer->sendAction(), m_composer->batchAction(), m_composer->repeatAction()}) {
        QVERIFY(!action->isEnabled());
        QVERIFY2(action->toolTip().contains(reason), qPrintable(action->toolTip()));
    }
    QVERIFY(!m_composer->stopAction()->isEnabled()); // nothing runs
    QVERIFY(message()->isVisible());
    QCOMPARE(message()->kind(), FieldMessage::Kind::Error);
    QVERIFY(message()->text().contains(reason));
    QVERIFY(m_composer->previewUrl().isEmpty());

    // Fixing it enables Send again.
    url()->lineEdit()->selectAll();
    QTest::keyClicks(url()->lineEdit(), QStringLiteral("http://127.0.0.1:1/ok"));
    QVERIFY(m_composer->canSend());
    QVERIFY(m_composer->sendAction()->isEnabled());
    QVERIFY(!message()->isVisible());
}

void TestRequestComposer::blocker_disablesSendUntilLifted()
{
    m_composer->setBlocker(QStringLiteral("policy"), QStringLiteral("the policy cannot be used: no limit"));
    QVERIFY(!m_composer->sendAction()->isEnabled());
    QVERIFY(m_composer->sendAction()->toolTip().contains(QLatin1String("no limit")));
    QVERIFY(message()->text().contains(QLatin1String("no limit")));
    m_composer->setBlocker(QStringLiteral("scenario"), QStringLiteral("line 2 is wrong"));
    m_composer->setBlocker(QStringLiteral("policy"), {});
    QVERIFY(!m_composer->canSend());
    QVERIFY(m_composer->problem().contains(QLatin1String("line 2")));
    m_composer->setBlocker(QStringLiteral("scenario"), {});
    QVERIFY(m_composer->sendAction()->isEnabled());
}

void TestRequestComposer::serverNotRunning_disablesServerUrlsOnly()
{
    m_composer->setPreviewContext({{}, QStringLiteral("address in use"), QStringLiteral("k")});
    QVERIFY(!m_composer->canSend());
    QVERIFY(m_composer->problem().contains(QLatin1String("address in use")));
    url()->setCurrentText(QStringLiteral("http://127.0.0.1:9/x"));
    QVERIFY(m_composer->canSend());
}

void TestRequestComposer::nonIdempotentPost_saysWhyItIsNotRetried()
{
    auto *method = m_composer->findChild<QComboBox *>(QStringLiteral("method"));
    method->setCurrentText(QStringLiteral("POST"));
    QVERIFY(m_composer->canSend()); // a warning, not a refusal
    QVERIFY2(m_composer->idempotencyText().contains(QLatin1String("not idempotent")),
        qPrintable(m_composer->idempotencyText()));
    QCOMPARE(message()->kind(), FieldMessage::Kind::Warning);
    QVERIFY(message()->text().contains(QLatin1String("will not be retried")));

    // An Idempotency-Key makes it safe.
    Core::RequestDraft draft = m_composer->draft();
    draft.headers = {{QStringLiteral("Idempotency-Key"), QStringLiteral("{id}"), true}};
    m_composer->setDraft(draft);
    QVERIFY2(m_composer->idempotencyText().contains(QLatin1String("Idempotency-Key")),
        qPrintable(m_composer->idempotencyText()));
    QVERIFY(!message()->isVisible());

    // So does the checkbox.
    draft.headers.clear();
    m_composer->setDraft(draft);
    QVERIFY(message()->isVisible());
    m_composer->findChild<QCheckBox *>(QStringLiteral("idempotent"))->setChecked(true);
    QVERIFY2(m_composer->idempotencyText().contains(QLatin1String("marked idempotent")),
        qPrintable(m_composer->idempotencyText()));
    QVERIFY(!message()->isVisible());

    // A policy that retries everything says so.
    m_composer->findChild<QCheckBox *>(QStringLiteral("idempotent"))->setChecked(false);
    Core::BackoffPolicy policy;
    policy.classification.retryNonIdempotent = true;
    m_composer->setPolicy(policy);
    QVERIFY2(
        m_composer->idempotencyText().contains(QLatin1String("anyway")), qPrintable(m_composer->idempotencyText()));
}

void TestRequestComposer::draft_roundTripsThroughTheFields()
{
    Core::RequestDraft draft;
    draft.method = QStringLiteral("PUT");
    draft.urlTemplate = QStringLiteral("{server}/status/200?x={id}");
    draft.headers = {{QStringLiteral("Accept"), QStringLiteral("text/plain"), true},
        {QStringLiteral("X-Off"), QStringLiteral("1"), false}};
    draft.body = QStringLiteral("payload {id}");
    draft.idempotent = true;
    draft.attemptTimeoutMs = 2500.0;
    draft.batchCount = 42;
    draft.concurrency = 3;
    draft.repeatIntervalMs = 750;
    draft.pollingPreset = QStringLiteral("google-lro");
    QSignalSpy changed(m_composer, &RequestComposer::draftChanged);
    m_composer->setDraft(draft);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(m_composer->draft(), draft);
    QVERIFY(m_composer->batchAction()->text().contains(QLatin1String("42")));
    // The polling choice: a preset by its id, or none.
    auto *polling = m_composer->findChild<QComboBox *>(QStringLiteral("polling"));
    QVERIFY(polling);
    QCOMPARE(polling->currentData().toString(), QStringLiteral("google-lro"));
    polling->setCurrentIndex(0);
    QVERIFY(m_composer->draft().pollingPreset.isEmpty());
}

void TestRequestComposer::typing_emitsDraftChanged()
{
    QSignalSpy changed(m_composer, &RequestComposer::draftChanged);
    m_composer->findChild<QSpinBox *>(QStringLiteral("batchCount"))->setValue(7);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(m_composer->draft().batchCount, 7);
    QTest::keyClicks(url()->lineEdit(), QStringLiteral("x"));
    QVERIFY(changed.count() >= 2);
}

void TestRequestComposer::credentialHeaders_areMaskedUntilRevealed()
{
    HeaderTableModel *model = m_composer->headerModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Core::RequestDraft draft = m_composer->draft();
    draft.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret"), true},
        {QStringLiteral("Accept"), QStringLiteral("*/*"), true}};
    m_composer->setDraft(draft);

    const QModelIndex secret = model->index(0, HeaderTableModel::Value);
    QVERIFY(!secret.data().toString().contains(QLatin1String("s3cret")));
    QVERIFY(!secret.data().toString().isEmpty());
    QVERIFY(secret.data(HeaderTableModel::MaskedRole).toBool());
    QCOMPARE(secret.data(Qt::EditRole).toString(), QStringLiteral("Bearer s3cret"));
    QCOMPARE(model->index(1, HeaderTableModel::Value).data().toString(), QStringLiteral("*/*"));

    m_composer->findChild<QCheckBox *>(QStringLiteral("revealCredentials"))->setChecked(true);
    QCOMPARE(secret.data().toString(), QStringLiteral("Bearer s3cret"));
    m_composer->findChild<QCheckBox *>(QStringLiteral("revealCredentials"))->setChecked(false);
    QVERIFY(!secret.data().toString().contains(QLatin1String("s3cret")));

    // Renaming the header decides the masking.
    QVERIFY(model->setData(model->index(1, HeaderTableModel::Name), QStringLiteral("X-Api-Key")));
    QVERIFY(model->index(1, HeaderTableModel::Value).data(HeaderTableModel::MaskedRole).toBool());
    // What is sent is the real value.
    QCOMPARE(m_composer->draft().headers.at(0).value, QStringLiteral("Bearer s3cret"));
}

void TestRequestComposer::headerRows_addAndRemove()
{
    HeaderTableModel *model = m_composer->headerModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto *add = m_composer->findChild<QToolButton *>(QStringLiteral("addHeader"));
    auto *remove = m_composer->findChild<QToolButton *>(QStringLiteral("removeHeader"));
    QVERIFY(!remove->isEnabled());
    add->click();
    QCOMPARE(model->headerCount(), 1);
    QCOMPARE(model->rowCount(), 1 + HeaderTableModel::automaticRows);
    QVERIFY(model->setData(model->index(0, HeaderTableModel::Name), QStringLiteral("X-One")));
    QVERIFY(model->setData(model->index(0, HeaderTableModel::Value), QStringLiteral("1")));
    QVERIFY(model->setData(model->index(0, HeaderTableModel::Enabled), Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(
        m_composer->draft().headers, (QList<Core::DraftHeader>{{QStringLiteral("X-One"), QStringLiteral("1"), false}}));
    QVERIFY(remove->isEnabled());
    remove->click();
    QCOMPARE(model->headerCount(), 0);
    QVERIFY(m_composer->draft().headers.isEmpty());

    // A bad header name blocks sending, naming the row.
    add->click();
    QVERIFY(model->setData(model->index(0, HeaderTableModel::Name), QStringLiteral("Bad Name")));
    QVERIFY(!m_composer->canSend());
    QVERIFY(m_composer->problem().contains(QLatin1String("Header 1")));
}

void TestRequestComposer::batchProgress_andActivity_areShown()
{
    auto *progress = m_composer->findChild<QProgressBar *>(QStringLiteral("batchProgress"));
    QVERIFY(!progress->isVisible());
    m_composer->setBatchProgress(3, 10, 2);
    QVERIFY(progress->isVisible());
    QCOMPARE(progress->value(), 3);
    QCOMPARE(progress->maximum(), 10);
    QVERIFY(progress->text().contains(QLatin1String("3/10")));
    QVERIFY(progress->toolTip().contains(QLatin1String("2 of them succeeded")));

    m_composer->setActivity(2, 5, true, 4);
    QVERIFY(m_composer->stopAction()->isEnabled());
    QVERIFY(!m_composer->repeatAction()->isEnabled()); // already repeating
    const auto *activity = m_composer->findChild<QLabel *>(QStringLiteral("activity"));
    QVERIFY(activity->text().contains(QLatin1String("In flight: 2")));
    QVERIFY(activity->text().contains(QLatin1String("running: 5")));
    m_composer->setActivity(0, 0, false, 4);
    QVERIFY(!m_composer->stopAction()->isEnabled());
    QVERIFY(m_composer->repeatAction()->isEnabled());
    m_composer->setBatchProgress(0, 0, 0);
    QVERIFY(!progress->isVisible());
}

void TestRequestComposer::seed_emptyIsFresh_replayFillsTheLastOne()
{
    auto *seed = m_composer->findChild<QLineEdit *>(QStringLiteral("seed"));
    auto *replay = m_composer->findChild<QToolButton *>(QStringLiteral("replaySeed"));
    QVERIFY(seed && replay);
    QVERIFY(seed->text().isEmpty());
    QVERIFY(!m_composer->draft().seed);
    QVERIFY(!replay->isEnabled()); // nothing sent yet
    m_composer->setLastSeed(314159);
    QVERIFY(replay->isEnabled());
    QVERIFY(replay->toolTip().contains(QLatin1String("314159")));
    replay->click();
    QCOMPARE(seed->text(), QStringLiteral("314159"));
    QCOMPARE(m_composer->draft().seed, std::optional<quint64>(314159));
    // Only digits are taken.
    seed->clear();
    QTest::keyClicks(seed, QStringLiteral("-12a3"));
    QCOMPARE(seed->text(), QStringLiteral("123"));
    seed->clear();
    QVERIFY(!m_composer->draft().seed);
}

void TestRequestComposer::endpointsMenu_404SaysWhatThePolicyDoes()
{
    const auto *button = m_composer->findChild<QToolButton *>(QStringLiteral("endpoints"));
    QVERIFY(button && button->menu());
    const auto textOf = [button](const QString &path) {
        for (const QAction *action : button->menu()->actions()) {
            if (action->text().startsWith(QStringLiteral("{server}") + path))
                return action->text();
        }
        return QString();
    };
    m_composer->setPolicy(*Core::Presets::find(QStringLiteral("iam")));
    QVERIFY2(textOf(QStringLiteral("/status/404")).contains(QLatin1String("never retried")),
        qPrintable(textOf(QStringLiteral("/status/404"))));
    m_composer->setPolicy(*Core::Presets::find(QStringLiteral("iam-retry-404")));
    QVERIFY2(textOf(QStringLiteral("/status/404")).contains(QLatin1String("retried by this policy")),
        qPrintable(textOf(QStringLiteral("/status/404"))));
    // IAM's eventual consistency has its endpoint there too.
    QVERIFY(!textOf(QStringLiteral("/eventual/{id}")).isEmpty());
}

void TestRequestComposer::endpointsMenu_showsUrlsWithTheirAmpersands()
{
    const auto *button = m_composer->findChild<QToolButton *>(QStringLiteral("endpoints"));
    QVERIFY(button && button->menu());
    int withQuery = 0;
    for (QAction *action : button->menu()->actions()) {
        // Every '&' doubled: none is taken as a mnemonic, so each one is drawn.
        QVERIFY2(!QString(action->text()).remove(QLatin1String("&&")).contains(QLatin1Char('&')),
            qPrintable(action->text()));
        if (!action->text().contains(QLatin1String("&&")))
            continue;
        ++withQuery;
        const QString shown = action->iconText(); // the text as drawn, mnemonics resolved
        action->trigger();
        QVERIFY2(
            shown.startsWith(url()->currentText()), qPrintable(shown + QStringLiteral(" / ") + url()->currentText()));
        QVERIFY(url()->currentText().contains(QLatin1Char('&')));
    }
    QVERIFY(withQuery >= 1);
}

void TestRequestComposer::restoredMaskedCredential_blocksSendUntilTypedOrUnticked()
{
    // What a restart restores: the token was never written to the settings file.
    Core::RequestDraft saved = m_composer->draft();
    saved.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer s3cret"), true},
        {QStringLiteral("Accept"), QStringLiteral("*/*"), true}};
    const auto restored = Core::RequestDraft::fromJson(saved.toJson());
    QVERIFY(restored);
    QCOMPARE(restored->headers.first().value, QStringLiteral("Bearer REDACTED"));
    m_composer->setDraft(*restored);

    QVERIFY(!m_composer->canSend());
    QVERIFY2(m_composer->problem().contains(QLatin1String("re-enter the value of Authorization")),
        qPrintable(m_composer->problem()));
    QVERIFY(!m_composer->sendAction()->isEnabled());
    QVERIFY(message()->isVisible());
    HeaderTableModel *model = m_composer->headerModel();
    const QModelIndex value = model->index(0, HeaderTableModel::Value);
    QVERIFY2(
        value.data().toString().contains(QLatin1String("re-enter the token")), qPrintable(value.data().toString()));
    QVERIFY(value.data(Qt::ForegroundRole).isValid());
    QVERIFY(value.data(Qt::ToolTipRole).toString().contains(QLatin1String("Send is blocked")));
    QVERIFY(!model->index(1, HeaderTableModel::Value).data(Qt::ForegroundRole).isValid());

    // Unticked, the header is not sent: nothing to block.
    QVERIFY(model->setData(model->index(0, HeaderTableModel::Enabled), Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY2(m_composer->canSend(), qPrintable(m_composer->problem()));
    QVERIFY(model->setData(model->index(0, HeaderTableModel::Enabled), Qt::Checked, Qt::CheckStateRole));
    QVERIFY(!m_composer->canSend());

    // Typed again: sent as typed. A word that merely contains the mask is no mask.
    QVERIFY(model->setData(value, QStringLiteral("Bearer UNREDACTEDtoken"), Qt::EditRole));
    QVERIFY2(m_composer->canSend(), qPrintable(m_composer->problem()));
    QVERIFY(!model->index(0, HeaderTableModel::Value).data(Qt::ForegroundRole).isValid());
    QVERIFY(Core::RequestDraft::holdsMaskedCredential(QStringLiteral("REDACTED")));
    QVERIFY(Core::RequestDraft::holdsMaskedCredential(QStringLiteral("Basic REDACTED")));
    QVERIFY(!Core::RequestDraft::holdsMaskedCredential(QStringLiteral("REDACTEDX")));
    QVERIFY(!Core::RequestDraft::holdsMaskedCredential(QString()));
}

void TestRequestComposer::narrow_sendButtonsWrapBelowTheUrl()
{
    // Alone the composer is a window, which its layout would hold at the joined width;
    // in its dock the dock decides.
    m_composer->setMinimumSize(1, 1);
    m_composer->resize(1200, 300);
    QTRY_VERIFY(!m_composer->wrapsSendButtons());
    const int wide = m_composer->minimumSizeHint().width();
    m_composer->resize(wide, 300);
    QTRY_VERIFY2(m_composer->wrapsSendButtons(),
        qPrintable(QStringLiteral("%1 %2 %3").arg(wide).arg(m_composer->width()).arg(m_composer->sizeHint().width())));
    QCOMPARE(m_composer->minimumSizeHint().width(), wide);
    QVERIFY(wide < 600);
    // Every send button whole and inside the composer, below the URL.
    const QWidget *urlBox = url();
    const QList<QAction *> sendActions{
        m_composer->sendAction(), m_composer->batchAction(), m_composer->repeatAction(), m_composer->stopAction()};
    int buttons = 0;
    for (QToolButton *button : m_composer->findChildren<QToolButton *>()) {
        if (!sendActions.contains(button->defaultAction()))
            continue;
        ++buttons;
        QTRY_VERIFY(button->isVisible());
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        const QRect inside(button->mapTo(m_composer, QPoint(0, 0)), button->size());
        QVERIFY2(m_composer->rect().contains(inside), qPrintable(button->text()));
        QTRY_VERIFY(button->mapTo(m_composer, QPoint(0, 0)).y()
            >= urlBox->mapTo(m_composer, QPoint(0, 0)).y() + urlBox->height());
    }
    QCOMPARE(buttons, 4);
    m_composer->resize(1200, 300);
    QTRY_VERIFY(!m_composer->wrapsSendButtons());
}

void TestRequestComposer::retryHeaders_shownGreyed_switchOffPerRequest()
{
    HeaderTableModel *model = m_composer->headerModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    Core::RequestDraft draft = m_composer->draft();
    draft.headers = {{QStringLiteral("Accept"), QStringLiteral("*/*"), true}};
    m_composer->setDraft(draft);
    // Below the user's headers, RetryLab's own, greyed and not editable.
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->index(1, HeaderTableModel::Name).data().toString(), QStringLiteral("X-Retry-Request-Id"));
    QCOMPARE(model->index(2, HeaderTableModel::Name).data().toString(), QStringLiteral("X-Retry-Attempt"));
    QVERIFY(model->index(2, HeaderTableModel::Value).data(Qt::ForegroundRole).isValid());
    QVERIFY(!(model->flags(model->index(1, HeaderTableModel::Name)) & Qt::ItemIsEditable));
    QVERIFY(!model->setData(model->index(1, HeaderTableModel::Name), QStringLiteral("X-Other")));
    QCOMPARE(model->index(1, HeaderTableModel::Enabled).data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(m_composer->draft().attemptHeaders);
    QCOMPARE(m_composer->draft().headers.size(), 1); // never saved as the user's headers

    // One switch for both, per request; it reaches the spec the executor gets.
    QSignalSpy changed(m_composer, &RequestComposer::draftChanged);
    QVERIFY(model->setData(model->index(2, HeaderTableModel::Enabled), Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(!changed.isEmpty());
    QCOMPARE(model->index(1, HeaderTableModel::Enabled).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QVERIFY(!m_composer->draft().attemptHeaders);
    const auto spec = Core::RequestTemplate::build(m_composer->draft(), context());
    QVERIFY(spec);
    QVERIFY(!spec->attemptHeaders);
    // Saved and restored with the request.
    const auto restored = Core::RequestDraft::fromJson(m_composer->draft().toJson());
    QVERIFY(restored);
    QVERIFY(!restored->attemptHeaders);
    // Rows are added above them and they cannot be removed.
    QVERIFY(!model->removeRows(1, 1));
    QVERIFY(!model->insertRows(2, 1));
    QVERIFY(model->insertRows(1, 1));
    QCOMPARE(model->headerCount(), 2);
    QCOMPARE(model->index(2, HeaderTableModel::Name).data().toString(), QStringLiteral("X-Retry-Request-Id"));
}

void TestRequestComposer::fallbacks_typedOnePerLine_checkedAndCounted()
{
    auto *fallbacks = m_composer->findChild<QPlainTextEdit *>(QStringLiteral("fallbacks"));
    auto *tabs = m_composer->findChild<QTabWidget *>(QStringLiteral("details"));
    QVERIFY(fallbacks && tabs);
    const int tab = tabs->indexOf(fallbacks->parentWidget());
    QVERIFY(tab >= 0);
    QCOMPARE(tabs->tabText(tab), QStringLiteral("Fallbacks"));
    tabs->setCurrentIndex(tab);

    fallbacks->setFocus();
    QTest::keyClicks(fallbacks, QStringLiteral("{server}/status/200?key={id}"));
    QTest::keyClick(fallbacks, Qt::Key_Return);
    QTest::keyClick(fallbacks, Qt::Key_Return);
    QTest::keyClicks(fallbacks, QStringLiteral("  https://backup.test/x  "));
    QTest::keyClick(fallbacks, Qt::Key_Return);
    QCOMPARE(m_composer->draft().fallbackTemplates,
        (QStringList{QStringLiteral("{server}/status/200?key={id}"), QStringLiteral("https://backup.test/x")}));
    QCOMPARE(tabs->tabText(tab), QStringLiteral("Fallbacks (2)"));
    QVERIFY(m_composer->canSend());

    // One that cannot be sent blocks Send and is named.
    QTest::keyClicks(fallbacks, QStringLiteral("ftp://127.0.0.1/x"));
    QVERIFY(!m_composer->canSend());
    QVERIFY2(m_composer->problem().contains(QLatin1String("Fallback 3")), qPrintable(m_composer->problem()));

    // A draft brings its fallbacks back into the field.
    Core::RequestDraft draft;
    draft.fallbackTemplates = {QStringLiteral("http://127.0.0.1:1/alt")};
    m_composer->setDraft(draft);
    QCOMPARE(fallbacks->toPlainText(), QStringLiteral("http://127.0.0.1:1/alt"));
    QCOMPARE(tabs->tabText(tab), QStringLiteral("Fallbacks (1)"));
    QVERIFY(m_composer->canSend());
}

void TestRequestComposer::fallbackOn_typedList_checkedWhereTyped_keptInTheDraft()
{
    auto *fallbacks = m_composer->findChild<QPlainTextEdit *>(QStringLiteral("fallbacks"));
    auto *fallbackOn = m_composer->findChild<QLineEdit *>(QStringLiteral("fallbackOn"));
    auto *message = m_composer->findChild<FieldMessage *>(QStringLiteral("fallbackOnMessage"));
    auto *tabs = m_composer->findChild<QTabWidget *>(QStringLiteral("details"));
    QVERIFY(fallbacks && fallbackOn && message && tabs);
    const int tab = tabs->indexOf(fallbackOn->parentWidget());
    QCOMPARE(tab, tabs->indexOf(fallbacks->parentWidget())); // on the Fallbacks tab
    tabs->setCurrentIndex(tab);
    QVERIFY(m_composer->draft().fallbackOn.isEmpty());
    QCOMPARE(message->kind(), FieldMessage::Kind::None); // empty: the policy's faults, nothing to say

    fallbacks->setPlainText(QStringLiteral("{server}/status/200"));
    fallbackOn->setFocus();
    QTest::keyClicks(fallbackOn, QStringLiteral("503, timeout"));
    QCOMPARE(m_composer->draft().fallbackOn, (QStringList{QStringLiteral("503"), QStringLiteral("timeout")}));
    QCOMPARE(message->kind(), FieldMessage::Kind::Note);
    QVERIFY2(message->text().contains(QLatin1String("503")) && message->text().contains(QLatin1String("timeout")),
        qPrintable(message->text()));
    QVERIFY(m_composer->canSend());
    QCOMPARE(tabs->tabText(tab), QStringLiteral("Fallbacks (1)"));

    // A wrong entry is named under the field, marks the tab and blocks Send.
    QTest::keyClicks(fallbackOn, QStringLiteral(", 6xx"));
    QCOMPARE(message->kind(), FieldMessage::Kind::Error);
    QVERIFY2(message->text().contains(QLatin1String("\"6xx\"")), qPrintable(message->text()));
    QVERIFY(!m_composer->canSend());
    QVERIFY2(m_composer->problem().contains(QLatin1String("\"6xx\"")), qPrintable(m_composer->problem()));
    QVERIFY2(tabs->tabText(tab).contains(QChar(0x26a0)), qPrintable(tabs->tabText(tab)));

    // The draft keeps the list (it is saved with the request) and brings it back into the field.
    Core::RequestDraft draft;
    draft.fallbackTemplates = {QStringLiteral("http://127.0.0.1:1/alt")};
    draft.fallbackOn = {QStringLiteral("5xx"), QStringLiteral("connection-reset")};
    const auto saved = Core::RequestDraft::fromJson(draft.toJson());
    QVERIFY2(saved, qPrintable(saved.error()));
    m_composer->setDraft(*saved);
    QCOMPARE(fallbackOn->text(), QStringLiteral("5xx, connection-reset"));
    QCOMPARE(m_composer->draft().fallbackOn, draft.fallbackOn);
    QVERIFY(m_composer->canSend());
    QCOMPARE(message->kind(), FieldMessage::Kind::Note);
}

void TestRequestComposer::readModifyWrite_tabSetsKindAndShape()
{
    auto *on = m_composer->findChild<QCheckBox *>(QStringLiteral("readModifyWrite"));
    auto *tabs = m_composer->findChild<QTabWidget *>(QStringLiteral("details"));
    auto *method = m_composer->findChild<QComboBox *>(QStringLiteral("method"));
    auto *valuePointer = m_composer->findChild<QLineEdit *>(QStringLiteral("rmwValuePointer"));
    auto *iam = m_composer->findChild<QToolButton *>(QStringLiteral("rmwLikeIam"));
    QVERIFY(on && tabs && method && valuePointer && iam);
    const int rmwTab = tabs->indexOf(m_composer->findChild<QWidget *>(QStringLiteral("readModifyWriteScroll")));
    QCOMPARE(tabs->tabText(rmwTab), QStringLiteral("Read-modify-write"));
    QVERIFY(!valuePointer->isEnabled()); // off: the shape has no say
    QVERIFY(!m_composer->draft().readModifyWrite);

    url()->lineEdit()->selectAll();
    QTest::keyClicks(url()->lineEdit(), QStringLiteral("{server}/occ/{id}"));
    on->setChecked(true);
    QVERIFY(m_composer->draft().readModifyWrite);
    QCOMPARE(tabs->tabText(rmwTab), QStringLiteral("Read-modify-write \u2713"));
    QVERIFY(!method->isEnabled()); // the shape's methods are sent, not the method field's
    QVERIFY(valuePointer->isEnabled());
    QVERIFY(m_composer->canSend());

    iam->click();
    const Core::RequestDraft draft = m_composer->draft();
    QCOMPARE(draft.shape.readMethod, QByteArray("POST")); // IAM reads with POST ...:getIamPolicy
    QCOMPARE(draft.shape.writeMethod, QByteArray("POST"));
    QCOMPARE(draft.shape.etagPointer, QStringLiteral("/etag"));
    QCOMPARE(draft.shape.writeEnvelope, QStringLiteral("policy"));
    QCOMPARE(draft.shape.valuePointer, QStringLiteral("/value"));
    const auto spec = Core::RequestTemplate::build(draft, context());
    QVERIFY2(spec, qPrintable(spec.error()));
    QCOMPARE(spec->kind, Core::RequestSpec::Kind::ReadModifyWrite);
    QCOMPARE(spec->readModifyWrite.etagPointer, QStringLiteral("/etag"));

    // A pointer that is not one stops the send and says why.
    valuePointer->setText(QStringLiteral("value"));
    QVERIFY(!m_composer->canSend());
    QVERIFY2(m_composer->problem().contains(QLatin1String("JSON pointer")), qPrintable(m_composer->problem()));
    // The draft carries the shape through the settings.
    const auto back = Core::RequestDraft::fromJson(m_composer->draft().toJson());
    QVERIFY2(back, qPrintable(back.error()));
    QCOMPARE(*back, m_composer->draft());
    on->setChecked(false);
    QVERIFY(method->isEnabled());
}

void TestRequestComposer::batchProgress_aThousandReports_paintTheBarAFewTimes()
{
    // Each report of a finished request used to repaint the bar there and then (and with it
    // whatever else was waiting to be painted): a thousand paints for a batch of 1,000.
    auto *progress = m_composer->findChild<QProgressBar *>(QStringLiteral("batchProgress"));
    int paints = 0;
    struct PaintCounter : QObject
    {
        int *count;
        explicit PaintCounter(int *c) : count(c) { }
        bool eventFilter(QObject *, QEvent *event) override
        {
            if (event->type() == QEvent::Paint)
                ++*count;
            return false;
        }
    } counter(&paints);
    m_composer->setBatchProgress(0, 1000, 0);
    QVERIFY(progress->isVisible());
    QCoreApplication::processEvents();
    progress->installEventFilter(&counter);
    for (int finished = 1; finished < 1000; ++finished)
        m_composer->setBatchProgress(finished, 1000, finished);
    QVERIFY2(paints <= 2, qPrintable(QString::number(paints)));
    // What came last is shown soon after, and the batch's end at once.
    QTRY_COMPARE(progress->value(), 999);
    QVERIFY(progress->text().contains(QLatin1String("999/1000")));
    m_composer->setBatchProgress(1000, 1000, 998);
    QCOMPARE(progress->value(), 1000);
    QVERIFY(progress->toolTip().contains(QLatin1String("998 of them succeeded")));
    progress->removeEventFilter(&counter);
}

void TestRequestComposer::batchProgress_keepsItsTextWhole_inALargerFont()
{
    Ui::RequestComposer composer;
    auto *progress = composer.findChild<QProgressBar *>(QStringLiteral("batchProgress"));
    QVERIFY(progress);
    const auto needed
        = [progress] { return progress->fontMetrics().horizontalAdvance(QStringLiteral("batch 10000/10000")); };
    QVERIFY(progress->minimumWidth() > needed());
    // Presentation mode's font, half as large again: a fixed 170 px cut the text.
    QFont larger = composer.font();
    larger.setPointSizeF(larger.pointSizeF() * 1.5);
    composer.setFont(larger);
    QVERIFY2(progress->minimumWidth() > needed() && progress->maximumWidth() >= progress->minimumWidth(),
        qPrintable(QStringLiteral("%1 for %2").arg(progress->minimumWidth()).arg(needed())));
    QVERIFY(progress->minimumWidth() > 170);
}

QTEST_MAIN(TestRequestComposer)
#include "tst_requestcomposer.moc"
