#pragma once

#include <QMainWindow>

namespace RetryLab::Ui {

/// The application's main window.
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
};

} // namespace RetryLab::Ui
