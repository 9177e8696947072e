package io.overdrive.it.placement;

import io.overdrive.it.placement.PlacementSimulation.Run;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The report's PNG charts (JFreeChart, headless): P95 query time, hit ratio and load imbalance per policy and scale,
 * and Overdrive's settings.
 */
final class PlacementCharts
{
    static final String P95 = "p95-query-time.png";
    static final String HIT_RATIO = "hit-ratio.png";
    static final String LOAD = "load-imbalance.png";
    static final String SETTINGS = "overdrive-settings.png";

    private static final int WIDTH = 900;
    private static final int HEIGHT = 500;
    private static final Color[] POLICY_COLORS = {
            new Color(0x1f, 0x77, 0xb4), // overdrive
            new Color(0x08, 0x30, 0x6b), // overdrive-reported
            new Color(0x17, 0xbe, 0xcf), // overdrive-lru
            new Color(0x6b, 0xae, 0xd6), // overdrive-earlier
            new Color(0xd6, 0x27, 0x28), // trino
            new Color(0xf4, 0x9a, 0x9a), // trino-hosts-1
            new Color(0x9e, 0x1a, 0x1a), // trino-hosts-4
            new Color(0x5c, 0x0e, 0x0e), // trino-hosts-8
            new Color(0xff, 0x7f, 0x0e), // presto-modular
            new Color(0x2c, 0xa0, 0x2c), // presto-consistent
            new Color(0x88, 0x88, 0x88), // none
    };

    private PlacementCharts() {}

    static List<Path> write(Path directory, List<Run> runs)
    {
        List<Run> main = runs.stream().filter(run -> run.section().equals(PlacementReport.MAIN)).toList();
        String subtitle = "Simulated cluster, Zipf %.1f table popularity, %.0f%% offered load, a worker joining and one leaving (seed %d)"
                .formatted(main.getFirst().config().zipfExponent(), 100 * main.getFirst().config().utilisation(), main.getFirst().config().seed());
        List<Path> files = new ArrayList<>();
        files.add(save(directory.resolve(P95), byPolicyAndScale(main, "P95 query time (ms, log scale, lower is better)", "milliseconds", SimulationResult::queryP95, true, subtitle)));
        files.add(save(directory.resolve(HIT_RATIO), byPolicyAndScale(main, "Cache hit ratio (higher is better)", "hit ratio", SimulationResult::hitRatio, false, subtitle)));
        files.add(save(directory.resolve(LOAD), load(main, subtitle)));
        List<Run> settings = runs.stream().filter(run -> run.section().equals(PlacementReport.SETTINGS_100)).toList();
        if (!settings.isEmpty()) {
            files.add(save(directory.resolve(SETTINGS), settings(settings)));
        }
        return files;
    }

    private static JFreeChart byPolicyAndScale(List<Run> runs, String title, String axis, ToDoubleFunction<SimulationResult> value, boolean logarithmic, String subtitle)
    {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (Run run : runs) {
            dataset.addValue(value.applyAsDouble(run.result()), run.result().policy(), scale(run));
        }
        JFreeChart chart = ChartFactory.createBarChart(title, null, axis, dataset, PlotOrientation.VERTICAL, true, false, false);
        if (logarithmic) {
            LogAxis log = new LogAxis(axis);
            log.setBase(10);
            log.setSmallestValue(10);
            // a tick per power of ten, written out (10, 100, 1,000 ms), not as 10^x
            log.setTickUnit(new NumberTickUnit(1), false, true);
            log.setNumberFormatOverride(new DecimalFormat("#,##0", DecimalFormatSymbols.getInstance(Locale.ROOT)));
            chart.getCategoryPlot().setRangeAxis(log);
        }
        return style(chart, subtitle, true);
    }

    private static JFreeChart load(List<Run> runs, String subtitle)
    {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (Run run : runs) {
            dataset.addValue(run.result().maxAvgSplits(), run.result().policy(), scale(run) + ": splits");
        }
        for (Run run : runs) {
            dataset.addValue(run.result().maxAvgBusy(), run.result().policy(), scale(run) + ": busy time");
        }
        JFreeChart chart = ChartFactory.createBarChart("Most loaded worker / average (1 = even; the goal is <= 1.25)", null, "max / avg", dataset,
                PlotOrientation.VERTICAL, true, false, false);
        return style(chart, subtitle, true);
    }

    private static JFreeChart settings(List<Run> runs)
    {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (Run run : runs) {
            String label = run.variant().replace("preferred-hosts-count", "hosts").replace("load-balance-epsilon", "epsilon").replace("affinity-granularity ", "");
            dataset.addValue(run.result().queryP95(), "P95 query time (ms)", label);
            dataset.addValue(1000 * run.result().hitRatio(), "hit ratio x 1000", label);
        }
        JFreeChart chart = ChartFactory.createBarChart("Overdrive's settings at %,d workers".formatted(runs.getFirst().config().workers()), null, "ms; hit ratio x 1000", dataset,
                PlotOrientation.HORIZONTAL, true, false, false);
        return style(chart, "The real placer under other node-selection.* values; everything else as in the sensitivity runs", false);
    }

    private static String scale(Run run)
    {
        return String.format(Locale.ROOT, "%,d workers", run.config().workers());
    }

    private static JFreeChart style(JFreeChart chart, String subtitle, boolean policyColors)
    {
        chart.addSubtitle(new TextTitle(subtitle));
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        if (plot.getRangeAxis() instanceof NumberAxis axis) {
            axis.setAutoRangeIncludesZero(true);
        }
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        if (policyColors) {
            for (int series = 0; series < POLICY_COLORS.length; series++) {
                renderer.setSeriesPaint(series, POLICY_COLORS[series]);
            }
        }
        return chart;
    }

    private static Path save(Path file, JFreeChart chart)
    {
        try {
            ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
            return file;
        }
        catch (IOException e) {
            throw new UncheckedIOException("cannot write the chart " + file, e);
        }
    }
}
