// Measures what the policy dock costs per edit: a preview redraw for 10, 100
// and 1000 retries, and the editor taking a whole new policy. Not a test;
// writes its numbers to the file named on the command line.
//   QT_QPA_PLATFORM=offscreen bench_policypreview results.txt
#include "core/policy/presets.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/schedulepreviewchart.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTextStream>

#include <algorithm>

using namespace RetryLab;

namespace {

// Median of `runs` timings of `work`, in microseconds.
template<typename Work>
double medianMicroseconds(int runs, Work work)
{
    QList<double> times;
    for (int i = 0; i < runs; ++i) {
        QElapsedTimer timer;
        timer.start();
        work(i);
        times.append(static_cast<double>(timer.nsecsElapsed()) / 1000.0);
    }
    std::sort(times.begin(), times.end());
    return times.at(times.size() / 2);
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    const QString path = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("bench_policypreview.txt");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return 1;
    QTextStream out(&file);

    Ui::SchedulePreviewChart chart;
    chart.resize(700, 500);
    chart.show();
    for (auto scale : {Ui::SchedulePreviewChart::Scale::Linear, Ui::SchedulePreviewChart::Scale::Logarithmic}) {
        chart.setScale(scale);
        for (int retries : {10, 100, 1000}) {
            Core::BackoffPolicy policy;
            policy.maxAttempts = retries + 1;
            const double us = medianMicroseconds(30, [&](int i) {
                policy.baseDelayMs = 1000.0 + i; // a real change every run
                chart.setPolicy(policy);
                chart.flush();
                app.processEvents(); // let the chart lay out and paint
            });
            out << "preview redraw, " << (scale == Ui::SchedulePreviewChart::Scale::Linear ? "linear" : "log") << ", "
                << retries << " retries: median " << us << " us\n";
        }
    }

    // A burst of edits inside one coalescing interval.
    const int before = chart.redrawCount();
    Core::BackoffPolicy policy;
    for (int i = 0; i < 500; ++i) {
        policy.baseDelayMs = 500.0 + i;
        chart.setPolicy(policy);
    }
    chart.flush();
    out << "500 edits in one burst: " << (chart.redrawCount() - before) << " redraw(s)\n";

    Ui::PolicyEditor editor;
    editor.show();
    const auto &presets = Core::Presets::all();
    const double editorUs = medianMicroseconds(60, [&](int i) {
        editor.setPolicy(presets.at(i % presets.size()).policy);
        app.processEvents();
    });
    out << "editor setPolicy (refresh all fields, validate): median " << editorUs << " us\n";
    return 0;
}
