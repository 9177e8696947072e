package io.overdrive.it.demo;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

final class TestHostLoad
{
    @Test
    void parsesLoadAverageAndCountsIowaitAsIdleAndGuestNotTwice()
    {
        HostLoad.Snapshot snapshot = HostLoad.parse("1.52 0.61 0.70 2/345 6789\n", """
                cpu  100 20 30 400 50 6 4 10 7 3
                cpu0 50 10 15 200 25 3 2 5 3 1
                intr 12345
                """);
        assertThat(snapshot.loadAverage()).isEqualTo(1.52);
        // user + nice + system + irq + softirq + steal; guest is inside user already
        assertThat(snapshot.busy()).isEqualTo(100 + 20 + 30 + 6 + 4 + 10);
        assertThat(snapshot.idle()).isEqualTo(400 + 50);
        // an old kernel's four fields
        assertThat(HostLoad.parse("0.00 0 0 1/1 1", "cpu 1 2 3 4\n")).isEqualTo(new HostLoad.Snapshot(0, 6, 4));
        assertThatThrownBy(() -> HostLoad.parse("0.1", "intr 1\n")).hasMessage("no cpu line in /proc/stat");
    }

    @Test
    void utilisationIsBusyOverBusyAndIdleAndNinetyPercentIsCpuBound()
    {
        HostLoad.Window window = HostLoad.Window.between(new HostLoad.Snapshot(0.5, 1_000, 9_000), new HostLoad.Snapshot(2.5, 1_900, 9_100));
        assertThat(window.busy()).isEqualTo(900);
        assertThat(window.idle()).isEqualTo(100);
        assertThat(window.utilisation()).isCloseTo(0.9, within(1e-12));
        assertThat(window.cpuBound()).isTrue();
        assertThat(window.loadStart()).isEqualTo(0.5);
        assertThat(window.loadEnd()).isEqualTo(2.5);
        HostLoad.Window quieter = new HostLoad.Window(2.5, 1.0, 899, 101);
        assertThat(quieter.cpuBound()).isFalse();
        // two passes of a phase: jiffies add up, the load runs from the first's start to the last's end
        HostLoad.Window both = window.plus(quieter);
        assertThat(both).isEqualTo(new HostLoad.Window(0.5, 1.0, 1799, 201));
        assertThat(both.utilisation()).isCloseTo(0.8995, within(1e-12));
        // unknown stays unknown, and is never CPU-bound
        assertThat(HostLoad.Window.UNKNOWN.utilisation()).isNaN();
        assertThat(HostLoad.Window.UNKNOWN.cpuBound()).isFalse();
        assertThat(window.plus(HostLoad.Window.UNKNOWN).utilisation()).isNaN();
        assertThat(HostLoad.Window.between(HostLoad.Snapshot.UNKNOWN, new HostLoad.Snapshot(1, 2, 3)).utilisation()).isNaN();
        assertThat(new HostLoad.Window(1, 1, 0, 0).utilisation()).isNaN();
    }

    @Test
    void readsThisMachine()
    {
        HostLoad.Snapshot snapshot = HostLoad.read();
        if (snapshot.equals(HostLoad.Snapshot.UNKNOWN)) {
            return;
        }
        assertThat(snapshot.loadAverage()).isNotNegative();
        assertThat(snapshot.busy()).isPositive();
        assertThat(snapshot.idle()).isNotNegative();
    }
}
