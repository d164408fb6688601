#include "ui/widgets/pictureexport.h"

#include "ui/session/uitr.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace RetryLab::Ui::PictureExport {

std::optional<Kind> kindOf(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return Kind::Png;
    if (suffix == QLatin1String("svg"))
        return Kind::Svg;
    return std::nullopt;
}

Core::Result<void> write(QWidget *widget, const QString &path, const QString &title, qreal scale)
{
    const QString shown = QDir::toNativeSeparators(path);
    const auto kind = kindOf(path);
    if (!kind)
        return Core::Error{QString(), Tr::tr("%1: a picture is written as PNG (.png) or SVG (.svg)").arg(shown)};
    if (!widget || widget->width() <= 0 || widget->height() <= 0)
        return Core::Error{QString(), Tr::tr("%1: there is nothing on screen to draw").arg(shown)};

    // Written to a temporary file first: a failed write leaves an earlier picture whole.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return Core::Error{QString(), Tr::tr("%1 cannot be written: %2").arg(shown, file.errorString())};
    if (*kind == Kind::Png) {
        QImage image;
        if (scale > 0.0) {
            image = QImage(widget->size() * scale, QImage::Format_ARGB32_Premultiplied);
            image.setDevicePixelRatio(scale);
            image.fill(widget->palette().color(widget->backgroundRole()));
            QPainter painter(&image);
            widget->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
        } else {
            image = widget->grab().toImage();
        }
        QImageWriter writer(&file, "png");
        if (!writer.write(image))
            return Core::Error{QString(), Tr::tr("%1 cannot be written: %2").arg(shown, writer.errorString())};
    } else {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(widget->size());
        svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
        svg.setResolution(widget->logicalDpiX());
        svg.setTitle(title);
        svg.setDescription(Tr::tr("Drawn by RetryLab"));
        QPainter painter;
        if (!painter.begin(&svg))
            return Core::Error{QString(), Tr::tr("%1 cannot be written: the drawing could not start").arg(shown)};
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
        painter.end();
    }
    if (!file.commit())
        return Core::Error{QString(), Tr::tr("%1 cannot be written: %2").arg(shown, file.errorString())};
    return {};
}

} // namespace RetryLab::Ui::PictureExport
