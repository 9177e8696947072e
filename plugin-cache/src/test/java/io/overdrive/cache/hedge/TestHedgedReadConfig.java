package io.overdrive.cache.hedge;

import com.google.common.collect.ImmutableMap;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.units.Duration;
import io.airlift.units.MinDuration;
import io.overdrive.cache.hedge.HedgedReadConfig.Mode;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Min;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestHedgedReadConfig
{
    @Test
    void defaults()
    {
        assertRecordedDefaults(recordDefaults(HedgedReadConfig.class)
                .setThreadPoolSize(32)
                .setThreshold("adaptive")
                .setAdaptivePercentile(95)
                .setAdaptiveFactor(3)
                .setAdaptiveMin(new Duration(10, MILLISECONDS))
                .setAdaptiveMax(new Duration(10, SECONDS))
                .setAdaptiveInitial(new Duration(500, MILLISECONDS))
                .setMaxRatio(0.05)
                .setBudgetReserve(10)
                .setMode("AUTO"));
        // on by default, HDFS's own hedging for HDFS and the wrapper for object stores, at a threshold that adapts to the storage
        HedgedReadConfig config = new HedgedReadConfig();
        assertValidates(config);
        assertThat(config.isEnabled()).isTrue();
        assertThat(config.getMode()).isEqualTo(HedgedReadConfig.Mode.AUTO);
        assertThat(config.modeWasSet()).isFalse();
        assertThat(new HedgedReadConfig().setMode("native").modeWasSet()).isTrue();
        assertThat(config.isAdaptive()).isTrue();
        assertThat(config.getFixedThreshold()).isEmpty();
    }

    @Test
    void explicitProperties()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("hedged-read.threadpool-size", "16")
                .put("hedged-read.threshold", "250ms")
                .put("hedged-read.adaptive-percentile", "99")
                .put("hedged-read.adaptive-factor", "4.5")
                .put("hedged-read.adaptive-min", "5ms")
                .put("hedged-read.adaptive-max", "3s")
                .put("hedged-read.adaptive-initial", "1s")
                .put("hedged-read.max-ratio", "0.1")
                .put("hedged-read.budget-reserve", "0")
                .put("hedged-read.mode", "WRAPPER")
                .buildOrThrow();
        HedgedReadConfig expected = new HedgedReadConfig()
                .setThreadPoolSize(16)
                .setThreshold("250ms")
                .setAdaptivePercentile(99)
                .setAdaptiveFactor(4.5)
                .setAdaptiveMin(new Duration(5, MILLISECONDS))
                .setAdaptiveMax(new Duration(3, SECONDS))
                .setAdaptiveInitial(new Duration(1, SECONDS))
                .setMaxRatio(0.1)
                .setBudgetReserve(0)
                .setMode("WRAPPER");
        assertFullMapping(properties, expected);
        assertThat(expected.isEnabled()).isTrue();
        assertThat(expected.getFixedThreshold()).contains(new Duration(250, MILLISECONDS));
    }

    @Test
    void invalidThresholds()
    {
        for (String threshold : new String[] {"0ms", "0s", "-1s", "banana", "", "adaptively", "500"}) {
            assertFailsValidation(new HedgedReadConfig().setThreshold(threshold),
                    "thresholdValid", "hedged-read.threshold must be a duration above 0 (e.g. 500ms) or 'adaptive'", AssertTrue.class);
        }
    }

    @Test
    void invalidThresholdNamesThePropertyWhenLoaded()
    {
        ConfigurationFactory factory = new ConfigurationFactory(Map.of("hedged-read.threshold", "banana"));
        assertThatThrownBy(() -> factory.build(HedgedReadConfig.class))
                .hasMessageContaining("hedged-read.threshold must be a duration above 0 (e.g. 500ms) or 'adaptive'");
    }

    @Test
    void adaptiveThresholdIsCaseInsensitive()
    {
        for (String threshold : new String[] {"adaptive", "ADAPTIVE", "Adaptive", " adaptive "}) {
            HedgedReadConfig config = new HedgedReadConfig().setThreshold(threshold);
            assertValidates(config);
            assertThat(config.isAdaptive()).as(threshold).isTrue();
            assertThat(config.getThreshold()).isEqualTo(HedgedReadConfig.ADAPTIVE);
            assertThat(config.getFixedThreshold()).isEmpty();
        }
        HedgedReadConfig loaded = new ConfigurationFactory(Map.of("hedged-read.threshold", "Adaptive", "hedged-read.mode", "wrapper")).build(HedgedReadConfig.class);
        assertThat(loaded.isAdaptive()).isTrue();
        assertThat(loaded.getMode()).isEqualTo(Mode.WRAPPER);
        // a duration is normalized the same way
        assertThat(new HedgedReadConfig().setThreshold(" 2S ").getFixedThreshold()).contains(new Duration(2, SECONDS));
    }

    @Test
    void percentileMustBeWithinZeroAndHundredExclusive()
    {
        String message = "hedged-read.adaptive-percentile must be above 0 and below 100";
        assertFailsValidation(new HedgedReadConfig().setAdaptivePercentile(0), "adaptivePercentile", message, DecimalMin.class);
        assertFailsValidation(new HedgedReadConfig().setAdaptivePercentile(-1), "adaptivePercentile", message, DecimalMin.class);
        assertFailsValidation(new HedgedReadConfig().setAdaptivePercentile(100), "adaptivePercentile", message, DecimalMax.class);
        assertValidates(new HedgedReadConfig().setAdaptivePercentile(0.1));
        assertValidates(new HedgedReadConfig().setAdaptivePercentile(99.9));
    }

    @Test
    void maxRatioMustBeAboveZeroAndAtMostOne()
    {
        String message = "hedged-read.max-ratio must be above 0 and at most 1";
        assertFailsValidation(new HedgedReadConfig().setMaxRatio(0), "maxRatio", message, DecimalMin.class);
        assertFailsValidation(new HedgedReadConfig().setMaxRatio(1.5), "maxRatio", message, DecimalMax.class);
        assertValidates(new HedgedReadConfig().setMaxRatio(1));
        assertValidates(new HedgedReadConfig().setMaxRatio(0.001));
    }

    @Test
    void budgetReserveMustNotBeNegative()
    {
        assertFailsValidation(new HedgedReadConfig().setBudgetReserve(-1), "budgetReserve", "hedged-read.budget-reserve must be at least 0", Min.class);
        assertValidates(new HedgedReadConfig().setBudgetReserve(0));
        assertValidates(new HedgedReadConfig().setBudgetReserve(1000));
    }

    @Test
    void adaptiveInitialIsKeptWithinTheAdaptiveRange()
    {
        assertThat(new HedgedReadConfig().getAdaptiveInitialWithinRange()).isEqualTo(new Duration(500, MILLISECONDS));
        assertThat(new HedgedReadConfig().setAdaptiveMax(new Duration(200, MILLISECONDS)).getAdaptiveInitialWithinRange()).isEqualTo(new Duration(200, MILLISECONDS));
        assertThat(new HedgedReadConfig().setAdaptiveMin(new Duration(2, SECONDS)).getAdaptiveInitialWithinRange()).isEqualTo(new Duration(2, SECONDS));
        assertThat(new HedgedReadConfig().setAdaptiveInitial(new Duration(20, SECONDS)).getAdaptiveInitialWithinRange()).isEqualTo(new Duration(10, SECONDS));
        assertFailsValidation(new HedgedReadConfig().setAdaptiveInitial(new Duration(0, MILLISECONDS)),
                "adaptiveInitial", "hedged-read.adaptive-initial must be at least 1ms", MinDuration.class);
    }

    @Test
    void adaptiveMinMustNotBeAboveAdaptiveMax()
    {
        assertFailsValidation(new HedgedReadConfig().setAdaptiveMin(new Duration(2, SECONDS)).setAdaptiveMax(new Duration(1, SECONDS)),
                "adaptiveRangeValid", "hedged-read.adaptive-min must not be above hedged-read.adaptive-max", AssertTrue.class);
        assertValidates(new HedgedReadConfig().setAdaptiveMin(new Duration(1, SECONDS)).setAdaptiveMax(new Duration(1000, MILLISECONDS)));
        ConfigurationFactory factory = new ConfigurationFactory(Map.of("hedged-read.adaptive-min", "20s"));
        assertThatThrownBy(() -> factory.build(HedgedReadConfig.class))
                .hasMessageContaining("hedged-read.adaptive-min must not be above hedged-read.adaptive-max");
    }

    @Test
    void adaptiveFactorMustBeAtLeastOne()
    {
        assertFailsValidation(new HedgedReadConfig().setAdaptiveFactor(0.5), "adaptiveFactor", "hedged-read.adaptive-factor must be at least 1", DecimalMin.class);
        assertValidates(new HedgedReadConfig().setAdaptiveFactor(1));
    }

    @Test
    void everyModeTakesAnAdaptiveThreshold()
    {
        // HDFS's own hedging takes an adaptive threshold too: Overdrive sets it on the HDFS clients every second
        assertValidates(new HedgedReadConfig().setMode("NATIVE").setThreshold("adaptive"));
        assertValidates(new HedgedReadConfig().setMode("NATIVE").setThreshold("100ms"));
        assertValidates(new HedgedReadConfig().setMode("WRAPPER").setThreshold("adaptive"));
        assertValidates(new HedgedReadConfig().setMode("AUTO").setThreshold("adaptive"));
    }
}
