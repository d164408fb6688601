#include "ui/widgets/pictureexport.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace RetryLab::Ui::PictureExport {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RetryLab::Ui::PictureExport", text);
}

} // namespace

Core::Result<void> save(QWidget *widget, const QString &path, const QString &title)
{
    using R = Core::Result<void>;
    if (!widget || widget->size().isEmpty())
        return R::failure(tr("There is nothing to draw."));
    const QString shown = QDir::toNativeSeparators(path);
    if (QFileInfo(path).suffix().compare(QLatin1String("svg"), Qt::CaseInsensitive) == 0) {
        // Written to a temporary file first, so that a failure leaves no half picture.
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return R::failure(tr("%1: %2").arg(shown, file.errorString()));
        QSvgGenerator generator;
        generator.setOutputDevice(&file);
        generator.setSize(widget->size());
        generator.setViewBox(QRect(QPoint(0, 0), widget->size()));
        generator.setTitle(title);
        generator.setDescription(tr("Drawn by RetryLab"));
        {
            QPainter painter(&generator);
            widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren | QWidget::DrawWindowBackground);
        }
        if (!file.commit())
            return R::failure(tr("%1: %2").arg(shown, file.errorString()));
        return {};
    }
    QImage image(widget->size() * pngScale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(pngScale);
    image.fill(Qt::transparent);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren | QWidget::DrawWindowBackground);
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
        return R::failure(tr("%1: %2").arg(shown, file.errorString()));
    return {};
}

} // namespace RetryLab::Ui::PictureExport
