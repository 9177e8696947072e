package io.overdrive.it.demo;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The report's PNG charts, drawn with JFreeChart in headless mode: query time percentiles, the query time distribution
 * (cumulative) and the bytes read from storage, per catalog and phase.
 */
final class DemoCharts
{
    static final String PERCENTILES = "latency-percentiles.png";
    static final String DISTRIBUTION = "latency-distribution.png";
    static final String REMOTE_BYTES = "remote-bytes.png";

    private static final int WIDTH = 900;
    private static final int HEIGHT = 500;

    private DemoCharts() {}

    /** Writes the three charts into {@code directory}; returns their files. */
    static List<Path> write(Path directory, List<PhaseSummary> summaries, List<String> catalogs, String subtitle)
    {
        System.setProperty("java.awt.headless", "true");
        return List.of(
                save(directory.resolve(PERCENTILES), percentiles(summaries, catalogs, subtitle)),
                save(directory.resolve(DISTRIBUTION), distribution(summaries, catalogs, subtitle)),
                save(directory.resolve(REMOTE_BYTES), remoteBytes(summaries, catalogs, subtitle)));
    }

    private static String category(PhaseSummary summary)
    {
        return summary.scenario().id() + " " + summary.phase().label();
    }

    private static JFreeChart percentiles(List<PhaseSummary> summaries, List<String> catalogs, String subtitle)
    {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (String catalog : catalogs) {
            for (PhaseSummary summary : summaries) {
                if (summary.catalog().equals(catalog)) {
                    dataset.addValue(summary.p95(), catalog, category(summary));
                }
            }
        }
        JFreeChart chart = ChartFactory.createBarChart("P95 query time as users see it (ms, lower is better)", null, "milliseconds", dataset, PlotOrientation.VERTICAL, true, false, false);
        return style(chart, subtitle);
    }

    // a cumulative distribution shows the whole tail, where a box plot hides it among its outliers; the first scenario's
    private static JFreeChart distribution(List<PhaseSummary> summaries, List<String> catalogs, String subtitle)
    {
        Scenario first = summaries.getFirst().scenario();
        List<PhaseSummary> shown = summaries.stream().filter(summary -> summary.scenario() == first).toList();
        XYSeriesCollection dataset = new XYSeriesCollection();
        for (PhaseSummary summary : shown) {
            XYSeries series = new XYSeries("%s %s".formatted(summary.catalog(), summary.phase().label()), true, true);
            List<Long> millis = summary.millis();
            series.add(0, 0);
            for (int i = 0; i < millis.size(); i++) {
                series.add(millis.get(i).doubleValue(), 100.0 * (i + 1) / millis.size());
            }
            dataset.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createXYLineChart("Share of queries done within x ms, %s (up and left is better)".formatted(first.id()),
                "milliseconds", "% of queries", dataset, PlotOrientation.VERTICAL, true, false, false);
        chart.addSubtitle(new TextTitle(subtitle));
        chart.setBackgroundPaint(Color.WHITE);
        XYPlot plot = chart.getXYPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        XYStepRenderer renderer = new XYStepRenderer();
        for (int series = 0; series < shown.size(); series++) {
            PhaseSummary summary = shown.get(series);
            renderer.setSeriesPaint(series, catalogColor(catalogs.indexOf(summary.catalog())));
            // cold dashed, warm solid
            renderer.setSeriesStroke(series, summary.phase() == PhaseResult.Phase.COLD
                    ? new BasicStroke(2.0f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10.0f, new float[] {8.0f, 5.0f}, 0.0f)
                    : new BasicStroke(2.5f));
        }
        plot.setRenderer(renderer);
        return chart;
    }

    private static JFreeChart remoteBytes(List<PhaseSummary> summaries, List<String> catalogs, String subtitle)
    {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (String catalog : catalogs) {
            for (PhaseSummary summary : summaries) {
                if (summary.catalog().equals(catalog)) {
                    dataset.addValue(summary.counters().remoteBytes() / (1024.0 * 1024.0), catalog, category(summary));
                }
            }
        }
        JFreeChart chart = ChartFactory.createBarChart("Bytes read from storage (MiB, the storage's count, lower is better)", null, "MiB", dataset, PlotOrientation.VERTICAL, true, false, false);
        return style(chart, subtitle);
    }

    private static JFreeChart style(JFreeChart chart, String subtitle)
    {
        chart.addSubtitle(new TextTitle(subtitle));
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        ((NumberAxis) plot.getRangeAxis()).setAutoRangeIncludesZero(true);
        // the same colour for a catalog in every chart: stock hive grey, Trino's cache orange, Overdrive blue
        for (int catalog = 0; catalog < 3; catalog++) {
            plot.getRenderer().setSeriesPaint(catalog, catalogColor(catalog));
        }
        CategoryAxis axis = plot.getDomainAxis();
        axis.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        return chart;
    }

    private static Color catalogColor(int catalog)
    {
        return switch (catalog) {
            case 0 -> new Color(0x88, 0x88, 0x88);
            case 1 -> new Color(0xff, 0x7f, 0x0e);
            default -> new Color(0x1f, 0x77, 0xb4);
        };
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
