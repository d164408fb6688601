#include "ui/mainwindow.h"

#include <QLabel>

namespace RetryLab::Ui {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("RetryLab"));
    auto *label = new QLabel(tr("RetryLab"), this);
    label->setAlignment(Qt::AlignCenter);
    setCentralWidget(label);
    resize(1200, 800);
}

} // namespace RetryLab::Ui
