package io.overdrive.merge.config;

import com.google.common.collect.ImmutableMap;
import io.airlift.configuration.ConfigurationFactory;
import io.airlift.units.Duration;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class TestMergeConfig
{
    @Test
    public void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(MergeConfig.class)
                .setPoolSize(Runtime.getRuntime().availableProcessors())
                .setParallelism("auto")
                .setBatchSize(4096)
                .setTargetTaskTime(new Duration(10, MILLISECONDS))
                .setQueueSize(16)
                .setFifo(true)
                .setTimeout(new Duration(1, HOURS)));
    }

    @Test
    public void testExplicitPropertyMappings()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("merge.pool-size", "7")
                .put("merge.parallelism", "3")
                .put("merge.batch-size", "1024")
                .put("merge.target-task-time", "2s")
                .put("merge.queue-size", "4")
                .put("merge.fifo", "false")
                .put("merge.timeout", "5m")
                .buildOrThrow();

        MergeConfig expected = new MergeConfig()
                .setPoolSize(7)
                .setParallelism("3")
                .setBatchSize(1024)
                .setTargetTaskTime(new Duration(2, SECONDS))
                .setQueueSize(4)
                .setFifo(false)
                .setTimeout(new Duration(5, MINUTES));

        assertFullMapping(properties, expected);
    }

    @Test
    public void testParallelismValues()
    {
        assertThat(MergeParallelism.parse("auto")).contains(MergeParallelism.AUTO);
        assertThat(MergeParallelism.parse(" AUTO ")).contains(MergeParallelism.AUTO);
        assertThat(MergeParallelism.parse("4")).contains(MergeParallelism.fixed(4));
        assertThat(MergeParallelism.fixed(4)).hasToString("4");
        assertThat(MergeParallelism.AUTO).hasToString("auto");
        // parsed once, when the property is set
        assertThat(new MergeConfig().setParallelism("8").getParallelism()).isEqualTo(MergeParallelism.fixed(8));
        assertThat(new MergeConfig().getParallelism()).isEqualTo(MergeParallelism.AUTO);
        for (String invalid : new String[] {"0", "-2", "two", "", "1.5"}) {
            assertThat(MergeParallelism.parse(invalid)).as(invalid).isEmpty();
            assertThat(new MergeConfig().setParallelism(invalid).getParallelism()).isNull();
        }
    }

    @Test
    public void testInvalidPropertiesNameThePropertyAndTheFix()
    {
        assertInvalid("merge.parallelism", "zero", "merge.parallelism must be 'auto' or a positive integer");
        assertInvalid("merge.parallelism", "0", "merge.parallelism must be 'auto' or a positive integer");
        assertInvalid("merge.pool-size", "0", "merge.pool-size must be at least 1");
        assertInvalid("merge.batch-size", "0", "merge.batch-size must be at least 1 row");
        assertInvalid("merge.queue-size", "0", "merge.queue-size must be at least 1 batch");
        assertInvalid("merge.target-task-time", "10us", "merge.target-task-time must be at least 100us");
        assertInvalid("merge.target-task-time", "1m", "merge.target-task-time must be at most 10s");
        assertInvalid("merge.timeout", "10ms", "merge.timeout must be at least 1s");
    }

    private static void assertInvalid(String property, String value, String message)
    {
        ConfigurationFactory factory = new ConfigurationFactory(Map.of(property, value));
        assertThatThrownBy(() -> factory.build(MergeConfig.class))
                .hasMessageContaining(property)
                .hasMessageContaining(message);
    }
}
