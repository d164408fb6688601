#include "ui/widgets/flowlayout.h"

#include <QPushButton>
#include <QTest>

using namespace RetryLab::Ui;

class TestFlowLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void wide_oneRow_narrow_wraps_neverCutsAnItem();
    void minimum_isTheWidestItem_heightFollowsTheWidth();
    void hiddenItems_takeNoRoom();
};

namespace {

struct Buttons
{
    Buttons()
    {
        layout = new FlowLayout(&host, 4, 4);
        for (const char *text : {"Save as…", "Overwrite", "Delete", "Import…", "Export…"}) {
            auto *button = new QPushButton(QString::fromUtf8(text));
            layout->addWidget(button);
            buttons.append(button);
        }
    }
    int oneRowWidth() const { return layout->sizeHint().width(); }

    QWidget host;
    FlowLayout *layout;
    QList<QPushButton *> buttons;
};

} // namespace

void TestFlowLayout::wide_oneRow_narrow_wraps_neverCutsAnItem()
{
    Buttons b;
    const int oneRow = b.oneRowWidth();
    QCOMPARE(b.layout->rowsAt(oneRow), 1);
    QVERIFY(b.layout->rowsAt(oneRow / 2) >= 2);
    QCOMPARE(b.layout->rowsAt(1), 5); // narrower than any button: one each, none cut

    b.host.resize(oneRow / 2, b.layout->heightForWidth(oneRow / 2));
    b.host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&b.host));
    b.layout->setGeometry(b.host.rect());
    for (QPushButton *button : std::as_const(b.buttons)) {
        QVERIFY2(b.host.rect().contains(button->geometry()), qPrintable(button->text()));
        QCOMPARE(button->size(), button->sizeHint());
    }
    // Reading order: left to right, then down.
    for (qsizetype i = 1; i < b.buttons.size(); ++i) {
        const QRect previous = b.buttons.at(i - 1)->geometry();
        const QRect current = b.buttons.at(i)->geometry();
        QVERIFY(
            current.top() > previous.top() || (current.top() == previous.top() && current.left() > previous.right()));
    }
}

void TestFlowLayout::minimum_isTheWidestItem_heightFollowsTheWidth()
{
    Buttons b;
    int widest = 0;
    for (QPushButton *button : std::as_const(b.buttons))
        widest = std::max(widest, button->minimumSizeHint().width());
    QCOMPARE(b.layout->minimumSize().width(), widest);
    QVERIFY(b.layout->hasHeightForWidth());
    const int oneRowHeight = b.layout->heightForWidth(b.oneRowWidth());
    QCOMPARE(oneRowHeight, b.buttons.first()->sizeHint().height());
    QVERIFY(b.layout->heightForWidth(widest) > 4 * oneRowHeight);
    QCOMPARE(b.layout->rowsAt(widest), 5);
}

void TestFlowLayout::hiddenItems_takeNoRoom()
{
    Buttons b;
    const int before = b.oneRowWidth();
    b.buttons.at(2)->hide();
    b.layout->invalidate();
    QVERIFY(b.oneRowWidth() < before);
    QCOMPARE(b.layout->rowsAt(b.oneRowWidth()), 1);
}

QTEST_MAIN(TestFlowLayout)
#include "tst_flowlayout.moc"
