package io.overdrive.scheduler.affinity;

import org.junit.jupiter.api.Test;

import static io.overdrive.scheduler.affinity.AffinityGranularity.FILE;
import static io.overdrive.scheduler.affinity.AffinityGranularity.SPLIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

public class TestAffinityGranularity
{
    @Test
    public void testFileKeyIgnoresTheSplitStart()
    {
        assertThat(FILE.affinityKey("hdfs://nn/warehouse/t/part-0.orc", 0)).isEqualTo("hdfs://nn/warehouse/t/part-0.orc");
        assertThat(FILE.affinityKey("hdfs://nn/warehouse/t/part-0.orc", 67_108_864)).isEqualTo("hdfs://nn/warehouse/t/part-0.orc");
    }

    @Test
    public void testSplitKeyDistinguishesRanges()
    {
        assertThat(SPLIT.affinityKey("hdfs://nn/warehouse/t/part-0.orc", 0)).isEqualTo("hdfs://nn/warehouse/t/part-0.orc#0");
        assertThat(SPLIT.affinityKey("hdfs://nn/warehouse/t/part-0.orc", 67_108_864)).isEqualTo("hdfs://nn/warehouse/t/part-0.orc#67108864");
        // a '#' inside the path cannot make two ranges collide: the offset is the suffix after the last '#'
        assertThat(SPLIT.affinityKey("/a#1", 2)).isNotEqualTo(SPLIT.affinityKey("/a", 12));
    }

    @Test
    public void testRejectsInvalidArguments()
    {
        assertThatThrownBy(() -> SPLIT.affinityKey("/a", -1)).hasMessage("splitStart is negative: -1");
        assertThatThrownBy(() -> FILE.affinityKey(null, 0)).hasMessage("path is null");
    }
}
