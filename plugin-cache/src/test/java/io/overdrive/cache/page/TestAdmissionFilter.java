package io.overdrive.cache.page;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TestAdmissionFilter
{
    @Test
    void pageIsAdmittedOnItsSecondRead()
    {
        AdmissionFilter filter = new AdmissionFilter(10_000, 2);
        assertThat(filter.admits("file", 0)).isFalse();
        assertThat(filter.recordRead("file", 0)).isFalse();
        assertThat(filter.admits("file", 0)).isFalse();
        assertThat(filter.recordRead("file", 0)).isTrue();
        assertThat(filter.admits("file", 0)).isTrue();
        assertThat(filter.admits("file", 1)).isFalse();
    }

    @Test
    void oneOffScanPagesAreMostlyNotAdmitted()
    {
        AdmissionFilter filter = new AdmissionFilter(10_000, 2);
        for (int page = 0; page < 10_000; page++) {
            filter.recordRead("scan", page);
        }
        int falselyAdmitted = 0;
        for (int page = 0; page < 10_000; page++) {
            if (filter.admits("scan", page)) {
                falselyAdmitted++;
            }
        }
        // count-min over-estimates only through collisions: a few percent at most at this load
        assertThat(falselyAdmitted).isLessThan(500);
    }

    @Test
    void popularityFadesWithAgeing()
    {
        AdmissionFilter filter = new AdmissionFilter(1_000, 2);
        for (int page = 0; page < 100; page++) {
            for (int read = 0; read < 4; read++) {
                filter.recordRead("once-hot", page);
            }
        }
        assertThat(admitted(filter, "once-hot", 100)).isEqualTo(100);
        // five ageing periods (10 reads per expected entry each) of one-off reads of other pages
        for (int i = 0; i < 50_000; i++) {
            filter.recordRead("other", i);
        }
        // what is left is collision noise, the same for pages that were never read
        int noise = admitted(filter, "never-read", 100);
        assertThat(admitted(filter, "once-hot", 100)).isLessThanOrEqualTo(noise + 10);
    }

    private static int admitted(AdmissionFilter filter, String fileId, int pages)
    {
        int admitted = 0;
        for (int page = 0; page < pages; page++) {
            if (filter.admits(fileId, page)) {
                admitted++;
            }
        }
        return admitted;
    }

    @Test
    void countersSaturate()
    {
        AdmissionFilter filter = new AdmissionFilter(10_000, 15);
        for (int i = 0; i < 100; i++) {
            filter.recordRead("hot", 0);
        }
        // the doorkeeper's first read plus a saturated 4-bit counter
        assertThat(filter.frequency("hot", 0)).isEqualTo(16);
        assertThat(filter.admits("hot", 0)).isTrue();
    }
}
